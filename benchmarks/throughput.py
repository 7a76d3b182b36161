"""Throughput of the game cores and their AEC faces, next to PettingZoo's connect four.

::

    python benchmarks/throughput.py                      # default table (every game)
    python benchmarks/throughput.py --seconds 5 --markdown
    python benchmarks/throughput.py --games funky_monkey --players 4 --batch-sizes 1 4096

What is timed (each row runs for ``--seconds`` after one warm-up step):

- **core, batch B**: one step of ``B`` games = choose a uniformly random legal
  action per row from ``state.legal_action_mask`` (vectorised), ``game.step``, and
  ``game.observe`` of the player to move; finished rows are reset in place with new seeds
  (``state.put``). Steps/s counts every row's decision.
- **AEC**: ``monkey_fun_v0.env()`` played through ``agent_iter`` / ``last`` / ``step`` with a
  random legal action from ``obs["action_mask"]``; ``reset`` after every game.
- **connect_four_v3**: the same AEC loop over PettingZoo's classic env (only when
  ``pettingzoo[classic]`` is installed); the ratio is each game's AEC steps/s over it.

Player counts per game default to 2 for Monkey Fun and 2, 4, 7 for Funky Monkey (``--players``
overrides them for every game); the AEC row of a game uses its first player count.

Only decisions count as steps (the ``None`` steps of finished agents do not). BLAS and OpenMP
are limited to one thread so the numbers are for one core. Benchmarks are not tests.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402


# ====================================================================== timed loops
def timed(step: Callable[[], int], seconds: float) -> tuple[float, int]:
    """Call ``step`` (returning the decisions it made) until ``seconds`` pass; ``(steps/s, steps)``."""
    step()  # warm-up
    steps = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while True:
        steps += step()
        now = time.perf_counter()
        if now >= end:
            break
    return steps / (now - t0), steps


def core_stepper(game_name: str, batch_size: int, num_players: int, seed: int = 0) -> Callable[[], int]:
    """One batched step (random legal policy + step + observe + autoreset) per call."""
    from monkey_envs.games import make_game

    game = make_game(game_name, num_players=num_players)
    rng = np.random.default_rng(seed)
    box = {"state": game.init(np.arange(batch_size)), "next_seed": batch_size}
    row_start = np.arange(batch_size) * game.num_actions

    def random_legal(mask: np.ndarray) -> np.ndarray:
        # uniform over each row's legal actions: the k-th of its n legal actions, k = floor(u * n)
        # (one uniform per row and the list of legal (row, action) pairs, instead of a uniform per
        # action and an argmax; rows without a legal action get 0)
        n = np.count_nonzero(mask, axis=1)
        legal = np.flatnonzero(mask)  # row-major: each row's legal actions, in order
        k = (rng.random(batch_size) * n).astype(np.intp)
        np.clip(k, 0, np.maximum(n - 1, 0), out=k)
        at = np.minimum(np.cumsum(n) - n + k, max(legal.size - 1, 0))
        return np.where(n > 0, legal[at] - row_start, 0) if legal.size else np.zeros(batch_size, np.int64)

    def step() -> int:
        state = box["state"]
        state = game.step(state, random_legal(state.legal_action_mask))
        done = np.flatnonzero(state.terminated | state.truncated)
        if done.size:
            seeds = box["next_seed"] + np.arange(done.size)
            box["next_seed"] += done.size
            state.put(done, game.init(seeds))
        game.observe(state, state.current_player)
        box["state"] = state
        return batch_size

    return step


def aec_stepper(make_env: Callable[[], object], seed: int = 0) -> Callable[[], int]:
    """One game of an AEC env per call, random legal moves; returns its decisions."""
    env = make_env()
    rng = np.random.default_rng(seed)
    counter = {"episode": seed}

    def step() -> int:
        env.reset(seed=counter["episode"])
        counter["episode"] += 1
        decisions = 0
        for agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                decisions += 1
            env.step(action)
            del agent
        return decisions

    return step


def connect_four_factory() -> Callable[[], object] | None:
    """PettingZoo's ``classic/connect_four-v3`` AEC env if ``pettingzoo[classic]`` is installed, else ``None``."""
    import pettingzoo

    try:
        pettingzoo.make("aec", "classic/connect_four-v3").close()
    except ImportError:
        return None
    return lambda: pettingzoo.make("aec", "classic/connect_four-v3")


