"""Funky Monkey starting positions: the seeded setup of new games and the :meth:`FunkyMonkey.position` builder.

Both build a :class:`FunkyMonkeyState` at the start of a turn (phase ``active``, nothing in
flight) and leave its ``legal_action_mask`` all False: the game writes the mask. The builder
validates every argument against what the game holds (spaces, cards, tiles, treasures, coconuts).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from monkey_envs.core.rng import seed_rng
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.actions import num_actions_for
from monkey_envs.funky_monkey.state import BOWL_GOLDEN, END_NONE, NUM_STATS, PH_ACTIVE, ST_DECIDE, FunkyMonkeyState

_K = D.NUM_CARD_KINDS
_L = D.TRACK_LENGTH
_SLOTS = np.flatnonzero(D.IS_SLOT)


def _as_card(c: Any, what: str = "card") -> int:
    """Card as written by a user -> kind 0..4; ``ValueError`` naming ``what`` for anything else.

    The legal forms: an int (or numpy integer) 1..4 or -1 (MiNuss), the card's name in
    ``data.CARD_NAMES`` (``"1"`` .. ``"4"``, ``"MiNuss"``) or ``"M"`` / ``"minus"`` (any case for
    MiNuss). Bools, floats and other strings are refused, never truncated.
    """
    if isinstance(c, str):
        if c.lower() in ("m", "minuss", "minus"):
            return D.CARD_MINUSS
        if c in ("1", "2", "3", "4"):
            return int(c) - 1
    elif isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)):
        if 1 <= int(c) <= 4:
            return int(c) - 1
        if int(c) == -1:
            return D.CARD_MINUSS
    raise ValueError(f"{what} {c!r:.60} is not a movement card (1, 2, 3, 4 or 'M' for MiNuss)")


def _as_int(value: Any, what: str) -> int:
    """``value`` (an int or numpy integer) as an int; ``ValueError`` naming ``what`` for anything else (bool, float, str)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an int, got {value!r:.60} ({type(value).__name__})")
    return int(value)


def _as_seq(values: Any, what: str, kinds: tuple[type, ...] = ()) -> list[Any]:
    """``values`` (a list, tuple or numpy array of at least one dimension, or one of ``kinds``) as a list.

    Anything else (a scalar, a string, a dict, a generator) is a ``ValueError`` naming ``what``:
    a string is never read as its characters.
    """
    ok = isinstance(values, (list, tuple, *kinds)) or (isinstance(values, np.ndarray) and values.ndim >= 1)
    if not ok:
        raise ValueError(f"{what} must be a list, got {values!r:.60} ({type(values).__name__})")
    return list(values)


def _as_ints(
    values: Any, what: str, low: int | None = None, high: int | None = None, kinds: tuple[type, ...] = ()
) -> list[int]:
    """``values`` (a list, tuple or 1-D array of ints) as ints, each in ``[low, high]`` when given.

    The range is checked on Python ints, before any numpy conversion, so a huge value is a
    ``ValueError`` naming ``what`` (never an ``OverflowError``).
    """
    out = [_as_int(v, f"{what} entry") for v in _as_seq(values, what, kinds)]
    if any((low is not None and v < low) or (high is not None and v > high) for v in out):
        raise ValueError(f"{what} entries must be in [{low}, {high}], got {out}")
    return out


def _as_bools(values: Any, what: str) -> list[bool]:
    """``values`` (a list, tuple or 1-D array of bools) as bools; ints, floats and strings are refused."""
    out = _as_seq(values, what)
    for v in out:
        if not isinstance(v, (bool, np.bool_)):
            raise ValueError(f"{what} entries must be bools, got {v!r:.60} ({type(v).__name__})")
    return [bool(v) for v in out]


def _as_names(values: Any, what: str, names: tuple[str, ...]) -> list[int]:
    """``values`` (a list of names out of ``names``) as their indices in ``names``."""
    out = _as_seq(values, what)
    for v in out:
        if not isinstance(v, str) or v not in names:
            raise ValueError(f"{what}: unknown name {v!r:.60}; choose from {names}")
    return [names.index(v) for v in out]


