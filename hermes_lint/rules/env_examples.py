"""HRM203's examples of what decides whether a variable is needed beyond the check's own reads:
a variable a sibling module sets for the processes it starts (no configuration of the user's),
an environment reader of another module with branches, a handler that fails on every path
without a variable, and checks whose standard-library callees can or cannot read one. HRM203
lists them among its own examples."""

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
)
