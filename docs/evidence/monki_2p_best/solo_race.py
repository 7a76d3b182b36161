"""How fast does each Monki agent win alone? Evidence for the 95%-against-random target.

The agent plays seat 0 of 2,000 games whose seat 1 always skips (recharges, touching nothing), so
the game is a race against nobody; we print the share it wins and the quantiles of its own
turns to win (``state.turns // 2``: both seats' turns together, the skipper's included).
Against a real opponent the game is roughly a race of two such clocks: to win 95% against
random an agent has to finish before random's fastest 5% of games.

    PYTHONPATH=$PWD python docs/evidence/monki_2p_best/solo_race.py random cautious greedy [ppo:PATH]
"""

from __future__ import annotations

import sys

import numpy as np

from agents.registry import make_agent
from monkey_envs.games import make_game


def solo(name: str, games: int = 2000) -> None:
    g = make_game("monki")
    agent = make_agent(name, g, 0)
    s = g.init(np.arange(games))
    while not (s.terminated | s.truncated).all():
        cp = s.current_player.astype(np.int64)
        obs = g.observe(s, np.maximum(cp, 0))
        a = np.asarray(agent.act(obs, s.legal_action_mask)).astype(np.int64)
        idle = (cp == 1) & s.legal_action_mask[:, g.A_SKIP]
        a[idle] = g.A_SKIP
        a[~s.legal_action_mask.any(1)] = 0
        s = g.step(s, a)
    won = s.winners_mask[:, 0]
    turns = s.turns[won] // 2
    q = np.percentile(turns, [5, 10, 25, 50, 75, 90, 95])
    print(f"{name}: wins alone {won.mean():.3f}; own turns to win, quantiles 5/10/25/50/75/90/95: {q.tolist()}")


if __name__ == "__main__":
    for spec in sys.argv[1:]:
        solo(spec)
