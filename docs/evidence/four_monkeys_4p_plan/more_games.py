"""The trained agent and its honest-only ablation on 4,000 further seat-balanced games each.

Both against honest + bluffer + smart on the same new deals (seed 2026, not the training
evaluation's), to tell whether the ablation's lower win rate in the 2,000-game evaluations is
more than noise. Run from the repository root with the two run folders:
``PYTHONPATH=$PWD python docs/evidence/four_monkeys_4p_plan/more_games.py RUN_PLAN RUN_HONEST_ONLY``
(writes more_games.json next to this file).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agents import make_agent
from agents.evaluate import opponent_lineup, play_games
from monkey_envs.games import make_game


def main(runs: list[str], games: int = 4000, seed: int = 2026) -> None:
    game = make_game("four_monkeys", num_players=4)
    out = {}
    for label, run in zip(("trained", "honest_only"), runs, strict=True):
        opps, names = opponent_lineup("honest+bluffer+smart", game, seed + 1)
        t = time.perf_counter()
        agent = make_agent(f"ppo:{run}/model.zip", game, seed)
        r = play_games(game, [agent, *opps], games, seed=seed, names=[label, *names])
        print(r.table(), flush=True)
        a = r.agents[0]
        s = game.stats_summary(a.stats, a.seats)
        out[label] = {
            "run": Path(run).name,
            "games": games,
            "wins": a.wins,
            "win_rate": a.win_rate,
            "ci": [a.ci_low, a.ci_high],
            "mean_score": a.mean_score,
            "bluff_rate": s["bluff_rate"],
            "bluffs_caught_rate": s["bluffs_caught_rate"],
            "opponents": {o.name: o.win_rate for o in r.agents[1:]},
            "seconds": round(time.perf_counter() - t, 1),
        }
    (Path(__file__).parent / "more_games.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:3])
