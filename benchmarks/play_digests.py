"""Digests of long random play of a game, to compare two versions of its code bit for bit.

::

    mkdir /tmp/old && git archive main monkey_envs | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python benchmarks/play_digests.py --game NAME > /tmp/old.txt
    python benchmarks/play_digests.py --game NAME > /tmp/new.txt
    diff /tmp/old.txt /tmp/new.txt && echo identical

One line per run: every state array and every seat's observation hashed (SHA-256) at every step,
actions uniform among the legal ones (a numpy generator of the run's seed), finished rows re-dealt
with fresh seeds (``reset_rows``), steps alternating ``step`` (a new state) and ``step_inplace``.
Runs: every player count of the game's spec x each of its variants (none: the default) x each
``--options`` set (JSON, e.g. ``'{}' '{"flag": true}'``; default one empty set) x ``--seeds``, at
B = 1 (1,500 steps), 7 (400) and 1,000 (60), and its PettingZoo AEC face (``env()``, 300 steps:
every agent's observation and mask, the rewards). Takes minutes; not a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import Any

import numpy as np

import monkey_envs
from monkey_envs.games import GAMES, game_class, make_game

STEPS = {1: 1500, 7: 400, 1000: 60}


def run(name: str, options: dict[str, Any], batch: int, seed: int) -> str:
    """Digest of one core run (16 hex digits)."""
    game = make_game(name, **options)
    h = hashlib.sha256()
    pick = np.random.default_rng(1000 + seed)
    s = game.init(np.arange(batch) + 10_000 * seed)
    next_seed = 10_000 * seed + batch
    for t in range(STEPS[batch]):
        for field, a in s.arrays().items():
            h.update(field.encode())
            h.update(np.ascontiguousarray(a).tobytes())
        for p in range(game.num_players):
            h.update(game.observe(s, p).tobytes())
        done = s.terminated | s.truncated
        if done.any():
            rows = np.flatnonzero(done)
            game.reset_rows(s, rows, np.arange(next_seed, next_seed + rows.size))
            next_seed += rows.size
            for a in s.arrays().values():
                h.update(a.tobytes())
        m = s.legal_action_mask
        acts = (pick.random(m.shape) * m).argmax(1)
        if t % 2 == 0:
            s = game.step(s, acts)
        else:
            game.step_inplace(s, acts)
    return h.hexdigest()[:16]


def run_aec(name: str, options: dict[str, Any], seed: int) -> str:
    """Digest of 300 steps of the game's AEC face (reset when the game ends)."""
    spec = game_class(name).spec
    env = monkey_envs.versioned_module(f"{spec.name}_v{spec.version}").env(**options)
    h = hashlib.sha256()
    pick = np.random.default_rng(2000 + seed)
    env.reset(seed=seed)
    for t in range(300):
        obs, rew, term, trunc, _ = env.last()
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(np.float64(rew).tobytes())
        for a in env.agents:
            h.update(env.observe(a)["observation"].tobytes())
        if term or trunc:
            if all(env.terminations[a] or env.truncations[a] for a in env.agents):
                env.reset(seed=seed * 1000 + t)
            else:
                env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[pick.integers(legal.size)]))
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True, choices=list(GAMES))
    ap.add_argument("--options", nargs="+", default=["{}"], help="JSON option sets, each run for every configuration")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    spec = game_class(args.game).spec
    runs = 0
    for players in range(spec.min_players, spec.max_players + 1):
        for variant in spec.variants or (None,):
            for extra in args.options:
                options = {"num_players": players, **({"variant": variant} if variant else {}), **json.loads(extra)}
                for seed in range(args.seeds):
                    for batch in STEPS:
                        print(json.dumps(options), batch, seed, run(args.game, options, batch, seed), flush=True)
                    print(json.dumps(options), "aec", seed, run_aec(args.game, options, seed), flush=True)
                    runs += len(STEPS) + 1
    print(f"{runs} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
