"""HRM203's examples of what other modules of the project decide: a variable a sibling module
sets for the processes it starts (no configuration of the user's), and an environment reader of
another module with branches. HRM203 lists them among its own examples."""

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
)
