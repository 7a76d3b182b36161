"""The project's layering, checked from the source (``ast``) and in fresh interpreters.

* Generic code -- ``monkey_envs/core/``, ``agents/*.py`` (not the per-game ``agents/heuristics/``),
  ``training/``, ``benchmarks/`` -- names no game: no string constant (docstrings aside), identifier
  or import path contains a registered game's name or gym name. Whatever it needs to know about a
  game comes from the game's spec and hooks.
* The env library ``monkey_envs`` never imports ``agents`` or ``training`` (not even lazily), and
  making and stepping every registered gymnasium env loads neither them nor torch.
* The layers point one way (:data:`LAYERS`: ``monkey_envs.core`` < the rest of ``monkey_envs`` <
  ``agents`` < ``training``): no module imports a higher layer, and no two modules import each
  other (directly or round a loop) -- imports inside functions, ``importlib.import_module`` with
  a literal name and entry-point loads included.
* ``agents.registry`` is the one agent registry, and it loads a game's heuristics lazily.
* The default game is named (``DEFAULT_GAME = "<name>"`` in ``monkey_envs/games.py``), not taken
  from the registry's order.

Each checker is a plain function over source text, and a test shows it can fail on a small
synthetic source. Violations in code this test does not own are marked ``xfail(strict=True)``
(per file) with the reason, so they stay visible until fixed.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The project's importable packages (the import graph is built over these).
PROJECT_PACKAGES = ("monkey_envs", "agents", "training")
#: Names generic code must not contain besides every registered game's name and gym name.
BASE_GAME_NAMES = ("monkey_fun", "funky_monkey", "MonkeyFun", "FunkyMonkey")


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _files(*patterns: str) -> list[Path]:
    """Sorted ``.py`` files of the checkout matching the glob ``patterns`` (relative to the root)."""
    return sorted({p for pattern in patterns for p in ROOT.glob(pattern) if "__pycache__" not in p.parts})


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _subprocess(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter of this checkout (a cold numba cache compiles every game: minutes under load)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, f"exit {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


# ====================================================================== 1. generic code names no game
def _docstring_ids(tree: ast.AST) -> set[int]:
    """``id()`` of every docstring constant (first statement of a module, class or function)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.add(id(first.value))
    return out


