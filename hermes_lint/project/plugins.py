"""Which Hermes plugins a project holds: read from its packaging and its files, never imported.

Hermes finds plugins two ways (``hermes_cli/plugins.py`` in hermes-agent):

- *entry points*: every installed distribution's ``hermes_agent.plugins`` entry points. The
  loader calls ``ep.load()`` (``importlib.metadata``: import the module left of ``:``, then
  follow the dotted attribute right of it, if any) and then ``getattr(loaded, "register",
  None)``, and calls what it finds with one argument, the plugin context. A project declares them
  in ``pyproject.toml`` (``[project.entry-points."hermes_agent.plugins"]``, or Poetry's
  ``[tool.poetry.plugins."hermes_agent.plugins"]``), ``setup.cfg`` (``[options.entry_points]``)
  or ``setup.py`` (a literal ``entry_points=``, read from the syntax tree);
- *directories*: ``<plugins dir>/<name>/plugin.yaml`` or ``<plugins dir>/<category>/<name>/``
  (two levels at most), whose ``__init__.py`` is imported and whose ``register`` is called.

``project_plugins`` lists them as ``PluginSpec``; which function the loader ends up calling,
and what that function reaches, is ``plugin_register``'s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from hermes_lint.project.entry_point_reader import (
    ENTRY_POINT_GROUP,
    PACKAGING_FILES,
    SOURCE_ROOTS,
    DeclaredEntryPoint,
    declared_entry_points,
    first_declaring,
    metadata_files,
    read_packaging_file,
)

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.config import Config

MANIFEST_NAMES = ("plugin.yaml", "plugin.yml")  # the loader tries them in this order
# Hermes's scan of its bundled plugins directory skips these names: memory providers, context
# engines and model providers have discovery systems of their own (``hermes_cli/plugins.py``);
# ``platforms/`` is a category, scanned one level deeper.
BUNDLED_OWN_DISCOVERY = frozenset({"memory", "context_engine", "model-providers"})
BUNDLED_CATEGORIES = frozenset({"platforms"})


@dataclass(frozen=True)
class EntryPoint:
    name: str  # the entry point's name (left of '=')
    value: str  # "pkg", "pkg.sub", "pkg.mod:register", "pkg.mod:obj"
    declared_in: str  # pyproject.toml / setup.cfg / setup.py, relative to the project root
    line: int  # 1-based line of the declaration (0 if unknown)
    group: str = ENTRY_POINT_GROUP  # another only for a misnamed group (HRM812), which Hermes never reads

    @property
    def loaded_by_hermes(self) -> bool:
        return self.group == ENTRY_POINT_GROUP

    @property
    def module(self) -> str:
        """The module ``ep.load()`` imports (extras such as ``[cli]`` dropped)."""
        return self.value.split("[", 1)[0].partition(":")[0].strip()

    @property
    def attribute(self) -> Optional[str]:
        """The dotted attribute ``ep.load()`` follows in that module, or None."""
        _, colon, attr = self.value.split("[", 1)[0].partition(":")
        return attr.strip() or None if colon else None


@dataclass(frozen=True)
class PluginSpec:
    name: str  # entry point name, else the plugin directory's name
    directory: str  # the plugin's package directory, relative to root (posix)
    register_module: Optional[str]  # relative path of the module whose `register` the loader calls; None if not found
    entry_point: Optional[EntryPoint]  # None for a directory plugin (plugin.yaml)
    manifest: Optional[str]  # plugin.yaml path relative to root, None if absent


def project_plugins(root: Path, config: "Config") -> Tuple[PluginSpec, ...]:
    """Every plugin of the project at ``root``: its entry points first (in declaration order),
    then the directory plugins (the root itself, else those under each ``plugin-dirs``
    directory, else the root as a plugins directory), without duplicates; failing all of
    those, the entry points of a misnamed group (``EntryPoint.loaded_by_hermes`` is False)."""
    specs: List[PluginSpec] = []
    seen_directories = set()
    for entry in entry_points(root):
        spec = _entry_point_spec(root, entry)
        specs.append(spec)
        seen_directories.add(spec.directory)
    for directory in directory_plugin_dirs(root, config):
        relative = _relative(root, directory)
        if relative in seen_directories:
            continue
        seen_directories.add(relative)
        init = directory / "__init__.py"
        specs.append(
            PluginSpec(
                name=directory.name if relative != "." else root.name,
                directory=relative,
                register_module=_relative(root, init) if init.is_file() else None,
                entry_point=None,
                manifest=_manifest_of(root, directory),
            )
        )
    if not specs and not (root / config.toolsets_file).is_file():
        # A package whose only Hermes declaration is a misnamed group (HRM812): Hermes never
        # loads it, but its plugin is what the author means, and is checked as such.
        specs.extend(_entry_point_spec(root, entry) for entry in misnamed_entry_points(root))
    return tuple(specs)


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path != root else "."


def _manifest_of(root: Path, directory: Path) -> Optional[str]:
    for name in MANIFEST_NAMES:
        if _present(directory / name):
            return _relative(root, directory / name)
    return None


def is_directory_plugin(directory: Path) -> bool:
    """``plugin.yaml`` (or ``.yml``) beside an ``__init__.py``: what the loader imports."""
    return (directory / "__init__.py").is_file() and any(_present(directory / n) for n in MANIFEST_NAMES)


def _present(manifest: Path) -> bool:
    """A ``plugin.yaml`` is there even when it is not a regular file (a FIFO, a link to a device or
    outside the project): the plugin is recognised, and its manifest reported as unreadable (HRM803)."""
    import os

    return os.path.lexists(manifest) and not manifest.is_dir()


def holds_directory_plugins(directory: Path) -> bool:
    """``directory`` holds directory plugins (``<name>/plugin.yaml``, ``<category>/<name>/``, or
    those of a ``plugins/`` directory in it), as ``~/.hermes/plugins`` or a repository of them."""
    for base in (directory, directory / "plugins"):
        for child in _subdirectories(base, private=True):
            if is_directory_plugin(child):
                return True
            if not _is_private(child) and any(is_directory_plugin(g) for g in _subdirectories(child, private=True)):
                return True
    return False


def directory_plugin_dirs(root: Path, config: "Config") -> List[Path]:
    """The directory plugins at ``root``: the root itself when it is one; else, under each
    plugins directory of ``plugin-dirs`` (and the root itself, when it holds plugins the way
    ``~/.hermes/plugins`` does), every ``<name>/`` and ``<category>/<name>/`` with a
    ``plugin.yaml``, or with an ``__init__.py`` that mentions ``register_tool`` (bundled plugins
    of a Hermes tree)."""
    if is_directory_plugin(root):
        return [root]
    found: List[Path] = []
    for base in [root / d for d in config.plugin_dirs] + [root]:
        for child in _subdirectories(base, private=True):
            if _is_private(child) and not is_directory_plugin(child):
                continue  # `_vendor/`, `_build/`: a plugin only with its own plugin.yaml, never a category
            if base != root and child.name in BUNDLED_OWN_DISCOVERY:
                continue  # loaded by their own subsystems, never by the plugin loader's scan
            if base != root and child.name in BUNDLED_CATEGORIES:
                found.extend(grand for grand in _subdirectories(child) if is_directory_plugin(grand))
                continue
            if _is_plugin_dir(child, base == root):
                found.append(child)
                continue
            if any(_present(child / n) for n in MANIFEST_NAMES):
                continue  # a plugin without __init__.py is not loadable, and not a category either
            found.extend(grand for grand in _subdirectories(child, private=True) if _is_plugin_dir(grand, base == root)
                         and (not _is_private(grand) or is_directory_plugin(grand)))
    unique: Dict[Path, None] = dict.fromkeys(found)
    return sorted(unique)


def _is_plugin_dir(directory: Path, manifest_required: bool) -> bool:
    if is_directory_plugin(directory):
        return True
    if manifest_required:
        return False
    init = directory / "__init__.py"
    try:
        return init.is_file() and b"register_tool" in init.read_bytes()
    except OSError:
        return True  # unreadable: checked, and reported as such (HRM001)


def _subdirectories(directory: Path, private: bool = False) -> List[Path]:
    """The directories in ``directory``, hidden ones left out; ``_``-prefixed ones only with
    ``private`` (Hermes's scan loads ``<category>/_name/plugin.yaml`` too), never ``__pycache__``."""
    skipped = (".",) if private else (".", "_")
    try:
        # The directory entry's own type (no stat, no Path per file): a directory of a hundred
        # tool modules is listed, not examined file by file.
        with os.scandir(directory) as entries:
            names = [e.name for e in entries if not e.name.startswith(skipped) and e.name != "__pycache__"
                     and _is_real_directory(e)]
    except OSError:
        return []
    return sorted(directory / name for name in names)


def _is_real_directory(entry: os.DirEntry) -> bool:
    """A directory, not a symbolic link to one; False when its type cannot be told."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_private(directory: Path) -> bool:
    return directory.name.startswith("_")


# --- entry points ----------------------------------------------------------------------------


def declares_entry_point(directory: Path) -> bool:
    """Cheap test for ``find_root``: a packaging file of ``directory`` (or the metadata of an
    unpacked wheel or a built sdist in it) names the group, or declares an entry point in a group
    plainly meant to be it (``hermes.plugins``: HRM812's)."""
    for name in PACKAGING_FILES + tuple(metadata_files(directory)):
        data = read_packaging_file(directory / name)
        if data is not None and ENTRY_POINT_GROUP in data:
            return True
    from hermes_lint.project.entry_point_groups import meant_for_hermes  # only past the plain test

    files = declared_entry_points(directory, mentioning=_mentions_hermes)
    return any(meant_for_hermes(entry.group) for file in files for entry in file.entries)


def _mentions_hermes(text: str) -> bool:
    return "hermes" in text.lower()


def entry_points(root: Path) -> List[EntryPoint]:
    """The ``hermes_agent.plugins`` entry points the packaging files of ``root`` declare, in
    the order pyproject.toml, setup.cfg, setup.py (the first that declares any is the one a
    build backend uses; later ones are ignored unless it declares none); failing those, the
    ``entry_points.txt`` of an unpacked wheel's or a built sdist's metadata."""
    files = declared_entry_points(root, mentioning=lambda text: ENTRY_POINT_GROUP in text)
    return [_entry_point(entry) for entry in first_declaring(files, lambda group: group == ENTRY_POINT_GROUP)]


def misnamed_entry_points(root: Path) -> List[EntryPoint]:
    """The entry points of groups plainly meant to be ``hermes_agent.plugins`` but spelt
    otherwise (``entry_point_groups.meant_for_hermes``), from the first file declaring any."""
    from hermes_lint.project.entry_point_groups import meant_for_hermes

    files = declared_entry_points(root, mentioning=_mentions_hermes)
    return [_entry_point(entry) for entry in first_declaring(files, meant_for_hermes)]


def _entry_point(entry: DeclaredEntryPoint) -> EntryPoint:
    return EntryPoint(entry.name, entry.value, entry.declared_in, entry.line, entry.group)


# --- from an entry point to the package --------------------------------------------------------


def module_file(root: Path, module: str) -> Optional[str]:
    """The file of dotted ``module`` under a source root of ``root`` (``pkg/mod.py`` or
    ``pkg/mod/__init__.py``, flat or under ``src/``), relative, or None."""
    parts = module.split(".")
    if not module or not all(part.isidentifier() for part in parts):
        return None
    base = "/".join(parts)
    for source_roots in (lambda: SOURCE_ROOTS, lambda: _package_roots(root, parts[0])):
        # the package roots list the project's directories: only looked for when the usual
        # layouts do not have the module (each import a plugin's register goes through asks)
        for source_root in source_roots():
            prefix = f"{source_root}/" if source_root else ""
            for candidate in (f"{prefix}{base}.py", f"{prefix}{base}/__init__.py"):
                if (root / candidate).is_file():
                    return candidate
    return None


_NOT_SOURCES = frozenset({"build", "dist", "node_modules", "site-packages", "tests", "test", "docs"})


def _package_roots(root: Path, top: str) -> Tuple[str, ...]:
    """Where a build backend told to (``packages = ["hermes/mypkg"]``, ``package-dir``) would find
    the top-level package ``top`` that is neither at the root nor under src/: the one directory,
    one or two levels down, that holds ``top/__init__.py`` (none when that is ambiguous)."""
    found = []
    for child in _subdirectories(root):
        if child.name in _NOT_SOURCES or child.name == "src":
            continue
        if (child / top / "__init__.py").is_file():
            found.append(child.name)
        for grandchild in _subdirectories(child):
            if grandchild.name not in _NOT_SOURCES and (grandchild / top / "__init__.py").is_file():
                found.append(f"{child.name}/{grandchild.name}")
    return tuple(found) if len(found) == 1 else ()


def _entry_point_spec(root: Path, entry: EntryPoint) -> PluginSpec:
    path = module_file(root, entry.module)
    top = entry.module.split(".")[0]
    if path is not None:
        directory = path.rsplit("/", 1)[0] if "/" in path else "."
        # The package directory is the top-level package's (a submodule's file is inside it).
        prefix = path[: path.index(top + "/") + len(top)] if f"{top}/" in path else directory
        directory = prefix
    else:
        found = next((s for s in SOURCE_ROOTS if (root / s / top).is_dir()), None)
        directory = (f"{found}/{top}" if found else top) if found is not None else top
    return PluginSpec(
        name=entry.name,
        directory=directory,
        register_module=path,
        entry_point=entry,
        manifest=_manifest_of(root, root / directory) if (root / directory).is_dir() else None,
    )
