"""The project around the tool modules: toolsets.py, the project's own registry contract,
runtime toolset reachability, plugin registrations, and the per-name index the project rules use."""
