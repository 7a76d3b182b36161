"""Cold start: CPU seconds from a fresh interpreter to a game's first step, with an empty numba cache.

::

    python benchmarks/cold_start.py                 # every registered game + the peers
    python benchmarks/cold_start.py --games monki --warm --markdown

Each cell is its own fresh ``python`` process, started with ``NUMBA_CACHE_DIR`` pointing at a new
empty folder, so numba compiles everything that call needs and reads nothing cached from an
earlier run (``--warm`` adds a second process on the same folder: the cost once the cache is
filled). A process measures its own CPU time (user + system, ``resource.getrusage``) from its
start, so the interpreter's start and every import count, up to the end of:

- **AEC**: ``<game>_v<version>.env()``, ``reset(seed=0)`` and one ``step`` with a legal action;
- **core B=4096**: ``make_game(name)``, ``init`` of 4096 games, one ``step`` with a legal action
  per row, and ``observe`` of the players to move.

References in the same run: PettingZoo's ``connect_four_v3`` (AEC; the ``bench`` extra) and Pgx's
``connect_four`` (the ``peers`` extra): ``jax.jit`` of ``init`` and ``step``, one env for the AEC
column and ``jax.vmap`` over 4096 for the core column, ``block_until_ready``. A peer that is not
installed prints as absent. ``--compiles`` also lists, per cell of the games, the CPU seconds of
each numba compile (a ``numba.core.event`` listener on ``numba:compile``; a function's time
includes the compiles of the functions it calls, listed indented below it) and what the cell spent
outside compiles. Benchmarks are not tests; run them on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PRELUDE = """
import json, resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
"""

_COMPILES = """
from numba.core import event as _event
_compiles, _open = [], []
class _Compiles(_event.Listener):
    def on_start(self, ev):
        _open.append((cpu(), len(_compiles)))
        _compiles.append(None)
    def on_end(self, ev):
        t, i = _open.pop()
        fn = getattr(ev.data.get("dispatcher"), "py_func", None)
        _compiles[i] = (len(_open), getattr(fn, "__qualname__", "?"), cpu() - t)
