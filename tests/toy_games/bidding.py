"""Toy Bidding: a tiny simultaneous-move game written only to prove the game kit.

``P`` (2-4) players start with ``coins`` coins each and play ``rounds`` rounds. A round's prize
(1-3 points, a chance draw, public before bidding) goes to the highest *unique* bid; every
player secretly bids 0..(own coins) and every bid is paid (nobody wins when no bid is unique).
Most points after the last round wins (+1 each winner, -1 the others, 0 when all tie).

Simultaneous convention of the kit: the core asks seats ``0..P-1`` one after another
(``current_player``); a commit is hidden from every observation and mask until the round
resolves after the last one. Action ``a`` = bid ``a`` (``A = coins + 1``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from agents.base import random_legal
from agents.registry import register_agent
from monkey_envs.core.game import Game, end_games
from monkey_envs.core.pictures import Picture, text_picture
from monkey_envs.core.plugins import Analytics, View
from monkey_envs.core.rng import draw_below
from monkey_envs.core.schema import field
from monkey_envs.core.spec import GameSpec
from monkey_envs.core.state import BatchState
from monkey_envs.games import register_game

END_REASONS = ("running", "rounds_played")


class ToyBiddingState(BatchState):
    """Toy Bidding arrays (``B`` envs, ``P`` seats) besides the shared fields."""

    coins: np.ndarray = field("int16", ("num_players",), "coins left.", low=0)
    points: np.ndarray = field("int16", ("num_players",), "prize points won.")
    bids: np.ndarray = field(
        "int8", ("num_players",), "this round's committed bids, -1 = not yet (hidden until resolved).", start=-1
    )
    last_bids: np.ndarray = field(
        "int8", ("num_players",), "the last resolved round's bids (public), -1 before round 1.", start=-1
    )
    prize: np.ndarray = field("int8", (), "this round's prize (1-3).")
    round: np.ndarray = field("int8", (), "rounds resolved.")
    pot: np.ndarray = field("int16", (), "coins paid so far.")
    prize_total: np.ndarray = field("int16", (), "prizes of resolved rounds.")
    unclaimed: np.ndarray = field("int16", (), "prize points of rounds nobody won.")


class ToyBidding(Game[ToyBiddingState]):
    """Toy Bidding rules over a batch. Args: ``num_players`` 2-4, ``coins`` 1-20, ``rounds`` 1-10."""

    spec = GameSpec(
        name="toy_bidding",
        gym_name="ToyBidding",
        version=0,
        min_players=2,
        max_players=4,
        variants=("normal",),
        chance=True,
        information="imperfect",
        reward_range=(-1.0, 1.0),
        description="Toy: secret all-pay bids, the highest unique bid takes the round's prize.",
        title="Toy Bidding",
        dynamics="simultaneous",
        end_reasons=END_REASONS,
        default_players=(2,),
    )
    #: How it is shown, and what it reports: the functions below the class.
    view = View(render=f"{__name__}:render", picture=f"{__name__}:picture", action_name=f"{__name__}:action_name")
    analytics = Analytics(scores=f"{__name__}:scores", episode_info=f"{__name__}:episode_info")
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = ({}, {"num_players": 3, "coins": 4, "rounds": 2})
    #: Its laws and its re-deal of what a seat cannot see: the functions at the end of this module.
    laws: ClassVar[str] = __name__
    obs_low = 0.0
    obs_high = 1.0

    def __init__(self, num_players: int = 2, coins: int = 6, rounds: int = 3) -> None:
        for name, v, lo, hi in (("num_players", num_players, 2, 4), ("coins", coins, 1, 20), ("rounds", rounds, 1, 10)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise ValueError(f"{name} must be an int in {lo}..{hi}, got {v!r}")
        self.coins, self.rounds = int(coins), int(rounds)  # num_players: the kit reads the option
        self.num_actions = self.coins + 1
        P = int(num_players)
        self.obs_layout = [
            ("coins", P, "coins left / coins (seats observer-first)"),
            ("points", P, "points / (3 * rounds) (observer-first)"),
            ("last_bids", P, "last round's bids: (bid + 1) / (coins + 1), 0 before round 1"),
            ("prize", 1, "this round's prize / 3"),
            ("round", 1, "rounds resolved / rounds"),
        ]

    # ------------------------------------------------------------------ rules
    def _init(self, s: ToyBiddingState, seeds: np.ndarray) -> None:
        s.legal_action_mask[:] = True  # every bid 0..coins is affordable
        s.coins[:] = self.coins
        s.prize[:] = 1 + draw_below(s.rng, np.arange(seeds.size), 3)

    def _step(self, s: ToyBiddingState, actions: np.ndarray, live: np.ndarray) -> None:
        rows, cp = np.arange(s.batch_size), s.current_player.astype(np.int64)
        s.bids[rows, cp] = actions
        ask = np.flatnonzero(cp + 1 < self.num_players)  # rows whose round still waits for a bid
        s.current_player[ask] += 1
        s.legal_action_mask[ask] = np.arange(self.num_actions) <= s.coins[ask, cp[ask] + 1, None]
        r = np.flatnonzero(cp + 1 == self.num_players)  # the last bid: resolve the round
        bids = s.bids[r].astype(np.int64)
        unique = (bids[:, :, None] == bids[:, None, :]).sum(2) == 1
        best = np.where(unique, bids, -1).max(1)
        won = unique & (bids == best[:, None])  # at most one seat; none when no bid is unique
        prize = s.prize[r].astype(np.int16)
        s.points[r] += won * prize[:, None]
        s.unclaimed[r] += np.where(won.any(1), 0, prize)
        s.prize_total[r] += prize
        s.coins[r] -= bids.astype(np.int16)
        s.pot[r] += bids.sum(1).astype(np.int16)
        s.last_bids[r], s.bids[r] = s.bids[r], -1
        s.round[r] += 1
        s.current_player[r] = 0
        s.legal_action_mask[r] = np.arange(self.num_actions) <= s.coins[r, :1]
        s.prize[r] = 1 + draw_below(s.rng, r, 3)
        over = r[s.round[r] >= self.rounds]
        pts = s.points[over]
        end_games(s, over, pts == pts.max(1, keepdims=True), 1, (1.0, -1.0, 0.0))

    # ------------------------------------------------------------------ views
    def _observe(self, s: ToyBiddingState, player: np.ndarray) -> np.ndarray:
        seats = (player[:, None] + np.arange(self.num_players)) % self.num_players  # observer-first
        take = lambda a: np.take_along_axis(a, seats, 1).astype(np.float32)  # noqa: E731
        return np.concatenate(
            [
                take(s.coins) / self.coins,
                take(s.points) / (3 * self.rounds),
                (take(s.last_bids) + 1) / (self.coins + 1),
                s.prize[:, None].astype(np.float32) / 3,
                s.round[:, None].astype(np.float32) / self.rounds,
            ],
            axis=1,
        )

    # ------------------------------------------------------------------ kit hooks
    def movers(self, s: ToyBiddingState) -> np.ndarray:
        """``(B, P) bool``: seats that have not bid yet this round (none once the game is over)."""
        return (s.bids < 0) & (s.current_player >= 0)[:, None]

    def mover_masks(self, s: ToyBiddingState) -> np.ndarray:
        """``(B, P, A) bool``: each mover's legal bids (0..its coins), all False for other seats."""
        return (np.arange(self.num_actions) <= s.coins[:, :, None]) & self.movers(s)[:, :, None]


