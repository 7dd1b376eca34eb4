"""Examples several rules share: each rule lists them among its own ``valid`` examples."""

from __future__ import annotations

from hermes_lint.rules.base import Valid

# The handlers a Hermes tool module is written with — a ``*_tool`` function behind
# ``_handle_*(args, **kw)`` wrappers, tool_error/tool_result from the registry, a helper of
# another module, a dispatch table — on one schema. Every handler rule (HRM101-HRM108) must
# stay silent on it.
USUAL_HANDLERS = Valid(
    """
    import json
    import os
    from tools.registry import registry, tool_error, tool_result
    from tools.weather_api import fetch_forecast

    WEATHER_SCHEMA = {
        "name": "weather",
        "description": "Get current weather for a location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City name or coordinates"},
                "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
            },
            "required": ["location"],
        },
    }
    ANY_SCHEMA = {"name": "weather_any", "description": "d", "parameters": {"type": "object",
        "properties": {"action": {"type": "string"}, "location": {"type": "string"}}}}

    def check_weather_requirements() -> bool:
        return bool(os.getenv("WEATHER_API_KEY"))

    def weather_tool(location: str, units: str = "metric", task_id=None) -> str:
        api_key = os.getenv("WEATHER_API_KEY")
        if not api_key:
            return json.dumps({"error": "WEATHER_API_KEY not configured"})
        try:
            return json.dumps({"location": location, "temp": 22, "units": units})
        except Exception as e:
            return json.dumps({"error": str(e)})

    def _handle_weather(args, **kw):
        task_id = kw.get("task_id")
        return weather_tool(args.get("location", ""), args.get("units", "metric"), task_id=task_id)

    def _handle_forecast(args, **kw):
        if not args.get("location"):
            return tool_error("location is required")
        if args.get("units") == "raw":
            return tool_result({"raw": True}, units="raw")
        return fetch_forecast(args)

    _ACTIONS = {"now": _handle_weather, "forecast": _handle_forecast}

    def _handle_any(args, **kw):
        action = args.get("action", "now")
        if action not in _ACTIONS:
            return tool_error(f"unknown action: {action}")
        return _ACTIONS[action](args, **kw)

    registry.register(
        name="weather",
        toolset="weather",
        schema=WEATHER_SCHEMA,
        handler=lambda args, **kw: weather_tool(
            location=args.get("location", ""),
            units=args.get("units", "metric")),
        check_fn=check_weather_requirements,
        requires_env=["WEATHER_API_KEY"],
    )
    registry.register(name="weather_task", toolset="weather", schema=WEATHER_SCHEMA,
                      handler=_handle_weather, check_fn=check_weather_requirements)
    registry.register(name="forecast", toolset="weather", schema=WEATHER_SCHEMA,
                      handler=_handle_forecast, check_fn=check_weather_requirements)
    registry.register(name="weather_any", toolset="weather", schema=ANY_SCHEMA,
                      handler=_handle_any, check_fn=check_weather_requirements)
    """
)
