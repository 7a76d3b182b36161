"""How fragile is smart's play? smart in the learner's seat with a share of its moves replaced.

First the reference rows: ``smart``, ``smart_honest`` (smart without bluffs) and ``honest`` in the
learner's seat, 1,000 games on the training evaluation's deals (seed 1000003) -- what a perfect
clone of each teacher would win.

Why the raw-observation clone of smart (84.8% of smart's moves reproduced) won 2.6% while smart
itself wins ~34% in that seat: this plays smart against honest + bluffer + smart (seat-balanced,
the training evaluation's line-up) with each of its decisions replaced, with probability eps, by

* ``random``: a uniformly random legal action (invalid Stops included),
* ``random-no-stop``: a uniformly random legal action other than Stop,
* ``wait``: waiting (a lost tick, nothing else),
* ``put``: a random card put into the pending set (the move that turns later grabs into bluffs).

Run from the repository root: ``PYTHONPATH=$PWD python docs/evidence/four_monkeys_4p_plan/deviation_sensitivity.py``
(writes deviation_sensitivity.json / .md next to this file).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from agents.evaluate import opponent_lineup, play_games
from agents.heuristics.four_monkeys import SmartAgent
from monkey_envs.four_monkeys import data as D
from monkey_envs.games import make_game


class Deviating:
    """smart, with each decision replaced by ``kind`` with probability ``eps`` (seeded)."""

    def __init__(self, game, eps: float, kind: str, seed: int = 0) -> None:
        self.game, self.eps, self.kind = game, float(eps), kind
        self.inner = SmartAgent(game, seed)
        self.rng = np.random.default_rng(seed + 99)
        self.name = f"smart~{kind}@{eps}"

    def act(self, obs, mask):
        mask = np.asarray(mask).astype(bool)
        a = self.inner.act(obs, mask)
        dev = self.rng.random(a.size) < self.eps
        m = mask.copy()
        if self.kind == "random-no-stop":
            m[:, self.game.a_stop] = False
        elif self.kind == "wait":
            m[:] = False
            m[:, self.game.a_wait] = True
        elif self.kind == "put":
            m[:, D.NUM_KINDS :] = False
        ok = dev & m.any(1)
        u = np.where(m, self.rng.random(m.shape), -1.0)
        a = a.copy()
        a[ok] = u[ok].argmax(1)
        return a


def _row(game, agent, games: int, label: str, eps: float) -> dict:
    opps, names = opponent_lineup("honest+bluffer+smart", game, 1)
    t = time.perf_counter()
    r = play_games(game, [agent, *opps], games, seed=1_000_003, names=["agent", *names])
    a = r.agents[0]
    s = game.stats_summary(a.stats, a.seats)
    row = {
        "deviation": label,
        "eps": eps,
        "games": games,
        "win_rate": a.win_rate,
        "ci": [a.ci_low, a.ci_high],
        "mean_score": a.mean_score,
        "bluff_rate": s["bluff_rate"],
        "bluffs_caught_rate": s["bluffs_caught_rate"],
        "invalid_stops_per_game": s.get("invalid_stops", 0) / games,
        "seconds": round(time.perf_counter() - t, 1),
    }
    print(row, flush=True)
    return row


def main(games: int = 1000, reference_games: int = 1000) -> None:
    game = make_game("four_monkeys", num_players=4)
    rows = [_row(game, name, reference_games, f"({name} itself)", 0.0) for name in ("smart", "smart_honest", "honest")]
    deviations = [
        ("random", 0.05),
        ("random", 0.15),
        ("random-no-stop", 0.15),
        ("wait", 0.15),
        ("put", 0.05),
        ("put", 0.15),
    ]
    for kind, eps in deviations:
        rows.append(_row(game, Deviating(game, eps, kind), games, kind, eps))
    here = Path(__file__).parent
    (here / "deviation_sensitivity.json").write_text(json.dumps(rows, indent=1))
    lines = [
        "A heuristic in the learner's seat vs honest + bluffer + smart (seat-balanced, the training evaluation's "
        f"deals): the three teachers ({reference_games} games each), then smart with each decision replaced with "
        f"probability eps ({games} games each; deviation_sensitivity.py)",
        "",
        "| agent / deviation of smart | eps | win rate | 95% CI | mean score | bluff rate | caught / bluff | invalid Stops / game |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        caught = "-" if r["bluffs_caught_rate"] is None else f"{r['bluffs_caught_rate']:.3f}"
        lines.append(
            f"| {r['deviation']} | {r['eps']} | {r['win_rate']:.3f} | [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] | "
            f"{r['mean_score']:.1f} | {r['bluff_rate']:.3f} | {caught} | {r['invalid_stops_per_game']:.2f} |"
        )
    (here / "deviation_sensitivity.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
