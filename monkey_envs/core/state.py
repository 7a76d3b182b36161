"""Batched game state: plain numpy arrays with a leading batch axis ``B``.

Every game's State is a dataclass subclass of :class:`BatchState`. All fields are numpy
arrays whose first axis is the batch axis, so cloning, slicing, concatenating and
serialising are written once here for every game.
"""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np

S = TypeVar("S", bound="BatchState")


@dataclasses.dataclass
class BatchState:
    """Fields shared by every game (``B`` = batch size, ``P`` = players, ``A`` = actions).

    Attributes:
        current_player: ``(B,) int8`` seat whose decision is pending (-1 once the game ended).
        rewards: ``(B, P) float32`` reward of every seat for the last transition.
        terminated: ``(B,) bool`` the game ended by its rules.
        truncated: ``(B,) bool`` the game was cut short (a step cap); never set by the rules.
        legal_action_mask: ``(B, A) bool`` legal actions of ``current_player``; all False
            for finished games.
        step_count: ``(B,) int32`` decisions taken so far.
        rng: ``(B, 2) uint64`` per-env counter-based RNG (see :mod:`monkey_envs.core.rng`).
        winners_mask: ``(B, P) bool`` seats that won (set when the game ends; all False while
            running and when nobody won).
        end_reason: ``(B,) int8`` why the game ended: an index into the game's
            ``spec.end_reasons`` (0 while running).
    """

    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    legal_action_mask: np.ndarray
    step_count: np.ndarray
    rng: np.ndarray
    winners_mask: np.ndarray
    end_reason: np.ndarray

    #: Serialisation format version; bump when fields change meaning.
    FORMAT: ClassVar[int] = 1

    # ------------------------------------------------------------------ shape helpers
    @property
    def batch_size(self) -> int:
        """Number of envs ``B`` in the batch."""
        return int(self.current_player.shape[0])

    @classmethod
    def field_names(cls) -> list[str]:
        """Names of all array fields, in declaration order."""
        return list(cls._field_tuple())

    @classmethod
    def _field_tuple(cls) -> tuple[str, ...]:
        # cached per class (dataclasses.fields is slow on the step hot path)
        names = cls.__dict__.get("_FIELD_NAMES")
        if names is None:
            names = tuple(f.name for f in dataclasses.fields(cls))
            cls._FIELD_NAMES = names
        return names

    def arrays(self) -> dict[str, np.ndarray]:
        """The state as a dict ``name -> array`` (views, not copies)."""
        return {name: getattr(self, name) for name in self._field_tuple()}

    # ------------------------------------------------------------------ copying
    def clone(self: S) -> S:
        """Deep copy of every array."""
        d = self.__dict__
        new = object.__new__(type(self))  # the fields are all there is: skip __init__ (hot path)
        nd = new.__dict__
        for k in self._field_tuple():
            nd[k] = d[k].copy()
        return new

    def take(self: S, indices: Any) -> S:
        """Rows ``indices`` (int array, slice or bool mask) as a new state (copies)."""
        if isinstance(indices, (int, np.integer)):
            indices = [int(indices)]
        d = self.__dict__
        return type(self)(**{k: np.array(d[k][indices]) for k in self._field_tuple()})

    @classmethod
    def concat(cls: type[S], states: list[S]) -> S:
        """Stack states of the same game and config along the batch axis."""
        if not states:
            raise ValueError("concat needs at least one state")
        first = states[0].arrays()
        for s in states[1:]:
            if type(s) is not cls:
                raise ValueError(f"cannot concat {type(s).__name__} with {cls.__name__}")
            for k, v in s.arrays().items():
                if v.shape[1:] != first[k].shape[1:] or v.dtype != first[k].dtype:
                    raise ValueError(
                        f"field {k!r}: shape {v.shape}/{v.dtype} does not match "
                        f"{first[k].shape}/{first[k].dtype} (different game config?)"
                    )
        return cls(**{k: np.concatenate([getattr(s, k) for s in states]) for k in first})

    def put(self, indices: np.ndarray, other: BatchState) -> None:
        """Overwrite rows ``indices`` in place with the rows of ``other`` (same config)."""
        d = self.__dict__
        for k in self._field_tuple():
            d[k][indices] = getattr(other, k)

    # ------------------------------------------------------------------ (de)serialisation
    def get_state(self) -> dict[str, Any]:
        """A JSON-able dict: field -> nested lists, plus dtype and shape metadata."""
        return {
            "format": self.FORMAT,
            "state_class": type(self).__name__,
            "fields": {
                k: {"dtype": str(v.dtype), "shape": list(v.shape), "data": v.tolist()} for k, v in self.arrays().items()
            },
        }

    @classmethod
    def set_state(cls: type[S], data: dict[str, Any]) -> S:
        """Inverse of :meth:`get_state`; raises ``ValueError`` on a foreign or damaged dict."""
        if not isinstance(data, dict):
            raise ValueError(f"state data must be a dict from get_state(), got {type(data).__name__}")
        if data.get("state_class") != cls.__name__:
            raise ValueError(f"state dict is for {data.get('state_class')!r}, not {cls.__name__}")
        if data.get("format") != cls.FORMAT:
            raise ValueError(f"state dict has format {data.get('format')!r}; this version reads format {cls.FORMAT}")
        fields = data.get("fields")
        if not isinstance(fields, dict):
            raise ValueError("state dict has no 'fields' mapping")
        missing = set(cls.field_names()) - set(fields)
        if missing:
            raise ValueError(f"state dict lacks fields {sorted(missing)}")
        out = {}
        for k in cls.field_names():
            spec = fields[k]
            try:
                arr = np.asarray(spec["data"], dtype=np.dtype(spec["dtype"]))
                out[k] = arr.reshape(spec["shape"])
            except (TypeError, ValueError, KeyError, OverflowError) as e:
                raise ValueError(f"state field {k!r} is damaged: {e}") from e
        return cls._checked(out)

    @classmethod
    def _checked(cls: type[S], arrays: dict[str, np.ndarray]) -> S:
        """Build a state after checking every field has the same batch size."""
        sizes = {k: (v.shape[0] if v.ndim else None) for k, v in arrays.items()}
        if len(set(sizes.values())) != 1 or None in sizes.values():
            raise ValueError(f"state fields disagree on the batch size: {sizes}")
        return cls(**arrays)

    def to_json(self) -> str:
        """Lossless JSON text of the state."""
        return json.dumps(self.get_state())

    @classmethod
    def from_json(cls: type[S], text: str) -> S:
        """Inverse of :meth:`to_json`."""
        return cls.set_state(json.loads(text))

    def save(self, path: str | Path | io.BytesIO) -> None:
        """Write the state losslessly as a compressed ``.npz`` file."""
        np.savez_compressed(path, __state_class__=np.array(type(self).__name__), **self.arrays())

    @classmethod
    def load(cls: type[S], path: str | Path | io.BytesIO) -> S:
        """Read a state written by :meth:`save`; ``ValueError`` for a foreign or incomplete file."""
        with np.load(path, allow_pickle=False) as z:
            if "__state_class__" not in z.files:
                raise ValueError("file holds no monkey-envs state (no __state_class__ entry)")
            name = str(z["__state_class__"])
            if name != cls.__name__:
                raise ValueError(f"file holds a {name}, not a {cls.__name__}")
            missing = sorted(set(cls.field_names()) - set(z.files))
            if missing:
                raise ValueError(f"state file lacks fields {missing}")
            return cls._checked({k: z[k] for k in cls.field_names()})

    def equals(self, other: BatchState) -> bool:
        """True when every array is equal (shape, dtype and values)."""
        if type(self) is not type(other):
            return False
        a, b = self.arrays(), other.arrays()
        return all(a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]) for k in a)
