"""Monki (The Flying Games 2021): the batched rules (:class:`Monki`) and its state (:class:`MonkiState`).

Two players move their Monki like a chess queen over free cells of four 3x3 temple boards, then
flip pot tokens in line of sight (a second token of the same fruit in one turn busts) and pass to
keep the new fruits, or use a ruby to collect fruit from the statue of their board. Row 1 full
(8 fruits) or row 2 full (4 golden fruits) wins at once; the turn cap (default 200) draws.

Action space (``N = rows * cols`` grid cells; the default 6x6 square: ``N = 36``, ``A = 90``):
``[0, N)`` place the Monki on cell ``c`` (placement phase); ``[N, 2N)`` move to cell ``c``;
``2N`` skip (recharge the rubies); ``2N+1+s`` flip the top of stack ``s`` (0..11, board-major);
``2N+13`` pass; ``2N+14+f`` use the ruby of fruit ``f`` (banana, fig, pineapple, grapes).
See :mod:`monkey_envs.monki.rules` for the mask of each phase and the decisions made here, and
``Monki(...).obs_layout.table()`` for the observation.
"""

from monkey_envs.monki.rules import SPEC, Monki
from monkey_envs.monki.state import END_REASONS, PHASES, STAT_NAMES, MonkiState

__all__ = ["END_REASONS", "PHASES", "SPEC", "STAT_NAMES", "Monki", "MonkiState"]
