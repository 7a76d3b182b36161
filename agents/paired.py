"""Paired comparison: does an agent win more than a baseline would in the same seat, on the same deals?

::

    python -m agents.paired --game funky_monkey --players 4 --candidate ppo:runs/<run>/model.zip \\
        --baseline track --opponents honest skeptic track --games 4000 --seed 0

Two seat-balanced matches on one schedule (:func:`agents.arena.schedule`: every seating of the
line-up, so the opponents' order turns as well as the candidate's seat; each deal played from
every seat): the candidate with the opponents, then the baseline in the candidate's place with
the same opponents (built with the same seeds), the same deals and seatings. Game ``g`` gives
``d_g = win(candidate) - win(baseline)`` in the same seat (a win: the seat is among the game's
winners); the report gives both win rates with their 95% Wilson intervals and the mean of
``d`` with a 95% interval clustered by deal (the games of one deal share their cards, so they are
not independent): ``mean(d) +- 1.96 * sd(deal means) / sqrt(deals)``. A lower bound above 0 says
the candidate wins more than the baseline does in its place, against the same opponents.

Common random numbers make the comparison sharp: an agent that plays exactly as the baseline
gives ``d = 0`` in every game (the games are the same games). Once the two differ, the
opponents' answers differ too: the pairing is of deals and seats, not of whole games.

Output (``--out``, default ``runs/paired__<game>__<P>p__<seed>__<time>``): ``paired.json`` and
``paired.md``. A bad argument prints ``error: <option>: <why>`` and exits 2, writing nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from monkey_envs.core.stats import Z95, wilson_interval


def paired_comparison(
    game: Any,
    candidate: Any,
    baseline: Any,
    opponents: Sequence[Any],
    num_games: int,
    seed: int = 0,
    batch_size: int | None = None,
) -> dict[str, Any]:
    """Play ``candidate`` and ``baseline`` in the same seats against ``opponents`` on the same deals.

    Args:
        game: the built game (``P = game.num_players`` seats).
        candidate: the agent compared (a name, ``ppo:PATH`` or an agent object).
        baseline: the agent it is compared with, in the same seats.
        opponents: ``P - 1`` agents, one per other seat (seated in every order).
        num_games: games of each match, at least (rounded up to whole rounds of seatings).
        seed: seed of the schedule (deals) and of the agents (``seed + i`` for line-up entry ``i``).
        batch_size: games per batch of the core (``None``: the engine's default).

    Returns:
        ``{"games", "deals", "seed", "seating", "fair_share", "candidate": {...}, "baseline": {...},
        "difference": {"mean", "ci_low", "ci_high", "better", "same_outcome"}, "seconds"}``; each
        agent's entry has ``win_rate``, ``ci_low``, ``ci_high``, ``wins`` and ``by_seat`` (win
        rate per seat).

    Raises:
        ValueError: not ``P - 1`` opponents, ``num_games < 1``, or an unknown agent.
    """
    from agents.arena import schedule
    from agents.evaluate import build_agents, play_lineups

    P = int(game.num_players)
    opponents = list(opponents)
    if len(opponents) != P - 1:
        raise ValueError(
            f"opponents: a {P}-seat game needs {P - 1} opponents (one per other seat), got {len(opponents)}"
        )
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be a positive int, got {num_games!r}")
    sched = schedule(P, P, int(num_games), seed=seed)
    n = sched.seeds.size
    seat = np.argmax(sched.seat_agent == 0, axis=1)  # the compared agent's seat in each game
    t0 = time.perf_counter()
    wins: dict[str, np.ndarray] = {}
    for key, agent in (("candidate", candidate), ("baseline", baseline)):
        built = build_agents(game, [agent, *opponents], seed)
        labels = [key, *(f"opponent{i + 1}" for i in range(P - 1))]
        rec = play_lineups(game, built, sched.seeds, sched.seat_agent, batch_size=batch_size, labels=labels)
        wins[key] = rec.winners[np.arange(n), seat].astype(np.float64)
    d = wins["candidate"] - wins["baseline"]
    deal_ids, deal_of = np.unique(sched.deal, return_inverse=True)
    per_deal = np.bincount(deal_of, weights=d) / np.bincount(deal_of)
    k = deal_ids.size
    half = Z95 * float(per_deal.std(ddof=1)) / math.sqrt(k) if k > 1 else float("inf")
    mean = float(d.mean())

    def entry(w: np.ndarray) -> dict[str, Any]:
        lo, hi = wilson_interval(float(w.sum()), n)
        by_seat = [float(w[seat == s].mean()) if (seat == s).any() else None for s in range(P)]
        return {"win_rate": float(w.mean()), "ci_low": lo, "ci_high": hi, "wins": int(w.sum()), "by_seat": by_seat}

    return {
        "games": int(n),
        "deals": int(k),
        "seed": int(seed),
        "seating": sched.seating,
        "fair_share": 1.0 / P,
        "candidate": entry(wins["candidate"]),
        "baseline": entry(wins["baseline"]),
        "difference": {
            "mean": mean,
            "ci_low": mean - half,
            "ci_high": mean + half,
            "better": bool(mean - half > 0),
            "same_outcome": float((d == 0).mean()),
        },
        "seconds": round(time.perf_counter() - t0, 2),
    }


def report_markdown(report: dict[str, Any]) -> str:
    """``paired.md``: the two win rates and their paired difference."""
    c, b, d = report["candidate"], report["baseline"], report["difference"]
    lines = [
        f"# Paired comparison: {report['candidate_spec']} against {report['baseline_spec']} in the same seats",
        "",
        f"Command: `{report['command']}`" if report.get("command") else "",
        "",
        f"Opponents: {', '.join(report['opponents'])} (every seating, {report['seating']}); {report['games']} games "
        f"of each match on {report['deals']} deals (seed {report['seed']}); fair share {report['fair_share']:.3f}.",
        "",
        "| agent | wins | win rate | 95% CI |",
        "|---|---:|---:|---|",
        f"| candidate `{report['candidate_spec']}` | {c['wins']} | {c['win_rate']:.3f} | [{c['ci_low']:.3f}, {c['ci_high']:.3f}] |",
        f"| baseline `{report['baseline_spec']}` | {b['wins']} | {b['win_rate']:.3f} | [{b['ci_low']:.3f}, {b['ci_high']:.3f}] |",
        "",
        f"Paired difference (candidate - baseline, same deal and seat): **{d['mean']:+.3f}** "
        f"[{d['ci_low']:+.3f}, {d['ci_high']:+.3f}] (95%, clustered by deal); the same outcome in "
        f"{d['same_outcome']:.1%} of the games; the candidate wins more: **{'yes' if d['better'] else 'no'}**.",
    ]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    from monkey_envs.games import add_import_option

    p = argparse.ArgumentParser(
        prog="python -m agents.paired",
        description="Paired comparison: the candidate and the baseline in the same seats against the same "
        "opponents on the same deals; both win rates and their paired difference with a 95% interval.",
    )
    p.add_argument("--game", required=True, help="a registered game name")
    p.add_argument("--players", type=int, default=None, help="number of players (game option num_players)")
    p.add_argument("--candidate", required=True, help="the agent compared (a name or ppo:PATH)")
    p.add_argument("--baseline", required=True, help="the agent it is compared with in the same seats")
    p.add_argument("--opponents", nargs="+", required=True, help="one agent per other seat")
    p.add_argument("--games", type=int, default=4000, help="games of each match, at least (default 4000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=None, help="games per batch of the core")
    p.add_argument("--out", default=None, help="output folder (default runs/paired__<game>__<P>p__<seed>__<time>)")
    add_import_option(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 done, 2 a bad argument)."""
    import shlex

    from agents.registry import make_agent
    from monkey_envs.games import import_plugins, make_game

    args = build_parser().parse_args(argv)
    try:
        import_plugins(args.imports)
        opts = {} if args.players is None else {"num_players": args.players}
        try:
            game = make_game(args.game, **opts)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"--game: {exc}") from None
        if not 1 <= args.games <= 10_000_000:
            raise ValueError(f"--games: must be in [1, 10**7], got {args.games}")
        if args.seed < 0:
            raise ValueError(f"--seed: must be >= 0, got {args.seed}")
        if len(args.opponents) != game.num_players - 1:
            raise ValueError(
                f"--opponents: a {game.num_players}-seat game needs {game.num_players - 1} opponents, "
                f"got {len(args.opponents)}"
            )
        for option, spec in (
            ("--candidate", args.candidate),
            ("--baseline", args.baseline),
            *(("--opponents", o) for o in args.opponents),
        ):
            try:
                make_agent(spec, game, 0)
            except (ValueError, OSError) as exc:
                raise ValueError(f"{option}: {exc}") from None
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = paired_comparison(
        game, args.candidate, args.baseline, args.opponents, args.games, args.seed, args.batch_size
    )
    report.update(
        {
            "command": "python -m agents.paired " + shlex.join(list(argv) if argv is not None else sys.argv[1:]),
            "game": {"name": args.game, **game.config},
            "candidate_spec": args.candidate,
            "baseline_spec": args.baseline,
            "opponents": list(args.opponents),
        }
    )
    out = Path(
        args.out or f"runs/paired__{args.game}__{game.num_players}p__{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "paired.json").write_text(json.dumps(report, indent=2))
    md = report_markdown(report)
    (out / "paired.md").write_text(md)
    print(md)
    print(f"wrote {out / 'paired.json'}, {out / 'paired.md'}")
    return 0


__all__ = ["main", "paired_comparison", "report_markdown"]

if __name__ == "__main__":
    sys.exit(main())
