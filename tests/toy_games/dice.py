"""Toy Pig: a tiny sequential dice game written only to prove the game kit.

``P`` (2-4) players take turns. On your turn you roll a six-sided die as often as you like
(action 0, ``roll``): a 2-6 adds its pips to your turn total, a 1 (a *bust*) loses the turn
total and ends your turn. Once you have rolled you may ``hold`` (action 1): the turn total is
banked into your score and the turn passes. The first player whose score plus turn total
reaches ``target`` wins at once (+1, the others -1). After ``max_turns`` turns (all players
together) without a winner the game is a draw (0 for everyone, nobody wins).

The die is the state's per-row counter-based RNG (:mod:`monkey_envs.core.rng`): only the rows
that roll draw, so each game replays alike at any batch size. Everything is public.

Importing this module registers the game (``toy_dice``; ids ``monkey_envs/toy_dice-v0`` and
``monkey_envs/ToyDice-v0``) and its heuristic agent ``hold20``.
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

END_REASONS = ("running", "reached_target", "turn_cap")
ACTION_NAMES = ("roll", "hold")
ROLL, HOLD = 0, 1
#: Largest pip count of the die.
SIDES = 6
#: Per-seat counters, in the order :meth:`ToyDice.episode_stats` reports them.
STAT_NAMES = ("rolls", "busts", "holds", "points_lost", "points_banked")


class ToyDiceState(BatchState):
    """Toy Pig arrays (``B`` envs, ``P`` seats) besides the shared fields."""

    score: np.ndarray = field("int32", ("num_players",), "banked points.", low=0, high="target+5")
    turn_total: np.ndarray = field("int32", (), "points of the turn so far.")
    turn_rolls: np.ndarray = field("int32", (), "rolls in the turn so far.")
    last_roll: np.ndarray = field("int8", (), "the last die (0 before the first roll).", low=0, high=SIDES)
    turns: np.ndarray = field("int32", (), "turns completed.")
    rolls: np.ndarray = field("int32", ("num_players",), "rolls per seat.")
    busts: np.ndarray = field("int32", ("num_players",), "busts per seat.")
    holds: np.ndarray = field("int32", ("num_players",), "holds per seat (a winning roll counts as a hold).")
    lost: np.ndarray = field("int32", ("num_players",), "points lost to busts.")
    pips: np.ndarray = field(
        "int32", ("num_players",), "pips of every 2-6 rolled (``pips == score + lost + the mover's turn_total``)."
    )


class ToyDice(Game[ToyDiceState]):
    """Toy Pig rules over a batch. Args: ``num_players`` 2-4, ``target`` 10-200, ``max_turns`` 1-1000."""

    spec = GameSpec(
        name="toy_dice",
        gym_name="ToyDice",
        version=0,
        min_players=2,
        max_players=4,
        variants=("normal",),
        chance=True,
        information="perfect",
        reward_range=(-1.0, 1.0),
        description="Toy: Pig -- roll to build a turn total, hold to bank it, a 1 loses it.",
        title="Toy Pig",
        dynamics="sequential",
        end_reasons=END_REASONS,
        default_players=(2,),
    )
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = ({}, {"num_players": 4, "target": 20, "max_turns": 8})
    #: How it is shown, and what it reports: the plug-in functions below the class.
    view = View(render=f"{__name__}:render", picture=f"{__name__}:picture", action_name=f"{__name__}:action_name")
    analytics = Analytics(
        scores=f"{__name__}:scores",
        episode_stats=f"{__name__}:episode_stats",
        stats_title="Risk analytics",
        stats_summary=f"{__name__}:stats_summary",
        episode_info=f"{__name__}:episode_info",
    )
    #: Its laws: :func:`state_violations` at the end of this module.
    laws: ClassVar[str] = __name__
    obs_low = 0.0
    obs_high = 2.0  # a final score is below target + SIDES, i.e. at most 1.5 * target

    def __init__(self, num_players: int = 2, target: int = 50, max_turns: int = 100) -> None:
        for name, v, lo, hi in (
            ("num_players", num_players, 2, 4),
            ("target", target, 10, 200),
            ("max_turns", max_turns, 1, 1000),
        ):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise ValueError(f"{name} must be an int in {lo}..{hi}, got {v!r}")
        self.target, self.max_turns = int(target), int(max_turns)  # num_players: the kit reads the option
        self.num_actions = len(ACTION_NAMES)
        P = int(num_players)
        self.obs_layout = [  # (name, shape, meaning): the observation, piece by piece
            ("score", P, "banked points / target (seats observer-first)"),
            ("mover", P, "one-hot of the seat to move (observer-first; all 0 once over)"),
            ("turn_total", 1, "points of the turn so far / target"),
            ("turn_rolls", 1, "rolls in the turn so far / target"),
            ("last_roll", 1, "the last die / 6 (0 before the first roll)"),
            ("turns", 1, "turns completed / max_turns"),
        ]

    # ------------------------------------------------------------------ rules
    def _init(self, s: ToyDiceState, seeds: np.ndarray) -> None:
        # s: every field zero (seat 0 to move), the dice streams seeded
        s.legal_action_mask[:, ROLL] = True  # a turn starts with a roll

    def _step(self, s: ToyDiceState, actions: np.ndarray, live: np.ndarray) -> None:
        cp = s.current_player.astype(np.int64)
        r = np.flatnonzero(actions == ROLL)
        die = 1 + draw_below(s.rng, r, SIDES)  # only the rows that roll draw
        s.last_roll[r] = die
        s.rolls[r, cp[r]] += 1
        s.turn_rolls[r] += 1
        bust, good, pips = r[die == 1], r[die > 1], die[die > 1].astype(np.int32)
        s.busts[bust, cp[bust]] += 1
        s.lost[bust, cp[bust]] += s.turn_total[bust]
        s.turn_total[good] += pips
        s.pips[good, cp[good]] += pips
        won = good[s.score[good, cp[good]] + s.turn_total[good] >= self.target]
        bank = np.concatenate([np.flatnonzero(actions == HOLD), won])  # holds and winning rolls bank
        s.score[bank, cp[bank]] += s.turn_total[bank]
        s.holds[bank, cp[bank]] += 1
        ended = np.concatenate([bank, bust])  # every turn that ended this step
        s.turn_total[ended] = 0
        s.turn_rolls[ended] = 0
        s.turns[ended] += 1
        s.current_player[ended] = (cp[ended] + 1) % self.num_players
        s.legal_action_mask[:, HOLD] = s.turn_total > 0
        s.legal_action_mask[:, ROLL] = True
        winners = np.zeros((won.size, self.num_players), bool)
        winners[np.arange(won.size), cp[won]] = True
        end_games(s, won, winners, END_REASONS.index("reached_target"), (1.0, -1.0, 0.0))
        capped = ended[(s.turns[ended] >= self.max_turns) & ~s.terminated[ended]]
        nobody = np.zeros((capped.size, self.num_players), bool)
        end_games(s, capped, nobody, END_REASONS.index("turn_cap"), (0.0, 0.0, 0.0))

    # ------------------------------------------------------------------ views
    def _observe(self, s: ToyDiceState, player: np.ndarray) -> np.ndarray:
        P = self.num_players
        seats = (player[:, None] + np.arange(P)) % P  # observer-first
        mover = (seats == s.current_player[:, None]).astype(np.float32)  # current_player -1: all 0
        col = lambda a: a[:, None].astype(np.float32)  # noqa: E731
        return np.concatenate(
            [
                np.take_along_axis(s.score, seats, 1).astype(np.float32) / self.target,
                mover,
                col(s.turn_total) / self.target,
                col(s.turn_rolls) / self.target,
                col(s.last_roll) / SIDES,
                col(s.turns) / self.max_turns,
            ],
            axis=1,
        )


class Hold20Agent:
    """Rolls until the turn total reaches 20, then holds (the textbook Pig heuristic)."""

    name = "hold20"

    def __init__(self, game: ToyDice, seed: int = 0) -> None:
        self.target, self.col = game.target, game.obs_layout.slices["turn_total"].start
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``obs (B, D) float32``, ``mask (B, A)`` -> ``(B,) int64`` actions (random legal if the choice is not)."""
        m = np.asarray(mask).astype(bool)
        want = np.where(np.rint(obs[:, self.col] * self.target) >= 20, HOLD, ROLL).astype(np.int64)
        ok = m[np.arange(m.shape[0]), want]
        return np.where(ok, want, random_legal(m, self.rng))


