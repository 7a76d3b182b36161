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
installed prints as absent. Benchmarks are not tests; run them on a quiet machine.
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


def _measure(body: str, cache: Path) -> float | None:
    """CPU seconds of a fresh process running ``body`` (``None``: it failed, e.g. a peer is absent)."""
    code = _PRELUDE + body + "\nprint(json.dumps({'cpu': cpu()}))\n"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), JAX_PLATFORMS="cpu", MONKEY_ENVS_QUIET_COMPILE="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    if r.returncode != 0:
        return None
    return float(json.loads(r.stdout.strip().splitlines()[-1])["cpu"])


def _cell(body: str, warm: bool) -> tuple[float | None, float | None]:
    with tempfile.TemporaryDirectory(prefix="cold-start-") as d:
        cold = _measure(body, Path(d))
        return cold, (_measure(body, Path(d)) if warm and cold is not None else None)


def rows(games: list[str], batch: int, warm: bool) -> list[dict]:
    """One row per game and per peer: ``{"name", "aec", "aec_warm", "core", "core_warm"}`` (CPU s)."""
    out = []
    for g in games:
        aec, aec_w = _cell(_AEC.format(game=g), warm)
        core, core_w = _cell(_CORE.format(game=g, batch=batch), warm)
        out.append({"name": g, "aec": aec, "aec_warm": aec_w, "core": core, "core_warm": core_w})
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


def main(argv: list[str] | None = None) -> int:
    from monkey_envs.games import GAMES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    ap.add_argument("--batch", type=int, default=4096, help="rows of the core column (default 4096)")
    ap.add_argument("--warm", action="store_true", help="also time a second process on the filled cache")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    if args.batch < 1:
        ap.error("--batch must be >= 1")
    print(f"CPU seconds from a fresh interpreter, empty numba cache ({os.cpu_count()} cores, {sys.version.split()[0]})")
    print(table(rows(args.games, args.batch, args.warm), args.batch, args.warm, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
