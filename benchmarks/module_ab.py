"""A game's speed with another version of one of its modules, in one process, rounds alternating.

::

    git show main:monkey_envs/<game>/kernels.py > /tmp/old_kernels.py
    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/module_ab.py --game NAME \\
        --module monkey_envs.<game>.kernels --old /tmp/old_kernels.py --rounds 6 [--batch 1]

The other version of ``--module`` (e.g. a game's kernels) is loaded from ``--old`` as a module of
its own, and every module of the game's package that holds the current module object (as
``from monkey_envs.<game> import kernels as K`` does) is pointed at it for the old rounds and
back for the new ones: the same rules around them, the same data. (A module that imported
names out of it, not the module, would keep the current code: the script then stops.) Each round
plays the same seeded random games (``--steps`` steps of ``--batch`` rows, finished rows re-dealt)
once per version, old first; when both versions play bit for bit the same games
(``benchmarks/play_digests.py``) they do the same work. Timed: the ``step_inplace`` calls and
``observe`` of the players to move, ms per call; printed: each round, then the medians and their
ratio (new / old). A fresh ``NUMBA_CACHE_DIR`` keeps numba from loading one version's cache for the
other. Benchmarks are not tests; run on a quiet machine.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from monkey_envs.core.game import Game
from monkey_envs.games import GAMES, game_class, make_game


def load_other(path: Path) -> ModuleType:
    """The module at ``path``, imported under a name of its own."""
    spec = importlib.util.spec_from_file_location("module_ab_other", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache looks the module up by name
    spec.loader.exec_module(module)
    return module


def holders(package: str, module: ModuleType) -> list[tuple[ModuleType, str]]:
    """``(module, attribute)`` of every loaded module of ``package`` whose attribute is ``module``."""
    found = []
    for name, mod in list(sys.modules.items()):
        if mod is None or mod is module or not (name == package or name.startswith(package + ".")):
            continue
        found.extend((mod, attr) for attr, value in vars(mod).items() if value is module)
    return found


def play(game: Game, batch: int, steps: int, seed: int) -> tuple[float, float]:
    """``(step ms, observe ms)`` per call over ``steps`` random steps of ``batch`` seeded games."""
    s = game.init(np.arange(batch) + seed * batch)
    pick = np.random.default_rng(seed)
    t_step = t_obs = 0.0
    next_seed = 10**6
    for _ in range(steps):
        m = s.legal_action_mask
        acts = (pick.random(m.shape) * m).argmax(1)  # uniform among the legal actions
        t0 = time.perf_counter()
        game.step_inplace(s, acts)
        t1 = time.perf_counter()
        game.observe(s, np.maximum(s.current_player, 0))
        t2 = time.perf_counter()
        t_step += t1 - t0
        t_obs += t2 - t1
        done = np.flatnonzero(s.terminated | s.truncated)
        if done.size:
            game.reset_rows(s, done, np.arange(next_seed, next_seed + done.size))
            next_seed += done.size
    return t_step / steps * 1e3, t_obs / steps * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True, choices=list(GAMES))
    ap.add_argument("--module", required=True, help="dotted name of the module to swap")
    ap.add_argument("--old", required=True, type=Path, help="the other version's source file")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=None, help="steps per round (default 60, 3000 at B <= 64)")
    ap.add_argument("--players", type=int, nargs="+", default=None, help="default: the spec's default_players")
    args = ap.parse_args(argv)
    steps = args.steps or (60 if args.batch > 64 else 3000)
    spec = game_class(args.game).spec
    package = game_class(args.game).__module__.rsplit(".", 1)[0]
    current = importlib.import_module(args.module)
    where = holders(package, current)
    if not where:
        raise SystemExit(f"no module of {package} holds {args.module} as a module attribute")
    old = load_other(args.old)
    print(f"B = {args.batch}, {steps} steps a round, {args.rounds} rounds (ms per call); swapping", where)

    def use(module: ModuleType) -> None:
        for mod, attr in where:
            setattr(mod, attr, module)

    try:
        for p in args.players or spec.default_players:
            game = make_game(args.game, num_players=p)
            got: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
            for module in (old, current):  # compile (or load) both first
                use(module)
                play(game, args.batch, 5, 99)
            for r in range(args.rounds):
                for name, module in (("old", old), ("new", current)):
                    use(module)
                    got[name].append(play(game, args.batch, steps, r))
                    print(
                        f"{p} players, round {r}, {name}: step {got[name][-1][0]:.4f}, observe {got[name][-1][1]:.4f}"
                    )
            o, n = np.median(got["old"], axis=0), np.median(got["new"], axis=0)
            print(
                f"{p} players: step old {o[0]:.4f} new {n[0]:.4f} ratio {n[0] / o[0]:.3f}; "
                f"observe old {o[1]:.4f} new {n[1]:.4f} ratio {n[1] / o[1]:.3f}"
            )
    finally:
        use(current)
    return 0


if __name__ == "__main__":
    sys.exit(main())
