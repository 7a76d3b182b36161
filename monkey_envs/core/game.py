"""The batched game protocol every game implements, and the step behaviour written once.

A game object holds a validated configuration (player count, variant, ...) and pure rules
over a :class:`~monkey_envs.core.state.BatchState`::

    game = make_game("<game name>", num_players=2)
    state = game.init(np.arange(64))               # 64 games, seeds 0..63
    obs = game.observe(state, state.current_player) # (64, obs_dim) float32
    actions = agent.act(obs, state.legal_action_mask)
    state = game.step(state, actions)              # a new state; the old one is untouched

``step`` takes one action per env for that env's current player (no lock-step between envs).
Rows that have already ended ignore their action and stay as they are (rewards zeroed).
An action that is out of range or illegal in a live row raises ``ValueError`` naming the
rows, and nothing changes.

States from outside (a dict, JSON text or ``.npz`` file, or a state object handed to a face) are
validated before use: :meth:`Game.set_state`, :meth:`Game.state_from_json` and
:meth:`Game.load_state` read one for this game, :meth:`Game.validate_state` checks one (exact
dtypes and shapes of this game's ``init``, then :meth:`Game.state_violations`). States made by
the game itself (``init``, ``step``) are trusted and not re-checked on the step hot path.
"""

from __future__ import annotations

import abc
import functools
import inspect
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from monkey_envs.core.invariants import Report, reward_laws
from monkey_envs.core.plugins import NO_ANALYTICS, Analytics, View
from monkey_envs.core.rng import seed_rng
from monkey_envs.core.schema import counters as schema_counters
from monkey_envs.core.schema import layout as schema_layout
from monkey_envs.core.schema import range_violations
from monkey_envs.core.schema import schema as schema_fields
from monkey_envs.core.spec import GameSpec, ObsLayout, ObsPiece
from monkey_envs.core.state import BatchState, StateError

if TYPE_CHECKING:
    from monkey_envs.core.pictures import Picture

S = TypeVar("S", bound=BatchState)


class _classproperty:
    """A read-only property that also answers on the class (``Game.counter_fields`` is a tuple, as
    ``(*Game.counter_fields, "stats")`` in a game from outside this package needs); a subclass may
    still set a plain value of that name."""

    def __init__(self, fget: Any) -> None:
        self.fget = fget
        self.__doc__ = fget.__doc__

    def __get__(self, obj: Any, owner: type) -> Any:
        return self.fget(owner if obj is None else type(obj))