# ---------------------------------------------------------------------- the view and analytics plug-ins
def action_name(game: ToyBidding, state: ToyBiddingState, row: int, action: int) -> str:
    """``"bid <n>"``."""
    return f"bid {action}"


def render(game: ToyBidding, s: ToyBiddingState, row: int = 0, viewer: int | None = None) -> str:
    rnd = min(int(s.round[row]) + 1, game.rounds)
    lines = [f"Toy Bidding: round {rnd}/{game.rounds}, prize {int(s.prize[row])}"]
    for p in range(game.num_players):
        bid = int(s.bids[row, p])
        pending = "-" if bid < 0 else (str(bid) if p == viewer else "committed")
        lines.append(
            f"player_{p}: coins {int(s.coins[row, p])}, points {int(s.points[row, p])}, "
            f"last bid {int(s.last_bids[row, p])}, bid {pending}"
        )
    if s.terminated[row]:
        lines.append(f"over: winners {np.flatnonzero(s.winners_mask[row]).tolist()}")
    return "\n".join(lines)


def picture(game: ToyBidding, s: ToyBiddingState, row: int = 0, viewer: int | None = None) -> Picture:
    """The text picture drawn as an image (the kit's ``text_picture``): enough for ``rgb_array``."""
    return text_picture(render(game, s, row, viewer), game.spec.title, columns=72, lines=10)


def scores(game: ToyBidding, s: ToyBiddingState) -> np.ndarray:
    return s.points.astype(np.float64)


def episode_info(game: ToyBidding, s: ToyBiddingState, row: int) -> dict[str, Any]:
    return {"scores": s.points[row].astype(np.int64)}


# ---------------------------------------------------------------------- the laws (``ToyBidding.laws``)
def state_violations(game: ToyBidding, s: ToyBiddingState) -> list[tuple[str, int, str]]:
    """The toy's own laws (the kit checks the layout and the shared fields' laws first)."""
    live = s.current_player >= 0
    P = game.num_players
    checks = [
        ("coins", s.coins.sum(1) + s.pot != P * game.coins, "coins + pot != starting coins"),
        ("points", s.points.sum(1) + s.unclaimed != s.prize_total, "points + unclaimed != prizes drawn"),
        ("bids", (s.bids > s.coins).any(1), "a bid above the bidder's coins"),
        ("bids", live & ((s.bids >= 0) != (np.arange(P) < s.current_player[:, None])).any(1),
         "committed bids must be exactly those of the seats before current_player"),
        ("round", live & ((s.round >= game.rounds) | (s.prize < 1) | (s.prize > 3)), "round or prize out of range"),
    ]  # fmt: skip
    return [(field, int(r), why) for field, bad, why in checks for r in np.flatnonzero(bad)]


def redeal_hidden(game: ToyBidding, new: ToyBiddingState, seat: int, gen: np.random.Generator) -> None:
    """Redraw, in place, the other seats' committed bids (the kit has redrawn the RNG: the next prizes)."""
    redraw = (new.bids >= 0) & (np.arange(game.num_players) != seat)
    new.bids[redraw] = (gen.random(new.bids.shape) * (new.coins + 1)).astype(np.int8)[redraw]


class HalfAgent:
    """Bids half its coins (rounded down); random legal bid if that is not legal."""

    name = "half"

    def __init__(self, game: ToyBidding, seed: int = 0) -> None:
        self.coins, self.col = game.coins, game.obs_layout.slices["coins"].start
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``obs (B, D) float32``, ``mask (B, A)`` -> ``(B,) int64`` bids."""
        want = np.rint(obs[:, self.col] * self.coins).astype(np.int64) // 2
        m = np.asarray(mask).astype(bool)
        ok = m[np.arange(m.shape[0]), np.clip(want, 0, m.shape[1] - 1)]
        return np.where(ok, want, random_legal(m, self.rng))


register_game("toy_bidding", "toy_games.bidding:ToyBidding")
register_agent("half", HalfAgent, game="toy_bidding")
