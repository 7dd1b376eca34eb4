"""HRM203's examples within one module (and the project helpers it imports): a check that
requires a variable, a handler that reads ``os.environ[...]`` unguarded or fails without a
variable, a listed variable nothing reads, and what keeps the rule silent (optional reads,
alternatives, disable flags, checks of other modules, reads that cannot be named). The
cross-module ones are in ``env_examples``; HRM203 lists both."""

from __future__ import annotations

from hermes_lint.rules.base import Invalid, Valid

VALID = (
    # the same helper, its variable listed
    Valid(
        """
        from tools.registry import registry
        from agent.secrets import get_secret

        def check_home_assistant():
            return bool(get_secret("HASS_TOKEN"))

        registry.register(name="ha_state", toolset="homeassistant", schema={}, handler=lambda a, **k: "",
                          check_fn=check_home_assistant, requires_env=["HASS_TOKEN"])
        """,
        files={"agent/secrets.py": """
            import os

            def get_secret(name, default=None):
                return os.environ.get(name, default)
        """},
    ),
    """
    import os
    from tools.registry import registry

    def check_weather_requirements():
        return bool(os.getenv("WEATHER_API_KEY"))

    def weather_tool(location, units="metric"):
        api_key = os.getenv("WEATHER_API_KEY")
        base = os.getenv("WEATHER_BASE_URL", "https://api.example.com")
        return api_key + base

    registry.register(name="weather", toolset="weather", schema={},
                      handler=lambda args, **kw: weather_tool(args.get("location", "")),
                      check_fn=check_weather_requirements, requires_env=["WEATHER_API_KEY"])
    """,
    # alternatives, disable flags and backend switches require nothing on their own
    """
    import os
    from tools.registry import registry

    def check_web():
        if os.getenv("HERMES_DISABLE_WEB"):
            return False
        return bool(os.getenv("FIRECRAWL_API_KEY") or os.getenv("FIRECRAWL_API_URL"))

    def check_terminal():
        backend = os.getenv("TERMINAL_ENV", "local")
        if backend == "modal":
            return bool(os.getenv("MODAL_TOKEN_ID"))
        return True

    registry.register(name="web", toolset="web", schema={}, handler=lambda a, **k: "", check_fn=check_web)
    registry.register(name="terminal", toolset="terminal", schema={}, handler=lambda a, **k: "",
                      check_fn=check_terminal)
    """,
    # `environ` imported by name and read whole: any variable may be read, by any name
    """
    from os import environ
    from tools.registry import registry

    SETTINGS = dict(environ)

    def check_mail():
        return "MAIL_HOST" in environ

    registry.register(name="mail", toolset="mail", schema={}, handler=lambda a, **k: "",
                      check_fn=check_mail, requires_env=["MAIL_HOST", "MAIL_TOKEN"])
    """,
    # shared checks imported from another module: the other module may test the variable
    """
    from tools.registry import registry
    from tools.browser_common import check_browser_requirements
    registry.register(name="browse", toolset="browser", schema={}, handler=lambda a, **k: "",
                      check_fn=check_browser_requirements, requires_env=["BROWSERBASE_API_KEY"])
    """,
    # a local check that delegates to a helper of another module, and dynamic reads
    """
    import os
    from tools.registry import registry
    from tools.env_checks import has_credentials
    REQUIRED = ["GITHUB_TOKEN", "GITHUB_ORG"]

    def check_github():
        return has_credentials("github")

    def check_all():
        return all(os.getenv(v) for v in REQUIRED)

    registry.register(name="gh", toolset="github", schema={}, handler=lambda a, **k: "",
                      check_fn=check_github, requires_env=["GITHUB_TOKEN"])
    registry.register(name="gh2", toolset="github", schema={}, handler=lambda a, **k: "",
                      check_fn=check_all, requires_env=REQUIRED)
    """,
    Valid(
        # a guarded os.environ[...] and a try/except KeyError are optional reads
        """
        import json, os
        from tools.registry import registry

        def _handle(args, **kw):
            if "PROXY_URL" in os.environ:
                proxy = os.environ["PROXY_URL"]
            try:
                region = os.environ["REGION"]
            except KeyError:
                region = "us-east-1"
            return json.dumps({"ok": True, "region": region})

        registry.register(name="t", toolset="s", schema={}, handler=_handle, check_fn=lambda: True)
        """
    ),
    Valid(
        # the check calls hooks of another module: the comprehension's `probe` is one of
        # them, not the module function of that name, so the variable may be tested there
        """
        from tools.registry import registry
        from agent.hooks import HOOKS

        def probe():
            return True

        def check_weather():
            return all(probe() for probe in HOOKS)

        registry.register(name="weather", toolset="web", schema={}, handler=lambda a, **k: "",
                          check_fn=check_weather, requires_env=["WEATHER_API_KEY"])
        """
    ),
)

