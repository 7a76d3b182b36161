"""Game facts declared as data (after OpenSpiel's ``GameType`` / ``GameInfo``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

#: The game's dynamics: one seat decides at a time, or every seat of a tick chooses without
#: seeing the others' choices of that tick (committed one seat after another in the core).
DYNAMICS = ("sequential", "simultaneous")


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Static facts of a game, independent of its configuration.

    Attributes:
        name: snake_case id (PettingZoo id ``monkey_envs/<name>-v<version>``).
        gym_name: CamelCase id (gymnasium id ``monkey_envs/<gym_name>-v<version>``).
        version: behaviour version; bumped whenever rules or encodings change.
        min_players / max_players: supported player counts.
        variants: names accepted by the ``variant`` option.
        chance: the game draws random events (shuffles, reveals).
        information: ``"perfect"`` or ``"imperfect"``.
        reward_range: smallest and largest reward of one transition.
        description: one line for listings.
        title: display name ("Monkey Fun"); defaults to ``gym_name``.
        dynamics: ``"sequential"`` (one mover per decision) or ``"simultaneous"`` (every seat of
            a tick commits a hidden choice in turn; the tick resolves after the last one; see
            :meth:`~monkey_envs.core.game.Game.movers`). Simultaneous games get a PettingZoo
            ``ParallelEnv``.
        end_reasons: name of each ``state.end_reason`` code (code ``i`` is ``end_reasons[i]``;
            code 0 is the running game). Infos carry the code (``info["end_reason"]``, an int,
            so RL libraries can store it in numeric buffers); :meth:`end_reason_name` and
            :meth:`readable_info` give the names back.
        default_players: player counts that benchmarks and listings use by default.
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
    title: str = ""
    dynamics: str = "sequential"
    end_reasons: tuple[str, ...] = ("running", "over")
    default_players: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.dynamics not in DYNAMICS:
            raise ValueError(f"GameSpec.dynamics must be one of {DYNAMICS}, got {self.dynamics!r}")
        if not self.title:
            object.__setattr__(self, "title", self.gym_name)
        if not self.default_players:
            object.__setattr__(self, "default_players", (self.min_players,))
        if not self.name.isidentifier() or not self.gym_name.isidentifier():
            raise ValueError(f"GameSpec names must be identifiers, got {self.name!r} / {self.gym_name!r}")

    @property
    def simultaneous(self) -> bool:
        """True for a simultaneous-move game."""
        return self.dynamics == "simultaneous"

    def end_reason_name(self, code: int) -> str:
        """Name of end-reason ``code`` (``end_reasons[code]``; ``"code_<n>"`` for a code outside the table)."""
        c = int(code)
        return self.end_reasons[c] if 0 <= c < len(self.end_reasons) else f"code_{c}"

    def readable_info(self, info: dict[str, Any]) -> dict[str, Any]:
        """A JSON-ready, human-readable copy of an episode ``info`` dict (logs, playthroughs, reports).

        ``end_reason`` (an int code) becomes its name, ``winners`` (a ``(P,) bool`` mask) the list
        of winning seats, numpy arrays become lists and numpy scalars Python numbers (nested
        dicts too); every other value is kept. The env infos themselves stay numeric and
        fixed-shape (what RL libraries' buffers need); this is their readable form.
        """
        out: dict[str, Any] = {}
        for key, value in info.items():
            if key == "end_reason" and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                out[key] = self.end_reason_name(value)
            elif key == "winners" and isinstance(value, np.ndarray) and value.dtype == np.bool_:
                out[key] = np.flatnonzero(value).tolist()
            else:
                out[key] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    """``value`` with numpy arrays as lists and numpy scalars as Python numbers (dicts recursively)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


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
