"""Monki's decision report: has an agent learned push-your-luck?

Everything here is computed from the deciding seat's own observation (all of Monki is public
except the fruit under each face-down token and the order within stacks), so it is exactly what
a policy could condition on:

* :class:`PublicView` -- what a seat can count: the *unseen* tokens of each kind (the 40 tokens
  minus those on the player boards, on the statues and lying face up), the fruits flipped this
  turn, the stacks it could flip next (line of sight from its Monki, not yet face up) and what
  each ruby would take from a statue.
* :meth:`PublicView.bust_chance` -- the chance that flipping a stack busts: the next token of a
  stack of colour ``c`` is, given the public information, equally likely to be any unseen token
  of colour ``c`` (the deal is uniform and nothing about the unseen tokens but the colour of each
  stack's top is ever shown), so ``P(bust) = unseen regular tokens of colour c whose fruit is
  already face up / unseen tokens of colour c`` (golden tokens never bust).
* :func:`push_your_luck` -- the game's ``decision_report`` hook: from recorded decisions
  ``(obs, action)`` (every turn decision, :meth:`~monkey_envs.monki.rules.Monki.report_decisions`)

  - **flip again** (phase ``flipping`` with a flip possible): the rate of flipping again instead
    of passing, binned by the bust chance of the *safest* stack it could flip (the least risky
    way to go on), with the mean fruits that a pass would keep;
  - **ruby use** (phase ``collect`` with a usable ruby): the rate of using a ruby instead of
    flipping, by the most tokens one usable ruby would take from the statue of the board it
    stands on ("useful" tokens: each fills an empty space of its player board), and by whether
    that take includes a golden fruit;
  - **skip** (phase ``start``): the rate of skipping (recharging) by the rubies still usable
    and by the most tokens one *spent* ruby would take from any statue (what recharging unlocks).

Rates come with 95% Wilson intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from monkey_envs.core.stats import percent as pct
from monkey_envs.core.stats import rate_rows
from monkey_envs.monki import data as D
from monkey_envs.monki.state import PHASE_COLLECT, PHASE_FLIPPING, PHASE_START, STAT_NAMES

#: Bins of the bust chance: ``(label, low, high)`` with ``low < p <= high`` (the first: ``p == 0``).
BUST_BINS = (
    ("0", -1.0, 0.0),
    ("(0, 0.1]", 0.0, 0.1),
    ("(0.1, 0.2]", 0.1, 0.2),
    ("(0.2, 0.3]", 0.2, 0.3),
    ("(0.3, 0.4]", 0.3, 0.4),
    ("(0.4, 0.5]", 0.4, 0.5),
    ("(0.5, 1]", 0.5, 1.0),
)
#: Bins of a token count: the last one is open (``3+``).
TAKE_BINS = ("0", "1", "2", "3+")

#: Player-board space of each of the 16 kinds (kind ``colour * 8 + fruit``, golden ``colour * 8 + 4 + fruit``).
KIND_SLOT = np.array([(8 + k % 4) if (k % 8) >= 4 else (k // 8) * 4 + k % 4 for k in range(D.NUM_KINDS)])


class PublicView:
    """What the observing seat of each row of ``obs (B, D) float32`` can see and count.

    Attributes (``B`` rows):
        phase: ``(B,) int64`` phase code.
        boards: ``(B, 2, 16) int64`` tokens of each kind on each player board (observer first).
        rubies: ``(B, 2, 4) bool`` usable rubies (observer first).
        pos: ``(B, 2) int64`` cell of each Monki (-1: not placed).
        heights: ``(B, 12) int64`` tokens in each stack.
        top_colour: ``(B, 12) int64`` colour of each stack's top (0 green, 1 blue; 0 if empty).
        face_up: ``(B, 12) bool`` the top was flipped this turn.
        statues: ``(B, 4, 16) int64`` tokens of each kind on each board's statue.
        flipped: ``(B, 4) bool`` fruits lying face up (flipped this turn).
        unseen: ``(B, 16) int64`` tokens of each kind that the seat has not seen (face down).
        empty: ``(B, 12) bool`` the observer's empty player-board spaces.
        up_fruit: ``(B, 12) int64`` fruit of each face-up top (0 where not face up).
        flippable: ``(B, 12) bool`` stacks the observer could flip next (line of sight, not face up).
    """

    def __init__(self, game: Any, obs: np.ndarray) -> None:
        obs = np.asarray(obs, np.float32)
        if obs.ndim != 2 or obs.shape[1] != game.obs_dim:
            raise ValueError(f"obs must have shape (n, {game.obs_dim}), got {obs.shape}")
        o = game.obs_layout.unflatten(obs)
        B = obs.shape[0]
        self.B = B
        self.phase = o["phase"].argmax(1).astype(np.int64)
        self.boards = np.rint(o["boards"]).astype(np.int64)
        self.rubies = o["rubies"] > 0.5
        mk = o["monki"] > 0.5
        self.pos = np.where(mk.any(2), mk.argmax(2), -1).astype(np.int64)
        stk = o["stacks"]
        self.heights = np.rint(stk[:, :, 0] * D.STACK_DEPTH).astype(np.int64)
        self.top_colour = (stk[:, :, 2] > 0.5).astype(np.int64)
        self.face_up = stk[:, :, 3] > 0.5
        self.up_fruit = np.where(self.face_up, stk[:, :, 4:].argmax(2), 0).astype(np.int64)
        up_kind = np.zeros((B, D.NUM_KINDS), np.int64)
        kinds = self.top_colour * 8 + self.up_fruit
        rows = np.repeat(np.arange(B), D.NUM_STACKS)
        np.add.at(up_kind, (rows, kinds.ravel()), self.face_up.ravel().astype(np.int64))
        self.statues = np.rint(o["statues"] * 4).astype(np.int64)
        self.flipped = o["flipped"] > 0.5
        seen = self.boards.sum(1) + self.statues.sum(1) + up_kind
        self.unseen = D.KIND_TOTAL[None] - seen
        own = np.zeros((B, D.NUM_SLOTS), np.int64)
        np.add.at(own, (np.repeat(np.arange(B), D.NUM_KINDS), np.tile(KIND_SLOT, B)), self.boards[:, 0].ravel())
        self.empty = own == 0
        free = game.free_cells(self.heights, self.pos)
        self.flippable = game.line_stacks(self.pos[:, 0], free, self.heights) & ~self.face_up
        self._game = game

    def bust_chance(self) -> np.ndarray:
        """``(B, 12) float64``: chance that flipping each stack now busts (see the module docstring).

        Stacks that are empty or whose colour has no unseen token get 0.
        """
        B = self.B
        un = self.unseen.reshape(B, 2, 8)[np.arange(B)[:, None], self.top_colour]  # (B, 12, 8)
        total = un.sum(2)
        dup = (un[:, :, :4] * self.flipped[:, None, :]).sum(2)
        return np.where(total > 0, dup / np.maximum(total, 1), 0.0)

    def safest_bust_chance(self) -> np.ndarray:
        """``(B,) float64``: the smallest :meth:`bust_chance` over the flippable stacks (NaN: none)."""
        p = np.where(self.flippable, self.bust_chance(), np.inf)
        best = p.min(1)
        return np.where(np.isfinite(best), best, np.nan)

    def kept_if_pass(self) -> np.ndarray:
        """``(B,) int64``: face-up fruits that a pass would put on the observer's empty spaces."""
        slots = self.top_colour * 4 + self.up_fruit
        return (self.face_up & self.empty[np.arange(self.B)[:, None], slots]).sum(1)

    def ruby_takes(self, board: np.ndarray) -> np.ndarray:
        """``(B, 4, 2) int64``: per ruby fruit, the tokens it would take from the statue of ``board (B,)``
        (-1: none) -- ``[..., 0]`` all of them, ``[..., 1]`` the golden one (0 or 1); ignores whether
        the ruby is usable. One token per empty space of the observer's player board.
        """
        B = self.B
        st = self.statues[np.arange(B), np.maximum(board, 0)] * (board >= 0)[:, None]  # (B, 16)
        out = np.zeros((B, D.NUM_FRUITS, 2), np.int64)
        for f in range(D.NUM_FRUITS):
            reg = sum(((st[:, c * 8 + f] > 0) & self.empty[:, c * 4 + f]).astype(np.int64) for c in range(2))
            gold = ((st[:, 4 + f] + st[:, 12 + f]) > 0) & self.empty[:, 8 + f]
            out[:, f, 0] = reg + gold
            out[:, f, 1] = gold
        return out

    def own_board(self) -> np.ndarray:
        """``(B,) int64`` temple board the observer's Monki stands on (-1: not placed)."""
        cell_board = self._game.layout.cell_board
        return np.where(self.pos[:, 0] >= 0, cell_board[np.maximum(self.pos[:, 0], 0)], -1)


