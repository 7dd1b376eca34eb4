"""HRM203's examples of what decides whether a variable is needed beyond the check's own reads:
a variable a sibling module sets for the processes it starts (no configuration of the user's),
environment readers of another module with branches (optional, required or with a default, as
their paths say), a handler that fails on every path without a variable, and checks whose
standard-library callees can or cannot read one. HRM203 lists them among its own examples."""

from __future__ import annotations

from hermes_lint.rules.base import Invalid, Valid

VALID = (
    Valid(
        # the project hands the variable to the processes it starts: not the user's to set
        """
        import os
        from tools.registry import registry
        from tools.crew import CREW_ENV

        registry.register(name="crew_post", toolset="crew", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: bool(os.environ.get(CREW_ENV, "").strip()))
        """,
        files={"tools/crew.py": """
            import os, subprocess
            CREW_ENV = "CREW_MEMBER_ID"

            def start_member(member_id, argv):
                env = os.environ.copy()
                env[CREW_ENV] = member_id
                return subprocess.Popen(argv, env=env)
        """},
    ),
    Valid(
        # a reader with a path that returns something else is no reader; a child process
        # sees the whole environment, so the check may test the listed variable
        """
        import subprocess
        from tools.registry import registry
        from agent.vault import lookup

        def check_vault():
            return bool(lookup("VAULT_KEY"))

        registry.register(name="vault", toolset="vault", schema={}, handler=lambda a, **k: "",
                          check_fn=check_vault)
        registry.register(name="jira", toolset="jira", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: subprocess.run(["jira", "me"]).returncode == 0,
                          requires_env=["JIRA_TOKEN"])
        """,
        files={"agent/vault.py": """
            import os
            from agent.store import fetch

            def lookup(name):
                if os.environ.get("VAULT_ADDR"):
                    return fetch(name)
                return os.getenv(name)
        """},
    ),
    Valid(
        # with the variable unset the handler still answers: optional configuration
        """
        import json, os
        from tools.registry import registry

        def _search(args, **kw):
            key = os.environ.get("SEARCH_KEY")
            if key is None:
                return json.dumps({"results": [], "note": "anonymous search"})
            return json.dumps({"results": [key]})

        registry.register(name="search", toolset="web", schema={}, handler=_search, check_fn=lambda: True)
        """
    ),

    Valid(
        # a reader with a constant default on its paths never returns nothing: the check
        # passes with the variable unset; one that raises on some paths only is no
        # `os.environ[...]`, and one that may fall off its end returns None there
        """
        from tools.registry import registry
        from agent.settings import service_url, api_key, region

        def _forecast(args, **kw):
            return api_key("FORECAST_KEY") + region("FORECAST_REGION")

        registry.register(name="forecast", toolset="weather", schema={}, handler=_forecast,
                          check_fn=lambda: bool(service_url("FORECAST_URL")))
        """,
        files={"agent/settings.py": """
            import os

            def service_url(name):
                if os.getenv("SETTINGS_PROFILE"):
                    return os.environ.get(name, "https://forecast.example.com")
                return os.getenv(name) or "https://forecast.example.com"

            def api_key(name, default=""):
                if os.getenv("SETTINGS_STRICT"):
                    return os.environ[name]
                return os.environ.get(name, default)

            def region(name):
                if os.getenv("SETTINGS_PROFILE"):
                    return os.environ[name]
        """},
    ),
    Valid(
        # a reader that catches the KeyError of its `os.environ[...]`, and a delegating reader
        # whose other path returns something other than the variable
        """
        from tools.registry import registry
        from agent.settings import cached_key, lookup

        def _translate(args, **kw):
            return cached_key("TRANSLATE_KEY") + lookup("TRANSLATE_REGION")

        registry.register(name="translate", toolset="lang", schema={}, handler=_translate,
                          check_fn=lambda: True)
        """,
        files={"agent/settings.py": """
            import os
            from agent.store import STORE

            def _required(name):
                return os.environ[name]

            def cached_key(name):
                try:
                    return os.environ[name]
                except KeyError:
                    return None

            def lookup(name):
                if name in STORE:
                    return STORE[name]
                return _required(name)
        """},
    ),
)

