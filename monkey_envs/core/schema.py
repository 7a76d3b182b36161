"""A game's state schema: every field of its state declared once, with its dtype, shape and meaning.

A game declares its state as a :class:`~monkey_envs.core.state.BatchState` subclass whose fields
are :func:`field` declarations, under :func:`state_schema`::

    @state_schema
    class DiceState(BatchState):
        totals: np.ndarray = field("int16", ("num_players",), "points of each seat")
        turn: np.ndarray = field("int8", (), "turns played so far", low=0, high="max_turns")

From that one declaration the kit derives, written once here:

* the dataclass itself and the ``Attributes:`` section of its docstring (:func:`state_schema`);
* the order of the arrays in the tuple the game's compiled kernels take (:func:`field_names`)
  and their indices (:func:`field_index`: ``st[F.turn]``, a compile-time constant to numba);
* the exact dtype and per-row shape of every field for a configured game (:func:`layout`), which
  loading a state checks (``Game.state_layout``) and the kit's conformance checks hold ``init`` to;
* the range check of every field that declares bounds (:func:`range_violations`), run before
  a game's own laws on every state loaded from outside.

A shape entry is an ``int`` or the name of an ``int`` attribute of the configured game (e.g.
``"num_players"``, ``"num_actions"``); a bound (``low``, ``high``, both inclusive) is a number, an
array broadcast against the field's per-row shape, such a name with an optional ``+k`` / ``-k``
(``"num_players-1"``), ``"max"`` (the dtype's largest value) or a function of the game.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

import numpy as np

from monkey_envs.core.invariants import Report

T = TypeVar("T", bound=type)

#: A shape entry: a size, or the name of an ``int`` attribute of the configured game.
Size = int | str
#: A bound: a number, an array, ``"max"``, ``"<game attribute>[+-k]"`` or ``game -> value``.
Bound = int | float | np.ndarray | str | Callable[[Any], Any] | None

_KEY = "monkey_envs.schema"
#: How the docs write the sizes every game has.
_SHORT: dict[Size, str] = {"num_players": "P", "num_actions": "A"}
_NAME_BOUND = re.compile(r"^([A-Za-z_]\w*)\s*(?:([+-])\s*(\d+))?$")


@dataclasses.dataclass(frozen=True)
class Field:
    """One declared state field.

    Attributes:
        name: the attribute name.
        dtype: the exact numpy dtype of the array.
        shape: the per-row shape (after the batch axis ``B``); entries are sizes or names of the
            game's ``int`` attributes.
        meaning: one line saying what the array holds (it becomes the class docs).
        low: smallest valid value (inclusive), or ``None`` for no check.
        high: largest valid value (inclusive), or ``None`` for no check.
        counter: the field only counts up during play (decisions taken, per-seat statistics):
            ``low`` is 0, and a loaded state must leave it room to play (``Game.counter_fields``).
        start: the value of every element in a new game before the deal (``Game.new_state``).
    """

    name: str
    dtype: np.dtype
    shape: tuple[Size, ...]
    meaning: str
    low: Bound = None
    high: Bound = None
    counter: bool = False
    start: int | float | bool = 0

    def describe(self) -> str:
        """``"(B, P, 4) int8 meaning"`` as the docs show it."""
        dims = ", ".join(["B", *(_SHORT.get(d, str(d)) for d in self.shape)])
        return f"``({dims}{',' if not self.shape else ''}) {self.dtype}`` {self.meaning}"


def field(
    dtype: Any,
    shape: tuple[Size, ...] = (),
    meaning: str = "",
    *,
    low: Bound = None,
    high: Bound = None,
    counter: bool = False,
    start: int | float | bool = 0,
) -> Any:
    """Declare a state field (a required dataclass field carrying its :class:`Field` facts).

    Args:
        dtype: the numpy dtype (``"int8"``, ``np.float32``, ``bool``, ...).
        shape: the per-row shape; an entry is an ``int`` or a game attribute's name.
        meaning: what the array holds, in one line.
        low: smallest valid value (inclusive); see the module docs for the forms.
        high: largest valid value (inclusive).
        counter: an integer field that only counts up during play (then ``low`` is 0).
        start: the value of every element in a new game before the game's deal
            (``Game.init`` allocates the state so; ``-1`` for "none yet", ``True``, ...).
    """
    if counter and (np.dtype(dtype).kind != "i" or low not in (None, 0)):
        raise TypeError(f"a counter is a signed integer field counting up from 0, got {np.dtype(dtype)} low={low!r}")
    if not isinstance(shape, tuple) or not all(isinstance(d, (int, str)) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"a field's shape must be a tuple of ints and attribute names, got {shape!r}")
    if isinstance(start, np.generic):
        start = start.item()
    if not isinstance(start, (int, float, bool)):
        raise TypeError(f"a field's start value must be a number, got {start!r:.60}")
    if np.array(start).astype(dtype) != start:
        raise TypeError(f"start value {start!r} does not fit dtype {np.dtype(dtype)}")
    low = 0 if counter else low
    return dataclasses.field(metadata={_KEY: (np.dtype(dtype), shape, meaning, low, high, counter, start)})


@dataclass_transform(field_specifiers=(field,))
def state_schema(cls: T) -> T:
    """Make ``cls`` a dataclass of its :func:`field` declarations and write their docs into it.

    Every field of ``cls`` (those it inherits included) must be a :func:`field` declaration;
    the class docstring gets an ``Attributes:`` section listing each one (shape, dtype, meaning).
    A subclass of ``BatchState`` is made so when it is created (the decorator is then optional,
    and applying it again changes nothing).
    """
    if cls.__dict__.get("_SCHEMA_DECLARED"):  # already made (a BatchState subclass is on creation)
        return cls
    cls = dataclasses.dataclass(cls)
    type.__setattr__(cls, "_SCHEMA_DECLARED", True)
    fields = schema(cls)
    own = [f for f in fields if f.name in inspect.get_annotations(cls)]
    lines = [f"    {f.name}: {f.describe()}" for f in own]
    doc = (cls.__doc__ or "").rstrip()
    if lines:
        doc += "\n\n    Attributes:\n" + "\n".join("    " + ln for ln in lines) + "\n"
    cls.__doc__ = doc
    return cls


def schema(cls: type) -> tuple[Field, ...]:
    """The declared fields of the state class ``cls``, in order (the inherited shared ones first)."""
    cached = cls.__dict__.get("_SCHEMA")
    if cached is not None:
        return cached
    out = []
    for f in dataclasses.fields(cls):
        facts = f.metadata.get(_KEY)
        if facts is None:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with monkey_envs.core.schema.field(...)")
        out.append(Field(f.name, *facts))
    result = tuple(out)
    type.__setattr__(cls, "_SCHEMA", result)
    return result


def counters(cls: type) -> tuple[str, ...]:
    """Names of ``cls``'s fields declared ``counter=True``, in order."""
    return tuple(f.name for f in schema(cls) if f.counter)