def _take_bin(x: np.ndarray) -> np.ndarray:
    return np.minimum(x, len(TAKE_BINS) - 1)


def bust_bin(p: np.ndarray) -> np.ndarray:
    """``(n,) int64`` index into :data:`BUST_BINS` of each bust chance ``p (n,)`` (-1: NaN)."""
    p = np.asarray(p, np.float64)
    out = np.full(p.shape, -1, np.int64)
    for i, (_, lo, hi) in enumerate(BUST_BINS):
        out[(p > lo) & (p <= hi + 1e-12) & (out < 0)] = i
    return out


def push_your_luck(game: Any, obs: np.ndarray, actions: np.ndarray) -> dict[str, Any]:
    """Tabulate recorded turn decisions ``actions (n,) int64`` chosen from ``obs (n, D) float32``.

    Returns:
        ``{"decisions", "flip_again": {...}, "ruby_use": {...}, "skip": {...}}``; each part holds
        its decision count, overall rate and tables (lists of rows ``context, decisions, yes,
        rate, ci`` plus means where noted). See the module docstring for the definitions.

    Raises:
        ValueError: ``obs`` and ``actions`` of different lengths or a wrong observation width.
    """
    acts = np.asarray(actions, np.int64).reshape(-1)
    obs = np.asarray(obs, np.float32)
    if obs.ndim != 2 or obs.shape[0] != acts.size:
        raise ValueError(f"obs must have shape ({acts.size}, {game.obs_dim}), got {obs.shape}")
    v = PublicView(game, obs)
    is_flip = (acts >= game.A_FLIP) & (acts < game.A_PASS)
    is_ruby = acts >= game.A_RUBY
    is_skip = acts == game.A_SKIP
    can_flip = v.flippable.any(1)

    # flip again or pass
    fl = (v.phase == PHASE_FLIPPING) & can_flip
    p = v.safest_bust_chance()
    kept = v.kept_if_pass()
    flip_rows = rate_rows(
        tuple(b[0] for b in BUST_BINS),
        np.where(fl, bust_bin(p), -1),
        is_flip,
        means={"mean_bust_chance": np.nan_to_num(p), "mean_kept_if_pass": kept.astype(np.float64)},
    )
    flip_again = {
        "decisions": int(fl.sum()),
        "rate": float(is_flip[fl].mean()) if fl.any() else None,
        "by_bust_chance": flip_rows,
    }

    # ruby or flip (after the move)
    takes = v.ruby_takes(v.own_board())  # (n, 4, 2)
    usable = v.rubies[:, 0] & (takes[:, :, 0] > 0)
    best = np.where(usable, takes[:, :, 0], 0).max(1)
    gold = (usable & (takes[:, :, 1] > 0)).any(1)
    rc = (v.phase == PHASE_COLLECT) & usable.any(1)
    ruby_use = {
        "decisions": int(rc.sum()),
        "rate": float(is_ruby[rc].mean()) if rc.any() else None,
        "by_best_take": rate_rows(TAKE_BINS, np.where(rc, _take_bin(best), -1), is_ruby),
        "by_golden_in_reach": rate_rows(("no golden", "golden"), np.where(rc, gold.astype(np.int64), -1), is_ruby),
        "flip_possible_share": float(can_flip[rc].mean()) if rc.any() else None,
    }

    # skip (recharge) or move
    sk = v.phase == PHASE_START
    left = v.rubies[:, 0].sum(1)
    spent_best = np.zeros(v.B, np.int64)
    for b in range(D.NUM_BOARDS):
        t = v.ruby_takes(np.full(v.B, b))[:, :, 0]
        spent_best = np.maximum(spent_best, np.where(~v.rubies[:, 0], t, 0).max(1))
    skip = {
        "decisions": int(sk.sum()),
        "rate": float(is_skip[sk].mean()) if sk.any() else None,
        "by_rubies_left": rate_rows(("0", "1", "2", "3", "4"), np.where(sk, left, -1), is_skip),
        "by_spent_ruby_best_take": rate_rows(TAKE_BINS, np.where(sk, _take_bin(spent_best), -1), is_skip),
    }
    return {"decisions": int(acts.size), "flip_again": flip_again, "ruby_use": ruby_use, "skip": skip}


