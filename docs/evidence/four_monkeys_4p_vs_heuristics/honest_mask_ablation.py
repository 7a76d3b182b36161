"""Honest-mask ablation: a trained policy with its bluffs masked out (HonestMask) vs honest+bluffer+smart.

Run: ``PYTHONPATH=$PWD python docs/evidence/four_monkeys_4p_vs_heuristics/honest_mask_ablation.py RUN_DIR GAMES OUT.json``
"""

import json
import sys
import time

from agents import make_agent
from agents.evaluate import opponent_lineup, play_games
from agents.heuristics.four_monkeys import HonestMask
from monkey_envs.games import make_game

run, n = sys.argv[1], int(sys.argv[2])
game = make_game("four_monkeys", num_players=4)
seed = 1000003  # eval.seed of the config
out = {}
for label in ("trained + honest mask",):
    opp, names = opponent_lineup("honest+bluffer+smart", game, seed + 1)
    pol = make_agent(f"ppo:{run}/model.zip", game, seed)
    agent = HonestMask(pol, game)
    t = time.time()
    r = play_games(game, [agent, *opp], n, seed=seed, names=["trained+honest_mask", *names])
    a = r.agents[0]
    summ = game.stats_summary(a.stats, a.seats)
    out[label] = {
        "games": n,
        "win_rate": a.win_rate,
        "ci": [a.ci_low, a.ci_high],
        "seconds": time.time() - t,
        "stats_summary": summ,
        "others": {x.name: x.win_rate for x in r.agents[1:]},
    }
    print(label, json.dumps(out[label], indent=1, default=float), flush=True)
json.dump(out, open(sys.argv[3], "w"), indent=2, default=float)
