"""What a rule is: one small unit with its code, summary, rationale and examples.

A rule's docstring is its documentation (``hermes-lint explain CODE`` prints it); its ``valid``
and ``invalid`` examples are its tests (``tests/test_rule_examples.py`` runs every one of them),
in the spirit of Fixit's rules.

Two scopes:
- ``module`` rules see one tool module (``ModuleContext``: source, AST, extracted facts) and yield
  ``Finding``s located in that module;
- ``project`` rules see the extracted facts of every tool module plus ``toolsets.py``
  (``ProjectContext``), never an AST, so they can run from cached facts; their findings name a path.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping, Optional, Sequence, Tuple, Union

from hermes_lint.model import Location

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.model.context import ModuleContext, ProjectContext

# Where an example's code is placed inside the example project.
EXAMPLE_PATH = "tools/example_tool.py"


@dataclass(frozen=True)
class Finding:
    """A rule's report: where and what. ``path`` is needed for project rules only."""

    location: Location
    message: str
    path: Optional[str] = None
    # Structured data for the rule's ``fix`` (``Diagnostic.fix_data``): what to write, never
    # parsed back out of the message.
    fix_data: Tuple[Tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Valid:
    """Code the rule must accept without a single finding.

    ``code`` becomes ``tools/example_tool.py``; ``files`` adds other files of the example
    project (``{"toolsets.py": "...", "tools/other_tool.py": "..."}``); ``options`` sets
    configuration keys (as in ``[tool.hermes-lint]``) for this example.
    """

    code: str
    files: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Invalid:
    """Code the rule must report exactly once per expected ``(line, col)`` and nowhere else.

    Example code is dedented with ``inspect.cleandoc``: line 1 is its first non-blank line.

    ``line`` is required; ``col`` and ``message`` are asserted when given. ``path`` is where the
    finding is expected (default: the example file). ``also`` lists further expected
    ``(line, col)`` findings of the same rule (``(path, line, col)`` in another file of the
    example), for examples that must report more than once.
    """

    code: str
    line: int
    col: Optional[int] = None
    message: Optional[str] = None
    path: str = EXAMPLE_PATH
    files: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    also: Tuple[Union[Tuple[int, int], Tuple[str, int, int]], ...] = ()
    # How to fix it, shown as "Use instead" in the rule's documentation: (old, new) text
    # replacements, each of a text found exactly once in the example's files (after the ones
    # before it); the fixed example must pass the rule (tests/test_rule_examples.py).
    fix: Tuple[Tuple[str, str], ...] = ()
    # For a rule with an automatic fix (``Rule.fix``): the example file after ``check --fix
    # --unsafe-fixes`` restricted to this rule (None: the rule offers no fix for this finding),
    # and the other files that change.
    autofixed: Optional[str] = None
    autofixed_files: Mapping[str, str] = field(default_factory=dict)

    def fixed(self) -> Valid:
        """The example with ``fix`` applied: a project the rule must accept."""
        files = {EXAMPLE_PATH: inspect.cleandoc(self.code), **{p: inspect.cleandoc(t) for p, t in self.files.items()}}
        for old, new in self.fix:
            holders = [path for path, text in files.items() if old in text]
            count = sum(text.count(old) for text in files.values())
            if count != 1:
                raise ValueError(f"fix text {old!r} occurs {count} times in the example, not once")
            files[holders[0]] = files[holders[0]].replace(old, new)
        code = files.pop(EXAMPLE_PATH)
        return Valid(code, files=files, options=self.options)



class Rule:
    """Base class of every rule. Subclasses set the class attributes and implement ``check``."""

    code: ClassVar[str]
    summary: ClassVar[str]  # one line, shown by `hermes-lint rules`
    scope: ClassVar[str] = "module"  # "module" or "project"
    valid: ClassVar[Sequence[Union[str, Valid]]] = ()
    invalid: ClassVar[Sequence[Invalid]] = ()
    # Where the rule's facts come from (provider documentation, runtime source); printed by
    # `hermes-lint explain`.
    sources: ClassVar[Sequence[str]] = ()
    # A rule that can fix its findings itself: "safe" (``check --fix``) or "unsafe" (may change
    # behaviour: also ``--unsafe-fixes``), what the fix does, and ``fix`` below.
    fix_applicability: ClassVar[Optional[str]] = None
    fix_title: ClassVar[str] = ""
    # Where an example's ``code`` is written in its project (a plugin rule's examples are plugin
    # packages: their code is the plugin's ``__init__.py`` or its ``plugin.yaml``).
    example_path: ClassVar[str] = EXAMPLE_PATH
    # The command whose findings a rule's examples are judged by when that is not the engine over
    # the example's files (``hermes_lint.rule_examples``): "check" (a plugin rule's examples are
    # plugin projects on disk), "manifest --check" (HRM501); None: the engine.
    examples_run_by: ClassVar[Optional[str]] = None
    # A module rule that reads the module's environment reads (``ModuleFacts.env_reads``, and
    # the environment readers behind them): a check computes them only when a selected rule does
    # (every rule's examples run with that rule alone selected: one that forgets fails them).
    reads_environment: ClassVar[bool] = False

    def check(self, ctx: Any) -> Iterable[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def fix(cls, diagnostic: Any, source: Any) -> Optional[Sequence[Any]]:
        """The edits (``hermes_lint.edit.fix.edits.Edit``) that fix ``diagnostic``, one of this rule's,
        read from ``source`` (``hermes_lint.edit.fix.source.FixSource``); None when there is no safe
        way to (a value that is not a literal in the same file, a shape the fix does not know)."""
        return None

    @classmethod
    def fix_available(cls, diagnostic: Any, file: Any) -> Optional[bool]:
        """Whether ``fix`` gives ``diagnostic`` a fix, read from ``file``'s ``ast`` alone
        (``hermes_lint.edit.fixable.FixableFile``) without libcst: True or False exactly as
        ``fix`` would, or None when only ``fix`` can tell."""
        return None

    @classmethod
    def fix_description(cls) -> str:
        """One line for the docs: whether ``check --fix`` fixes the rule's findings, and how."""
        if cls.fix_applicability is None:
            return "No automatic fix: fix by hand."
        how = "`check --fix`" if cls.fix_applicability == "safe" else "`check --fix --unsafe-fixes`"
        return f"{how} does ({cls.fix_applicability}): {cls.fix_title}."

    @classmethod
    def needs_schemas(cls, config: Any) -> bool:
        """A project rule that reads ``Registration.schema``/``schema_locations`` says so here.

        With one file edited, the project phase of the other files runs from the cache's
        compact entries (``project_records.project_view``: names, toolsets, locations, ``override=``; no
        schemas, handlers or other keywords) unless a selected project rule needs schemas; in
        those, ``schema`` is an ``Unresolved`` (``project_records.SCHEMA_NOT_LOADED``) and
        ``schema_locations`` empty. A project rule reading more than the view keeps must say so
        here too (``tests/test_rule_examples.py`` compares both on every rule's examples).
        """
        return False

    @classmethod
    def rationale(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def valid_examples(cls) -> Tuple[Valid, ...]:
        return tuple(ex if isinstance(ex, Valid) else Valid(ex) for ex in cls.valid)

    @classmethod
    def doc(cls) -> str:
        """The rule's full documentation: summary, rationale, sources and examples."""
        parts = [f"{cls.code}: {cls.summary}", "", cls.rationale()]
        if cls.sources:
            parts += ["", "Sources:"] + [f"  - {s}" for s in cls.sources]
        groups: Tuple[Tuple[str, Sequence[Union[Valid, Invalid]]], ...] = (
            ("Valid", cls.valid_examples()),
            ("Invalid", cls.invalid),
        )
        for title, examples in groups:
            for number, example in enumerate(examples):
                parts += ["", f"{title} example {number}:"]
                if isinstance(example, Invalid):
                    parts[-1] += f" (reported at line {example.line})"
                parts += ["    " + line for line in inspect.cleandoc(example.code).splitlines()]
        return "\n".join(parts).rstrip() + "\n"
