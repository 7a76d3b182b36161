"""Pieces shared by every face (AEC, gymnasium single/vector, SB3 VecEnv), written once.

* :func:`observation_box` / :func:`action_mask_box`: the spaces of one seat's flat observation
  and of its legal-action mask.
* :class:`EpisodeStream`: a per-row, deterministic stream of episode seeds and learner seats,
  so ``reset()`` without a seed (and every autoreset) continues reproducibly from the last
  seeded reset, independently for each row of a batch.
* :func:`entropy_seed`: a fresh non-negative seed when the user gives none.
* :func:`tick_masks`: every mover's legal choices of the current tick of a simultaneous game
  (the Parallel env's masks, and the AEC env's masks of the seats still to commit).

Seeding convention (all faces): a face seeded with ``s`` plays, in row ``i`` (``i = 0`` for the
single-env faces), first the game ``game.init(s + i)`` -- exactly the core game with that seed --
and then the episodes whose seeds the row's :class:`EpisodeStream` draws.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from gymnasium import spaces

from monkey_envs.core.game import as_seeds
from monkey_envs.core.rng import draw_uint64, seed_rng

#: Key salts that separate the faces' streams from the game's own RNG stream of the same seed.
_EPISODE_SALT = np.uint64(0xD1B54A32D192ED03)
_S11 = np.uint64(11)
_S1 = np.uint64(1)


def observation_box(game: Any) -> spaces.Box:
    """``Box(low, high, (game.obs_dim,), float32)`` for one seat's flat observation.

    Bounds come from the game's optional ``obs_low`` / ``obs_high`` attributes (scalars or
    ``(obs_dim,)`` arrays); a game that declares none gets ``(-inf, inf)``.
    """
    low = np.broadcast_to(np.asarray(getattr(game, "obs_low", -np.inf), np.float32), (game.obs_dim,))
    high = np.broadcast_to(np.asarray(getattr(game, "obs_high", np.inf), np.float32), (game.obs_dim,))
    return spaces.Box(low=low.copy(), high=high.copy(), shape=(game.obs_dim,), dtype=np.float32)


def tick_masks(game: Any, state: Any) -> np.ndarray:
    """``(P, A) bool``: the legal choices in the current tick of every seat of row 0 of ``state``
    that still has to commit in it (``game.movers``), all False for the other seats (and once over).

    A simultaneous game keeps every commit hidden, so a mover's legal choices do not depend on
    the tick's earlier commits. A game may supply them with a method ``mover_masks(state) ->
    (B, P, A) bool``; else they are read generically: from the current mover on, placeholder
    commits (each seat's lowest legal action) are made on copies of the state until every
    remaining mover has been current. ``state`` is never changed.

    Raises:
        RuntimeError: the game asked a seat that is not a remaining mover (or one twice), or its
            ``mover_masks`` hook returned another shape.
    """
    P, A = game.num_players, game.num_actions
    out = np.zeros((P, A), dtype=bool)
    if state.terminated[0] or state.truncated[0]:
        return out
    movers = np.asarray(game.movers(state))[0]
    hook = getattr(game, "mover_masks", None)
    if hook is not None:
        masks = np.asarray(hook(state))
        if masks.shape != (state.batch_size, P, A):
            raise RuntimeError(
                f"{game!r}.mover_masks returned shape {masks.shape}, expected {(state.batch_size, P, A)}"
            )
        out[movers] = masks[0, movers]
        return out
    remaining, s = set(np.flatnonzero(movers).tolist()), state
    while remaining:
        cp = int(s.current_player[0])
        if cp not in remaining:
            raise RuntimeError(
                f"{game!r} asked seat {cp} while seats {sorted(remaining)} still had to commit this tick: "
                "a simultaneous game must ask exactly its movers, each once per tick"
            )
        out[cp] = s.legal_action_mask[0]
        remaining.discard(cp)
        if remaining:
            s = game.step(s, np.array([int(np.argmax(s.legal_action_mask[0]))]))
    return out


def action_mask_box(game: Any) -> spaces.Box:
    """``Box(0, 1, (game.num_actions,), int8)``: the PettingZoo-style legal-action mask."""
    return spaces.Box(low=0, high=1, shape=(game.num_actions,), dtype=np.int8)


def entropy_seed() -> int:
    """A fresh seed in ``[0, 2**62)`` from OS entropy (for ``reset()`` before any seeded reset)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(2))


