"""Arena games per second: the batched arena vs the same games played one at a time.

::

    python benchmarks/arena_speed.py                       # default cases, plain table
    python benchmarks/arena_speed.py --markdown --games 2000 --single-games 200
    python benchmarks/arena_speed.py --case funky_monkey:4:random,honest,track,best=ppo:runs/<run>/model.zip

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


def default_cases() -> dict[str, tuple[str, dict, list[str]]]:
    """name -> (game, game options, agents): for every registered game and each of its default player
    counts (``spec.default_players``), ``random`` alone, and every agent registered for the game."""
    from agents.registry import agent_names
    from monkey_envs.games import GAMES, make_game

    cases: dict[str, tuple[str, dict, list[str]]] = {}
    for name in GAMES:
        game = make_game(name)
        for p in game.spec.default_players:
            options = {"num_players": p}
            agents = agent_names(make_game(name, **options))
            cases[f"{name}_{p}p_random"] = (name, options, ["random", "random"])
            if len(agents) > 1:
                cases[f"{name}_{p}p"] = (name, options, agents)
    return cases


def parse_case(text: str) -> tuple[str, dict, list[str]]:
    """A case ``GAME:PLAYERS:AGENT,AGENT,...`` (agents as for the arena, e.g. ``best=ppo:PATH``)."""
    game, _, rest = text.partition(":")
    players, _, agents = rest.partition(":")
    if not game or not players.isdigit() or not agents:
        raise ValueError(f"a case is GAME:PLAYERS:AGENT,AGENT,..., got {text!r}")
    return game, {"num_players": int(players)}, agents.split(",")


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
    from monkey_envs.games import add_import_option, import_plugins

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", nargs="+", default=None, help="names of default cases (default: all of them)")
    p.add_argument(
        "--case",
        dest="extra",
        action="append",
        default=[],
        metavar="GAME:PLAYERS:AGENTS",
        help="an extra case, e.g. GAME:4:random,best=ppo:runs/x/model.zip; repeatable",
    )
    add_import_option(p)
    p.add_argument("--games", type=int, default=2000, help="games of the batched arena (rounded up to whole rounds)")
    p.add_argument("--single-games", type=int, default=200, help="games played one at a time")
    p.add_argument("--batch-size", type=int, default=None, help="games per batch (default: the arena's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)

    from agents.arena import DEFAULT_BATCH

    import_plugins(args.imports)
    known = default_cases()
    unknown = sorted(set(args.cases or []) - set(known))
    if unknown:
        p.error(f"unknown cases {unknown}; known: {sorted(known)}")
    cases = [known[c] for c in (args.cases or known)]
    try:
        cases += [parse_case(c) for c in args.extra]
    except ValueError as exc:
        p.error(str(exc))
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