register_game("toy_dice", "toy_games.dice:ToyDice")
register_agent("hold20", Hold20Agent, game="toy_dice")


# ---------------------------------------------------------------------- the view and analytics plug-ins
def action_name(game: ToyDice, state: ToyDiceState, row: int, action: int) -> str:
    """``"roll"`` or ``"hold"`` (the kit has checked the range)."""
    return ACTION_NAMES[action]


def render(game: ToyDice, s: ToyDiceState, row: int = 0, viewer: int | None = None) -> str:
    cp = int(s.current_player[row])
    turn = min(int(s.turns[row]) + 1, game.max_turns)
    head = f"Toy Pig: turn {turn}/{game.max_turns}, target {game.target}, last roll {int(s.last_roll[row]) or '-'}"
    lines = [head]
    for p in range(game.num_players):
        mark = f"  <- to move, turn total {int(s.turn_total[row])} ({int(s.turn_rolls[row])} rolls)" if p == cp else ""
        lines.append(f"player_{p}: {int(s.score[row, p])} points{mark}")
    if s.terminated[row]:
        winners = np.flatnonzero(s.winners_mask[row]).tolist()
        lines.append(f"over: {END_REASONS[int(s.end_reason[row])]}, winners {winners}")
    return "\n".join(lines)


def picture(game: ToyDice, s: ToyDiceState, row: int = 0, viewer: int | None = None) -> Picture:
    """The text picture drawn as an image (the kit's ``text_picture``): enough for ``rgb_array``."""
    return text_picture(render(game, s, row, viewer), game.spec.title, columns=72, lines=7)


