"""Batched game state: plain numpy arrays with a leading batch axis ``B``.

Every game's State is a dataclass subclass of :class:`BatchState`. All fields are numpy
arrays whose first axis is the batch axis, so cloning, slicing, concatenating and
serialising are written once here for every game.

A state remembers which game (name and configuration) made it -- :meth:`Game.init
<monkey_envs.core.game.Game.init>` marks it, and clones, slices and copies keep the mark -- and
:meth:`BatchState.get_state`, :meth:`~BatchState.to_json` and :meth:`~BatchState.save` write it
next to the arrays. Nothing loaded is trusted: :meth:`~BatchState.set_state`,
:meth:`~BatchState.from_json` and :meth:`~BatchState.load` rebuild that game from the registry
(:func:`monkey_envs.games.make_game`), check every field's dtype and shape against a fresh
``init`` of it and then the game's laws (:meth:`Game.validate_state
<monkey_envs.core.game.Game.validate_state>`), and raise :class:`StateError` (a ``ValueError``)
naming the field and row of the first problems; a damaged file of any kind is a
:class:`StateError` naming the file.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import math
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from monkey_envs.core.schema import field, state_schema

if TYPE_CHECKING:
    from monkey_envs.core.game import Game

S = TypeVar("S", bound="BatchState")

#: ``(name, config as sorted-key JSON)`` of the game that made a state (see :func:`game_tag`).
GameTag = tuple[str, str]


class StateError(ValueError):
    """A state, state dict, JSON text or state file that is damaged, foreign or breaks its game's laws."""


#: What reading a damaged ``.npz`` (or one of its entries) can raise; each becomes a :class:`StateError`.
_READ_ERRORS = (
    ValueError,
    OSError,
    EOFError,
    zipfile.BadZipFile,
    zlib.error,
    TypeError,
    KeyError,
    IndexError,
    MemoryError,
    RecursionError,
    OverflowError,
    UnicodeError,
    NotImplementedError,
)