def _code_texts(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, text)`` of every string constant (docstrings aside), identifier and import path of ``tree``."""
    docs = _docstring_ids(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield line, node.value
        elif isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield line, node.name
        elif isinstance(node, ast.arg):
            yield line, node.arg
        elif isinstance(node, ast.keyword) and node.arg:
            yield line, node.arg
        elif isinstance(node, ast.alias):
            yield line, node.name
            if node.asname:
                yield line, node.asname
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield line, node.module
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                yield line, name


def game_name_hits(source: str, names: Iterable[str], filename: str = "<source>") -> list[tuple[int, str, str]]:
    """``(line, game name, text)`` of each code text of ``source`` that contains a name (case-insensitive).

    Code texts are string constants that are not docstrings, identifiers (names, attributes,
    definitions, arguments, keywords, global/nonlocal) and import paths; comments and docstrings
    are documentation and may mention games.
    """
    lowered = sorted({n.lower() for n in names})
    hits = []
    for line, text in _code_texts(ast.parse(source, filename=filename)):
        low = text.lower()
        hits.extend((line, name, text) for name in lowered if name in low)
    return sorted(set(hits))


def forbidden_game_names() -> list[str]:
    """:data:`BASE_GAME_NAMES` plus the name and gym name of every game in the registry now."""
    from monkey_envs.games import GAMES, game_class

    names = set(BASE_GAME_NAMES)
    for name in list(GAMES):
        names |= {name, game_class(name).spec.gym_name}
    return sorted(names)


GENERIC_FILES = _files("monkey_envs/core/**/*.py", "agents/*.py", "training/**/*.py", "benchmarks/**/*.py")
#: Violations found in generic code this test does not own: ``file -> reason`` (xfail, strict).
KNOWN_NAME_VIOLATIONS: dict[str, str] = {}


def _generic_param(path: Path) -> object:
    reason = KNOWN_NAME_VIOLATIONS.get(_rel(path))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, id=_rel(path), marks=marks)


def test_generic_file_list_is_complete() -> None:
    """The scanned set covers each generic folder (a moved folder must not silently empty it)."""
    rels = {_rel(p) for p in GENERIC_FILES}
    for must in ("monkey_envs/core/game.py", "agents/arena.py", "agents/registry.py", "training/run.py"):
        assert must in rels
    assert "benchmarks/throughput.py" in rels
    assert not [r for r in rels if r.startswith("agents/heuristics/")]
    assert set(KNOWN_NAME_VIOLATIONS) <= rels


@pytest.mark.parametrize("path", [_generic_param(p) for p in GENERIC_FILES])
def test_generic_code_names_no_game(path: Path) -> None:
    """No string constant, identifier or import path of a generic module names a game."""
    hits = game_name_hits(path.read_text(encoding="utf-8"), forbidden_game_names(), str(path))
    listing = "\n".join(f"{_rel(path)}:{line}: {name!r} in {text[:80]!r}" for line, name, text in hits)
    assert not hits, f"generic code names a game:\n{listing}"


def test_game_name_checker_catches_code_and_ignores_documentation() -> None:
    """The checker flags a branch on a game's name and every other code use, never a docstring or comment."""
    names = ["monkey_fun", "MonkeyFun", "funky_monkey"]
    branch = 'def f(game):\n    if game == "monkey_fun":\n        return 1\n'
    assert game_name_hits(branch, names) == [(2, "monkey_fun", "monkey_fun")]
    code = (
        "from monkey_envs.funky_monkey import rules\n"  # import path
        "import monkey_envs.monkey_fun as mf\n"  # import path
        "x = MonkeyFun()\n"  # identifier (case-insensitive: both spellings)
        "y = obj.funky_monkey_bluffs\n"  # attribute
        "z = f'{x}-monkey_fun-v0'\n"  # f-string part
        "def play(monkey_fun_options=None): ...\n"  # argument
    )
    lines = sorted({line for line, _, _ in game_name_hits(code, names)})
    assert lines == [1, 2, 3, 4, 5, 6]
    docs = (
        '"""A module about monkey_fun and FunkyMonkey."""\n'
        "# comment: if game == 'monkey_fun'\n"
        "class Runner:\n"
        '    """Runs funky_monkey."""\n'
        "    def go(self, game):\n"
        '        """Plays monkey_fun."""\n'
        "        return game.spec.title\n"
    )
    assert game_name_hits(docs, names) == []


# ====================================================================== 2. monkey_envs never imports agents / training
FORBIDDEN_FOR_ENVS = ("agents", "training")


def _is_forbidden(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in FORBIDDEN_FOR_ENVS)