def _turn_start(batch_size: int, num_players: int, num_actions: int) -> dict[str, np.ndarray]:
    """The fields of a turn's start that every new state shares: no reward, flag, card in flight, debt or stat.

    Returns:
        ``name -> array`` for ``B = batch_size``: ``rewards (B, P) float32`` 0, ``terminated`` /
        ``truncated (B,) bool`` False, ``legal_action_mask (B, A) bool`` False, ``step_count (B,)
        int32`` 0, ``chip_next (B,) int8`` 1, ``phase`` active, ``stage`` decide, the turn's
        ``(B,) int8`` fields -1 or 0 and ``(B,) / (B, P) bool`` flags False, ``stats (B, P,
        NUM_STATS) int16`` 0, ``winners_mask (B, P) bool`` False, ``end_reason (B,) int8`` none.
    """
    B, P = batch_size, num_players
    return {
        "rewards": np.zeros((B, P), np.float32),
        "terminated": np.zeros(B, bool),
        "truncated": np.zeros(B, bool),
        "legal_action_mask": np.zeros((B, num_actions), bool),
        "step_count": np.zeros(B, np.int32),
        "chip_next": np.ones(B, np.int8),
        "phase": np.full(B, PH_ACTIVE, np.int8),
        "stage": np.full(B, ST_DECIDE, np.int8),
        "offer_card": np.full(B, -1, np.int8),
        "announce": np.full(B, -1, np.int8),
        "holder": np.full(B, -1, np.int8),
        "passes": np.zeros(B, np.int8),
        "seen": np.zeros((B, P), bool),
        "crown_play": np.zeros(B, bool),
        "accepter": np.full(B, -1, np.int8),
        "revealed": np.full(B, -1, np.int8),
        "mover": np.full(B, -1, np.int8),
        "in_bonus": np.zeros(B, bool),
        "debt": np.zeros(B, np.int8),
        "debt_to": np.full(B, -1, np.int8),
        "pyramid_card": np.full(B, -1, np.int8),
        "stats": np.zeros((B, P, NUM_STATS), np.int16),
        "winners_mask": np.zeros((B, P), bool),
        "end_reason": np.full(B, END_NONE, np.int8),
    }