def aec_factory(game_name: str, num_players: int) -> Callable[[], object]:
    """The game's PettingZoo ``env()`` (the standard wrapper chain) for ``num_players``."""
    from monkey_envs.core.aec import aec_api

    env = aec_api(game_name)[0]
    return lambda: env(num_players=num_players)


def game_facts(game_name: str) -> tuple[str, str, list[int]]:
    """``(title, versioned env name, default player counts)`` of a registered game (its spec)."""
    from monkey_envs.games import game_class

    spec = game_class(game_name).spec
    return spec.title, f"{spec.name}_v{spec.version}", list(spec.default_players)


# ====================================================================== table
def run(seconds: float, batch_sizes: list[int], games: list[str], players: list[int] | None) -> list[dict[str, object]]:
    """Measure every row; dicts with ``name``, ``players``, ``batch``, ``steps_per_s``, ``steps``."""
    rows: list[dict[str, object]] = []
    for g in games:
        title, env_name, default_counts = game_facts(g)
        counts = players or default_counts
        for p in counts:
            for b in batch_sizes:
                sps, n = timed(core_stepper(g, b, p), seconds)
                rows.append({"name": f"{title} core", "players": p, "batch": b, "steps_per_s": sps, "steps": n})
        sps, n = timed(aec_stepper(aec_factory(g, counts[0])), seconds)
        rows.append(
            {
                "name": f"{title} AEC ({env_name})",
                "players": counts[0],
                "batch": 1,
                "steps_per_s": sps,
                "steps": n,
            }
        )
    c4 = connect_four_factory()
    if c4 is not None:
        sps, n = timed(aec_stepper(c4), seconds)
        rows.append(
            {"name": "PettingZoo connect_four_v3 AEC", "players": 2, "batch": 1, "steps_per_s": sps, "steps": n}
        )
    return rows


def format_table(rows: list[dict[str, object]], markdown: bool) -> str:
    """The measured rows, plus each AEC env's ratio to connect four when that was measured."""
    c4 = next((r["steps_per_s"] for r in rows if "connect_four" in str(r["name"])), None)
    ratios = [(str(r["name"]).split(" (")[0], r["steps_per_s"] / c4) for r in rows if c4 and " AEC (" in str(r["name"])]
    lines = []
    if markdown:
        lines += ["| environment | players | batch | steps/s |", "|---|---:|---:|---:|"]
        lines += [f"| {r['name']} | {r['players']} | {r['batch']} | {r['steps_per_s']:,.0f} |" for r in rows]
        lines += [f"| ratio {name} / connect_four_v3 AEC | | | {ratio:.2f}x |" for name, ratio in ratios]
    else:
        lines.append(f"{'environment':<40} {'players':>7} {'batch':>6} {'steps/s':>14}")
        lines.append("-" * 70)
        lines += [f"{r['name']:<40} {r['players']:>7} {r['batch']:>6} {r['steps_per_s']:>14,.0f}" for r in rows]
        lines += [
            f"{'ratio ' + name + ' / connect four':<40} {'':>7} {'':>6} {ratio:>13.2f}x" for name, ratio in ratios
        ]
        if c4 is None:
            lines.append("(connect_four_v3 skipped: pip install 'pettingzoo[classic]')")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from monkey_envs.games import add_import_option, import_plugins

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], prog="python benchmarks/throughput.py")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row (default 3)")
    parser.add_argument(
        "--batch-sizes",
        type=int,
        nargs="+",
        default=[1, 64, 1024, 4096],
        help="core batch sizes (default 1 64 1024 4096)",
    )
    parser.add_argument("--games", nargs="+", default=None, help="registered games to measure (default: all)")
    add_import_option(parser)
    parser.add_argument(
        "--players", type=int, nargs="+", default=None, help="player counts for every game (default: per game)"
    )
    parser.add_argument("--markdown", action="store_true", help="print a markdown table (for the README)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or any(b < 1 for b in args.batch_sizes):
        parser.error("--seconds and every --batch-sizes entry must be positive")
    from monkey_envs.games import GAMES

    import_plugins(args.imports)
    games = args.games or list(GAMES)
    unknown = sorted(set(games) - set(GAMES))
    if unknown:
        parser.error(f"unknown games {unknown}; registered: {sorted(GAMES)}")
    print(
        f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"{args.seconds:g} s per row, one thread"
    )
    print(format_table(run(args.seconds, args.batch_sizes, games, args.players), args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