def game_tag(game: Game) -> GameTag | None:
    """``(spec.name, config JSON)`` of ``game`` (cached on it), or ``None`` when its config is not JSON-able."""
    cached = game.__dict__.get("_state_game_tag", False)
    if cached is not False:
        return cached
    try:
        tag: GameTag | None = (game.spec.name, json.dumps(game.config, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError):
        tag = None
    game.__dict__["_state_game_tag"] = tag
    return tag


def _tag_of_identity(ident: Any, where: str) -> GameTag:
    """The tag of a stored ``{"name": ..., "config": {...}}`` entry; :class:`StateError` if malformed."""
    if (
        not isinstance(ident, dict)
        or not isinstance(ident.get("name"), str)
        or not isinstance(ident.get("config"), dict)
        or not all(isinstance(k, str) for k in ident["config"])
    ):
        raise StateError(f"{where}: its 'game' entry must be {{'name': str, 'config': dict}}, got {ident!r:.200}")
    try:
        return ident["name"], json.dumps(ident["config"], sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise StateError(f"{where}: the game config {ident['config']!r:.200} is not plain JSON data: {e}") from None


#: The game registry a loaded state's game is looked up in: ``[game_class]`` with
#: ``game_class(name) -> type[Game]`` (``ValueError`` for an unknown name) and ``[names]`` with
#: ``names() -> list[str]``. :mod:`monkey_envs.core.registry` installs itself at its import
#: (:func:`set_game_lookup`): it sits above this module, so this module does not import it.
_LOOKUP: dict[str, Any] = {}


def set_game_lookup(game_class: Any, names: Any) -> None:
    """Install the registry loaded states rebuild their games from (see :data:`_LOOKUP`)."""
    _LOOKUP.update(game_class=game_class, names=names)
    _rebuilt_game.cache_clear()


def _lookup(what: str) -> Any:
    if what not in _LOOKUP:
        raise StateError("no game registry is installed to rebuild a state's game (import monkey_envs)")
    return _LOOKUP[what]


@functools.lru_cache(maxsize=32)
def _rebuilt_game(name: str, config_json: str) -> Game:
    """The registered game ``name`` built with ``config`` (cached: loading many states builds it once)."""
    return _lookup("game_class")(name)(**json.loads(config_json))


def _game_for(cls: type[BatchState], game: Game | None, ident: Any, players: Any, where: str) -> Game:
    """The game that checks a loaded state of class ``cls``.

    ``game`` (given by the caller: it must be the one the data were saved by, when they say), else
    the stored ``ident`` rebuilt from the registry, else -- data that do not name their game -- the
    one registered game whose ``state_class`` is ``cls``, with ``players()`` seats.
    """
    if game is not None:
        if game.state_class is not cls:
            raise StateError(f"{where} holds a {cls.__name__}; {game!r} plays {game.state_class.__name__}s")
        if ident is not None and _tag_of_identity(ident, where) != game_tag(game):
            raise StateError(
                f"{where} was saved by {ident.get('name')} with {ident.get('config')}, not by {game!r} "
                "(a differently configured game)"
            )
        return game
    if ident is not None:
        name, config_json = _tag_of_identity(ident, where)
        try:
            built = _rebuilt_game(name, config_json)
        except Exception as e:  # the config is untrusted data: whatever the constructor raises on it
            raise StateError(f"{where} names a game this installation cannot build: {type(e).__name__}: {e}") from None
        if built.state_class is not cls:
            raise StateError(f"{where}: game {name!r} plays {built.state_class.__name__}s, not {cls.__name__}s")
        return built
    game_class = _lookup("game_class")
    names = []
    for name in _lookup("names")():
        try:
            if game_class(name).state_class is cls:
                names.append(name)
        except Exception:  # a broken plug-in entry is just not a candidate
            continue
    if len(names) != 1:
        raise StateError(
            f"{where} does not name its game (format 1 or an unmarked state) and {cls.__name__} is the state of "
            f"{'games ' + str(names) if names else 'no registered game'}; load it with game.set_state / "
            "game.state_from_json / game.load_state of the game it belongs to"
        )
    p = players()
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise StateError(f"{where}: cannot tell the player count from its rewards field")
    try:
        return _rebuilt_game(names[0], json.dumps({"num_players": int(p)}))
    except (TypeError, ValueError) as e:
        raise StateError(
            f"{where} does not name its game, and {names[0]} with {p} players cannot be built: {e}"
        ) from None


def _json_field(name: str, spec: Any, row_shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Field ``name`` of a :meth:`BatchState.get_state` dict as an array of exactly ``dtype`` and ``(B, *row_shape)``.

    Nothing is coerced: a stored dtype other than ``dtype``, a shape of the wrong rank or row shape,
    data that do not have the stored shape, and values of the wrong type (a float or bool in an
    integer field, a number in a bool field, ...) or outside ``dtype``'s range are refused.
    """
    if not isinstance(spec, dict) or not {"dtype", "shape", "data"} <= set(spec):
        raise StateError(f"state field {name!r} is damaged: not a dict with 'dtype', 'shape' and 'data'")
    if spec["dtype"] != str(dtype):
        raise StateError(f"state field {name!r} has dtype {spec['dtype']!r:.40}; this game's is {dtype}")
    shape = spec["shape"]
    want = "(B" + "".join(f", {d}" for d in row_shape) + ")"
    if (
        not isinstance(shape, list)
        or len(shape) != len(row_shape) + 1
        or not all(type(d) is int and d >= 0 for d in shape)
        or tuple(shape[1:]) != row_shape
    ):
        raise StateError(f"state field {name!r} has shape {shape!r:.60}; this game's is {want}")
    try:
        obj = np.array(spec["data"], dtype=object)
    except (ValueError, TypeError, RecursionError, MemoryError) as e:
        raise StateError(f"state field {name!r} is damaged: {e}") from None
    if obj.shape != tuple(shape):
        if obj.size == 0 and math.prod(shape) == 0:
            return np.zeros(shape, dtype)
        raise StateError(f"state field {name!r} is damaged: data of shape {obj.shape}, declared {shape}")
    flat = obj.ravel().tolist()
    if dtype.kind not in _KINDS:
        raise StateError(f"state field {name!r}: dtype {dtype} cannot be read from JSON data")
    kinds, is_kind = _KINDS[dtype.kind]
    bad = next((v for v in flat if not is_kind(v)), _NOTHING)
    if bad is not _NOTHING:
        raise StateError(f"state field {name!r} must hold {kinds} ({dtype}), found {bad!r:.40}")
    if dtype.kind in "iu" and flat:
        info = np.iinfo(dtype)
        lo, hi = min(flat), max(flat)
        if lo < info.min or hi > info.max:
            raise StateError(f"state field {name!r}: value {lo if lo < info.min else hi} outside the range of {dtype}")
    with np.errstate(over="ignore", invalid="ignore"):  # a float32 overflow is inf: the game's laws refuse it
        return np.array(flat, dtype=dtype).reshape(shape)


_NOTHING = object()
#: dtype kind -> (what its JSON values must be, the test of one value).
_KINDS: dict[str, tuple[str, Any]] = {
    "b": ("bools", lambda v: type(v) is bool or type(v) is np.bool_),
    "i": ("integers", lambda v: type(v) is int or isinstance(v, np.integer)),
    "u": ("integers", lambda v: type(v) is int or isinstance(v, np.integer)),
    "f": ("numbers", lambda v: type(v) in (int, float) or isinstance(v, (np.integer, np.floating))),
}


def _parse_json(text: Any, where: str = "state JSON") -> Any:
    """``json.loads(text)``; :class:`StateError` for anything that is not JSON text."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise StateError(f"{where} must be JSON text (str or bytes), got {type(text).__name__}")
    try:
        return json.loads(text)
    except (ValueError, RecursionError, UnicodeError) as e:
        raise StateError(f"{where} is not valid JSON: {e}") from None


def _describe(path: Any) -> str:
    """How a message names a state file: its path, or the file object's name."""
    if isinstance(path, (str, Path)):
        return f"state file {str(path)!r}"
    name = getattr(path, "name", None)
    return f"state file {name!r}" if isinstance(name, str) else f"state file <{type(path).__name__}>"


def _npy_header(z: Any, key: str) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype of entry ``key`` of an open ``.npz``, read from its ``.npy`` header only."""
    with z.zip.open(f"{key}.npy") as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise StateError(f"entry {key!r} has .npy format version {version}, which state files do not use")
    return tuple(shape), dtype


def _npz_scalar(z: Any, key: str, kind: str) -> Any:
    """The 0-d entry ``key`` (dtype kind ``kind``: ``"U"`` text, ``"i"`` integer) as a Python value."""
    shape, dtype = _npy_header(z, key)
    if shape != () or dtype.kind != kind or dtype.itemsize > 1 << 20:
        raise StateError(f"entry {key!r} must be a 0-d {'text' if kind == 'U' else 'integer'}, got {dtype} {shape}")
    return z[key].item()


def _last_end_reason(game: Game) -> int:
    return len(game.spec.end_reasons) - 1


@state_schema
class BatchState:
    """Fields shared by every game (``B`` = batch size, ``P`` = players, ``A`` = actions).

    Each game's state subclasses it, declaring its own fields with
    :func:`~monkey_envs.core.schema.field`; the subclass becomes a dataclass of them when it is
    created (:func:`~monkey_envs.core.schema.state_schema`; the list below is written from these
    declarations).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        state_schema(cls)

    current_player: np.ndarray = field(
        "int8", (), "seat whose decision is pending (-1 once the game ended).", low=-1, high="num_players-1"
    )
    rewards: np.ndarray = field("float32", ("num_players",), "reward of every seat for the last transition.")
    terminated: np.ndarray = field("bool", (), "the game ended by its rules.")
    truncated: np.ndarray = field("bool", (), "the game was cut short (a step cap); never set by the rules.")
    legal_action_mask: np.ndarray = field(
        "bool", ("num_actions",), "legal actions of ``current_player``; all False for finished games."
    )
    step_count: np.ndarray = field("int32", (), "decisions taken so far.", counter=True)
    rng: np.ndarray = field("uint64", (2,), "per-env counter-based RNG (see :mod:`monkey_envs.core.rng`).")
    winners_mask: np.ndarray = field(
        "bool",
        ("num_players",),
        "seats that won (set when the game ends; all False while running and when nobody won).",
    )
    end_reason: np.ndarray = field(
        "int8",
        (),
        "why the game ended: an index into the game's ``spec.end_reasons`` (0 while running).",
        low=0,
        high=_last_end_reason,
    )

    #: Serialisation format version; bump when fields change meaning. Format 2 adds the game's
    #: name and config (``"game"`` in :meth:`get_state`, ``__game__`` in :meth:`save`).
    FORMAT: ClassVar[int] = 2
    #: The formats :meth:`set_state` and :meth:`load` read.
    READ_FORMATS: ClassVar[tuple[int, ...]] = (1, 2)
    #: Fields that are a function of the other fields (caches a game's kernels keep for speed, e.g.
    #: a count of what another array holds). :meth:`get_state` and :meth:`save` leave them out and
    #: every loader recomputes them with :meth:`_derive`, so a file written before such a field
    #: existed still loads, and no file can hold a cache that disagrees with what it caches.
    DERIVED_FIELDS: ClassVar[tuple[str, ...]] = ()
    #: The most bytes of arrays :meth:`load` unpacks from one file (its headers are read first), so
    #: that a small compressed file cannot make it allocate without bound.
    MAX_LOAD_BYTES: ClassVar[int] = 2**31

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
    def stored_field_names(cls) -> list[str]:
        """Names of the fields :meth:`get_state` and :meth:`save` write: all but :attr:`DERIVED_FIELDS`."""
        return [k for k in cls._field_tuple() if k not in cls.DERIVED_FIELDS]

    @classmethod
    def _derive(cls, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The :attr:`DERIVED_FIELDS` computed from the stored fields ``arrays`` (each already checked
        against the game's dtype and row shape; the laws are checked afterwards). States with
        derived fields override this."""
        return {}

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
        tag = d.get("_game")
        if tag is not None:
            nd["_game"] = tag
        return new

    def take(self: S, indices: Any) -> S:
        """Rows ``indices`` (int array, slice or bool mask) as a new state (copies)."""
        if isinstance(indices, (int, np.integer)):
            indices = [int(indices)]
        d = self.__dict__
        out = object.__new__(type(self))  # the fields are all there is: skip __init__ (hot path, as clone)
        nd = out.__dict__
        if isinstance(indices, slice):
            for k in self._field_tuple():
                nd[k] = d[k][indices].copy()
        else:
            idx = np.asarray(indices)
            if idx.size == 0:
                idx = idx.astype(np.intp)  # [] or an empty array of any dtype: no rows
            elif idx.dtype == bool:
                if idx.shape != (self.batch_size,):
                    raise IndexError(f"a boolean row mask must have shape ({self.batch_size},), got {idx.shape}")
                idx = np.flatnonzero(idx)
            elif idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
                raise IndexError(f"rows must be a 1-D array of integers, got shape {idx.shape} dtype {idx.dtype}")
            for k in self._field_tuple():
                nd[k] = d[k][idx]  # integer indexing makes a new C-contiguous array
        tag = d.get("_game")
        if tag is not None:
            nd["_game"] = tag
        return out

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
        tags = {s.__dict__.get("_game") for s in states} - {None}
        if len(tags) > 1:
            raise ValueError(f"cannot concat states of differently configured games: {sorted(tags)}")
        out = cls(**{k: np.concatenate([getattr(s, k) for s in states]) for k in first})
        if tags:
            out.__dict__["_game"] = tags.pop()
        return out

    def put(self, indices: np.ndarray, other: BatchState) -> None:
        """Overwrite rows ``indices`` in place with the rows of ``other`` (same config)."""
        d = self.__dict__
        for k in self._field_tuple():
            d[k][indices] = getattr(other, k)

    # ------------------------------------------------------------------ the game that made it
    def mark_game(self, game: Game) -> None:
        """Record that ``game`` (its name and config) made this state; clones, slices and copies keep it.

        :meth:`Game.init <monkey_envs.core.game.Game.init>` marks every state it makes; a game's
        own builders (e.g. ``position()``) call this too, so that :meth:`get_state` and
        :meth:`save` can write which game to rebuild when the state is loaded.
        """
        tag = game_tag(game)
        if tag is None:
            self.__dict__.pop("_game", None)
        else:
            self.__dict__["_game"] = tag

    def game_identity(self) -> dict[str, Any] | None:
        """``{"name": ..., "config": {...}}`` of the game that made this state, or ``None`` if unknown."""
        tag = self.__dict__.get("_game")
        return None if tag is None else {"name": tag[0], "config": json.loads(tag[1])}

    def _identity_for(self, game: Game | None) -> dict[str, Any] | None:
        if game is None:
            return self.game_identity()
        if not isinstance(self, game.state_class):
            raise ValueError(f"a {type(self).__name__} is not a state of {game!r}")
        tag = game_tag(game)
        return None if tag is None else {"name": tag[0], "config": json.loads(tag[1])}

    # ------------------------------------------------------------------ (de)serialisation
    def get_state(self, game: Game | None = None) -> dict[str, Any]:
        """A JSON-able dict: field -> nested lists, plus dtype and shape metadata.

        Args:
            game: the game to record (default: the one that made the state, see :meth:`mark_game`);
                its name and config are written as ``"game"`` (left out when neither is known).
        """
        out: dict[str, Any] = {"format": self.FORMAT, "state_class": type(self).__name__}
        ident = self._identity_for(game)
        if ident is not None:
            out["game"] = ident
        out["fields"] = {
            k: {"dtype": str(v.dtype), "shape": list(v.shape), "data": v.tolist()}
            for k, v in self.arrays().items()
            if k not in self.DERIVED_FIELDS
        }
        return out

    @classmethod
    def set_state(cls: type[S], data: dict[str, Any]) -> S:
        """Inverse of :meth:`get_state`, validated: :class:`StateError` (a ``ValueError``) on foreign,
        damaged or impossible data.

        The game is rebuilt from the stored name and config (data without one: the registered game
        whose ``state_class`` is this class, with the player count of ``rewards``), every field must
        have exactly the dtype and row shape of that game's ``init``, and the state must keep the
        game's laws (:meth:`Game.validate_state <monkey_envs.core.game.Game.validate_state>`).
        """
        return cls._from_data(data, None, "state dict")

    @classmethod
    def _from_data(cls: type[S], data: Any, game: Game | None, where: str) -> S:
        """:meth:`set_state` for ``game`` (``None``: the game the data name)."""
        if not isinstance(data, dict):
            raise StateError(f"state data must be a dict from get_state(), got {type(data).__name__}")
        if data.get("state_class") != cls.__name__:
            raise StateError(f"{where} is for {data.get('state_class')!r:.60}, not {cls.__name__}")
        fmt = data.get("format")
        if type(fmt) is not int or fmt not in cls.READ_FORMATS:
            raise StateError(f"{where} has format {fmt!r:.30}; this version reads formats {list(cls.READ_FORMATS)}")
        fields = data.get("fields")
        if not isinstance(fields, dict):
            raise StateError(f"{where} has no 'fields' mapping")
        missing = set(cls.stored_field_names()) - set(fields)
        if missing:
            raise StateError(f"{where} lacks fields {sorted(missing)}")

        def players() -> Any:
            shape = fields["rewards"].get("shape") if isinstance(fields["rewards"], dict) else None
            return shape[1] if isinstance(shape, list) and len(shape) == 2 else None

        g = _game_for(cls, game, data.get("game") if fmt >= 2 else None, players, where)
        layout = g.state_layout()
        arrays = {k: _json_field(k, fields[k], *layout[k]) for k in cls.stored_field_names()}
        return cls._finish(arrays, g, where)

    @classmethod
    def _finish(cls: type[S], arrays: dict[str, np.ndarray], game: Game, where: str) -> S:
        """The state of the stored fields ``arrays`` and the derived ones (:meth:`_derive`), after
        the batch-size check, marked with and validated by ``game``."""
        state = cls._checked(arrays)
        state.mark_game(game)
        try:
            game.validate_state(state)
        except ValueError as e:
            raise StateError(f"{where}: {e}") from None
        return state

    @classmethod
    def _checked(cls: type[S], arrays: dict[str, np.ndarray]) -> S:
        """Build a state of the stored fields ``arrays`` and the derived ones (:meth:`_derive`) after
        checking every field has the same batch size."""
        sizes = {k: (v.shape[0] if v.ndim else None) for k, v in arrays.items()}
        if len(set(sizes.values())) != 1 or None in sizes.values():
            raise StateError(f"state fields disagree on the batch size: {sizes}")
        if cls.DERIVED_FIELDS:
            arrays = {**arrays, **cls._derive(arrays)}
        return cls(**arrays)

    def to_json(self, game: Game | None = None) -> str:
        """Lossless JSON text of the state (:meth:`get_state`; ``game`` as there)."""
        return json.dumps(self.get_state(game))

    @classmethod
    def from_json(cls: type[S], text: str) -> S:
        """Inverse of :meth:`to_json`, validated as :meth:`set_state`."""
        return cls.set_state(_parse_json(text))

    def save(self, path: str | Path | io.BytesIO, game: Game | None = None) -> None:
        """Write the state losslessly as a compressed ``.npz`` file.

        Besides one entry per field it holds ``__state_class__``, ``__format__`` and, when the
        game is known (``game``, default: the one that made the state), ``__game__``: its name and
        config as JSON text.
        """
        meta: dict[str, np.ndarray] = {
            "__state_class__": np.array(type(self).__name__),
            "__format__": np.array(self.FORMAT),
        }
        ident = self._identity_for(game)
        if ident is not None:
            meta["__game__"] = np.array(json.dumps(ident))
        stored = {k: v for k, v in self.arrays().items() if k not in self.DERIVED_FIELDS}
        np.savez_compressed(path, **meta, **stored)

    @classmethod
    def load(cls: type[S], path: str | Path | io.BytesIO) -> S:
        """Read a state written by :meth:`save`, validated as :meth:`set_state`.

        Raises:
            StateError: (a ``ValueError``) a damaged file of any kind (empty, truncated, corrupted,
                not a zip, a ``.npy``, pickled objects), a foreign or incomplete one, or a state
                that is not a valid position of its game. The message names the file.
            FileNotFoundError, IsADirectoryError, PermissionError: as ``open`` raises them.
        """
        return cls._load(path, None)

    @classmethod
    def _load(cls: type[S], path: str | Path | io.BytesIO, game: Game | None) -> S:
        """:meth:`load` for ``game`` (``None``: the game the file names)."""
        where = _describe(path)
        try:
            z = np.load(path, allow_pickle=False)
        except (FileNotFoundError, IsADirectoryError, PermissionError):
            raise
        except _READ_ERRORS as e:
            raise StateError(f"{where} is not a monkey-envs state file (.npz): {type(e).__name__}: {e}") from None
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise StateError(f"{where} holds a single .npy array, not a monkey-envs state (.npz written by save())")
        with z:
            try:
                return cls._from_npz(z, game, where)
            except StateError:
                raise
            except _READ_ERRORS as e:
                raise StateError(f"{where} is damaged: {type(e).__name__}: {e}") from None

    @classmethod
    def _from_npz(cls: type[S], z: Any, game: Game | None, where: str) -> S:
        files = set(z.files)
        if "__state_class__" not in files:
            raise StateError(f"{where} holds no monkey-envs state (no __state_class__ entry)")
        name = _npz_scalar(z, "__state_class__", "U")
        if name != cls.__name__:
            raise StateError(f"{where} holds a {name!r:.60}, not a {cls.__name__}")
        fmt = _npz_scalar(z, "__format__", "i") if "__format__" in files else 1
        if fmt not in cls.READ_FORMATS:
            raise StateError(f"{where} has format {fmt}; this version reads formats {list(cls.READ_FORMATS)}")
        ident = None
        if fmt >= 2 and "__game__" in files:
            ident = _parse_json(_npz_scalar(z, "__game__", "U"), f"{where}: entry __game__")
        missing = sorted(set(cls.stored_field_names()) - files)
        if missing:
            raise StateError(f"{where} lacks fields {missing}")
        headers = {k: _npy_header(z, k) for k in cls.stored_field_names()}

        def players() -> Any:
            shape = headers["rewards"][0]
            return shape[1] if len(shape) == 2 else None

        g = _game_for(cls, game, ident, players, where)
        layout = g.state_layout()
        for k, (shape, dtype) in headers.items():
            row_shape, want = layout[k]
            if dtype != want:
                raise StateError(f"{where}: field {k!r} has dtype {dtype}; this game's is {want}")
            if shape[1:] != row_shape or len(shape) != len(row_shape) + 1:
                want_shape = "(B" + "".join(f", {d}" for d in row_shape) + ")"
                raise StateError(f"{where}: field {k!r} has shape {shape}; this game's is {want_shape}")
        sizes = {k: shape[0] for k, (shape, _) in headers.items()}
        if len(set(sizes.values())) != 1:
            raise StateError(f"{where}: state fields disagree on the batch size: {sizes}")
        total = sum(math.prod(shape) * dtype.itemsize for shape, dtype in headers.values())
        if total > cls.MAX_LOAD_BYTES:
            raise StateError(f"{where} would unpack {total} bytes, more than MAX_LOAD_BYTES = {cls.MAX_LOAD_BYTES}")
        arrays = {}
        for k, (shape, dtype) in headers.items():
            arr = z[k]
            if type(arr) is not np.ndarray or arr.shape != shape or arr.dtype != dtype:  # pragma: no cover
                raise StateError(f"{where}: field {k!r} does not read back as its header says")
            arrays[k] = arr
        return cls._finish(arrays, g, where)

    def equals(self, other: BatchState) -> bool:
        """True when every array is equal (shape, dtype and values)."""
        if type(self) is not type(other):
            return False
        a, b = self.arrays(), other.arrays()
        return all(a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]) for k in a)