#: Seeds are int64 (the cores' ``as_seeds``): every row seed must stay below this.
_SEED_LIMIT = 2**63


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """``seed`` of a face's ``reset`` as a Python int (``None`` stays ``None``).

    Raises:
        ValueError: naming ``name``: a bool, a non-integer (``1.5``, ``"3"``), a negative seed or
            one of ``2**63`` and above.
    """
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{name} must be None or a non-negative int, got {seed!r:.60} ({type(seed).__name__})")
    if not 0 <= seed < _SEED_LIMIT:
        raise ValueError(f"{name} must be in [0, 2**63), got {seed}")
    return int(seed)


def row_seeds(seed: Any, num_envs: int) -> np.ndarray:
    """The ``(num_envs,) int64`` row seeds of a batch seeded with ``seed``.

    Args:
        seed: an int ``s`` (rows get ``s, s + 1, ..., s + num_envs - 1``, the gymnasium / SB3
            convention) or a sequence of ``num_envs`` non-negative ints (one per row).

    Raises:
        ValueError: a negative seed, a bool, a non-integer, a row seed of ``2**63`` or more, or a
            sequence of the wrong length.
    """
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if seed < 0:
            raise ValueError(f"seed must be non-negative, got {seed}")
        if int(seed) + num_envs > _SEED_LIMIT:
            raise ValueError(f"seed must leave seed + {num_envs - 1} below 2**63, got {seed}")
        return int(seed) + np.arange(num_envs, dtype=np.int64)
    try:
        arr = as_seeds(seed)
    except (TypeError, ValueError) as err:
        raise ValueError(f"seed must be an int or a list of {num_envs} ints, got {seed!r}: {err}") from None
    if arr.shape != (num_envs,):
        raise ValueError(f"seed list must have one seed per env ({num_envs}), got {arr.shape[0]}")
    return arr


class EpisodeStream:
    """Deterministic per-row stream of episode seeds and learner seats.

    Row ``r`` seeded with ``seeds[r]`` plays its first episode with game seed ``seeds[r]`` and
    each later episode with a seed drawn from the row's own counter-based RNG (salted so it is
    independent of the game's stream of the same seed). Each episode start draws exactly two
    numbers per row (next seed, learner seat), whether or not they are used, so a row's
    sequence of episodes depends only on its seed and how many episodes it has started --
    never on the batch size or on the other rows.

    Args:
        seeds: ``(B,)`` non-negative integers, one per row.
    """

    def __init__(self, seeds: Any) -> None:
        seeds = as_seeds(seeds)
        self.first = seeds.copy()
        self.rng = seed_rng(seeds)
        self.rng[:, 0] ^= _EPISODE_SALT
        self.episodes = np.zeros(seeds.shape[0], dtype=np.int64)

    def next(self, rows: np.ndarray, num_players: int) -> tuple[np.ndarray, np.ndarray]:
        """Start the next episode of ``rows``.

        Args:
            rows: ``(n,)`` distinct row indices.
            num_players: seats to draw the learner's seat from.

        Returns:
            ``game_seeds (n,) int64`` (non-negative) and ``seats (n,) int64`` in ``[0, num_players)``.
        """
        u = draw_uint64(self.rng, rows, 2)
        drawn = (u[:, 0] >> _S1).astype(np.int64)
        game_seeds = np.where(self.episodes[rows] == 0, self.first[rows], drawn)
        frac = (u[:, 1] >> _S11).astype(np.float64) / float(2**53)
        seats = np.minimum((frac * num_players).astype(np.int64), num_players - 1)
        self.episodes[rows] += 1
        return game_seeds, seats


def check_game_options(game: Any, options: dict[str, Any], face: str) -> None:
    """Refuse keyword arguments of ``face`` that are no option of the game named ``game``.

    A face passes the keyword arguments it does not know itself to the game's constructor; a
    misspelt face option (``render_mod=...``) would otherwise surface as the game's complaint.
    Nothing is checked for a built game (then options are refused anyway) or a game whose
    constructor takes ``**kwargs``.

    Raises:
        TypeError: naming the unknown arguments, the face and the game's options.
    """
    if not options or not isinstance(game, str):
        return
    from monkey_envs.core.registry import GAMES, game_class

    if game not in GAMES:
        return  # resolve_game names the unknown game
    cls = game_class(game)
    params = inspect.signature(cls.__init__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    known = [
        n
        for n, p in params.items()
        if n != "self" and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"{face} got unexpected keyword argument{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}: not an option of {face} nor of the game {game!r} "
            f"(its options: {', '.join(known)})"
        )
