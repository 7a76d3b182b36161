"""Toy games for the conformance suite's own tests: two correct ones and deliberately broken copies.

``toy_coins`` (sequential, 1-3 players): a pile of 8-12 coins; in turn each seat takes 1, 2 or 3
coins, or "the rest" when the pile is at most its secret number (0-3, hidden from the others)
plus one; after every move the mover draws a new secret. When the pile is empty the highest
``purse + secret`` wins (solo: ``purse + secret >= 12``). Laws: ``pile + sum(purses) == total``,
ranges, and the stored mask is the rules' mask.

``toy_grab`` (simultaneous, 2-3 players): the same pile, but every seat commits its grab in
secret (seats ``0..P-1`` in turn, each commit hidden until the tick resolves); then the seats
take their grabs in seat order while the pile lasts and everyone draws a new secret.

Each ``broken_*`` game breaks one law the suite checks, and ``tests/test_conformance_rejects.py``
asserts that the named check rejects it:

===========================  ======================================================  ======================
game                          what is wrong                                           rejected by
===========================  ======================================================  ======================
``broken_leaky``              the observation shows every seat's secret               ``no_peeking``
``broken_mask``               "take the rest" always in the mask; the step refuses it ``legal_masks``
``broken_global_rng``         secrets dealt from numpy's global RNG                   ``batch_invariance``
``broken_conservation``       a bonus coin from nowhere; ``state_violations`` is the  ``random_play_fuzz``
                              default, which checks no law of the game
``broken_batch_obs``          the pile is observed relative to the batch's largest    ``batch_invariance``,
                                                                                      ``vector_equivalence``
``broken_clone``              ``clone`` shares the purse array                        ``round_trips``
``broken_unchecked``          float actions are cast instead of refused               ``bad_input``
``broken_endless``            the pile refills from the purses: games never end       ``random_play_fuzz``
``broken_reward``             a win pays 2 (reward_range is [-1, 1])                  ``random_play_fuzz``
``broken_bounds``             obs_high 0.5, but observations reach 1                  PettingZoo / gymnasium /
                                                                                      SB3 checkers
``broken_render``             the ansi picture is empty for a seat's view              ``pettingzoo_render``
``broken_no_picture``         draws no picture (no ``Game.picture``): no rgb_array     ``pictures``
``broken_grab_leak``          (simultaneous) the observation shows pending commits    ``no_peeking``
``broken_row_blame``          ``state_violations`` blames row 0 for every law broken  ``random_play_fuzz``
``broken_garbage_blind``      ``state_violations`` reports nothing once a pile is     ``random_play_fuzz``
                              out of any game's range (garbage passes)
``broken_resample_in_place``  ``resample_hidden`` changes the state it was given      ``no_peeking``
``broken_resample_unseeded``  ``resample_hidden`` ignores its seed (global RNG)       ``no_peeking``
``broken_rng_seen``           the observation shows a bit of the RNG                  ``no_peeking``
===========================  ======================================================  ======================
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from monkey_envs.core.game import Game, end_games
from monkey_envs.core.pictures import Picture, text_picture
from monkey_envs.core.rng import draw_below
from monkey_envs.core.schema import field, state_schema
from monkey_envs.core.spec import GameSpec, ObsLayout, ObsPiece
from monkey_envs.core.state import BatchState
from monkey_envs.games import register_game

END_REASONS = ("running", "pile_empty")
ACTION_NAMES = ("take 1", "take 2", "take 3", "take the rest")
#: Coins at the start: 8 + a draw in 0..4.
PILE_LOW, PILE_SPAN = 8, 5


@state_schema
class ToyCoinsState(BatchState):
    """Toy Coins arrays besides the shared ones."""

    pile: np.ndarray = field("int16", (), "coins in the middle.")
    purse: np.ndarray = field("int16", ("num_players",), "coins taken.")
    secret: np.ndarray = field("int8", ("num_players",), "each seat's hidden number 0..3.")
    total: np.ndarray = field("int16", (), "coins at the start.")
    commit: np.ndarray = field(
        "int8", ("num_players",), "(simultaneous toy) this tick's committed actions, -1 = not yet.", start=-1
    )


def _spec(name: str, gym_name: str, **kw: Any) -> GameSpec:
    base: dict[str, Any] = {
        "version": 0,
        "min_players": 1,
        "max_players": 3,
        "variants": ("normal",),
        "chance": True,
        "information": "imperfect",
        "reward_range": (-1.0, 1.0),
        "description": "Toy: take 1-3 coins from a pile; the highest purse plus secret wins.",
        "end_reasons": END_REASONS,
        "default_players": (2,),
    }
    base.update(kw)
    return GameSpec(name=name, gym_name=gym_name, **base)


class ToyCoins(Game[ToyCoinsState]):
    """Toy Coins (see the module docstring). Args: ``num_players`` 1-3."""

    spec = _spec("toy_coins", "ToyCoins")
    state_class = ToyCoinsState
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = ({}, {"num_players": 3}, {"num_players": 1})
    obs_low = 0.0
    obs_high = 1.0
    #: Reward of a win (the broken_reward toy pays more).
    win_reward: ClassVar[float] = 1.0

    def __init__(self, num_players: int = 2) -> None:
        lo, hi = self.spec.min_players, self.spec.max_players
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, (int, np.integer))
            or not lo <= num_players <= hi
        ):
            raise ValueError(f"num_players must be an int in {lo}..{hi}, got {num_players!r}")
        self._config = {"num_players": int(num_players)}
        self.num_players = int(num_players)
        self.num_actions = len(ACTION_NAMES)
        self.obs_layout = ObsLayout(self._pieces())

    def _pieces(self) -> list[ObsPiece]:
        P = self.num_players
        return [
            ObsPiece("pile", (1,), "coins in the pile / 20"),
            ObsPiece("purse", (P,), "coins of each seat / 20 (observer-first)"),
            ObsPiece("secret", (4,), "one-hot own secret"),
            ObsPiece("to_move", (P,), "one-hot seat to move (observer-first)"),
        ]

    # ------------------------------------------------------------------ rules
    def _init(self, s: ToyCoinsState, seeds: np.ndarray) -> None:
        rows = np.arange(s.batch_size)
        s.pile[:] = PILE_LOW + draw_below(s.rng, rows, PILE_SPAN)
        s.secret[:] = self._deal(s.rng, rows)
        s.total[:] = s.pile
        s.legal_action_mask[:] = self._mask(s)

    def _deal(self, rng: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``(len(rows), P) int8`` fresh secrets for ``rows``, each from its own stream."""
        return np.stack([draw_below(rng, rows, 4) for _ in range(self.num_players)], 1).astype(np.int8)

    def _mask(self, s: ToyCoinsState) -> np.ndarray:
        """The rules' legal actions of the current player (none once the game is over)."""
        b = s.batch_size
        cp = np.maximum(s.current_player.astype(np.int64), 0)
        m = np.zeros((b, self.num_actions), bool)
        m[:, :3] = s.pile[:, None] >= np.arange(1, 4)
        m[:, 3] = s.pile <= s.secret[np.arange(b), cp] + 1
        m[s.current_player < 0] = False
        return m

    def _take(self, s: ToyCoinsState, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        """Seats ``seats`` of ``rows`` take what ``actions`` say (at most what the pile holds)."""
        want = np.where(actions == 3, s.pile[rows], actions + 1).astype(np.int16)
        got = np.minimum(want, s.pile[rows])
        s.pile[rows] -= got
        s.purse[rows, seats] += got

    def _step(self, s: ToyCoinsState, actions: np.ndarray, live: np.ndarray) -> None:
        rows = np.arange(s.batch_size)
        cp = s.current_player.astype(np.int64)
        self._take(s, rows, cp, actions)
        s.secret[rows, cp] = draw_below(s.rng, rows, 4).astype(np.int8)  # chance: the mover's new secret
        s.current_player[:] = (cp + 1) % self.num_players
        self._finish(s)

    def _finish(self, s: ToyCoinsState) -> None:
        over = np.flatnonzero(s.pile == 0)
        score = s.purse[over].astype(np.int64) + s.secret[over]
        if self.num_players == 1:
            winners = score >= 12
        else:
            winners = score == score.max(1, keepdims=True)
        end_games(s, over, winners, 1, (self.win_reward, -1.0, 0.0))
        s.legal_action_mask = self._mask(s)

    # ------------------------------------------------------------------ views
    def _observe(self, s: ToyCoinsState, player: np.ndarray) -> np.ndarray:
        b, P = s.batch_size, self.num_players
        rows = np.arange(b)
        seats = (player[:, None] + np.arange(P)) % P
        own = np.zeros((b, 4), np.float32)
        own[rows, s.secret[rows, player]] = 1.0
        return np.concatenate(
            [
                s.pile[:, None].astype(np.float32) / 20,
                np.take_along_axis(s.purse, seats, 1).astype(np.float32) / 20,
                own,
                (seats == s.current_player[:, None]).astype(np.float32),
            ],
            axis=1,
        )

    def picture(self, state: ToyCoinsState, row: int = 0, viewer: int | None = None) -> Picture:
        """The text picture drawn as an image (the kit's ``text_picture``)."""
        return text_picture(self.render(state, row, viewer), self.spec.title, columns=48, lines=8)

    def render(self, state: ToyCoinsState, row: int = 0, viewer: int | None = None) -> str:
        """Text picture of row ``row``; ``viewer`` also sees its own secret."""
        lines = [f"{self.spec.title}: pile {int(state.pile[row])} of {int(state.total[row])}"]
        for p in range(self.num_players):
            secret = f", secret {int(state.secret[row, p])}" if p == viewer else ""
            lines.append(f"player_{p}: purse {int(state.purse[row, p])}{secret}")
        cp = int(state.current_player[row])
        lines.append(f"to move: player_{cp}" if cp >= 0 else f"over: winners {self._winner_list(state, row)}")
        return "\n".join(lines)

    def _winner_list(self, s: ToyCoinsState, row: int) -> list[int]:
        return np.flatnonzero(s.winners_mask[row]).tolist()

    def action_name(self, state: ToyCoinsState, row: int, action: int) -> str:
        """``"take 1"`` .. ``"take the rest"``."""
        if not 0 <= int(action) < self.num_actions:
            raise ValueError(f"action {action} out of range [0, {self.num_actions})")
        return ACTION_NAMES[int(action)]

    def episode_info(self, s: ToyCoinsState, row: int) -> dict[str, Any]:
        """End reason, winners and purses (the secrets stay hidden)."""
        return {**super().episode_info(s, row), "purses": s.purse[row].astype(np.int64)}

    # ------------------------------------------------------------------ kit hooks
    def resample_hidden(self, state: ToyCoinsState, seat: int, seed: int) -> ToyCoinsState:
        """The other seats' secrets (and the RNG) redrawn in running games; the mask follows the rules."""
        new = super().resample_hidden(state, seat, seed)
        rng = np.random.default_rng(seed)
        other = (new.current_player >= 0)[:, None] & (np.arange(self.num_players) != seat)
        new.secret[other] = rng.integers(0, 4, size=new.secret.shape).astype(np.int8)[other]
        new.legal_action_mask = self._mask(new)
        return new

    def state_violations(self, state: ToyCoinsState) -> list[tuple[str, int, str]]:
        """Conservation of coins, value ranges and the mask the rules give."""
        s = state
        out = super().state_violations(s)
        live = s.current_player >= 0
        checks = [
            ("pile", s.pile.astype(np.int64) + s.purse.sum(1) != s.total, "pile + purses != coins at the start"),
            ("pile", (s.pile < 0) | (live & (s.pile == 0)), "a negative pile, or an empty one in a running game"),
            ("purse", (s.purse < 0).any(1), "a negative purse"),
            ("secret", ((s.secret < 0) | (s.secret > 3)).any(1), "a secret outside 0..3"),
            ("total", (s.total < PILE_LOW) | (s.total >= PILE_LOW + PILE_SPAN), "a starting pile outside 8..12"),
            ("legal_action_mask", (s.legal_action_mask != self._mask(s)).any(1), "the mask is not the rules' mask"),
            ("commit", (s.commit != -1).any(1), "a sequential game has commits"),
        ]
        for name, bad, why in checks:
            out.extend((name, int(r), why) for r in np.flatnonzero(bad))
        return out


class ToyGrab(ToyCoins):
    """Toy Grab: Toy Coins with simultaneous grabs (see the module docstring). Args: ``num_players`` 2-3."""

    spec = _spec(
        "toy_grab",
        "ToyGrab",
        min_players=2,
        dynamics="simultaneous",
        description="Toy: every seat grabs 1-3 coins in secret; the highest purse plus secret wins.",
    )
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = ({}, {"num_players": 3})

    def _step(self, s: ToyCoinsState, actions: np.ndarray, live: np.ndarray) -> None:
        rows = np.arange(s.batch_size)
        cp = s.current_player.astype(np.int64)
        s.commit[rows, cp] = actions
        wait = np.flatnonzero(cp + 1 < self.num_players)
        s.current_player[wait] += 1
        done = np.flatnonzero(cp + 1 == self.num_players)  # the last commit: resolve the tick
        for p in range(self.num_players):
            self._take(s, done, np.full(done.size, p), s.commit[done, p].astype(np.int64))
        s.secret[done] = self._deal(s.rng, done)
        s.commit[done] = -1
        s.current_player[done] = 0
        self._finish(s)

    def movers(self, state: ToyCoinsState) -> np.ndarray:
        """Seats that have not committed in this tick (none once the game is over)."""
        return (state.commit < 0) & (state.current_player >= 0)[:, None]

    def resample_hidden(self, state: ToyCoinsState, seat: int, seed: int) -> ToyCoinsState:
        """Also the other seats' pending commits redrawn."""
        new = super().resample_hidden(state, seat, seed)
        rng = np.random.default_rng(seed + 1)
        other = (new.commit >= 0) & (np.arange(self.num_players) != seat)
        new.commit[other] = rng.integers(0, 4, size=new.commit.shape).astype(np.int8)[other]
        return new

    def state_violations(self, state: ToyCoinsState) -> list[tuple[str, int, str]]:
        """Toy Coins' laws, with commits exactly for the seats before the current player."""
        s = state
        out = [v for v in super().state_violations(s) if v[0] != "commit"]
        live = s.current_player >= 0
        before = np.arange(self.num_players) < s.current_player[:, None]
        bad = ((s.commit < -1) | (s.commit > 3)).any(1) | (live & ((s.commit >= 0) != before).any(1))
        bad |= ~live & (s.commit >= 0).any(1)
        out.extend(
            ("commit", int(r), "commits must be exactly those of the seats before the mover")
            for r in np.flatnonzero(bad)
        )
        return out


# ============================================================================ broken copies
def _broken(base: type[ToyCoins], name: str, gym_name: str, **kw: Any) -> GameSpec:
    return dataclasses.replace(base.spec, name=name, gym_name=gym_name, title=gym_name, **kw)


class BrokenLeaky(ToyCoins):
    """Every seat's secret is part of every observation."""

    spec = _broken(ToyCoins, "broken_leaky", "BrokenLeaky")

    def _pieces(self) -> list[ObsPiece]:
        return [*super()._pieces(), ObsPiece("secrets", (self.num_players, 4), "one-hot secret of every seat (a leak)")]

    def _observe(self, s: ToyCoinsState, player: np.ndarray) -> np.ndarray:
        every = np.eye(4, dtype=np.float32)[s.secret].reshape(s.batch_size, -1)
        return np.concatenate([super()._observe(s, player), every], axis=1)


class BrokenMask(ToyCoins):
    """The mask always offers "take the rest", but the step refuses it unless the pile is small."""

    spec = _broken(ToyCoins, "broken_mask", "BrokenMask")

    def _mask(self, s: ToyCoinsState) -> np.ndarray:
        m = super()._mask(s)
        m[:, 3] = s.current_player >= 0
        return m

    def _step(self, s: ToyCoinsState, actions: np.ndarray, live: np.ndarray) -> None:
        rows = np.arange(s.batch_size)
        cp = np.maximum(s.current_player.astype(np.int64), 0)
        if ((actions == 3) & (s.pile > s.secret[rows, cp] + 1)).any():
            raise ValueError("take the rest needs pile <= secret + 1")
        super()._step(s, actions, live)


class BrokenGlobalRng(ToyCoins):
    """Secrets come from numpy's global RNG: a row depends on the batch (and on the process)."""

    spec = _broken(ToyCoins, "broken_global_rng", "BrokenGlobalRng")

    def _deal(self, rng: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.random.randint(0, 4, size=(len(rows), self.num_players)).astype(np.int8)  # noqa: NPY002 - the bug


class BrokenConservation(ToyCoins):
    """Emptying the pile earns a bonus coin from nowhere, and the invariants hook checks no law of the game."""

    spec = _broken(ToyCoins, "broken_conservation", "BrokenConservation")

    def _step(self, s: ToyCoinsState, actions: np.ndarray, live: np.ndarray) -> None:
        rows = np.arange(s.batch_size)
        cp = s.current_player.astype(np.int64)
        empties = np.where(actions == 3, s.pile, actions + 1) >= s.pile
        super()._step(s, actions, live)
        s.purse[rows[empties], cp[empties]] += 1  # the bonus coin breaks pile + purses == total

    def state_violations(self, state: ToyCoinsState) -> list[tuple[str, int, str]]:
        return Game.state_violations(self, state)  # the shared laws only: misses the conservation law


class BrokenBatchObs(ToyCoins):
    """The pile is observed relative to the largest pile of the batch."""

    spec = _broken(ToyCoins, "broken_batch_obs", "BrokenBatchObs")

    def _observe(self, s: ToyCoinsState, player: np.ndarray) -> np.ndarray:
        obs = super()._observe(s, player)
        obs[:, 0] = s.pile / max(int(s.pile.max()), 1)
        return obs


@dataclasses.dataclass
class BrokenCloneState(ToyCoinsState):
    """A state whose ``clone`` shares the purse array with the original."""

    def clone(self) -> BrokenCloneState:
        new = super().clone()
        new.purse = self.purse
        return new


class BrokenClone(ToyCoins):
    """Its state's ``clone`` is shallow for one field."""

    spec = _broken(ToyCoins, "broken_clone", "BrokenClone")
    state_class = BrokenCloneState


class BrokenUnchecked(ToyCoins):
    """Float actions are cast to integers instead of refused."""

    spec = _broken(ToyCoins, "broken_unchecked", "BrokenUnchecked")

    def step(self, state: ToyCoinsState, actions: Any) -> ToyCoinsState:
        a = np.asarray(actions)
        if a.dtype.kind == "f":
            a = a.astype(np.int64)
        return super().step(state, a)


class BrokenEndless(ToyCoins):
    """When the pile runs out every purse goes back to it: the game never ends."""

    spec = _broken(ToyCoins, "broken_endless", "BrokenEndless")

    def _finish(self, s: ToyCoinsState) -> None:
        empty = s.pile == 0
        s.pile[empty] = s.total[empty]
        s.purse[empty] = 0
        s.legal_action_mask = self._mask(s)


class BrokenReward(ToyCoins):
    """A win pays 2, outside ``spec.reward_range`` (-1, 1)."""

    spec = _broken(ToyCoins, "broken_reward", "BrokenReward")
    win_reward = 2.0


class BrokenBounds(ToyCoins):
    """Declares observations in [0, 0.5], but the one-hot pieces are 1."""

    spec = _broken(ToyCoins, "broken_bounds", "BrokenBounds")
    obs_high = 0.5


class BrokenRender(ToyCoins):
    """The picture of a seat's view is empty."""

    spec = _broken(ToyCoins, "broken_render", "BrokenRender")

    def render(self, state: ToyCoinsState, row: int = 0, viewer: int | None = None) -> str:
        return "" if viewer is not None else super().render(state, row, viewer)


class BrokenNoPicture(ToyCoins):
    """Draws no picture (the ``Game.picture`` hook left at its default): no ``rgb_array``."""

    spec = _broken(ToyCoins, "broken_no_picture", "BrokenNoPicture")
    picture = Game.picture


class BrokenGrabLeak(ToyGrab):
    """Simultaneous: the commits of the tick so far are part of every observation."""

    spec = _broken(ToyGrab, "broken_grab_leak", "BrokenGrabLeak")

    def _pieces(self) -> list[ObsPiece]:
        return [*super()._pieces(), ObsPiece("commits", (self.num_players,), "(commit + 1) / 4 of every seat (a leak)")]

    def _observe(self, s: ToyCoinsState, player: np.ndarray) -> np.ndarray:
        return np.concatenate([super()._observe(s, player), (s.commit.astype(np.float32) + 1) / 4], axis=1)


class BrokenRowBlame(ToyCoins):
    """``state_violations`` blames row 0 for every broken law, whichever row broke it."""

    spec = _broken(ToyCoins, "broken_row_blame", "BrokenRowBlame")

    def state_violations(self, state: ToyCoinsState) -> list[tuple[str, int, str]]:
        return [(f, 0, why) for f, _, why in super().state_violations(state)]


class BrokenGarbageBlind(ToyCoins):
    """``state_violations`` gives up (reports nothing) as soon as a pile is outside any game's range."""

    spec = _broken(ToyCoins, "broken_garbage_blind", "BrokenGarbageBlind")

    def state_violations(self, state: ToyCoinsState) -> list[tuple[str, int, str]]:
        if ((state.pile < 0) | (state.pile > 40)).any():
            return []
        return super().state_violations(state)


class BrokenResampleInPlace(ToyCoins):
    """``resample_hidden`` redraws the other seats' secrets in the state it was given, too."""

    spec = _broken(ToyCoins, "broken_resample_in_place", "BrokenResampleInPlace")

    def resample_hidden(self, state: ToyCoinsState, seat: int, seed: int) -> ToyCoinsState:
        new = super().resample_hidden(state, seat, seed)
        state.rng[:] = new.rng  # what no seat sees, changed in the caller's state
        return new


class BrokenResampleUnseeded(ToyCoins):
    """``resample_hidden`` draws from numpy's global RNG: the same seed resamples differently."""

    spec = _broken(ToyCoins, "broken_resample_unseeded", "BrokenResampleUnseeded")

    def resample_hidden(self, state: ToyCoinsState, seat: int, seed: int) -> ToyCoinsState:
        return super().resample_hidden(state, seat, int(np.random.randint(2**31)))  # noqa: NPY002 - the bug


class BrokenRngSeen(ToyCoins):
    """The observation shows a bit of the RNG (the next secret's stream); resampling keeps the RNG."""

    spec = _broken(ToyCoins, "broken_rng_seen", "BrokenRngSeen")

    def _pieces(self) -> list[ObsPiece]:
        return [*super()._pieces(), ObsPiece("rng_bit", (1,), "the RNG's lowest bit (a leak)")]

    def _observe(self, s: ToyCoinsState, player: np.ndarray) -> np.ndarray:
        bit = (s.rng[:, 0] & np.uint64(1)).astype(np.float32)[:, None]
        return np.concatenate([super()._observe(s, player), bit], axis=1)

    def resample_hidden(self, state: ToyCoinsState, seat: int, seed: int) -> ToyCoinsState:
        new = super().resample_hidden(state, seat, seed)
        new.rng[:] = state.rng
        return new


#: Registered name -> class of every toy here.
TOYS: dict[str, type[ToyCoins]] = {
    cls.spec.name: cls
    for cls in (
        ToyCoins,
        ToyGrab,
        BrokenLeaky,
        BrokenMask,
        BrokenGlobalRng,
        BrokenConservation,
        BrokenBatchObs,
        BrokenClone,
        BrokenUnchecked,
        BrokenEndless,
        BrokenReward,
        BrokenBounds,
        BrokenRender,
        BrokenNoPicture,
        BrokenGrabLeak,
        BrokenRowBlame,
        BrokenGarbageBlind,
        BrokenResampleInPlace,
        BrokenResampleUnseeded,
        BrokenRngSeen,
    )
}
for _name, _cls in TOYS.items():
    register_game(_name, _cls)