def push_your_luck_markdown(data: dict[str, Any]) -> str:
    """The tables of :func:`push_your_luck` as Markdown (``agent``/``games``/``win_rate`` keys optional)."""

    def ci(row: dict[str, Any]) -> str:
        lo, hi = row["ci"]
        return "-" if lo is None else f"[{100 * lo:.1f}, {100 * hi:.1f}]"

    head = f"Push-your-luck decisions of **{data.get('agent', 'the agent')}** ("
    if "games" in data:
        head += f"{data['games']} games, "
    head += f"{data['decisions']} turn decisions"
    if data.get("win_rate") is not None:
        head += f"; win rate {pct(data['win_rate'])}"
    lines = [head + ").", ""]
    fa = data["flip_again"]
    lines += [
        f"Flip again or pass ({fa['decisions']} decisions with a flip possible, flip-again rate "
        f"{pct(fa['rate'])}), by the chance that the safest flip busts:",
        "",
        "| P(bust) | decisions | flips again | rate | 95% CI | mean P(bust) | fruits a pass keeps |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in fa["by_bust_chance"]:
        mp = "-" if r["mean_bust_chance"] is None else f"{r['mean_bust_chance']:.3f}"
        mk = "-" if r["mean_kept_if_pass"] is None else f"{r['mean_kept_if_pass']:.2f}"
        lines.append(f"| {r['context']} | {r['decisions']} | {r['yes']} | {pct(r['rate'])} | {ci(r)} | {mp} | {mk} |")
    ru = data["ruby_use"]
    lines += [
        "",
        f"Ruby or flip after the move ({ru['decisions']} decisions with a usable ruby, ruby-use rate {pct(ru['rate'])}):",
        "",
        "| best take on its board's statue | decisions | ruby | rate | 95% CI |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in [*ru["by_best_take"], *ru["by_golden_in_reach"]]:
        lines.append(f"| {r['context']} | {r['decisions']} | {r['yes']} | {pct(r['rate'])} | {ci(r)} |")
    sk = data["skip"]
    lines += [
        "",
        f"Skip (recharge) or move at the start of a turn ({sk['decisions']} decisions, skip rate {pct(sk['rate'])}):",
        "",
        "| rubies usable | decisions | skips | rate | 95% CI |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in sk["by_rubies_left"]:
        lines.append(f"| {r['context']} | {r['decisions']} | {r['yes']} | {pct(r['rate'])} | {ci(r)} |")
    lines += [
        "",
        "| best take of a spent ruby on any statue | decisions | skips | rate | 95% CI |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in sk["by_spent_ruby_best_take"]:
        lines.append(f"| {r['context']} | {r['decisions']} | {r['yes']} | {pct(r['rate'])} | {ci(r)} |")
    return "\n".join(lines)


def comparison_markdown(reports: dict[str, dict[str, Any]]) -> str:
    """Side-by-side rates of several agents' :func:`push_your_luck` data (``name -> data``).

    Three tables, one column per agent (``rate (decisions)``): the flip-again rate by the bust
    chance of the safest flip, the ruby-use rate by the best take on its board's statue, the skip
    rate by the rubies still usable.
    """
    names = list(reports)

    def cell(row: dict[str, Any]) -> str:
        return "-" if row["rate"] is None else f"{100 * row['rate']:.1f}% ({row['decisions']})"

    lines: list[str] = []
    for title, part, table in (
        ("P(bust) of the safest flip", "flip_again", "by_bust_chance"),
        ("best ruby take on its board's statue", "ruby_use", "by_best_take"),
        ("rubies usable at the start of a turn", "skip", "by_rubies_left"),
    ):
        what = {"flip_again": "flip-again rate", "ruby_use": "ruby-use rate", "skip": "skip rate"}[part]
        lines += [f"| {title} ({what}) | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        rows = [reports[n][part][table] for n in names]
        for i, first in enumerate(rows[0]):
            cells = [cell(r[i]) for r in rows]
            if all(r[i]["decisions"] == 0 for r in rows):
                continue
            lines.append(f"| {first['context']} | " + " | ".join(cells) + " |")
        overall = []
        for n in names:
            rate = reports[n][part]["rate"]
            overall.append("-" if rate is None else f"{100 * rate:.1f}% ({reports[n][part]['decisions']})")
        lines += ["| all | " + " | ".join(overall) + " |", ""]
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------------- the game's Analytics hooks
def scores(game: Any, state: Any) -> np.ndarray:
    """``(B, 2) float64`` fruits (golden included) on each player board."""
    return (state.owner[:, None, :] == np.arange(2)[None, :, None]).sum(2).astype(np.float64)


def episode_stats(game: Any, state: Any) -> dict[str, np.ndarray]:
    """Per-seat counters ``name -> (B, 2) int64`` (:data:`~monkey_envs.monki.state.STAT_NAMES`)."""
    return {n: state.stats[:, :, i].astype(np.int64) for i, n in enumerate(STAT_NAMES)}


def stats_summary(game: Any, totals: dict[str, int], seats: int) -> dict[str, Any]:
    """Push-your-luck analytics: flips per temple visit, bust rate, ruby uses and skips per game."""
    visits = totals.get("temple_visits", 0)
    per = max(seats, 1)
    return {
        "flips_per_visit": totals.get("flips", 0) / visits if visits else None,
        "bust_rate": totals.get("busts", 0) / visits if visits else None,
        "golden_per_game": totals.get("golden_flips", 0) / per,
        "ruby_uses_per_game": totals.get("ruby_uses", 0) / per,
        "skips_per_game": totals.get("skips", 0) / per,
        "kept_per_game": totals.get("kept", 0) / per,
    }


def report_decisions(game: Any, actions: np.ndarray) -> np.ndarray:
    """Every turn decision (skip, move, flip, pass, ruby; not the placements): what
    :func:`push_your_luck` reads, split by the phase in the observation."""
    return np.asarray(actions) >= game.A_MOVE


def decision_report(
    game: Any, obs: np.ndarray, actions: np.ndarray, about: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any], str]:
    """Flip-again rate by the chance of a bust, ruby use and skips by the statues' contents (:func:`push_your_luck`)."""
    data = {**(about or {}), **push_your_luck(game, obs, actions)}
    return "Has the agent learned push-your-luck?", data, push_your_luck_markdown(data)


def episode_info(game: Any, state: Any, row: int) -> dict[str, Any]:
    """``fruits`` / ``golden (P,) int64`` filled slots per seat and ``turns`` (beside the shared end facts)."""
    filled = game.filled_slots(state.owner[row : row + 1])[0]
    return {
        "fruits": (filled[:, : D.ROW1_SLOTS] > 0).sum(1).astype(np.int64),
        "golden": (filled[:, D.ROW1_SLOTS :] > 0).sum(1).astype(np.int64),
        "turns": int(state.turns[row]),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m monkey_envs.monki.analytics NAME=REPORT.json ...``: print :func:`comparison_markdown`
    of reports written by ``python -m agents.decision_report --game monki --json``."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args or any("=" not in a for a in args):
        print("usage: python -m monkey_envs.monki.analytics NAME=REPORT.json [NAME=REPORT.json ...]", file=sys.stderr)
        return 2
    reports = {}
    for a in args:
        name, _, path = a.partition("=")
        with open(path) as f:
            reports[name] = json.load(f)
    print(comparison_markdown(reports))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
