"""Monkey Fun: the batched rules (:class:`MonkeyFun`) and its state (:class:`MonkeyFunState`)."""

from monkey_envs.monkey_fun.rules import DISCARD_ACTION, NUM_ACTIONS, SUBSET_BITS, MonkeyFun
from monkey_envs.monkey_fun.state import MonkeyFunState

__all__ = ["DISCARD_ACTION", "NUM_ACTIONS", "SUBSET_BITS", "MonkeyFun", "MonkeyFunState"]