def field_names(cls: type) -> tuple[str, ...]:
    """Names of ``cls``'s fields in order: the order of the arrays in a kernel's state tuple ``st``."""
    return tuple(f.name for f in schema(cls))


def field_index(cls: type) -> types.ModuleType:
    """A namespace of the index of each field in the kernels' state tuple: ``st[F.pos]``.

    It is a module object, whose ``int`` attributes numba reads as compile-time constants (so
    ``st[F.pos]`` of a tuple of differently typed arrays compiles, as a literal index would).
    """
    ns = types.ModuleType(f"{cls.__module__}.{cls.__name__}.fields", f"Indices of {cls.__name__}'s fields.")
    for i, name in enumerate(field_names(cls)):
        setattr(ns, name, i)
    return ns


def size_of(game: Any, entry: Size) -> int:
    """The size a shape entry stands for in ``game`` (an int, or the game's int attribute of that name)."""
    if isinstance(entry, int):
        return entry
    value = getattr(game, entry, None)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{type(game).__name__}.{entry} must be an int to size a state field, got {value!r:.60}")
    return int(value)


def layout(cls: type, game: Any) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Per field of ``cls``, its per-row shape and dtype in the configured ``game``."""
    return {f.name: (tuple(size_of(game, d) for d in f.shape), f.dtype) for f in schema(cls)}


def bound_of(game: Any, bound: Bound, dtype: np.dtype) -> Any:
    """The value a declared bound stands for in ``game`` (see the module docs)."""
    if callable(bound):
        return bound(game)
    if isinstance(bound, str):
        if bound == "max":
            return np.iinfo(dtype).max if dtype.kind in "iu" else np.finfo(dtype).max
        m = _NAME_BOUND.match(bound)
        if m is None:
            raise ValueError(f"a bound must be a number, 'max' or '<attribute>[+-k]', got {bound!r}")
        base = size_of(game, m.group(1))
        k = int(m.group(3) or 0)
        return base - k if m.group(2) == "-" else base + k
    return bound


def range_violations(cls: type, game: Any, state: Any) -> tuple[list[tuple[str, int, str]], np.ndarray]:
    """Values of ``state`` outside their declared bounds: ``((field, row, why) list, (B,) bool bad rows)``.

    ``state`` must have the game's layout (the caller checks it first, as
    ``Game.state_violations`` does). Every offending row is reported once per field; a
    non-finite value of a bounded float field is out of range.
    """
    rep = Report()
    bad = np.zeros(state.batch_size, bool)
    for f in schema(cls):
        if f.low is None and f.high is None:
            continue
        values = getattr(state, f.name)
        if values.dtype.kind in "biu":
            values = values.astype(np.int64)
        lo = bound_of(game, f.low, f.dtype) if f.low is not None else -np.inf
        hi = bound_of(game, f.high, f.dtype) if f.high is not None else np.inf
        bad |= rep.rng(f.name, values, lo, hi)
    return rep.out, bad
