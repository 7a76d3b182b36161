"""Monki heuristics read the player boards right (rule: a regular token fills the space of its
colour and fruit on row 1, a golden one the space of its fruit on row 2, either colour)."""

from __future__ import annotations

import numpy as np

from agents.heuristics.monki import _MonkiView
from monkey_envs.monki import Monki


def test_empty_spaces_match_the_true_player_board():
    g = Monki()
    s = g.position(
        boards=[["blue banana", "green golden fig", "blue golden grapes", "green pineapple"], ["blue fig"]],
        monkis=[(0, 0), (5, 5)],
    )
    v = _MonkiView(g, g.observe(s, np.array([0])))
    truth = g.filled_slots(s.owner)[0, 0] == 0
    assert v.empty[0].tolist() == truth.tolist()
    # slots: 0-3 green, 4-7 blue (banana, fig, pineapple, grapes), 8-11 golden
    assert np.flatnonzero(~v.empty[0]).tolist() == [2, 4, 9, 11]