class Setup:
    """Starting positions of one game configuration (player count, tile visibility).

    Attributes:
        num_players: ``P``.
        num_actions: ``A = 42 + P``.
        tile_visibility: the configuration's face-up tiles at the start (``data.VISIBILITY``).
        card_counts: ``(5,) int`` movement cards of each kind in play.
        deck: ``(N,) int8`` the movement cards in play, by kind.
        num_cards: ``N``.
        tiger_start: the tiger's start space.
    """

    def __init__(self, num_players: int, tile_visibility: str) -> None:
        """Build the setup tables of a ``num_players``-seat game with ``tile_visibility`` face-up tiles."""
        P = num_players
        self.num_players = P
        self.num_actions = num_actions_for(P)
        self.tile_visibility = tile_visibility
        self.card_counts = D.card_counts(P)  # (5,) cards of each kind in play
        self.deck = np.repeat(np.arange(_K, dtype=np.int8), self.card_counts)  # (N,) kinds
        self.num_cards = int(self.deck.size)
        self.tiger_start = D.TIGER_START[P]
        self._tile_stacks = [np.array(D.TILE_STACKS_RECONSTRUCTED[b], dtype=np.int8) for b in D.TILE_BACKS]
        self._treasure_deck = np.array(D.TREASURE_DECK_RECONSTRUCTED, dtype=np.int8)
        # setup's random numbers per env: the shuffled stacks, decks, placing order, start bits, chips
        self._setup_draws = sum(t.size for t in self._tile_stacks) + self.num_cards + self._treasure_deck.size
        self._setup_draws += P + (P + 1) // 2 + P
        self._face_up0 = np.zeros(_L, dtype=bool)
        self._face_up0[list(D.FACE_UP_AT_START[tile_visibility])] = True
        self._rel = np.arange(P)

    def blank(self, batch_size: int) -> FunkyMonkeyState:
        """A new game's arrays for ``batch_size`` rows, without its chance: what :meth:`deal` and the
        compiled deal (``kernels.reset_rows_at``) start from.

        Every field a new game holds whatever the seed is already has its value (coconuts, bowls,
        well, tiger, face-up tiles, draw size, treasures, the turn's fields: :func:`_turn_start`);
        the seeded ones (``rng``, ``pos``, ``tiles``, ``removed_tiles``, ``hands``, ``draw_pile``,
        ``treasure_pile``, ``chip_order``, ``current_player``, ``active``) are uninitialised.
        """
        B, P = batch_size, self.num_players
        supply = D.TOTAL_COCONUTS - P * D.START_COCONUTS - sum(D.BOWL_START)
        return FunkyMonkeyState(
            current_player=np.empty(B, np.int8),
            rng=np.empty((B, 2), np.uint64),
            pos=np.empty((B, P), np.int8),
            alive=np.ones((B, P), bool),
            coconuts=np.full((B, P), D.START_COCONUTS, np.int8),
            golden=np.full(B, -1, np.int8),
            bowls=np.broadcast_to(np.array(D.BOWL_START, np.int8), (B, 2)).copy(),
            supply=np.full(B, supply, np.int8),
            tiger=np.full(B, self.tiger_start, np.int8),
            tiles=np.empty((B, _L), np.int8),
            face_up=np.broadcast_to(self._face_up0, (B, _L)).copy(),
            removed_tiles=np.empty((B, len(D.TILE_BACKS)), np.int8),
            hands=np.empty((B, P, _K), np.int8),
            draw_pile=np.empty((B, D.MAX_CARDS), np.int8),
            draw_size=np.full(B, self.num_cards - P * D.HAND_SIZE, np.int8),
            discard=np.zeros((B, _K), np.int8),
            out_of_play=np.zeros((B, _K), np.int8),
            treasure_pile=np.empty((B, self._treasure_deck.size), np.int8),
            treasure_size=np.full(B, self._treasure_deck.size, np.int8),
            treasures=np.zeros((B, P, 3), np.int8),
            treasure_used=np.zeros((B, 3), np.int8),
            chip_order=np.empty((B, P), np.int8),
            round=np.ones(B, np.int8),
            active=np.empty(B, np.int8),
            **_turn_start(B, P, self.num_actions),  # no card in flight, no debt, no stats yet
        )

    def position(
        self,
        *,
        positions: list[int],
        coconuts: list[int] | None = None,
        golden: int | str = "well",
        bowls: tuple[int, int] = D.BOWL_START,
        tiger: int | None = None,
        tiles: dict[int, str] | None = None,
        face_up: str | list[int] | None = None,
        hands: list[list[Any]] | None = None,
        treasures: list[list[str]] | None = None,
        treasure_pile: list[str] | None = None,
        draw_pile: list[Any] | None = None,
        discard: list[Any] | None = None,
        alive: list[bool] | None = None,
        active: int = 0,
        turn_order: list[int] | None = None,
        round: int = 1,
        seed: int = 0,
    ) -> FunkyMonkeyState:
        """One specific position (batch size 1) at the start of ``active``'s turn.

        The arguments, the result and the errors are those of :meth:`FunkyMonkey.position
        <monkey_envs.funky_monkey.rules.FunkyMonkey.position>`, except that the returned state's
        ``legal_action_mask`` is all False (the game writes it).
        """
        P = self.num_players
        # Every argument is checked for its type first (ints are ints, flags are bools, lists are
        # lists) and for its range on Python ints: a bad one is a ValueError naming it, never a
        # silent truncation nor an IndexError / TypeError / OverflowError from numpy.
        seed = _as_int(seed, "seed")
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        rng = seed_rng(np.array([seed]))
        gen = np.random.default_rng([seed, 0x46554E4B])  # default orders (not game chance)
        pos_l = _as_ints(positions, "positions")
        if len(pos_l) != P:
            raise ValueError(f"positions must list {P} spaces, got {positions}")
        tg = self.tiger_start if tiger is None else _as_int(tiger, "tiger")
        if not 1 <= tg < _L:
            raise ValueError(f"tiger must be a space 1..{_L - 1}, got {tiger}")
        alive_l = [True] * P if alive is None else _as_bools(alive, "alive")
        alive_a = np.array(alive_l, dtype=bool)
        if alive_a.shape != (P,) or alive_a.sum() < 2:
            raise ValueError(f"alive must list {P} flags with at least 2 monkeys in the game, got {alive}")
        if any(not 0 <= x <= 2 * _L or (a and x >= tg) for x, a in zip(pos_l, alive_l, strict=True)):
            raise ValueError(
                f"positions must be spaces 0..{2 * _L}, those of monkeys in the game in front of the tiger ({tg}), "
                f"got {positions}"
            )
        pos = np.array(pos_l, dtype=np.int64)
        coc_l = [D.START_COCONUTS] * P if coconuts is None else _as_ints(coconuts, "coconuts")
        if len(coc_l) != P or any(not 0 <= c <= D.TOTAL_COCONUTS for c in coc_l):
            raise ValueError(f"coconuts must list {P} counts in 0..{D.TOTAL_COCONUTS}, got {coconuts}")
        coc = np.array(coc_l, dtype=np.int64)
        bw_l = _as_ints(bowls, "bowls")
        if len(bw_l) != 2 or any(b not in (0, 1) for b in bw_l):
            raise ValueError(f"bowls must be two 0/1 counts, got {bowls}")
        bw = np.array(bw_l, dtype=np.int64)
        bowl_arr = bw.astype(np.int8)
        if isinstance(golden, str):
            if golden not in ("well", "bowl1", "bowl2"):
                raise ValueError(f"golden must be a seat, 'well', 'bowl1' or 'bowl2', got {golden!r}")
            gseat = -1
            if golden != "well":
                b = int(golden[-1]) - 1
                if bowl_arr[b]:
                    raise ValueError(f"golden: bowl {b + 1} cannot hold a coconut and the golden one")
                bowl_arr[b] = BOWL_GOLDEN
        else:
            gseat = _as_int(golden, "golden")
            if not 0 <= gseat < P:
                raise ValueError(f"golden seat must be in [0, {P}), got {golden}")
        total = coc + (np.arange(P) == gseat)
        if (total[alive_a] == 0).any():
            raise ValueError(f"coconuts: a monkey in the game needs at least one coconut: {total.tolist()}")
        supply = D.TOTAL_COCONUTS - int(coc.sum()) - int(bw.sum())
        if supply < 0:
            raise ValueError(f"coconuts: more than {D.TOTAL_COCONUTS} normal coconuts placed")
        active = _as_int(active, "active")
        if not 0 <= active < P or not alive_a[active]:
            raise ValueError(f"active must be a seat still in the game, got {active}")

        # ---- tiles ---------------------------------------------------------------------------
        tile_arr = np.zeros(_L, np.int8)
        removed = np.zeros(len(D.TILE_BACKS), np.int8)
        if tiles is not None and not isinstance(tiles, dict):
            raise ValueError(f"tiles must be a dict tile slot -> tile name, got {tiles!r:.60} ({type(tiles).__name__})")
        given: dict[int, str] = {}
        for slot, name in (tiles or {}).items():
            slot = _as_int(slot, "tiles slot")
            if not (0 <= slot < _L and D.IS_SLOT[slot]):
                raise ValueError(f"tiles: space {slot} is not a tile slot (slots: {_SLOTS.tolist()})")
            if not isinstance(name, str) or name not in D.TILE_NAMES:
                raise ValueError(f"tiles: unknown tile {name!r:.60}; choose from {D.TILE_NAMES}")
            given[slot] = name
        for i, back in enumerate(D.TILE_BACKS):
            left = list(D.TILE_STACKS_RECONSTRUCTED[back])
            slots = D.TILE_SLOTS_RECONSTRUCTED[back]
            for slot in slots:
                if slot in given:
                    k = D.TILE_NAMES.index(given[slot]) + 1
                    if k not in left:
                        raise ValueError(f"tiles: the {back} stack has no more {given[slot]!r} tiles for slot {slot}")
                    left.remove(k)
                    tile_arr[slot] = k
            gen.shuffle(left)
            for slot in slots:
                if slot not in given:
                    tile_arr[slot] = left.pop()
            removed[i] = left.pop()
        if face_up is None:
            face_up = self.tile_visibility
        fu = np.zeros(_L, bool)
        if isinstance(face_up, str):
            if face_up not in D.FACE_UP_AT_START:
                raise ValueError(f"face_up must be one of {D.VISIBILITY} or a list of slots, got {face_up!r}")
            fu[list(D.FACE_UP_AT_START[face_up])] = True
        else:
            for slot in _as_ints(face_up, "face_up", kinds=(set, frozenset)):
                if not (0 <= slot < _L and D.IS_SLOT[slot]):
                    raise ValueError(f"face_up: space {slot} is not a tile slot")
                fu[slot] = True

        # ---- movement cards --------------------------------------------------------------------
        rest = self.card_counts.copy()
        hands_arr = np.zeros((P, _K), np.int64)
        if hands is None:
            pool = np.repeat(np.arange(_K), rest)
            gen.shuffle(pool)
            for p in range(P):
                if alive_a[p]:
                    for c in pool[: D.HAND_SIZE]:
                        hands_arr[p, c] += 1
                    pool = pool[D.HAND_SIZE :]
        else:
            hands_l = _as_seq(hands, "hands")
            if len(hands_l) != P:
                raise ValueError(f"hands must list {P} hands, got {len(hands_l)}")
            for p, h in enumerate(hands_l):
                h = _as_seq(h, f"hands[{p}]")
                if len(h) > D.HAND_SIZE:
                    raise ValueError(f"hands: hand of seat {p} holds more than {D.HAND_SIZE} cards: {h}")
                if h and not alive_a[p]:
                    raise ValueError(f"hands: seat {p} is out of the game and holds no cards")
                for c in h:
                    hands_arr[p, _as_card(c, f"hands[{p}] card")] += 1
        if hands_arr[active].sum() == 0:
            raise ValueError(f"hands: the active seat {active} has no card to play")
        rest -= hands_arr.sum(0)
        disc = np.zeros(_K, np.int64)
        for c in [] if discard is None else _as_seq(discard, "discard"):
            disc[_as_card(c, "discard card")] += 1
        rest -= disc
        out = np.zeros(_K, np.int64)
        if draw_pile is None:
            pile = np.repeat(np.arange(_K), np.maximum(rest, 0))
            gen.shuffle(pile)
        else:
            kinds = [_as_card(c, "draw_pile card") for c in _as_seq(draw_pile, "draw_pile")]
            pile = np.array(kinds[::-1], dtype=np.int64)  # bottom -> top
            rest = rest - np.bincount(pile, minlength=_K)
            out = rest.copy()
        if (rest < 0).any():
            raise ValueError(
                f"more movement cards than in play ({self.card_counts.tolist()} of 1,2,3,4,M) in hands, "
                "draw_pile and discard"
            )
        pile_arr = np.full((1, D.MAX_CARDS), -1, np.int8)
        pile_arr[0, : pile.size] = pile

        # ---- treasure cards ------------------------------------------------------------------
        tr = np.zeros((P, 3), np.int64)
        tleft = np.bincount(np.array(D.TREASURE_DECK_RECONSTRUCTED), minlength=3)
        if treasures is not None:
            held = _as_seq(treasures, "treasures")
            if len(held) != P:
                raise ValueError(f"treasures must list {P} entries, got {len(held)}")
            for p, names in enumerate(held):
                for t in _as_names(names, f"treasures[{p}]", D.TREASURE_NAMES):
                    tr[p, t] += 1
        tleft = tleft - tr.sum(0)
        if treasure_pile is None:
            tp = np.repeat(np.arange(3), np.maximum(tleft, 0))
            gen.shuffle(tp)
        else:
            tp = np.array(_as_names(treasure_pile, "treasure_pile", D.TREASURE_NAMES)[::-1], dtype=np.int64)
            tleft = tleft - np.bincount(tp, minlength=3)
        if (tleft < 0).any():
            raise ValueError("treasures / treasure_pile: more treasure cards than the 12 in the game")
        tp_arr = np.full((1, D.NUM_TREASURES), -1, np.int8)
        tp_arr[0, : tp.size] = tp
        used = tleft if treasure_pile is not None else np.zeros(3, np.int64)

        # ---- turn order ------------------------------------------------------------------------
        later = [] if turn_order is None else _as_ints(turn_order, "turn_order")
        if any(not 0 <= t < P or not alive_a[t] or t == active for t in later) or len(set(later)) != len(later):
            raise ValueError(f"turn_order must list distinct other seats still in the game, got {turn_order}")
        round = _as_int(round, "round")
        if not 1 <= round <= D.NUM_ROUNDS:
            raise ValueError(f"round must be in 1..{D.NUM_ROUNDS}, got {round}")
        chips = np.full((1, P), -1, np.int8)
        chips[0, : 1 + len(later)] = [active, *later]

        s = FunkyMonkeyState(
            current_player=np.array([active], np.int8),
            rng=rng,
            pos=pos[None].astype(np.int8),
            alive=alive_a[None].copy(),
            coconuts=coc[None].astype(np.int8),
            golden=np.array([gseat], np.int8),
            bowls=bowl_arr[None],
            supply=np.array([supply], np.int8),
            tiger=np.array([tg], np.int8),
            tiles=tile_arr[None],
            face_up=fu[None],
            removed_tiles=removed[None],
            hands=hands_arr[None].astype(np.int8),
            draw_pile=pile_arr,
            draw_size=np.array([pile.size], np.int8),
            discard=disc[None].astype(np.int8),
            out_of_play=out[None].astype(np.int8),
            treasure_pile=tp_arr,
            treasure_size=np.array([tp.size], np.int8),
            treasures=tr[None].astype(np.int8),
            treasure_used=used[None].astype(np.int8),
            chip_order=chips,
            round=np.array([round], np.int8),
            active=np.array([active], np.int8),
            **_turn_start(1, P, self.num_actions),  # no card in flight, no debt, no stats yet
        )
        return s
