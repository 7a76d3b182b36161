"""Funky Monkey: the batched rules (:class:`FunkyMonkey`) and its state (:class:`FunkyMonkeyState`).

See ``docs/funky_monkey.md`` for the rules summary, the action table, the phases,
the observation table, the variants and the reconstructed data.
"""

from monkey_envs.funky_monkey.rules import (
    A_ACCEPT,
    A_BONUS_DECLINE,
    A_BONUS_MONKEY,
    A_BONUS_TIGER,
    A_BOWL_1,
    A_BOWL_2,
    A_CROWN,
    A_PASS,
    A_PAY_GOLDEN,
    A_PAY_NORMAL,
    A_PYRAMID_BACKWARD,
    A_PYRAMID_FORWARD,
    A_SCALES_SKIP,
    A_SCALES_TARGET,
    A_TELESCOPE,
    FunkyMonkey,
    num_actions_for,
)
from monkey_envs.funky_monkey.state import END_REASONS, PHASE_NAMES, STAT_NAMES, FunkyMonkeyState

__all__ = [
    "A_ACCEPT",
    "A_BONUS_DECLINE",
    "A_BONUS_MONKEY",
    "A_BONUS_TIGER",
    "A_BOWL_1",
    "A_BOWL_2",
    "A_CROWN",
    "A_PASS",
    "A_PAY_GOLDEN",
    "A_PAY_NORMAL",
    "A_PYRAMID_BACKWARD",
    "A_PYRAMID_FORWARD",
    "A_SCALES_SKIP",
    "A_SCALES_TARGET",
    "A_TELESCOPE",
    "END_REASONS",
    "PHASE_NAMES",
    "STAT_NAMES",
    "FunkyMonkey",
    "FunkyMonkeyState",
    "num_actions_for",
]
