"""Arena games per second: the batched arena vs the same games played one at a time.

::

    python benchmarks/arena_speed.py                       # default cases, plain table
    python benchmarks/arena_speed.py --markdown --games 2000 --single-games 200
    python benchmarks/arena_speed.py --ppo runs/<run>/model.zip   # adds a funky_monkey case with that policy

Each case is an arena tournament (:func:`agents.arena.schedule`: seat-balanced line-ups and
deals). **Batched** plays its ``--games`` games with :func:`agents.evaluate.play_lineups` in
batches of ``--batch-size`` (the arena's default); **one at a time** plays the first
``--single-games`` games of the same schedule -- same agents, same seeds, same seatings --
with ``batch_size=1``, i.e. a Python loop over games, each game stepped with batch size 1
through the same code. Both count whole games from start to end (observation, every agent's
``act``, ``step``, bookkeeping); agents are built once, outside the timing. The ratio is
batched games/s over one-at-a-time games/s (target: at least 20).

BLAS, OpenMP and torch are limited to one thread (the arena's default). Benchmarks are not tests.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402

import numpy as np  # noqa: E402

#: name -> (game, game options, agents)
CASES: dict[str, tuple[str, dict, list[str]]] = {
    "monkey_fun_2p_random": ("monkey_fun", {"num_players": 2}, ["random", "random"]),
    "monkey_fun_2p": ("monkey_fun", {"num_players": 2}, ["random", "greedy"]),
    "monkey_fun_4p": ("monkey_fun", {"num_players": 4}, ["random", "greedy"]),
    "funky_monkey_4p": ("funky_monkey", {"num_players": 4}, ["random", "honest", "believer", "skeptic", "track"]),
}


def measure(
    game_name: str,
    options: dict,
    agent_specs: Sequence[str],
    games: int,
    single_games: int,
    batch_size: int | None,
    seed: int = 0,
) -> dict:
    """Time one case both ways; returns the row of the table as a dict."""
    from agents.arena import parse_agent_specs, schedule
    from agents.evaluate import build_agents, play_lineups
    from monkey_envs.games import make_game

    game = make_game(game_name, **options)
    specs, labels = parse_agent_specs(agent_specs)
    sched = schedule(len(specs), game.num_players, games, seed)
    agents = build_agents(game, specs, seed)
    play_lineups(game, agents, sched.seeds[:8], sched.seat_agent[:8], labels=labels)  # warm-up (imports, caches)

    t0 = time.perf_counter()
    batched = play_lineups(game, agents, sched.seeds, sched.seat_agent, batch_size=batch_size, labels=labels)
    t_batched = time.perf_counter() - t0

    m = min(single_games, sched.seeds.size)
    t0 = time.perf_counter()
    single = play_lineups(game, agents, sched.seeds[:m], sched.seat_agent[:m], batch_size=1, labels=labels)
    t_single = time.perf_counter() - t0

    return {
        "case": f"{game_name} {game.num_players}p: {' '.join(labels)}",
        "batched_games": batched.num_games,
        "batched_gps": batched.num_games / t_batched,
        "single_games": single.num_games,
        "single_gps": single.num_games / t_single,
        "mean_length": float(batched.lengths.mean()),
        "ratio": (batched.num_games / t_batched) / (single.num_games / t_single),
    }


def format_table(rows: list[dict], markdown: bool) -> str:
    head = (
        "case",
        "decisions/game",
        "batched games",
        "batched games/s",
        "one-at-a-time games",
        "one-at-a-time games/s",
        "ratio",
    )
    cells = [
        (
            r["case"],
            f"{r['mean_length']:.1f}",
            str(r["batched_games"]),
            f"{r['batched_gps']:.0f}",
            str(r["single_games"]),
            f"{r['single_gps']:.1f}",
            f"{r['ratio']:.0f}x",
        )
        for r in rows
    ]
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        out += ["| " + " | ".join(c) + " |" for c in cells]
        return "\n".join(out)
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    lines = [fmt.format(*head), "-" * (sum(widths) + 2 * (len(widths) - 1))]
    lines += [fmt.format(*c) for c in cells]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--cases",
        nargs="+",
        choices=sorted(CASES),
        default=["monkey_fun_2p_random", "monkey_fun_2p", "monkey_fun_4p", "funky_monkey_4p"],
    )
    p.add_argument("--games", type=int, default=2000, help="games of the batched arena (rounded up to whole rounds)")
    p.add_argument("--single-games", type=int, default=200, help="games played one at a time")
    p.add_argument("--batch-size", type=int, default=None, help="games per batch (default: the arena's)")
    p.add_argument("--ppo", default=None, help="a saved MaskablePPO for funky_monkey 4p: adds a case with it")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)

    from agents.arena import DEFAULT_BATCH

    cases = [CASES[c] for c in args.cases]
    if args.ppo:
        cases.append(("funky_monkey", {"num_players": 4}, ["random", "honest", "track", f"ppo=ppo:{args.ppo}"]))
    rows = []
    for game_name, options, agent_specs in cases:
        rows.append(
            measure(
                game_name,
                options,
                agent_specs,
                args.games,
                args.single_games,
                args.batch_size or DEFAULT_BATCH,
                args.seed,
            )
        )
        print(f"  done: {rows[-1]['case']}", file=sys.stderr)
    print(
        f"arena speed -- Python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, one thread"
    )
    print(format_table(rows, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