INVALID = (
    Invalid(
        # the sibling module reads the variable but never sets it
        """
        import os
        from tools.registry import registry
        from tools.crew import CREW_ENV

        registry.register(name="crew_post", toolset="crew", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: bool(os.environ.get(CREW_ENV, "").strip()))
        """,
        files={"tools/crew.py": """
            import os, subprocess
            CREW_ENV = "CREW_MEMBER_ID"

            def start_member(argv):
                return subprocess.Popen(argv, env={**os.environ, "CREW_ROLE": "member"})
        """},
        line=6,
        col=41,
        message="`CREW_MEMBER_ID` is required by the check_fn but not listed in `requires_env` of tool `crew_post`",
    ),
    Invalid(
        # a reader of another module with branches, each ending in a read of its argument
        """
        from tools.registry import registry
        from agent.scoped import scoped_secret

        registry.register(name="lights", toolset="home", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: scoped_secret("HOME_TOKEN") is not None)
        """,
        files={"agent/scoped.py": """
            import os

            def scoped_secret(name, fallback=None):
                profile = os.getenv("HOME_PROFILE")
                if profile == "locked":
                    return fallback
                if profile:
                    return os.environ.get(name) or fallback
                return os.getenv(name, fallback)
        """},
        line=5,
        col=36,
        message="`HOME_TOKEN` is required by the check_fn but not listed in `requires_env` of tool `lights`",
    ),
    Invalid(
        # `is None` and a JSON error, then work the interpreter does not follow; no check_fn
        """
        import json, os
        from tools.registry import registry

        def _issues(args, **kw):
            token = os.environ.get("TRACKER_TOKEN")
            if token is None:
                return json.dumps({"error": "set TRACKER_TOKEN"})
            with open(args.get("path", "issues.txt")) as handle:
                return json.dumps({"issues": handle.read(), "token": token})

        registry.register(name="issues", toolset="tracker", schema={}, handler=_issues)
        """,
        line=5,
        col=13,
        message="handler of tool `issues` needs `TRACKER_TOKEN` (it returns an error on every path where "
        "it is unset) but `requires_env` does not list it and no check_fn tests it",
        autofixed="""
        import json, os
        from tools.registry import registry

        def _issues(args, **kw):
            token = os.environ.get("TRACKER_TOKEN")
            if token is None:
                return json.dumps({"error": "set TRACKER_TOKEN"})
            with open(args.get("path", "issues.txt")) as handle:
                return json.dumps({"issues": handle.read(), "token": token})

        registry.register(name="issues", toolset="tracker", schema={}, handler=_issues, requires_env=["TRACKER_TOKEN"])
        """,
    ),
    Invalid(
        # a check that only tests a file: pathlib cannot read the listed variable
        """
        from pathlib import Path
        from tools.registry import registry

        CREDENTIALS = Path.home() / ".jira" / "credentials.json"

        def check_jira():
            return CREDENTIALS.exists()

        registry.register(name="jira", toolset="jira", schema={}, handler=lambda a, **k: "",
                          check_fn=check_jira, requires_env=["JIRA_TOKEN"])
        """,
        line=10,
        col=54,
        message="`JIRA_TOKEN` is listed in `requires_env` of tool `jira` but never checked: "
        "nothing in this module reads it",
    ),
    Invalid(
        # a reader with a profile-scope branch, a global fallback and a fail-closed path,
        # each ending in a read of its argument: None when the variable is unset
        """
        from tools.registry import registry
        from agent.vault import vault_secret

        def check_lights():
            return bool(vault_secret("LIGHTS_TOKEN"))

        registry.register(name="lights_on", toolset="home", schema={}, handler=lambda a, **k: "",
                          check_fn=check_lights)
        """,
        files={"agent/vault.py": """
            import os

            def _profile():
                return os.getenv("VAULT_PROFILE")

            def vault_secret(name, default=None):
                profile = _profile()
                if profile:
                    os.environ.setdefault("VAULT_PROFILE_LOADED", profile)
                    return os.environ.get(name, default)
                if os.getenv("VAULT_FAIL_CLOSED"):
                    return os.getenv(name)
                return os.getenv(name, default)
        """},
        line=5,
        col=17,
        message="`LIGHTS_TOKEN` is required by check_fn `check_lights` but not listed in `requires_env` "
        "of tool `lights_on`",
    ),
    Invalid(
        # `os.environ[name]` on every path, here through a second reader: the call raises
        # when the variable is unset, as `os.environ[...]` does
        """
        import json
        from tools.registry import registry
        from agent.vault import vault_key

        def _unlock(args, **kw):
            return json.dumps({"door": args.get("door", ""), "key": vault_key("DOOR_KEY")})

        registry.register(name="unlock", toolset="home", schema={}, handler=_unlock, check_fn=lambda: True)
        """,
        files={"agent/vault.py": """
            import os

            def _scoped(name):
                if os.getenv("VAULT_PROFILE"):
                    return os.environ[name].strip()
                return os.environ[name]

            def vault_key(name):
                return _scoped(name)
        """},
        line=6,
        col=61,
        message="handler of tool `unlock` needs `DOOR_KEY` (`vault_key(...)` raises an exception when it "
        "is unset) but `requires_env` does not list it",
    ),
)
