from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Tuple

from hermes_lint.model.callables import register_argument
from hermes_lint.model.context import ModuleContext
from hermes_lint.model.env_access import EnvAccessIndex
from hermes_lint.model.env_requirements import EnvAnalysis
from hermes_lint.model import Location, Registration, Unresolved
from hermes_lint.rules import env_examples
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.model.tool_labels import tool_label

_ABSENT = object()
TOOLS = "\x00tools\x00"  # stands for the tool(s) in a message until findings are grouped


class RequiresEnvMismatch(Rule):
    """``requires_env`` must name the environment variables the tool needs, and only those.

    ``requires_env`` is how Hermes tells a user which variables to set for a tool (setup, tool
    listings); the ``check_fn`` is what hides the tool while they are missing. Three mismatches
    are reported:

    - the check_fn *requires* a variable (with it unset and everything else set, every path of
      the check returns something falsy or raises) that ``requires_env`` does not list;
    - the handler, or a module function it calls, reads ``os.environ["X"]`` (``KeyError`` when
      unset) outside any ``try`` that catches it, nothing on that path tests ``X`` optionally
      first, and ``requires_env`` does not list ``X``;
    - ``requires_env`` lists a variable that nothing in the module reads: it is never checked.

    A plugin's tools also count as listing what the plugin's ``plugin.yaml`` declares in its own
    ``requires_env`` (names, or mappings with a ``name``): Hermes asks for those when the plugin is
    installed, for every tool of the plugin.

    Deliberately not reported: optional reads (``os.getenv("X", "default")``,
    ``os.environ.get``, ``"X" in os.environ``) in handlers — optional configuration is normal;
    alternatives in a check (``os.getenv("A") or os.getenv("B")`` requires neither) and disable
    flags or backend switches; anything about a check_fn imported from another module or
    reached through an attribute; "never checked" when the check calls a function of another
    module (that function may test it), when the module reads the environment in a way that
    cannot be named (``os.getenv(name)``, ``dict(os.environ)``), or when the variable's name is
    used elsewhere in the module (passed to a helper); and registrations whose ``requires_env``
    is computed at run time; variables the project sets itself (``os.environ["X"] = ...``, an
    ``env=`` mapping for a process it starts, in the module or a project module it imports): a
    marker one process hands another, not a user's configuration.
    """

    code = "HRM203"
    summary = "environment variables read but missing from requires_env, or listed and never checked"
    fix_applicability = "unsafe"
    fix_title = "add a variable that is read but not listed to the tool's `requires_env` (unsafe: the tool is then unavailable where it is unset)"

    valid = [
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
        *env_examples.VALID,
    ]
    invalid = [
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
        *env_examples.INVALID,
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """For "read but not listed": the variable goes into the ``requires_env`` list literal of
        each tool the finding names (the keyword is added when the call has none). A tool named
        by position ("registered at line N") is found by its line; a ``requires_env`` that is not
        a list literal has no fix. "Listed but never checked" has none: the read may be elsewhere."""
        from hermes_lint.edit.fix.transforms import add_to_string_list, register_calls, registered_name

        variable = diagnostic.fix_value("variable")
        if variable is None:
            return None
        names = {value for key, value in diagnostic.fix_data if key == "tool"}
        lines = {int(value) for key, value in diagnostic.fix_data if key == "line"}
        path = diagnostic.path
        edits = []
        for start, call in register_calls(source, path):
            if registered_name(call) in names or start in lines:
                edit = add_to_string_list(source, path, call, "requires_env", variable)
                if edit is None:
                    return None
                edits.append(edit)
        return edits or None

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        analysis = EnvAnalysis.of(ctx)
        pairs = [(reg, call) for reg, call in ctx.registration_calls() if not reg.has_star_args]
        listed_nodes: List[ast.AST] = [
            node for _, call in pairs if (node := register_argument(call, "requires_env")) is not None
        ]
        read_names = {read.name for read in ctx.facts.env_reads}
        grouped: Dict[Tuple[Location, str], List[Registration]] = {}
        # The variable a finding's fix adds to ``requires_env`` (findings of a read not listed).
        missing: Dict[Tuple[Location, str], str] = {}
        declared_by_plugin: Optional[Tuple[str, ...]] = None
        for registration, call in pairs:
            listed = registration.value("requires_env", _ABSENT)
            if listed is _ABSENT or listed is None:
                listed = None
            elif not isinstance(listed, (list, tuple)) or not all(isinstance(v, str) for v in listed):
                continue  # computed at run time (Unresolved) or malformed: nothing to compare with
            names = set(listed or ())
            if registration.plugin:  # a plugin's plugin.yaml declares what the whole plugin needs
                if declared_by_plugin is None:
                    declared_by_plugin = _plugin_yaml_env(ctx)
                names.update(declared_by_plugin)
            check = ctx.semantic.callable_node(register_argument(call, "check_fn"))
            handler = ctx.semantic.callable_node(register_argument(call, "handler"))
            given = register_argument(call, "check_fn") is not None
            for unlisted in analysis.unlisted(check, handler, names, check_given=given):
                key = (unlisted.where, self._unlisted_message(unlisted, check))
                grouped.setdefault(key, []).append(registration)
                missing[key] = unlisted.name
            if not listed or check is None or not analysis.check_is_closed(check):
                continue
            if EnvAccessIndex.of(ctx).has_unnamed_access():
                continue
            node = register_argument(call, "requires_env")
            for position, name in enumerate(listed):
                if name in read_names or analysis.mentioned_elsewhere(name, listed_nodes):
                    continue
                where = self._element_location(ctx, registration, node, listed, position)
                message = (
                    f"`{name}` is listed in `requires_env` of {TOOLS} but never checked: "
                    "nothing in this module reads it"
                )
                key = (where, message)
                grouped.setdefault(key, []).append(registration)
        for key, registrations in sorted(grouped.items(), key=lambda item: item[0][0]):
            where, template = key
            registrations = list({id(r): r for r in registrations}.values())
            tools = list(dict.fromkeys(tool_label(r) for r in registrations))
            label = ("tool " if len(tools) == 1 else "tools ") + ", ".join(tools)
            fix_data: Tuple[Tuple[str, str], ...] = ()
            if key in missing:
                # the register calls to edit: by name, or by line for a name not known statically
                fix_data = (("variable", missing[key]),) + tuple(
                    ("tool", r.name) if isinstance(r.name, str) else ("line", str(r.location.line))
                    for r in registrations
                )
            yield Finding(where, template.replace(TOOLS, label), fix_data=fix_data)

    @staticmethod
    def _unlisted_message(missing, check) -> str:
        """The message of an ``Unlisted`` variable, the tool(s) left as TOOLS."""
        if missing.why == "check":
            who = f"check_fn `{check.name}`" if not isinstance(check, ast.Lambda) else "the check_fn"
            return f"`{missing.name}` is required by {who} but not listed in `requires_env` of {TOOLS}"
        if missing.why == "environ" and missing.reader is not None:
            because = f"`{missing.reader}(...)` raises an exception when it is unset"
        elif missing.why == "environ":
            because = "`os.environ[...]` raises KeyError when it is unset"
        else:
            because = "it returns an error on every path where it is unset"
        unchecked = {"error, no check": " and no check_fn tests it",
                     "error, check does not test": " and the check_fn does not test it"}.get(missing.why, "")
        return f"handler of {TOOLS} needs `{missing.name}` ({because}) but `requires_env` does not list it{unchecked}"

    def _element_location(
        self, ctx: ModuleContext, registration, node: Optional[ast.expr], listed, position: int
    ) -> Location:
        if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == len(listed):
            return ctx.loc(node.elts[position])
        located = ctx.evaluator.locations_of(listed) if not isinstance(listed, Unresolved) else {}
        if (position,) in located:
            return located[(position,)]
        keyword = registration.keyword("requires_env")
        if keyword is not None:
            return keyword.value_location
        return ctx.loc(node) if node is not None else registration.location


def _plugin_yaml_env(ctx: ModuleContext) -> Tuple[str, ...]:
    """``requires_env`` of the plugin.yaml of the plugin this module belongs to (recorded in
    ``ctx.read_files``, so a cached result is dropped when the file changes)."""
    from pathlib import Path

    from hermes_lint.project.plugin_yaml import manifest_of_module, required_env_names

    if not ctx.config.project_root:
        return ()
    document, looked = manifest_of_module(Path(ctx.config.project_root), ctx.path)
    ctx.read_files.update(looked)
    return required_env_names(document) if document is not None else ()