def as_seeds(seeds: Any) -> np.ndarray:
    """Coerce ``seeds`` (int, sequence or array) to a ``(B,) int64`` array; ``ValueError`` if bad."""
    if isinstance(seeds, (bool, np.bool_)) or (
        isinstance(seeds, (list, tuple)) and any(isinstance(s, (bool, np.bool_)) for s in seeds)
    ):
        raise ValueError(f"seeds must be integers, not bools, got {seeds!r:.80}")
    arr = np.atleast_1d(np.asarray(seeds))
    if arr.ndim != 1:
        raise ValueError(f"seeds must be an int or a 1-D sequence, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("seeds must not be empty (batch size 0)")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"seeds must be integers, got dtype {arr.dtype}")
    if (arr < 0).any():
        raise ValueError(f"seeds must be non-negative, got {arr[arr < 0][:5].tolist()}")
    if arr.dtype.kind == "u" and (arr > np.iinfo(np.int64).max).any():
        raise ValueError(f"seeds must be below 2**63, got {arr[arr > np.iinfo(np.int64).max][:5].tolist()}")
    return arr.astype(np.int64)


_ARANGE = np.arange(1024)
_ARANGE.flags.writeable = False


def batch_arange(n: int) -> np.ndarray:
    """``np.arange(n)`` (intp) as a read-only view of one shared array, so hot paths build none."""
    global _ARANGE
    if n > _ARANGE.size:
        grown = np.arange(max(n, 2 * _ARANGE.size))
        grown.flags.writeable = False
        _ARANGE = grown
    return _ARANGE[:n]


def as_actions(state: BatchState, actions: Any, copy: bool = True) -> np.ndarray:
    """``actions`` as a ``(B,) int64`` array for ``state`` (a scalar is accepted when ``B == 1``).

    A new array unless ``copy`` is False (then an int64 input of the right shape is returned as is).

    Raises:
        ValueError: wrong shape or a non-integer dtype (bool included).
    """
    b = state.batch_size
    arr = actions if type(actions) is np.ndarray else np.asarray(actions)
    if arr.shape != (b,):
        if arr.shape == () and b == 1:
            arr = arr.reshape(1)
        else:
            raise ValueError(f"actions must have shape ({b},) -- one per env -- got {arr.shape}")
    if arr.dtype.kind not in "iu":  # bool is kind "b": rejected too
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            raise ValueError(f"actions must be integers, got dtype {arr.dtype} (cast with .astype(int))")
        raise ValueError(f"actions must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=copy)


def check_actions(state: BatchState, actions: Any, num_actions: int, done: np.ndarray | None = None) -> np.ndarray:
    """Validate a batch of actions against ``state``; return them as ``(B,) int64``.

    Args:
        state: the state the actions are for.
        actions: ``(B,)`` integers (a scalar is accepted when ``B == 1``).
        num_actions: the game's action count ``A``.
        done: optional precomputed ``state.terminated | state.truncated`` (``(B,) bool``).

    Raises:
        ValueError: wrong shape, non-integer dtype, out of ``[0, num_actions)`` in a live row,
            or illegal (masked out) in a live row. The message names the offending rows.
    """
    b = state.batch_size
    arr = as_actions(state, actions)
    if done is None:
        done = state.terminated | state.truncated
    # fast path: everything in range and legal (or in a finished row); negatives wrap to huge
    if (arr.view(np.uint64) < num_actions).all() and (state.legal_action_mask[batch_arange(b), arr] | done).all():
        return arr
    live = ~done
    bad = live & ((arr < 0) | (arr >= num_actions))
    if bad.any():
        rows = np.flatnonzero(bad)
        given = np.asarray(actions).reshape(-1)  # as given: a uint64 2**64 - 1 is no -1
        shown = given[rows[:10]] if given.shape == (b,) else arr[rows[:10]]
        raise ValueError(f"actions out of range [0, {num_actions}) in rows {rows[:10].tolist()}: {shown.tolist()}")
    safe = np.clip(arr, 0, num_actions - 1)
    legal = state.legal_action_mask[np.arange(b), safe]
    illegal = live & ~legal
    if illegal.any():
        rows = np.flatnonzero(illegal)
        raise ValueError(
            f"illegal actions in rows {rows[:10].tolist()}: {arr[rows[:10]].tolist()} "
            f"(current players {state.current_player[rows[:10]].tolist()}); "
            "consult state.legal_action_mask"
        )
    return arr


def end_games(
    state: BatchState,
    rows: np.ndarray,
    winners: np.ndarray,
    reason: int,
    rewards: tuple[float, float, float],
) -> None:
    """End games ``rows`` in place (bookkeeping shared by every game).

    Args:
        state: a State with the game fields ``winners_mask (B, P) bool`` and ``end_reason (B,)``.
        rows: ``(n,)`` row indices.
        winners: ``(n, P) bool`` seats that won each game (may be all False: nobody won).
        reason: the game's end-reason code.
        rewards: ``(win, loss, draw)``: each winner gets ``win``, every other seat ``loss``; when
            all of several seats share the win, everyone gets ``draw``.
    """
    if rows.size == 0:
        return
    win, loss, draw = rewards
    everyone = winners.all(1, keepdims=True) & (winners.shape[1] > 1)
    rew = np.where(everyone, draw, np.where(winners, win, loss)).astype(np.float32)
    state.rewards[rows] = rew
    state.winners_mask[rows] = winners
    state.terminated[rows] = True
    state.end_reason[rows] = reason
    state.legal_action_mask[rows] = False
    state.current_player[rows] = -1


def seat_legend(num_players: int) -> str:
    """The legend line every game shares: seat ``p`` is shown as the letter ``chr(ord("A") + p)``."""
    pairs = ", ".join(f"{chr(ord('A') + p)} = seat {p} (player_{p})" for p in range(num_players))
    return f"seats: {pairs}"


def _rebuild_game(cls: type, config: dict[str, Any]) -> Any:
    """Unpickle a game (:meth:`Game.__reduce__`)."""
    return cls(**config)


class _ObsLayoutAttr:
    """``Game.obs_layout``: set an :class:`ObsLayout`, or a list of ``(name, shape, meaning)``
    triples (``shape`` an int or a tuple of ints) that becomes one."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        try:
            return obj.__dict__["obs_layout"]
        except KeyError:
            raise AttributeError(f"{type(obj).__name__} sets no obs_layout in __init__") from None

    def __set__(self, obj: Any, value: Any) -> None:
        if not isinstance(value, ObsLayout):
            pieces = []
            for piece in value:
                if not isinstance(piece, ObsPiece):
                    name, shape, meaning = piece
                    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
                    piece = ObsPiece(str(name), tuple(int(d) for d in dims), str(meaning))
                pieces.append(piece)
            value = ObsLayout(pieces)
        obj.__dict__["obs_layout"] = value


class _NumPlayersAttr:
    """``Game.num_players``, unless the game sets it: its ``num_players`` option, or the one
    player count its spec allows. A non-data descriptor, so setting it in ``__init__`` wins."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        given = obj.__dict__.get("_num_players_option")  # the innermost __init__'s option, set on entry
        if isinstance(given, (int, np.integer)) and not isinstance(given, bool):
            return int(given)
        spec = type(obj).spec
        if spec.min_players == spec.max_players:
            return int(spec.min_players)
        raise AttributeError(
            f"{type(obj).__name__} has no num_players: set it in __init__ or take a num_players option"
        )


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (config values go into JSON files)."""
    return value.item() if isinstance(value, np.generic) else value


def _recording_config(init: Any) -> Any:
    """Wrap a game's ``__init__`` so the options it was called with become its ``config``.

    Only where the game sets no ``_config`` itself, and only for the class being built (a
    subclass calling ``super().__init__`` records its own options, not its parent's).
    """
    sig = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError:
            bound = None  # init itself reports bad arguments
        else:
            bound.apply_defaults()
            if "num_players" in bound.arguments:  # self.num_players from here on (the innermost call sets it last)
                self.__dict__["_num_players_option"] = bound.arguments["num_players"]
        init(self, *args, **kwargs)
        if bound is not None and "_config" not in self.__dict__ and type(self).__init__ is __init__:
            config: dict[str, Any] = {}
            for name, value in list(bound.arguments.items())[1:]:  # not self
                kind = sig.parameters[name].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    config.update({k: _plain(v) for k, v in value.items()})
                elif kind is not inspect.Parameter.VAR_POSITIONAL:
                    config[name] = _plain(value)
            self._config = config

    __init__._records_config = True  # type: ignore[attr-defined]
    return __init__


class Game(abc.ABC, Generic[S]):
    """Base class of a batched game; subclasses declare ``spec`` and implement the rules.

    The rules contract (``docs/kit.md``): a subclass ``class MyGame(Game[MyState])`` -- its state a
    ``BatchState`` subclass of :func:`~monkey_envs.core.schema.field` declarations (the
    ``state_class`` comes from the type argument) -- declares ``spec`` and ``view`` (a
    :class:`~monkey_envs.core.plugins.View` with at least ``render``; its ``action_name`` names
    the actions), sets ``num_actions`` and ``obs_layout`` in ``__init__`` (its options become
    :attr:`config`; ``num_players`` is the option of that name unless it sets it), and
    implements :meth:`_init` (the deal into a state the kit allocated from the schema) and
    :meth:`_observe` (:meth:`_winners` only where the winners are not ``winners_mask``), plus
    one step: :meth:`_step` (numpy rules over the live rows, ending games with
    :func:`end_games`) or, with ``fused_step = True``, :meth:`_step_fused` (a compiled kernel
    that validates and steps in one call). The optional parts are plug-ins set on the class:
    :attr:`laws` (conservation invariants, the re-deal of hidden information), :attr:`view`'s
    other hooks and :attr:`analytics`; the methods of the same names here call them or give the
    generic default, and are not overridden.
    """

    spec: ClassVar[GameSpec]
    state_class: ClassVar[type[BatchState]]
    #: True for a game that implements :meth:`_step_fused` (validation and the step of every
    #: running row in one compiled call) instead of :meth:`_step`; such a game can also be
    #: stepped in place (:meth:`_step_inplace`, used by the AEC face).
    fused_step: ClassVar[bool] = False
    #: Seats in this configuration: set in ``__init__``, or read from the ``num_players`` option
    #: (or the spec's one player count) once ``__init__`` has run.
    num_players: int = _NumPlayersAttr()  # type: ignore[assignment]
    num_actions: int
    #: The named pieces of the flat observation: set in ``__init__``, as an :class:`ObsLayout`
    #: or a list of ``(name, shape, meaning)``.
    obs_layout: ObsLayout = _ObsLayoutAttr()  # type: ignore[assignment]
    #: The options the game was built with; recorded from ``__init__``'s arguments unless the
    #: game sets it (see :attr:`config`).
    _config: dict[str, Any] = {}  # noqa: RUF012 -- read only; each game gets its own
    #: Bounds of every observation value (scalars); the faces build their Box spaces from them.
    obs_low: ClassVar[float] = -np.inf
    obs_high: ClassVar[float] = np.inf
    #: How the game is shown (text, pictures, what a seat sees of a move): a
    #: :class:`~monkey_envs.core.plugins.View`; its ``render`` is required.
    view: ClassVar[View | None] = None
    #: What the game reports (scores, statistics, decision reports, info facts, action filters):
    #: an :class:`~monkey_envs.core.plugins.Analytics`; none by default.
    analytics: ClassVar[Analytics] = NO_ANALYTICS

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Take ``state_class`` from ``Game[TheState]`` when the subclass does not set it, and
        record ``__init__``'s options as the game's ``config`` when it does not set ``_config``."""
        super().__init_subclass__(**kwargs)
        deal = cls.__dict__.get("_init")
        if callable(deal) and len(inspect.signature(deal).parameters) == 2:  # (self, seeds): the old contract
            raise TypeError(
                f"{cls.__name__}._init takes (self, seeds) and returns a state: since 2026-12-03 the kit "
                "allocates the state from the schema and calls _init(self, state, seeds) to deal into it "
                "(docs/kit.md)"
            )
        init = cls.__dict__.get("__init__")
        if init is None and cls.__init__ is not object.__init__:
            # an __init__ inherited from a class that is no Game (a mixin before Game in the bases)
            # records nothing of its own: record its options for this class
            init = cls.__init__
        if init is not None and not getattr(init, "_records_config", False):
            cls.__init__ = _recording_config(init)  # type: ignore[method-assign]
        if "state_class" not in cls.__dict__:
            for base in cls.__dict__.get("__orig_bases__", ()):  # its own bases: a subclass inherits
                args = getattr(base, "__args__", ())
                if getattr(base, "__origin__", None) is Game and args and isinstance(args[0], type):
                    cls.state_class = args[0]

    # ------------------------------------------------------------------ facts
    @property
    def obs_dim(self) -> int:
        """Length of one flat observation vector."""
        return self.obs_layout.size

    @property
    def config(self) -> dict[str, Any]:
        """The options this game was built with (enough to rebuild it: ``type(g)(**g.config)``)."""
        return dict(self._config)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """A game pickles as its class and options: unpickling builds it anew.

        Its tables and work buffers are made again rather than copied, so a game sent to another
        process (multiprocessing, a Ray worker, whose object store hands out read-only arrays)
        works there like one built there. A game whose options are not its own (a subclass whose
        ``__init__`` takes other arguments than the ``config`` its parent set, or none recorded)
        pickles its attributes instead, as any object.
        """
        config = self.__dict__.get("_config")
        if isinstance(config, dict):
            try:
                inspect.signature(type(self)).bind(**config)
            except TypeError:
                pass
            else:
                return (_rebuild_game, (type(self), dict(config)))
        return super().__reduce_ex__(protocol)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self._config.items())
        return f"{type(self).__name__}({opts})"

    def action_name(self, state: S, row: int, action: int) -> str:
        """Human-readable meaning of ``action`` for row ``row`` of ``state`` (``view.action_name``).

        Without that hook, ``"action <n>"``.

        Raises:
            ValueError: ``action`` is not an int in ``[0, num_actions)``.
        """
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int, got {action!r:.40}")
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} out of range [0, {self.num_actions})")
        fn = self.view.hook("action_name") if self.view is not None else None
        if fn is None:
            return f"action {int(action)}"
        return fn(self, state, row, int(action))

    # ------------------------------------------------------------------ protocol
    def init(self, seeds: Any) -> S:
        """New games, one per seed.

        Args:
            seeds: int or ``(B,)`` non-negative integers; env ``i`` is seeded with ``seeds[i]``.

        Returns:
            A State with batch size ``B``.
        """
        seeds = as_seeds(seeds)
        state = self.new_state(seeds)
        self._init(state, seeds)
        state.mark_game(self)
        return state

    def step(self, state: S, actions: Any) -> S:
        """Apply one action per env for that env's current player.

        Args:
            state: a State of this game (batch size ``B``); not modified.
            actions: ``(B,)`` integers in ``[0, num_actions)``; ignored in finished rows.

        Returns:
            The next State; ``rewards`` holds this transition's rewards of every seat.

        Raises:
            ValueError: a wrong-shaped or non-integer action batch, or an out-of-range or
                illegal action in a live row (nothing is changed).
        """
        if not isinstance(state, self.state_class):
            raise ValueError(f"state must be a {self.state_class.__name__}, got {type(state).__name__}")
        self._check_state_shape(state)
        if self.fused_step:
            new = state.clone()
            self._step_inplace(new, actions)  # on an error the clone is dropped
            return new
        done = state.terminated | state.truncated
        acts = check_actions(state, actions, self.num_actions, done)
        new = state.clone()
        new.rewards.fill(0.0)
        if not done.any():
            new.step_count += 1
            self._step(new, acts, ~done)
        elif not done.all():  # rules only ever see running games: step the live rows, put them back
            live = ~done
            idx = np.flatnonzero(live)
            sub = new.take(idx)
            sub.step_count += 1
            self._step(sub, acts[idx], np.ones(idx.size, dtype=bool))
            new.put(idx, sub)
        return new

    def step_inplace(self, state: S, actions: Any) -> None:
        """:meth:`step` that advances ``state`` itself: no copy of the state is made.

        For a caller that owns ``state`` (nobody else holds it, e.g. a training loop or a vector
        env). Afterwards ``state`` equals what :meth:`step` would have returned, bit for bit.

        Args:
            state: a State of this game (batch size ``B``); modified in place.
            actions: ``(B,)`` integers in ``[0, num_actions)``; ignored in finished rows.

        Raises:
            ValueError: as :meth:`step` (``state`` is unchanged).
        """
        if not isinstance(state, self.state_class):
            raise ValueError(f"state must be a {self.state_class.__name__}, got {type(state).__name__}")
        self._check_state_shape(state)
        if self.fused_step:
            self._step_inplace(state, actions)
        else:  # the rules step a copy (the live rows cut out); write it back
            state.put(slice(None), self.step(state, actions))

    def reset_rows(self, state: S, rows: Any, seeds: Any) -> None:
        """Start new games in rows ``rows`` of ``state``, in place (an autoreset).

        Afterwards row ``rows[i]`` of ``state`` equals row ``i`` of ``init(seeds)``, array for
        array and bit for bit; the other rows are untouched. Games with compiled rules deal
        straight into the rows (:meth:`_reset_rows`) instead of building a new state and copying it.

        Args:
            state: a State of this game (batch size ``B``); modified in place.
            rows: ``(n,)`` distinct integers in ``[0, B)`` (an empty array does nothing).
            seeds: ``(n,)`` non-negative integers, or one int when ``n == 1``.

        Raises:
            ValueError: a state of another game or shape, rows that are not distinct integers in
                range, or seeds that are not ``n`` non-negative integers (``state`` is unchanged).
        """
        if not isinstance(state, self.state_class):
            raise ValueError(f"state must be a {self.state_class.__name__}, got {type(state).__name__}")
        self._check_state_shape(state)
        r = np.asarray(rows)
        if r.ndim != 1 or (r.size and r.dtype.kind not in "iu"):
            raise ValueError(
                f"rows must be a 1-D array of integers, got {rows!r:.80} (shape {r.shape}, dtype {r.dtype})"
            )
        if r.size == 0:
            return
        b = state.batch_size
        if r.min() < 0 or r.max() >= b:
            raise ValueError(f"rows must be in [0, {b}), got {r[(r < 0) | (r >= b)][:5].tolist()}")
        # increasing rows (np.flatnonzero's) are distinct without a sort
        if r.size > 1 and not (r[1:] > r[:-1]).all() and np.unique(r).size != r.size:
            raise ValueError(f"rows must be distinct, got {r.tolist()!r:.80}")
        if type(seeds) is np.ndarray and seeds.dtype == np.int64 and seeds.ndim == 1 and seeds.size:
            if seeds.min() < 0:  # the common case (an int64 array) without as_seeds' conversions
                raise ValueError(f"seeds must be non-negative, got {seeds[seeds < 0][:5].tolist()}")
            s = seeds
        else:
            s = as_seeds(seeds)
        if s.shape != r.shape:
            raise ValueError(f"seeds must be one per row ({r.size}), got {s.size}")
        self._reset_rows(state, r.astype(np.intp), s)

    def _step_inplace(self, state: S, actions: Any) -> None:
        """:meth:`step` advancing ``state`` itself instead of a copy (games with :attr:`fused_step`).

        For a face that owns ``state`` (nobody else holds it) and knows it belongs to this game.
        Raises the same ``ValueError`` as :meth:`step` for bad actions, with ``state`` unchanged.
        """
        acts = as_actions(state, actions, copy=False)
        if not self._step_fused(state, acts):  # nothing was changed
            check_actions(state, actions, self.num_actions)  # raises the ValueError naming the rows
            raise RuntimeError("_step_fused rejected actions that check_actions accepts")

    def _check_state_shape(self, state: S) -> None:
        b = state.batch_size
        if state.legal_action_mask.shape != (b, self.num_actions):
            raise ValueError(
                f"state mask has shape {state.legal_action_mask.shape}, this game expects "
                f"({b}, {self.num_actions}) -- state from a differently configured game?"
            )
        if state.rewards.shape != (b, self.num_players):
            raise ValueError(
                f"state rewards have shape {state.rewards.shape}, this game has "
                f"{self.num_players} players -- state from a differently configured game?"
            )

    def observe(self, state: S, player: Any, out: np.ndarray | None = None) -> np.ndarray:
        """Observation of ``player`` in every env.

        Args:
            state: batch of size ``B``.
            player: int seat or ``(B,)`` seats (e.g. ``state.current_player``).
            out: optional ``(B, obs_dim) float32`` C-contiguous array to write the observations
                into (no new array is made: for loops that keep one buffer); every cell is written.

        Returns:
            ``(B, obs_dim) float32`` (``out`` when given); only what that seat may know, seats
            observer-first.

        Raises:
            ValueError: seats out of range or of the wrong shape, or an ``out`` of the wrong
                shape, dtype or layout (nothing is written).
        """
        b = state.batch_size
        if out is not None:
            if not isinstance(out, np.ndarray) or out.shape != (b, self.obs_dim) or out.dtype != np.float32:
                got = f"{out.shape} {out.dtype}" if isinstance(out, np.ndarray) else type(out).__name__
                raise ValueError(f"out must be a ({b}, {self.obs_dim}) float32 array, got {got}")
            if not out.flags.c_contiguous or not out.flags.writeable:
                raise ValueError("out must be C-contiguous and writeable")
        if type(player) is int:  # fast path for a plain seat number (bool is not int here)
            if not 0 <= player < self.num_players:
                raise ValueError(f"player seats must be in [0, {self.num_players}), got {[player]}")
            p = np.full(b, player, dtype=np.int64)
            if out is None:
                return self._observe(state, p)
            self._observe_into(state, p, out)
            return out
        p = np.asarray(player)
        if p.dtype.kind not in "iu":  # bool is kind "b"
            raise ValueError(f"player seats must be integers, got {player!r} (dtype {p.dtype})")
        if p.ndim == 0:
            p = np.full(b, int(p))
        if p.shape != (b,):
            raise ValueError(f"player must be an int or shape ({b},), got {p.shape}")
        if ((p < 0) | (p >= self.num_players)).any():
            raise ValueError(f"player seats must be in [0, {self.num_players}), got {np.unique(p).tolist()}")
        if out is None:
            return self._observe(state, p.astype(np.int64))
        self._observe_into(state, p.astype(np.int64), out)
        return out

    def winners(self, state: S) -> np.ndarray:
        """``(B, P) bool``: seats that won (all False while running or when nobody won)."""
        return self._winners(state)

    def new_state(self, seeds: Any, **values: Any) -> S:
        """A state of ``B = len(seeds)`` rows allocated from the schema: what :meth:`_init` deals into.

        Every declared field is an array of its declared dtype and shape holding its declared
        ``start`` value (0 unless the field says otherwise: seat 0 to move, no legal action yet,
        running), except ``rng``: each row's stream seeded from its seed
        (:func:`~monkey_envs.core.rng.seed_rng`). ``values`` set fields (broadcast into them:
        ``new_state(seeds, score=3)``).

        Raises:
            ValueError: bad seeds, or a value that is no field or does not fit it.
        """
        seeds = np.asarray(seeds)
        if seeds.ndim != 1:
            raise ValueError(f"seeds must be a 1-D array of shape (B,), got shape {seeds.shape}")
        B = seeds.size
        starts = self.__dict__.get("_field_starts")
        if starts is None:
            starts = self.__dict__["_field_starts"] = {f.name: f.start for f in schema_fields(self.state_class)}
        arrays = {}
        for name, (shape, dtype) in self.state_layout().items():
            start = starts[name]
            arrays[name] = np.full((B, *shape), start, dtype) if start else np.zeros((B, *shape), dtype)
        arrays["rng"] = seed_rng(seeds)
        for name, value in values.items():
            if name not in arrays:
                raise ValueError(f"{self.state_class.__name__} has no field {name!r}")
            try:
                arrays[name][...] = value
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{name}: {exc}") from exc
        state = object.__new__(self.state_class)  # every field is here: skip __init__ (as ``clone`` does)
        state.__dict__.update(arrays)
        return state  # type: ignore[return-value]

    # ------------------------------------------------------------------ to implement
    @abc.abstractmethod
    def _init(self, state: S, seeds: np.ndarray) -> None:
        """Deal new games into ``state``, in place: one per seed (``seeds (B,) int64``).

        ``state`` comes from :meth:`new_state`: every field at its declared ``start`` value and
        each row's ``rng`` stream seeded from its seed, so a numpy deal draws from ``state.rng``
        (a compiled deal may take the seeds themselves).
        """

    def _step(self, state: S, actions: np.ndarray, live: np.ndarray) -> None:
        """Advance ``state`` in place (actions already validated).

        ``step`` hands the rules only running games: ``live`` is all True and kept so rules
        may assert it; finished rows are cut out before and put back after. Every game
        implements this or, with :attr:`fused_step`, :meth:`_step_fused`.
        """
        raise NotImplementedError(f"{type(self).__name__} implements neither _step nor _step_fused")

    def _step_fused(self, state: S, actions: np.ndarray) -> bool:
        """Validate and apply ``actions (B,) int64`` to ``state`` in place (a clone, or a state its caller owns).

        For games with :attr:`fused_step`. When an action of a running row is out of range or
        illegal, return False having changed nothing (``step`` then raises the
        ``ValueError``). Otherwise zero every row's ``rewards``, advance ``step_count`` and the
        game in the running rows only (finished rows ignore their action), and return True.
        """
        raise NotImplementedError(f"{type(self).__name__} has no fused step")

    @abc.abstractmethod
    def _observe(self, state: S, player: np.ndarray) -> np.ndarray: ...

    def _observe_into(self, state: S, player: np.ndarray, out: np.ndarray) -> None:
        """Hook: write :meth:`_observe` of ``player (B,) int64`` into ``out (B, D) float32`` (C-contiguous).

        The default copies a new observation in; a game whose observation kernel writes into a
        given array overrides it (and builds :meth:`_observe` on it) so no array is made.
        """
        out[...] = self._observe(state, player)

    def _reset_rows(self, state: S, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Hook: start new games in ``rows (n,) intp`` (distinct, in range) from ``seeds (n,) int64``, in place.

        Must leave those rows equal to ``init(seeds)`` bit for bit and the other rows untouched.
        The default builds ``init(seeds)`` and copies its rows in; a compiled game overrides it
        with a kernel that deals into the rows directly.
        """
        state.put(rows, self.init(seeds))

    def _winners(self, state: S) -> np.ndarray:
        """Hook: ``(B, P) bool`` winners; the default is a copy of the state's ``winners_mask``
        (which ``end_games`` and every shipped game's rules keep)."""
        return state.winners_mask.copy()

    def render(self, state: S, row: int = 0, viewer: int | None = None) -> str:
        """Text picture of env ``row``; ``viewer`` (a seat) also shows that seat's hidden cards (``view.render``)."""
        fn = self.view.hook("render") if self.view is not None else None
        if fn is None:
            raise NotImplementedError(f"{type(self).__name__} declares no view: set view = View(render=...)")
        return fn(self, state, row, viewer)

    def picture(self, state: S, row: int = 0, viewer: int | None = None) -> Picture:
        """Drawing of env ``row`` as seat ``viewer`` sees it (``None``: public only), the same facts as :meth:`render`.

        The hook behind ``render_mode="rgb_array"`` (``picture(...).to_array()``: ``(H, W, 3)
        uint8``), a ``human`` window and PNG / SVG export (``picture(...).save("x.png")``); see
        :mod:`monkey_envs.core.pictures`. One size for every position of a configuration, and what
        ``viewer`` cannot see must not change it. A game without it offers no ``rgb_array`` mode.

        Raises:
            NotImplementedError: the game draws no picture (no ``view.picture``).
            ValueError: ``row`` or ``viewer`` out of range (:meth:`check_render_args`).
        """
        fn = self.view.hook("picture") if self.view is not None else None
        if fn is not None:
            return fn(self, state, row, viewer)
        raise NotImplementedError(
            f"{type(self).__name__} draws no picture: give its View a picture hook "
            "(returning a monkey_envs.core.pictures.Picture) to get render_mode='rgb_array' and PNG/SVG export"
        )

    def action_filters(self) -> dict[str, np.ndarray]:
        """Named restrictions of the action set, each an ``(A,) bool`` array of allowed actions.

        Used for ablations (a learner that may only take some actions, e.g. Funky Monkey's
        ``"honest"``: announcements always true); a filter must leave every decision at least
        one legal action (``analytics.action_filters``; none by default).
        """
        fn = self.analytics.hook("action_filters")
        return {} if fn is None else fn(self)

    def action_filter(self, name: str) -> np.ndarray:
        """The ``(A,) bool`` allowed actions of filter ``name`` (see :meth:`action_filters`).

        Raises:
            ValueError: the game has no filter of that name.
        """
        filters = self.action_filters()
        if name not in filters:
            raise ValueError(f"{self.spec.name} has no action filter {name!r}; known: {sorted(filters)}")
        out = np.asarray(filters[name], dtype=bool)
        out.flags.writeable = False
        return out

    @_classproperty
    def public_actions(cls) -> bool:
        """Whether every seat sees which action a mover took (``view.public_actions``). When
        False, the default :meth:`action_seen` tells only the mover what it did."""
        return cls.view is not None and cls.view.public_actions

    def action_seen(self, state: S, row: int, action: int, viewer: int | None) -> str:
        """What ``viewer`` learns when the mover of ``row`` takes ``action`` in ``state`` (before the step).

        Used wherever a move is shown to somebody other than the agent that made it (the
        terminal player :mod:`monkey_envs.play`, replays seen from a seat). ``viewer`` is a seat,
        or ``None`` for a spectator who sees only public information. The default is safe for
        hidden moves: the mover sees :meth:`action_name`, everybody else only that the seat
        moved -- unless :attr:`public_actions` is set. Games with partly hidden moves (a card
        played face down with an announced value) give a ``view.action_seen`` hook.
        """
        fn = self.view.hook("action_seen") if self.view is not None else None
        if fn is not None:
            return fn(self, state, row, action, viewer)
        mover = int(state.current_player[row])
        if self.public_actions or (viewer is not None and int(viewer) == mover):
            return self.action_name(state, row, action)
        return "moves (hidden)"

    def action_outcome(self, before: S, after: S, row: int, action: int, viewer: int | None) -> str:
        """What ``viewer`` learns of what the mover's ``action`` did: ``before`` is the state it
        was taken in, ``after`` the state :meth:`step` made of it (row ``row`` of both).

        :meth:`action_seen` says which move was made; this says what it brought about when that
        is not plain from the move itself (a card passed face down, once accepted and revealed:
        what it really was, and where it moved whom). The terminal player and the text replay
        print it under the move. It must tell ``viewer`` nothing it may not know (``None``: a
        spectator). ``view.action_outcome``; by default ``""``, nothing more to say.
        """
        fn = self.view.hook("action_outcome") if self.view is not None else None
        return "" if fn is None else fn(self, before, after, row, action, viewer)

    def render_legend(self) -> str:
        """How to read :meth:`render`'s text: every mark it uses and what it means (lines of text).

        The terminal player prints it on ``?`` and both the player and the replay with
        ``--legend``. A game's ``view.legend`` explains its own marks; the default says only
        what is true of every game (the seat letters).
        """
        fn = self.view.hook("legend") if self.view is not None else None
        return seat_legend(int(self.num_players)) if fn is None else fn(self)

    def episode_info(self, state: S, row: int) -> dict[str, Any]:
        """Per-episode facts of row ``row`` for the faces' ``info`` dicts (the shared ones, then ``analytics.episode_info``'s).

        Every value is numeric and of a fixed shape and dtype for the game's configuration (an
        int, a float, a bool or a numpy array), so RL libraries that store infos in arrays
        (Tianshou's buffers, gymnasium's vector info merging) take them. The shared facts:

        * ``end_reason``: ``int`` code, an index into ``spec.end_reasons`` (0 while running;
          ``spec.end_reason_name(code)`` is its name);
        * ``winners``: ``(P,) bool`` seats that won (all False while running or when nobody won).

        ``spec.readable_info(info)`` gives the names and seat lists back (logs, playthroughs).
        """
        out = {"end_reason": int(state.end_reason[row]), "winners": state.winners_mask[row].astype(bool)}
        fn = self.analytics.hook("episode_info")
        if fn is not None:
            out.update(fn(self, state, row))
        return out

    # ------------------------------------------------------------------ hooks (generic defaults)
    # Whatever evaluation, the arena, training, benchmarks and the conformance suite need to know
    # about a game comes from these methods (and :attr:`spec`), never from a branch on its name.

    #: Configurations the conformance suite and the shared tests run this game in (keyword
    #: arguments of the constructor); the first is the default configuration.
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = ({},)

    def end_reason_names(self, state: S) -> list[str]:
        """``B`` names of each row's ``end_reason`` (``spec.end_reasons``; ``"running"`` while running)."""
        names = self.spec.end_reasons
        codes = np.asarray(state.end_reason, dtype=np.int64)
        return [names[c] if 0 <= c < len(names) else f"code_{c}" for c in codes.tolist()]

    def scores(self, state: S) -> np.ndarray | None:
        """``(B, P) float64`` end-of-game scores, or ``None`` for a game that keeps none (``analytics.scores``)."""
        fn = self.analytics.hook("scores")
        return None if fn is None else fn(self, state)

    def episode_stats(self, state: S) -> dict[str, np.ndarray]:
        """Per-seat counters of the episode so far, ``name -> (B, P) int64`` (empty by default).

        The arena and evaluation sum them over the seats each agent held and hand the sums to
        :meth:`stats_summary` (``analytics.episode_stats``).
        """
        fn = self.analytics.hook("episode_stats")
        return {} if fn is None else fn(self, state)

    @_classproperty
    def stats_title(cls) -> str:
        """Title of the table :meth:`stats_summary` fills (arena and run reports; ``analytics.stats_title``)."""
        return cls.analytics.stats_title

    def stats_summary(self, totals: dict[str, int], seats: int) -> dict[str, Any] | None:
        """Analytics of one agent from its summed :meth:`episode_stats` over ``seats`` seats held.

        Returns ``None`` (the default) or a flat dict ``metric -> number | None`` (rates, counts;
        a ``[low, high]`` list for an interval); the arena prints one row per agent, one column
        per metric, and the run report stores the dict (``analytics.stats_summary``).
        """
        fn = self.analytics.hook("stats_summary")
        return None if fn is None else fn(self, totals, seats)

    def report_decisions(self, actions: np.ndarray) -> np.ndarray:
        """``(n,) bool``: which of an agent's decisions ``actions (n,) int64`` :meth:`decision_report` reads.

        The evaluation records the observation and action of exactly those decisions of the
        agent it reports on (``analytics.report_decisions``). Default: none.
        """
        fn = self.analytics.hook("report_decisions")
        return np.zeros(np.shape(actions), dtype=bool) if fn is None else fn(self, actions)

    def decision_report(
        self, obs: np.ndarray, actions: np.ndarray, about: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any], str] | None:
        """Game-specific analysis of one agent's recorded decisions (``obs (n, D)``, ``actions (n,)``).

        ``about`` describes the games they come from (``agent``, ``games``, ``win_rate``, ...);
        the report's data include it.

        ``agents.evaluate.decision_report`` plays the games and records the decisions
        :meth:`report_decisions` selects; ``training.run`` stores the result in ``eval.json`` and
        ``eval.md``. Returns ``(title, data, markdown)`` or ``None`` (no ``analytics.decision_report``).
        """
        fn = self.analytics.hook("decision_report")
        return None if fn is None else fn(self, obs, actions, about)

    def movers(self, state: S) -> np.ndarray:
        """``(B, P) bool``: seats that still have to choose in the current decision.

        Sequential games: the current player only. A simultaneous game
        (``spec.dynamics == "simultaneous"``) returns every seat that still has to commit its
        choice in the current tick; the core asks them one after another (``current_player``)
        and must keep every commit hidden from every observation and mask until the tick
        resolves -- the conformance suite checks this.
        """
        b = state.batch_size
        out = np.zeros((b, self.num_players), dtype=bool)
        cp = state.current_player.astype(np.int64)
        live = cp >= 0
        out[np.flatnonzero(live), cp[live]] = True
        return out

    #: ``(win, loss, draw)`` rewards the game's endings hand out (as given to :func:`end_games`),
    #: declared per game as data; the shared laws of :meth:`state_violations` check a finished
    #: game's rewards against its ``winners_mask`` with them. ``None``: not declared (only the
    #: laws every game keeps are checked: finite rewards, and none in a running game).
    end_rewards: ClassVar[tuple[float, float, float] | None] = None

    #: Where the game's own laws live: a module path (``"package.module"``, imported the first
    #: time a law is read, so importing the rules stays cheap) or an object. It provides
    #: ``state_violations(game, state) -> [(field, row, why)]``, the game's laws broken by a state
    #: of valid layout (vectorised over the batch), and optionally
    #: ``redeal_hidden(game, state, seat, gen) -> None``, which re-deals in place what ``seat``
    #: cannot see (``state`` a clone whose RNG rows are already redrawn, ``gen`` the
    #: ``numpy.random.Generator`` of the resampling seed). ``None``: only the shared laws.
    laws: ClassVar[Any] = None

    def _laws(self) -> Any:
        """The :attr:`laws` object (its module imported on first use), or ``None``."""
        laws = type(self).laws
        if isinstance(laws, str):
            import importlib

            laws = importlib.import_module(laws)
        return laws

    def state_violations(self, state: S) -> list[tuple[str, int, str]]:
        """The consistency laws broken by ``state``: ``(field, row, why)`` triples.

        A state of the wrong class, dtype or shape gets only its :meth:`layout_violations` (no
        law can be read from it). Otherwise the laws of the shared fields, then the range of every
        field the state schema bounds (:func:`~monkey_envs.core.schema.range_violations`), then
        the game's own (:attr:`laws`) on the rows whose values are in range, under their own row
        numbers: conservation invariants (cards, monkeys, coconuts, ...) and a phase or decider
        that exists. Never raises: laws that cannot be read from a damaged
        state are reported as one ``("state", -1, ...)`` violation. The random-play fuzz of the
        conformance suite asserts an empty list after every step.

        The shared laws: ``current_player`` and ``end_reason`` in range and consistent with
        the ending, the mask empty exactly in finished games, no winners in a running game, the
        rewards of :func:`~monkey_envs.core.invariants.reward_laws` (finite, 0 in a running
        game, the :attr:`end_rewards` once it ended), and every bool stored as a canonical byte
        (0 or 1: a loaded ``.npz`` or an array viewed as bool can hold any byte, which numpy
        reads as True but compiled kernels and byte-wise comparisons do not).
        """
        bad_layout = self.layout_violations(state)
        if bad_layout:
            return bad_layout
        try:
            out = self._shared_violations(state)
            ranges, insane = range_violations(self.state_class, self, state)
            out += ranges
            laws = self._laws()
            if laws is not None:
                if not insane.any():
                    out += laws.state_violations(self, state)
                elif not insane.all():  # the game's laws read only rows whose values are in range
                    sane = np.flatnonzero(~insane)
                    for name, row, why in laws.state_violations(self, state.take(sane)):
                        out.append((name, int(sane[row]) if row >= 0 else row, why))
        except Exception as e:  # never raise on garbage
            return [("state", -1, f"laws unreadable: {type(e).__name__}: {e}")]
        return out

    def _shared_violations(self, state: S) -> list[tuple[str, int, str]]:
        """The laws of the fields every game has (see :meth:`state_violations`); the layout is valid."""
        out: list[tuple[str, int, str]] = []
        for name, (_, dtype) in self.state_layout().items():
            if dtype == np.bool_:
                arr = state.__dict__[name]
                raw = arr.view(np.uint8).reshape(arr.shape[0], -1)
                for r in np.flatnonzero((raw > 1).any(1)).tolist():
                    out.append((name, r, f"a bool stored as byte {int(raw[r].max())}, not 0 or 1"))
        cp = state.current_player.astype(np.int64)
        done = state.terminated | state.truncated
        for r in np.flatnonzero(done != (cp < 0)).tolist():
            out.append(("current_player", r, "must be -1 exactly when the game is over"))
        for r in np.flatnonzero(done & state.legal_action_mask.any(1)).tolist():
            out.append(("legal_action_mask", r, "a finished game has legal actions"))
        for r in np.flatnonzero(~done & ~state.legal_action_mask.any(1)).tolist():
            out.append(("legal_action_mask", r, "a running game has no legal action"))
        for r in np.flatnonzero(~done & state.winners_mask.any(1)).tolist():
            out.append(("winners_mask", r, "a running game has winners"))
        rep = Report()
        ok = np.ones(state.batch_size, dtype=bool)
        reward_laws(rep, state.rewards, ok, state.terminated, state.winners_mask, self.end_rewards)
        return out + rep.out

    def resample_hidden(self, state: S, seat: int, seed: int) -> S | None:
        """A state that ``seat`` cannot tell apart from ``state`` but that differs in what it cannot see.

        The search agent re-deals with it before every decision; the no-peeking check of the
        conformance suite resamples with several seeds and asserts that ``seat``'s observation,
        mask, ``info`` and ``render(viewer=seat)`` are unchanged. A clone of ``state`` gets RNG
        rows drawn from ``numpy.random.default_rng(seed)`` (the next chance events, which no seat
        sees in any game), then the game's :attr:`laws` ``redeal_hidden`` re-deals, from the same
        generator, what ``seat`` cannot see (hands, draw order, face-down tiles). ``state`` is
        not modified.

        Args:
            state: a state of this game, batch ``B``.
            seat: the seat whose view is kept, an int in ``[0, P)``.
            seed: seeds the resampling (a non-negative int).

        Returns:
            The new state (batch ``B``), or ``None`` when ``state`` does not have this game's
            layout (:meth:`layout_violations`).

        Raises:
            ValueError: ``seat`` is not a seat of this game.
        """
        if (
            isinstance(seat, (bool, np.bool_))
            or not isinstance(seat, (int, np.integer))
            or not 0 <= seat < self.num_players
        ):
            raise ValueError(f"seat must be an int in [0, {self.num_players}), got {seat!r}")
        if self.layout_violations(state):
            return None
        gen = np.random.default_rng(seed)
        new = state.clone()
        new.rng[:] = gen.integers(0, 2**63, size=new.rng.shape, dtype=np.int64).astype(np.uint64)
        laws = self._laws()
        redeal = getattr(laws, "redeal_hidden", None)
        if redeal is not None:
            redeal(self, new, int(seat), gen)
        return new

    # ------------------------------------------------------------------ untrusted states
    # States from outside -- a dict, JSON text or a file, or a state object handed to a face --
    # are checked before any rule (or compiled kernel) reads them.

    #: How many violations the message of :meth:`validate_state` lists.
    max_reported_violations: ClassVar[int] = 5

    @_classproperty
    def counter_fields(cls) -> tuple[str, ...]:
        """Integer fields that only count up during play (decisions taken, per-seat statistics,
        ...): those the state schema declares ``counter=True`` (on ``Game`` itself, the shared
        ``("step_count",)``). :meth:`validate_state` refuses a state with a counter outside
        ``[0, counter_cap(dtype))``, so that playing a loaded state can never overflow one (see
        :meth:`counter_cap`)."""
        return schema_counters(getattr(cls, "state_class", BatchState))

    @staticmethod
    def counter_cap(dtype: Any) -> int:
        """The bound a loaded counter of integer ``dtype`` must stay below: half the dtype's range.

        ``2**30`` for ``int32`` (``step_count``), ``2**14`` for ``int16``: a game adds at most a
        few counts per decision, so a loaded game has far more room to play than any episode needs.
        """
        return (int(np.iinfo(dtype).max) >> 1) + 1

    @property
    def identity(self) -> dict[str, Any]:
        """``{"name": spec.name, "config": config}``: what a saved state records of its game (enough to rebuild it)."""
        return {"name": self.spec.name, "config": self.config}

    def state_layout(self) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
        """Per field, the per-row shape and the dtype of this game's states (from its schema; cached).

        The conformance kit checks that ``init`` makes exactly this layout.
        """
        layout = self.__dict__.get("_state_layout")
        if layout is None:
            layout = schema_layout(self.state_class, self)
            self.__dict__["_state_layout"] = layout
        return layout

    def layout_violations(self, state: Any) -> list[tuple[str, int, str]]:
        """Type, dtype and shape problems of ``state`` for this game, each with row ``-1`` (the whole array).

        ``[]`` when ``state`` is a :attr:`state_class` whose every field is a numpy array of exactly
        the dtype and per-row shape this game's ``init`` produces, all with one batch size.
        """
        if not isinstance(state, self.state_class):
            return [("state", -1, f"not a {self.state_class.__name__} but a {type(state).__name__}")]
        out: list[tuple[str, int, str]] = []
        sizes = set()
        for name, (row_shape, dtype) in self.state_layout().items():
            arr = state.__dict__.get(name)
            if not isinstance(arr, np.ndarray):
                out.append((name, -1, f"not a numpy array but {type(arr).__name__}"))
                continue
            if arr.dtype != dtype:
                out.append((name, -1, f"dtype {arr.dtype}, expected {dtype}"))
            if arr.ndim != len(row_shape) + 1 or arr.shape[1:] != row_shape:
                want = "(B" + "".join(f", {d}" for d in row_shape) + ")"
                out.append((name, -1, f"shape {arr.shape}, expected {want}"))
            else:
                sizes.add(arr.shape[0])
        if len(sizes) > 1:
            out.append(("state", -1, f"fields disagree on the batch size: {sorted(sizes)}"))
        return out

    def validate_state(self, state: Any) -> None:
        """Check that ``state`` is a state this game can play: before any rule reads a state from outside.

        In order: the class, every field's dtype and shape (exactly those of this game's
        ``init``), finite floats, every counter (:attr:`counter_fields`, ``step_count`` among them)
        in ``[0, counter_cap)``, then the game's laws (:meth:`state_violations`, which also
        compares the stored legal mask with the rules' one). A state that passes is a position
        the rules (and their compiled kernels) handle safely.

        Raises:
            StateError: (a ``ValueError``) naming the field and row of the first
                :attr:`max_reported_violations` problems (row ``-1``: the whole array).
        """
        found = self.layout_violations(state)
        if not found:
            for name, (_, dtype) in self.state_layout().items():
                if dtype.kind == "f":
                    arr = state.__dict__[name]
                    bad = ~np.isfinite(arr).reshape(arr.shape[0], -1).all(1)
                    found += [(name, int(r), "a value is not finite") for r in np.flatnonzero(bad)]
            for name in self.counter_fields:
                arr = state.__dict__[name]
                cap = self.counter_cap(arr.dtype)
                flat = arr.reshape(arr.shape[0], -1)
                bad = ((flat < 0) | (flat >= cap)).any(1)
                for r in np.flatnonzero(bad).tolist():
                    v = int(flat[r][(flat[r] < 0) | (flat[r] >= cap)][0])
                    found.append((name, r, f"counter {v} outside [0, {cap}) (room to play)"))
        if not found:
            try:
                found = list(self.state_violations(state))
            except Exception as e:  # a law that cannot be read is a broken state
                raise StateError(f"{self!r} cannot check this state: {type(e).__name__}: {e}") from e
        if found:
            n = self.max_reported_violations
            shown = "; ".join(
                f"field {f!r} {'(whole array)' if r < 0 else f'row {r}'}: {why}" for f, r, why in found[:n]
            )
            more = f" (and {len(found) - n} more)" if len(found) > n else ""
            raise StateError(f"not a valid state of {self!r}: {shown}{more}")

    def set_state(self, data: dict[str, Any]) -> S:
        """A state of this game from a :meth:`BatchState.get_state` dict, validated (:meth:`validate_state`).

        Raises:
            StateError: (a ``ValueError``) foreign or damaged data, data saved by a differently
                configured game, or a state that breaks this game's laws.
        """
        return self.state_class._from_data(data, self, "state dict")

    def state_from_json(self, text: str | bytes) -> S:
        """A state of this game from :meth:`BatchState.to_json` text, validated as :meth:`set_state`."""
        from monkey_envs.core.state import _parse_json

        return self.state_class._from_data(_parse_json(text), self, "state JSON")

    def load_state(self, path: Any) -> S:
        """A state of this game from a :meth:`BatchState.save` file (path or binary file object), validated.

        Raises:
            StateError: (a ``ValueError``) a damaged file of any kind, a foreign one, one saved by a
                differently configured game, or a state that breaks this game's laws; the message
                names the file.
        """
        return self.state_class._load(path, self)

    def check_render_args(self, state: S, row: Any, viewer: Any) -> tuple[int, int | None]:
        """``(row, viewer)`` of a :meth:`render` call as ints, checked.

        Raises:
            ValueError: ``row`` is not an int in ``[0, B)`` or ``viewer`` is neither ``None`` nor a
                seat in ``[0, P)`` (negative indices are refused: ``viewer=-1`` would show the last
                seat's hidden cards).
        """
        b = state.batch_size
        if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)) or not 0 <= row < b:
            raise ValueError(f"row must be an int in [0, {b}), got {row!r}")
        if viewer is None:
            return int(row), None
        if (
            isinstance(viewer, (bool, np.bool_))
            or not isinstance(viewer, (int, np.integer))
            or not 0 <= viewer < self.num_players
        ):
            raise ValueError(f"viewer must be None or a seat in [0, {self.num_players}), got {viewer!r}")
        return int(row), int(viewer)