INVALID = (
    # every path returns an error when the variable is unset: the handler needs it
    Invalid(
        # a method of the comprehension's own variable is no call into another module
        """
        from tools.registry import registry

        FEATURES = ["forecast", "alerts"]

        def check_weather():
            return all(name.strip() for name in FEATURES)

        registry.register(name="weather", toolset="web", schema={}, handler=lambda a, **k: "",
                          check_fn=check_weather, requires_env=["WEATHER_API_KEY"])
        """,
        line=9,
        col=57,
        message="`WEATHER_API_KEY` is listed in `requires_env` of tool `weather` but never "
        "checked: nothing in this module reads it",
    ),
    Invalid(
        """
        import json, os
        from tools.registry import registry, tool_error

        def _handle(args, **kw):
            token = os.getenv("NOTION_TOKEN")
            if not token:
                return tool_error("NOTION_TOKEN is not set")
            return json.dumps({"ok": True, "query": args.get("query", "")})

        registry.register(name="notion_search", toolset="notion", schema={}, handler=_handle,
                          check_fn=lambda: True)
        """,
        line=5,
        col=13,
        message="handler of tool `notion_search` needs `NOTION_TOKEN` (it returns an error on every "
        "path where it is unset) but `requires_env` does not list it and the check_fn does not test it",
        autofixed="""
        import json, os
        from tools.registry import registry, tool_error

        def _handle(args, **kw):
            token = os.getenv("NOTION_TOKEN")
            if not token:
                return tool_error("NOTION_TOKEN is not set")
            return json.dumps({"ok": True, "query": args.get("query", "")})

        registry.register(name="notion_search", toolset="notion", schema={}, handler=_handle,
                          check_fn=lambda: True, requires_env=["NOTION_TOKEN"])
        """,
    ),
    # the check reads its variable through a project helper (read from its file, never imported)
    Invalid(
        """
        from tools.registry import registry
        from agent.secrets import get_secret

        def check_home_assistant():
            return bool(get_secret("HASS_TOKEN"))

        registry.register(name="ha_state", toolset="homeassistant", schema={}, handler=lambda a, **k: "",
                          check_fn=check_home_assistant)
        """,
        files={"agent/secrets.py": """
            import os

            def get_secret(name, default=None):
                \"\"\"The secret named NAME, from the environment.\"\"\"
                return os.environ.get(name, default)
        """},
        line=5,
        col=17,
        message="`HASS_TOKEN` is required by check_fn `check_home_assistant` but not "
        "listed in `requires_env` of tool `ha_state`",
    ),
    # a third-party reader named in the env-readers setting
    Invalid(
        """
        from tools.registry import registry
        from vendor_secrets import secret

        def check_mail():
            return secret("MAIL_TOKEN") is not None

        registry.register(name="mail", toolset="mail", schema={}, handler=lambda a, **k: "",
                          check_fn=check_mail)
        """,
        options={"env-readers": ["vendor_secrets.secret"]},
        line=5,
        col=12,
        message="`MAIL_TOKEN` is required by check_fn `check_mail` but not "
        "listed in `requires_env` of tool `mail`",
        autofixed="""
        from tools.registry import registry
        from vendor_secrets import secret

        def check_mail():
            return secret("MAIL_TOKEN") is not None

        registry.register(name="mail", toolset="mail", schema={}, handler=lambda a, **k: "",
                          check_fn=check_mail, requires_env=["MAIL_TOKEN"])
        """,
    ),
    Invalid(
        """
        import os
        from tools.registry import registry

        def check_weather_requirements():
            return bool(os.getenv("WEATHER_API_KEY"))

        registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                          check_fn=check_weather_requirements)
        """,
        line=5,
        col=17,
        message="`WEATHER_API_KEY` is required by check_fn `check_weather_requirements` but not "
        "listed in `requires_env` of tool `weather`",
        fix=(('check_fn=check_weather_requirements)', 'check_fn=check_weather_requirements, requires_env=["WEATHER_API_KEY"])'),),
        autofixed="""
        import os
        from tools.registry import registry

        def check_weather_requirements():
            return bool(os.getenv("WEATHER_API_KEY"))

        registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                          check_fn=check_weather_requirements, requires_env=["WEATHER_API_KEY"])
        """,
    ),
    Invalid(
        """
        import os
        from tools.registry import registry

        def _client():
            return os.environ["NEWS_API_KEY"]

        def _handle(args, **kw):
            return _client()

        registry.register(name="news", toolset="news", schema={}, handler=_handle,
                          check_fn=lambda: True, requires_env=[])
        """,
        line=5,
        col=12,
        message="handler of tool `news` needs `NEWS_API_KEY` (`os.environ[...]` raises KeyError "
        "when it is unset) but `requires_env` does not list it",
        autofixed="""
        import os
        from tools.registry import registry

        def _client():
            return os.environ["NEWS_API_KEY"]

        def _handle(args, **kw):
            return _client()

        registry.register(name="news", toolset="news", schema={}, handler=_handle,
                          check_fn=lambda: True, requires_env=["NEWS_API_KEY"])
        """,
    ),
    Invalid(
        """
        import os
        from tools.registry import registry

        def check_weather_requirements():
            return bool(os.getenv("WEATHER_API_KEY"))

        registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                          check_fn=check_weather_requirements,
                          requires_env=["WEATHER_API_KEY", "WEATHER_API_SECRET"])
        """,
        line=9,
        col=52,
        message="`WEATHER_API_SECRET` is listed in `requires_env` of tool `weather` but never "
        "checked: nothing in this module reads it",
    ),
    Invalid(
        # a lambda check calling a helper with the variable's name; an early-failing import
        """
        import os
        from tools.registry import registry

        def _has(name):
            try:
                import docker
            except ImportError:
                return False
            return os.getenv(name) is not None

        registry.register(name="d", toolset="s", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: _has("DOCKER_HOST"), requires_env=["DOCKER_CERT"])
        """,
        line=9,
        col=12,
        message="`DOCKER_HOST` is required by the check_fn but not listed in `requires_env` of tool `d`",
        autofixed="""
        import os
        from tools.registry import registry

        def _has(name):
            try:
                import docker
            except ImportError:
                return False
            return os.getenv(name) is not None

        registry.register(name="d", toolset="s", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: _has("DOCKER_HOST"), requires_env=["DOCKER_CERT", "DOCKER_HOST"])
        """,
    ),
)
