"""Game facts declared as data (after OpenSpiel's ``GameType`` / ``GameInfo``)."""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Static facts of a game, independent of its configuration.

    Attributes:
        name: snake_case id, e.g. ``"monkey_fun"`` (PettingZoo id ``monkey_envs/<name>-v<version>``).
        gym_name: CamelCase id, e.g. ``"MonkeyFun"`` (gymnasium id ``monkey_envs/<gym_name>-v<version>``).
        version: behaviour version; bumped whenever rules or encodings change.
        min_players / max_players: supported player counts.
        variants: names accepted by the ``variant`` option.
        chance: the game draws random events (shuffles, reveals).
        information: ``"perfect"`` or ``"imperfect"``.
        reward_range: smallest and largest reward of one transition.
        description: one line for listings.
    """

    name: str
    gym_name: str
    version: int
    min_players: int
    max_players: int
    variants: tuple[str, ...]
    chance: bool
    information: str
    reward_range: tuple[float, float]
    description: str


@dataclasses.dataclass(frozen=True)
class ObsPiece:
    """One named slice of the flat observation vector."""

    name: str
    shape: tuple[int, ...]
    meaning: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class ObsLayout:
    """The named pieces that make up a flat observation, in order.

    ``layout.unflatten(obs)`` gives a dict ``name -> (B, *shape)`` views, so agents and tests
    read observations by name instead of by magic offsets.
    """

    def __init__(self, pieces: list[ObsPiece]):
        self.pieces = list(pieces)
        self.slices: dict[str, slice] = {}
        start = 0
        for p in self.pieces:
            self.slices[p.name] = slice(start, start + p.size)
            start += p.size
        self.size = start

    def unflatten(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Split ``(B, size)`` (or ``(size,)``) observations into named views."""
        lead = obs.shape[:-1]
        return {p.name: obs[..., self.slices[p.name]].reshape(*lead, *p.shape) for p in self.pieces}

    def table(self) -> str:
        """Markdown table of the pieces (for docs)."""
        rows = ["| slice | name | shape | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            s = self.slices[p.name]
            rows.append(f"| {s.start}:{s.stop} | `{p.name}` | {p.shape} | {p.meaning} |")
        return "\n".join(rows)