_event.register("numba:compile", _Compiles())
"""

_AEC = """
import numpy as np
import monkey_envs
from monkey_envs.games import game_class
spec = game_class({game!r}).spec
env = monkey_envs.versioned_module(f"{{spec.name}}_v{{spec.version}}").env()
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
"""

_CORE = """
import numpy as np
from monkey_envs.games import make_game
game = make_game({game!r})
state = game.init(np.arange({batch}))
mask = state.legal_action_mask
state = game.step(state, mask.argmax(1))
game.observe(state, np.maximum(state.current_player, 0))
"""

_PZ_AEC = """
import numpy as np
from pettingzoo.classic import connect_four_v3
env = connect_four_v3.env()
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
"""

_PGX = """
import jax, jax.numpy as jnp
import pgx
env = pgx.make("connect_four")
keys = jax.random.split(jax.random.PRNGKey(0), {batch})
init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
state = init(keys)
state = step(state, jnp.argmax(state.legal_action_mask, axis=1))
state.observation.block_until_ready()
"""

_PGX_ONE = """
import jax, jax.numpy as jnp
import pgx
env = pgx.make("connect_four")
init, step = jax.jit(env.init), jax.jit(env.step)
state = init(jax.random.PRNGKey(0))
state = step(state, jnp.argmax(state.legal_action_mask))
state.observation.block_until_ready()
"""


def _measure(body: str, cache: Path, compiles: list | None = None) -> float | None:
    """CPU seconds of a fresh process running ``body`` (``None``: it failed, e.g. a peer is absent).

    With a ``compiles`` list, the process also records its numba compiles, appended to it as
    ``(depth, name, CPU s)`` in the order they started.
    """
    probe = _COMPILES if compiles is not None else ""
    out = "{'cpu': cpu(), 'compiles': _compiles}" if compiles is not None else "{'cpu': cpu()}"
    code = _PRELUDE + probe + body + f"\nprint(json.dumps({out}))\n"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), JAX_PLATFORMS="cpu", MONKEY_ENVS_QUIET_COMPILE="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    if r.returncode != 0:
        return None
    got = json.loads(r.stdout.strip().splitlines()[-1])
    if compiles is not None:
        compiles.extend(tuple(c) for c in got["compiles"] if c is not None)
    return float(got["cpu"])


def _cell(body: str, warm: bool, compiles: list | None = None) -> tuple[float | None, float | None]:
    with tempfile.TemporaryDirectory(prefix="cold-start-") as d:
        cold = _measure(body, Path(d), compiles)
        return cold, (_measure(body, Path(d)) if warm and cold is not None else None)


def rows(games: list[str], batch: int, warm: bool, compiles: bool = False) -> list[dict]:
    """One row per game and per peer: ``{"name", "aec", "aec_warm", "core", "core_warm"}`` (CPU s).

    With ``compiles``, each game's row also holds ``"aec_compiles"`` / ``"core_compiles"``: the
    ``(depth, name, CPU s)`` of each numba compile of that cold cell.
    """
    out = []
    for g in games:
        aec_c: list | None = [] if compiles else None
        core_c: list | None = [] if compiles else None
        aec, aec_w = _cell(_AEC.format(game=g), warm, aec_c)
        core, core_w = _cell(_CORE.format(game=g, batch=batch), warm, core_c)
        row = {"name": g, "aec": aec, "aec_warm": aec_w, "core": core, "core_warm": core_w}
        if compiles:
            row.update(aec_compiles=aec_c, core_compiles=core_c)
        out.append(row)
    aec, aec_w = _cell(_PZ_AEC, warm)
    out.append({"name": "PettingZoo connect_four_v3", "aec": aec, "aec_warm": aec_w, "core": None, "core_warm": None})
    aec, aec_w = _cell(_PGX_ONE, warm)
    core, core_w = _cell(_PGX.format(batch=batch), warm)
    out.append({"name": "Pgx connect_four (jit)", "aec": aec, "aec_warm": aec_w, "core": core, "core_warm": core_w})
    return out


def table(found: list[dict], batch: int, warm: bool, markdown: bool) -> str:
    """The rows as an aligned text table (or a markdown one)."""

    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f}"

    head = ["", "first AEC step", f"first core step, B={batch}"]
    if warm:
        head = ["", "first AEC step", "(cache filled)", f"first core step, B={batch}", "(cache filled)"]
    body = []
    for r in found:
        cells = [r["name"], f(r["aec"])]
        if warm:
            cells.append(f(r["aec_warm"]))
        cells.append(f(r["core"]))
        if warm:
            cells.append(f(r["core_warm"]))
        body.append(cells)
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(c) + " |" for c in body]
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in [head, *body])


def compile_listing(found: list[dict], min_seconds: float) -> str:
    """Each game cell's numba compiles of at least ``min_seconds`` (indented under their caller)
    and the cell's CPU outside compiles (its total less its outermost compiles)."""
    lines = []
    for r in found:
        for cell in ("aec", "core"):
            compiles = r.get(f"{cell}_compiles")
            if compiles is None or r[cell] is None:
                continue
            outer = sum(t for depth, _, t in compiles if depth == 0)
            lines.append(
                f"{r['name']} {cell}: {r[cell]:.2f} CPU s, {outer:.2f} in numba compiles, {r[cell] - outer:.2f} outside"
            )
            lines += [f"  {'  ' * depth}{t:.2f} {name}" for depth, name, t in compiles if t >= min_seconds]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from monkey_envs.games import GAMES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    ap.add_argument("--batch", type=int, default=4096, help="rows of the core column (default 4096)")
    ap.add_argument("--warm", action="store_true", help="also time a second process on the filled cache")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--compiles", action="store_true", help="also list each numba compile of the games' cells")
    args = ap.parse_args(argv)
    if args.batch < 1:
        ap.error("--batch must be >= 1")
    print(f"CPU seconds from a fresh interpreter, empty numba cache ({os.cpu_count()} cores, {sys.version.split()[0]})")
    found = rows(args.games, args.batch, args.warm, args.compiles)
    print(table(found, args.batch, args.warm, args.markdown))
    if args.compiles:
        print(compile_listing(found, min_seconds=0.05))
    return 0


if __name__ == "__main__":
    sys.exit(main())
