"""4 Monkeys (HomoLudicus 2010): the batched rules (:class:`FourMonkeys`) and its state (:class:`FourMonkeysState`).

A real-time card game played in ticks: every seat commits one atomic action per tick (put a card
into its pending set, grab a combo tile with the pending set -- bluffs allowed --, burn a tile,
use Hand replenish, reveal a tile, call Stop, wait); the tick resolves in a random priority
order. At the end of a round only the Smartest Monkey's combos are checked. Three rounds; the
highest total wins. See :mod:`monkey_envs.four_monkeys.kernels` for the action layout and
``FourMonkeys(...).obs_layout.table()`` for the observation.
"""

from monkey_envs.four_monkeys.rules import SPEC, FourMonkeys
from monkey_envs.four_monkeys.state import END_REASONS, STAT_NAMES, FourMonkeysState

__all__ = ["END_REASONS", "SPEC", "STAT_NAMES", "FourMonkeys", "FourMonkeysState"]
