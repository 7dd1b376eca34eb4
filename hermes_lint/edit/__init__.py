"""Edit: the commands that write source — ``new-tool`` (scaffold, toolsets.py edit) and
``check --fix`` (fix/) — with libcst, formatting and comments kept."""
