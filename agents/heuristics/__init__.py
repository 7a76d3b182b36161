"""Hand-written heuristic agents, one module per game."""

from agents.heuristics.monkey_fun import GreedyMonkeyFun, hit_probability, make_greedy

__all__ = ["GreedyMonkeyFun", "hit_probability", "make_greedy"]