def env_library_imports(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """``(line, module)`` of every import of ``agents`` / ``training`` anywhere in ``source``.

    Import statements at any depth (lazy ones too) and ``importlib.import_module`` /
    ``__import__`` calls with a constant module name.
    """
    out = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if _is_forbidden(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if _is_forbidden(node.module):
                out.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args:
            fn = node.func
            fname = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            arg = node.args[0]
            if (
                fname in ("import_module", "__import__")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
            ):
                if _is_forbidden(arg.value):
                    out.append((node.lineno, arg.value))
    return out


def test_env_library_never_imports_agents_or_training() -> None:
    files = _files("monkey_envs/**/*.py")
    assert len(files) > 10
    hits = [
        f"{_rel(p)}:{line}: {mod}" for p in files for line, mod in env_library_imports(p.read_text("utf-8"), str(p))
    ]
    assert not hits, "monkey_envs imports the agent or training layer:\n" + "\n".join(hits)


def test_env_import_checker_catches_lazy_and_dynamic_imports() -> None:
    src = (
        "import numpy\n"
        "def f():\n"
        "    from agents.registry import make_agent\n"
        "    import training.run\n"
        "    importlib.import_module('agents.heuristics.x')\n"
        "from monkey_envs.core import game\n"
        "import agentsmith\n"
    )
    assert env_library_imports(src) == [(3, "agents.registry"), (4, "training.run"), (5, "agents.heuristics.x")]


def test_making_and_stepping_envs_loads_no_agents_training_or_torch() -> None:
    """In a fresh interpreter: every registered gymnasium env (built-in random opponent) plays some steps."""
    code = """
import json, sys
import numpy as np
import gymnasium
import monkey_envs
from monkey_envs.games import GAMES
from monkey_envs.registration import gymnasium_id

env = gymnasium.make("monkey_envs/MonkeyFun-v0", opponent="random")
made = []
for name in GAMES:
    env = gymnasium.make(gymnasium_id(name), opponent="random")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()
    made.append(gymnasium_id(name))
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("agents", "training", "torch"))
print(json.dumps({"made": made, "loaded": loaded}))
"""
    out = json.loads(_subprocess(code).stdout.strip().splitlines()[-1])
    assert "monkey_envs/MonkeyFun-v0" in out["made"] and len(out["made"]) >= 2
    assert out["loaded"] == [], f"making envs imported {out['loaded']}"


# ====================================================================== 3. layers point one way, no cycles
#: The project's layers, lowest first: a module may import its own layer and the ones below, never
#: one above -- at import time or lazily (inside a function), by statement, by
#: ``importlib.import_module("...")`` or through an entry point. ``monkey_envs`` minus its core is
#: the game layer (the games' packages, the registry that declares them, the id registration).
LAYERS = ("monkey_envs.core", "monkey_envs", "agents", "training")


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of the most specific layer ``module`` belongs to (-1: none)."""
    best, rank = -1, -1
    for k, prefix in enumerate(LAYERS):
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
            best, rank = len(prefix), k
    return rank


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _all_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` at any depth (functions included), minus ``if TYPE_CHECKING:``
    bodies -- imports there never run."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _all_nodes(other)
            continue
        yield child
        yield from _all_nodes(child)


def _call_name(node: ast.Call) -> str:
    fn = node.func
    return fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""


def _resolve(name: str, modules: set[str]) -> str | None:
    """``name`` if it is a project module, else its longest prefix that is one (``None``: not ours)."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        candidate = ".".join(parts[:k])
        if candidate in modules:
            return candidate
    return None


def import_graph(
    sources: dict[str, tuple[str, bool]], entry_points: dict[str, list[str]] | None = None
) -> dict[str, set[str]]:
    """Every import edge between the given modules, wherever the import is written.

    Args:
        sources: module name -> (source text, is a package ``__init__``).
        entry_points: entry-point group -> the ``"module:attr"`` values declared for it (the
            project's ``pyproject.toml``). A module that calls ``entry_points(...)`` and names a
            group as a string constant loads those modules.

    Returns:
        module -> the project modules it may import: ``import a.b`` -> ``a.b``; ``from a import b``
        -> ``a.b`` when that is a module, else ``a``; relative imports resolved; statements at any
        depth (inside functions too; not in ``if TYPE_CHECKING:`` blocks);
        ``importlib.import_module`` / ``__import__`` with a string constant; entry-point loads.
    """
    modules = set(sources)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, (source, is_package) in sources.items():
        package = module if is_package else module.rpartition(".")[0]
        tree = ast.parse(source)
        constants = {n.value for n in _all_nodes(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        for node in _all_nodes(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Call) and _call_name(node) in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    targets = [arg.value]
            elif isinstance(node, ast.Call) and _call_name(node) == "entry_points":
                for group in _groups_named(constants, entry_points or {}):
                    targets += [v.partition(":")[0] for v in (entry_points or {})[group]]
            for target in targets:
                hit = _resolve(target, modules)
                if hit is not None and hit != module:
                    graph[module].add(hit)
    return graph


def _groups_named(constants: set[str], entry_points: dict[str, list[str]]) -> list[str]:
    return sorted(group for group in entry_points if group in constants)


def entry_point_loads(sources: dict[str, tuple[str, bool]], entry_points: dict[str, list[str]]) -> set[tuple[str, str]]:
    """``(module, group)`` for each module that calls ``entry_points(...)`` and names ``group``."""
    out = set()
    for module, (source, _) in sources.items():
        nodes = list(_all_nodes(ast.parse(source)))
        if any(isinstance(n, ast.Call) and _call_name(n) == "entry_points" for n in nodes):
            constants = {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            out |= {(module, group) for group in _groups_named(constants, entry_points)}
    return out


def upward_imports(graph: dict[str, set[str]], allowed: Iterable[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """``(module, target)`` for each edge of ``graph`` into a higher layer (:data:`LAYERS`), but the
    ``allowed`` ones (a declared plug-in point's entry-point load)."""
    skip = set(allowed)
    return sorted((m, t) for m, ts in graph.items() for t in ts if layer_of(t) > layer_of(m) and (m, t) not in skip)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules, each as one cycle through it."""
    return [_cycle_through(graph, set(g)) for g in import_groups(graph)]


def import_groups(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules, sorted (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(groups)


def _cycle_through(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """One cycle ``[a, b, ..., a]`` inside a strongly connected ``group``."""
    start = min(group)
    path, seen = [start], {start}
    while True:
        nxt = sorted(w for w in graph[path[-1]] if w in group)
        back = [w for w in nxt if w in seen]
        if back:
            first = min(back, key=path.index)
            return [*path[path.index(first) :], first]
        path.append(nxt[0])
        seen.add(nxt[0])


def project_entry_points() -> dict[str, list[str]]:
    """Entry-point group -> declared ``"module:attr"`` values, from ``pyproject.toml``."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {group: list(eps.values()) for group, eps in project.get("entry-points", {}).items()}


#: The plug-in points: ``(module, entry-point group)`` loads the project makes on purpose. The env
#: library resolves agent names (``gymnasium.make(..., opponent="greedy")``) through whatever agent
#: library is installed, in its wiring layer, which hands the core a resolver (docs/kit.md,
#: "Layers"). No other module -- the core above all -- loads an entry point.
PLUGIN_POINTS = {("monkey_envs.registration", "monkey_envs.agents")}


def project_sources() -> dict[str, tuple[str, bool]]:
    """module name -> (source, is a package ``__init__``) of every module of :data:`PROJECT_PACKAGES`."""
    files = _files(*(f"{p}/**/*.py" for p in PROJECT_PACKAGES))
    return {_module_name(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py") for p in files}


def project_graph() -> dict[str, set[str]]:
    """:func:`import_graph` of every module of :data:`PROJECT_PACKAGES` in this checkout."""
    return import_graph(project_sources(), project_entry_points())


def plugin_edges(entry_points: dict[str, list[str]]) -> set[tuple[str, str]]:
    """``(module, target module)`` of each :data:`PLUGIN_POINTS` load."""
    return {(m, v.partition(":")[0]) for m, group in PLUGIN_POINTS for v in entry_points.get(group, [])}


def test_project_layers_point_one_way() -> None:
    """No module imports a higher layer, at import time or lazily (:data:`LAYERS`); the one
    upward load is the declared plug-in point, and nothing else loads an entry point."""
    sources, eps = project_sources(), project_entry_points()
    graph = import_graph(sources, eps)
    assert "monkey_envs.core.registry" in graph["monkey_envs.games"]  # the graph sees the real imports
    assert "agents.base" in graph["agents.registry"]
    assert "monkey_envs.core.registry" in graph["monkey_envs.core.faces"]  # ... lazy ones as well
    assert "agents.networks" in graph["agents.policy"]
    assert {layer_of(m) for m in graph} == {0, 1, 2, 3}
    assert entry_point_loads(sources, eps) == PLUGIN_POINTS
    assert plugin_edges(eps) == {("monkey_envs.registration", "agents.registry")}
    ups = upward_imports(graph, plugin_edges(eps))
    assert not ups, "imports into a higher layer:\n" + "\n".join(f"{m} -> {t}" for m, t in ups)


def test_project_modules_import_without_cycles() -> None:
    """No two modules import each other, directly or round a loop, lazy imports included."""
    graph = project_graph()
    cycles = import_cycles(graph)
    groups = "\n".join(f"  a loop through {len(g)} modules: {', '.join(g)}" for g in import_groups(graph))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles) + "\n" + groups


def test_layer_checker_reports_lazy_upward_imports_and_cycles() -> None:
    """A synthetic tree: lazy, dynamic and entry-point imports are edges; TYPE_CHECKING ones are not."""
    sources = {
        "monkey_envs": ("", True),
        "monkey_envs.core": ("", True),
        "monkey_envs.core.a": ("def f():\n    from monkey_envs import games\n", False),  # lazy, upward
        "monkey_envs.core.b": ("import importlib\ndef g():\n    importlib.import_module('agents.x')\n", False),
        "monkey_envs.core.c": (
            "from importlib.metadata import entry_points\n"
            "GROUP = 'my.agents'\n"
            "def h():\n    return [e.load() for e in entry_points(group=GROUP)]\n",
            False,
        ),
        "monkey_envs.core.d": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from monkey_envs.games import G\n",
            False,
        ),
        "monkey_envs.games": ("from monkey_envs.core import d\n", False),
        "agents": ("", True),
        "agents.x": ("def k():\n    from . import y\n", False),
        "agents.y": ("from agents.x import k\n", False),
    }
    graph = import_graph(sources, {"my.agents": ["agents.y:make"]})
    assert graph["monkey_envs.core.d"] == set()
    assert entry_point_loads(sources, {"my.agents": ["agents.y:make"], "other": ["agents.x:f"]}) == {
        ("monkey_envs.core.c", "my.agents")
    }
    assert upward_imports(graph, [("monkey_envs.core.c", "agents.y")]) == [
        ("monkey_envs.core.a", "monkey_envs.games"),
        ("monkey_envs.core.b", "agents.x"),
    ]
    assert upward_imports(graph) == [
        ("monkey_envs.core.a", "monkey_envs.games"),
        ("monkey_envs.core.b", "agents.x"),
        ("monkey_envs.core.c", "agents.y"),
    ]
    assert import_cycles(graph) == [["agents.x", "agents.y", "agents.x"]]
    sources["agents.x"] = ("def k():\n    return 1\n", False)
    sources["monkey_envs.core.a"] = ("def f():\n    from monkey_envs.core import d\n", False)
    graph = import_graph(sources)
    assert import_cycles(graph) == [] and upward_imports(graph) == [("monkey_envs.core.b", "agents.x")]


# ====================================================================== 4. one agent registry
REGISTRY_FILE = "agents/registry.py"
#: The registry's API: no other module defines functions or classes of these names.
REGISTRY_API = ("register_agent", "make_agent", "agent_factories", "agent_names", "register_prefix")


def registry_violations(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """``(line, why)`` for each way ``source`` keeps agents outside :mod:`agents.registry`.

    A second registry API (a def of a registry function), a touch of the registry's private
    table ``_AGENTS``, a name -> agent table (a dict literal with string keys and a value named
    ``...Agent``) in a module that registers nothing -- a lookup beside the registry; a table
    that a module feeds to ``register_agent`` is fine -- or a ``register_agent`` call in a
    module that does not import it from :mod:`agents.registry` (or its re-export in :mod:`agents`).
    """
    tree = ast.parse(source, filename=filename)
    out: list[tuple[int, str]] = []
    imported = any(
        isinstance(n, ast.ImportFrom)
        and n.module in ("agents.registry", "agents")
        and any(a.name == "register_agent" for a in n.names)
        for n in ast.walk(tree)
    ) or any(isinstance(n, ast.Import) and any(a.name == "agents.registry" for a in n.names) for n in ast.walk(tree))
    registers = any(
        isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) == "register_agent"
        for n in ast.walk(tree)
    )
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in REGISTRY_API:
            out.append((node.lineno, f"defines {node.name}: a second agent registry"))
        elif (isinstance(node, ast.Name) and node.id == "_AGENTS") or (
            isinstance(node, ast.Attribute) and node.attr == "_AGENTS"
        ):
            out.append((node.lineno, "touches the registry's private _AGENTS table"))
        elif isinstance(node, ast.Dict) and node.keys:
            named = [
                v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) else "" for v in node.values
            ]
            keys_are_names = all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys)
            if keys_are_names and any(n.endswith("Agent") for n in named) and not registers:
                out.append((node.lineno, "a table of agent factories beside the registry"))
        elif isinstance(node, ast.Call):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if name == "register_agent" and not imported:
                out.append((node.lineno, "calls a register_agent not imported from agents.registry"))
    return sorted(out)


def test_agents_are_added_only_through_agents_registry() -> None:
    files = _files(
        "monkey_envs/**/*.py", "agents/**/*.py", "training/**/*.py", "benchmarks/**/*.py", "tests/toy_games/*.py"
    )
    files = [p for p in files if _rel(p) != REGISTRY_FILE]
    hits = [
        f"{_rel(p)}:{line}: {why}" for p in files for line, why in registry_violations(p.read_text("utf-8"), str(p))
    ]
    assert not hits, "agents kept outside agents.registry:\n" + "\n".join(hits)
    callers = [p for p in files if "register_agent(" in p.read_text(encoding="utf-8")]
    assert {_rel(p) for p in callers} >= {"agents/heuristics/monkey_fun.py", "tests/toy_games/dice.py"}


def test_registry_checker_catches_a_second_registry() -> None:
    src = (
        "from agents.base import RandomAgent\n"
        "AGENTS = {'random': RandomAgent, 'greedy': heuristics.GreedyAgent}\n"
        "def make_agent(name, game):\n"
        "    return AGENTS[name](game)\n"
        "registry._AGENTS['x'] = {}\n"
    )
    assert [line for line, _ in registry_violations(src)] == [2, 3, 5]
    assert [line for line, _ in registry_violations("register_agent('y', object)\n")] == [1]
    ok = (
        "from agents.registry import register_agent\n"
        "TABLE = {'honest': HonestAgent, 'track': TrackAgent}\n"  # fed to the registry: fine
        "for name, cls in TABLE.items():\n"
        "    register_agent(name, cls, game='g')\n"
        "OPTS = {'a': 1}\n"
    )
    assert registry_violations(ok) == []


def test_registry_loads_a_games_heuristics_lazily() -> None:
    """In a fresh interpreter ``make_agent("track", ...)`` works with nothing imported first."""
    code = """
import json, sys
from agents.registry import make_agent
from monkey_envs.games import make_game
before = sorted(m for m in sys.modules if m.startswith("agents.heuristics"))
agent = make_agent("track", make_game("funky_monkey"))
after = sorted(m for m in sys.modules if m.startswith("agents.heuristics"))
print(json.dumps({"before": before, "after": after, "has_act": callable(getattr(agent, "act", None))}))
"""
    out = json.loads(_subprocess(code).stdout.strip().splitlines()[-1])
    assert out["before"] == [] and "agents.heuristics.funky_monkey" in out["after"] and out["has_act"]


# ====================================================================== 5. named defaults
def named_default(source: str, target: str = "DEFAULT_GAME") -> str | None:
    """The string ``target`` is assigned in ``source`` at module level, if it is a literal name
    (``None`` for anything computed, e.g. the first key of a dict)."""
    for node in ast.parse(source).body:
        value = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == target for t in node.targets):
            value = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == target:
            value = node.value
        if value is not None:
            return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
    return None


def test_the_default_game_is_named_not_taken_from_the_registry_order() -> None:
    """``DEFAULT_GAME`` is a game's name written in ``monkey_envs/games.py``, and the registry's default."""
    from monkey_envs.core.registry import default_game
    from monkey_envs.games import DEFAULT_GAME, GAMES

    name = named_default((ROOT / "monkey_envs/games.py").read_text(encoding="utf-8"))
    assert name is not None and name == DEFAULT_GAME == default_game() and name in GAMES


def test_named_default_checker_refuses_a_computed_default() -> None:
    assert named_default('DEFAULT_GAME: str = "monkey_fun"\n') == "monkey_fun"
    assert named_default("DEFAULT_GAME = next(iter(GAMES))\n") is None
    assert named_default("GAMES = {}\n") is None
