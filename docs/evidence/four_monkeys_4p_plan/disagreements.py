"""Where does the trained policy's move differ from smart's, and are those moves equivalent?

Records 60 fresh smart-vs-smart games (seed 5, not the pretraining seed), asks the trained
policy (its most likely legal action) for every decision, and sorts the disagreements: a grab of
another tile of the same combo, a reveal of another tile (both choices smart makes at random),
or something else. Run from the repository root:
``PYTHONPATH=$PWD python docs/evidence/four_monkeys_4p_plan/disagreements.py runs/<run>/model.zip``
(output: disagreements.txt).
"""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np

from agents import make_agent
from monkey_envs.games import make_game
from training.pretrain import record_teacher_games


def kind(game, x: np.ndarray) -> np.ndarray:
    """The action kind of each action id."""
    x = np.asarray(x)
    conds = [x < 10, x < game.a_burn, x < game.a_swap, x < game.a_reveal, x < game.a_stop, x == game.a_stop]
    return np.select(conds, ["put", "grab", "burn", "replenish", "reveal", "stop"], "wait")


def main(model: str) -> None:
    g = make_game("four_monkeys", num_players=4)
    d = record_teacher_games(g, "smart", 60, seed=5, gamma=0.995)
    a = np.asarray(make_agent(f"ppo:{model}", g, 0).act(d.obs, d.mask))
    dis = a != d.actions
    print("decisions", a.size, "agree", 1 - dis.mean())
    t, p = d.actions, a
    grabs = (t >= g.a_grab) & (t < g.a_burn) & (p >= g.a_grab) & (p < g.a_burn)
    same_combo = dis & grabs & (((t - g.a_grab) % 10) == ((p - g.a_grab) % 10))
    rev = dis & (kind(g, t) == "reveal") & (kind(g, p) == "reveal")
    print("disagreements", dis.sum(), "same-combo grab", same_combo.sum(), "reveal other tile", rev.sum())
    rest = dis & ~same_combo & ~rev
    print(
        "other",
        rest.sum(),
        Counter(zip(kind(g, t[rest]).tolist(), kind(g, p[rest]).tolist(), strict=True)).most_common(8),
    )


if __name__ == "__main__":
    main(sys.argv[1])