def episode_info(game: ToyDice, s: ToyDiceState, row: int) -> dict[str, Any]:
    return {"scores": s.score[row].astype(np.int64), "turns": int(s.turns[row])}


def scores(game: ToyDice, s: ToyDiceState) -> np.ndarray:
    """``(B, P) float64`` banked points."""
    return s.score.astype(np.float64)


def episode_stats(game: ToyDice, s: ToyDiceState) -> dict[str, np.ndarray]:
    """Per-seat ``rolls``, ``busts``, ``holds``, ``points_lost`` and ``points_banked`` (``(B, P) int64``)."""
    arrays = (s.rolls, s.busts, s.holds, s.lost, s.score)
    return {name: a.astype(np.int64) for name, a in zip(STAT_NAMES, arrays, strict=True)}


def stats_summary(game: ToyDice, totals: dict[str, int], seats: int) -> dict[str, Any] | None:
    """Risk analytics: rolls per turn, bust rate, points per hold, points lost per game (``None``: no turns)."""
    if any(k not in totals for k in STAT_NAMES):
        return None
    turns = totals["holds"] + totals["busts"]

    def ratio(a: float, b: float) -> float | None:
        return a / b if b else None

    return {
        "turns": turns,
        "rolls_per_turn": ratio(totals["rolls"], turns),
        "bust_rate": ratio(totals["busts"], turns),
        "points_per_hold": ratio(totals["points_banked"], totals["holds"]),
        "points_lost_per_game": ratio(totals["points_lost"], seats),
    }


def state_violations(game: ToyDice, s: ToyDiceState) -> list[tuple[str, int, str]]:
    """The toy's own laws (the kit checks the layout, the shared fields' laws and the ranges first)."""
    out: list[tuple[str, int, str]] = []
    P = game.num_players
    live = s.current_player >= 0
    cp = np.where(live, s.current_player, 0).astype(np.int64)
    mover_total = np.where(np.arange(P) == cp[:, None], s.turn_total[:, None], 0)
    rows = np.arange(s.batch_size)
    checks = [
        ("score", live & (s.score[rows, cp] + s.turn_total >= game.target), "a running game at the target"),
        ("turn_total", (s.turn_total < 2 * s.turn_rolls) | (s.turn_total > SIDES * s.turn_rolls),
         "turn total outside [2, 6] x rolls of the turn"),
        ("pips", (s.pips != s.score + s.lost + mover_total).any(1), "pips != score + lost + turn total"),
        ("turns", (s.holds + s.busts).sum(1) != s.turns, "holds + busts != turns completed"),
        ("turns", live & ((s.turns >= game.max_turns) | (cp != s.turns % P)), "past the cap or out of turn"),
        ("rolls", (s.rolls < s.busts).any(1), "more busts than rolls"),
        ("legal_action_mask", live & ~s.legal_action_mask[:, ROLL], "a running game must allow a roll"),
        ("legal_action_mask", live & (s.legal_action_mask[:, HOLD] != (s.turn_total > 0)),
         "hold must be legal exactly after a roll of the turn"),
        ("winners_mask", s.terminated & (s.winners_mask.sum(1) != (s.end_reason == 1)),
         "one winner when the target is reached, none at the turn cap"),
    ]  # fmt: skip
    for name, bad, why in checks:
        out.extend((name, int(r), why) for r in np.flatnonzero(bad))
    return out
