"""Funky Monkey's analytics hooks: bluff summaries and the bluff rate by context.

* :func:`bluff_summary` -- one agent's bluff analytics from its summed per-seat statistics
  (``state.stats``, columns :data:`~monkey_envs.funky_monkey.state.STAT_NAMES`); the game's
  ``stats_summary`` hook, printed by the arena and stored by ``training.run``.
* :func:`bluff_context` -- when does an agent bluff? Its face-down plays (actions
  ``5 * card + announcement`` below ``NUM_PLAY_ACTIONS``), each with the observation it chose
  from, tabulated by the true card, by the receiver's distance to the tiger (the receiver is the
  next player still in the game on the left, who must accept or pass the card on: 1-4 spaces --
  a card can put it on the tiger or beyond -- 5-8, 9 or more), by the receiver's position
  relative to the agent (ahead, level, behind), and which value it announces when it bluffs.
  The context is read from the agent's own observation, so it is exactly what the policy could
  condition on. The game's ``decision_report`` hook.

A bluff is a play whose announcement differs from the card (the same definition as the core's
``bluffs`` statistic, which counts at the reveal). Rates come with 95% Wilson intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from monkey_envs.core.stats import percent as pct
from monkey_envs.core.stats import rate_rows, wilson_interval
from monkey_envs.funky_monkey.actions import NUM_PLAY_ACTIONS, action_filters
from monkey_envs.funky_monkey.reading import Reading
from monkey_envs.funky_monkey.state import STAT_NAMES

CARD_LABELS = ("1", "2", "3", "4", "MiNuss")
DISTANCE_BUCKETS = (("1-4", 1, 4), ("5-8", 5, 8), ("9+", 9, 10_000))
#: Statistics :func:`bluff_summary` needs.
_NEEDED = ("truthful", "bluffs", "bluffs_accepted", "bonus_monkey", "bonus_tiger", "bonus_declined", "telescopes_used")


def bluff_summary(totals: dict[str, int], seats: int) -> dict[str, Any] | None:
    """Bluff analytics of one agent from its statistics summed over the ``seats`` seats it held.

    Returns ``None`` when ``totals`` lacks the bluff statistics. Rates (``None`` when their
    denominator is 0):

    * ``bluff_rate`` (+ ``bluff_rate_ci``, 95% Wilson): bluffs / face-down plays revealed;
    * ``bluffs_accepted_rate``: own bluffs accepted by another player / bluffs;
    * ``truth_bonus_use``: bonus moves taken (monkey or tiger) / offered (taken + declined);
      ``truth_bonus_tiger_share``: tiger moves / bonus moves taken;
    * ``telescope_rate``: telescopes used / voluntary responder decisions (accepted + passed on);
    * ``telescopes_per_game``, ``crown_plays_per_game``: per seat held;
    * ``totals``: the summed statistics.
    """
    s = totals
    if not s or any(k not in s for k in _NEEDED):
        return None

    def ratio(a: float, b: float) -> float | None:
        return a / b if b else None

    plays = s["truthful"] + s["bluffs"]
    taken = s["bonus_monkey"] + s["bonus_tiger"]
    decisions = s.get("accepted", 0) + s.get("cards_passed", 0)
    lo, hi = wilson_interval(s["bluffs"], plays) if plays else (None, None)
    return {
        "plays_revealed": plays,
        "bluff_rate": ratio(s["bluffs"], plays),
        "bluff_rate_ci": [lo, hi],
        "bluffs_accepted_rate": ratio(s["bluffs_accepted"], s["bluffs"]),
        "truth_bonus_use": ratio(taken, taken + s["bonus_declined"]),
        "truth_bonus_tiger_share": ratio(s["bonus_tiger"], taken),
        "telescope_rate": ratio(s["telescopes_used"], decisions),
        "telescopes_per_game": ratio(s["telescopes_used"], seats),
        "crown_plays_per_game": ratio(s.get("crown_plays", 0), seats),
        "totals": dict(s),
    }


def _rate_table(keys: Sequence[str], groups: np.ndarray, bluff: np.ndarray) -> list[dict[str, Any]]:
    return rate_rows(keys, groups, bluff, count_key="plays", hit_key="bluffs", rate_key="bluff_rate")


def bluff_context(game: Any, obs: np.ndarray, actions: np.ndarray) -> dict[str, Any]:
    """Tabulate face-down plays ``actions (n,) int64`` (each ``< NUM_PLAY_ACTIONS``) chosen from ``obs (n, D)``.

    Returns:
        ``{"plays", "bluff_rate", "by_card", "by_receiver_distance", "by_receiver_position",
        "announced_when_bluffing"}`` (tables are lists of rows ``context, plays, bluffs,
        bluff_rate, ci``).
    """
    acts = np.asarray(actions, dtype=np.int64)
    obs = np.asarray(obs, dtype=np.float32).reshape(acts.size, game.obs_dim)
    K = len(CARD_LABELS)
    card, announced = acts // K, acts % K
    bluff = card != announced
    r = Reading(game, obs)
    n = acts.size
    ar = np.arange(n)
    recv_pos = r.pos[ar, r.receiver]
    dist = r.tiger - recv_pos
    dist_group = np.full(n, -1)
    for i, (_, lo, hi) in enumerate(DISTANCE_BUCKETS):
        dist_group[(dist >= lo) & (dist <= hi)] = i
    rel = np.sign(recv_pos - r.pos[:, 0])  # +1 receiver ahead, 0 level, -1 behind
    rel_group = np.select([rel > 0, rel == 0], [0, 1], 2)
    return {
        "plays": int(n),
        "bluff_rate": float(bluff.mean()) if n else None,
        "by_card": _rate_table(CARD_LABELS, card, bluff),
        "by_receiver_distance": _rate_table([b[0] for b in DISTANCE_BUCKETS], dist_group, bluff),
        "by_receiver_position": _rate_table(["ahead", "level", "behind"], rel_group, bluff),
        "announced_when_bluffing": {CARD_LABELS[k]: int(((announced == k) & bluff).sum()) for k in range(K)},
    }


def context_markdown(ctx: dict[str, Any]) -> str:
    """The tables of :func:`bluff_context` as Markdown (``agent``/``games``/``win_rate`` keys optional)."""

    head = f"Bluff rate of **{ctx.get('agent', 'the agent')}** by context ("
    if "games" in ctx:
        head += f"{ctx['games']} games, "
    head += f"{ctx['plays']} face-down plays, overall {pct(ctx['bluff_rate'])}"
    if "win_rate" in ctx:
        head += f"; win rate {pct(ctx['win_rate'])}"
    lines = [head + ").", ""]
    for title, key in (
        ("true card", "by_card"),
        ("receiver's distance to the tiger", "by_receiver_distance"),
        ("receiver's position vs the player", "by_receiver_position"),
    ):
        lines += [f"| {title} | plays | bluffs | bluff rate | 95% CI |", "|---|---:|---:|---:|---:|"]
        for row in ctx[key]:
            lo, hi = row["ci"]
            ci = "-" if lo is None else f"[{100 * lo:.1f}, {100 * hi:.1f}]"
            lines.append(f"| {row['context']} | {row['plays']} | {row['bluffs']} | {pct(row['bluff_rate'])} | {ci} |")
        lines.append("")
    ann = ", ".join(f"{k}: {v}" for k, v in ctx["announced_when_bluffing"].items())
    lines.append(f"Announced value when bluffing: {ann}.")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the game's Analytics hooks
def episode_stats(game: Any, state: Any) -> dict[str, np.ndarray]:
    """The bluff statistics, ``name -> (B, P) int16`` (``FunkyMonkey.bluff_stats``)."""
    return game.bluff_stats(state)


def stats_summary(game: Any, totals: dict[str, int], seats: int) -> dict[str, Any]:
    """Bluff analytics of one agent (:func:`bluff_summary`)."""
    return bluff_summary(totals, seats)


def report_decisions(game: Any, actions: np.ndarray) -> np.ndarray:
    """The face-down plays (``actions < NUM_PLAY_ACTIONS``): what :func:`bluff_context` reads."""
    return np.asarray(actions) < NUM_PLAY_ACTIONS


def decision_report(
    game: Any, obs: np.ndarray, actions: np.ndarray, about: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any], str]:
    """The bluff rate by context of the recorded face-down plays (:func:`bluff_context`)."""
    ctx = {**(about or {}), **bluff_context(game, obs, actions)}
    return "When does the agent bluff?", ctx, context_markdown(ctx)


def episode_info(game: Any, s: Any, row: int) -> dict[str, Any]:
    """``round``, final track and coconut facts and the bluff analytics of ``row`` (beside the shared end facts).

    ``positions`` / ``coconuts (P,) int64`` (the golden one counted), ``alive (P,) bool``,
    ``round`` / ``golden`` / ``tiger`` ints, ``bluff_stats``: ``name -> (P,) int64`` per seat.
    """
    # total_coconuts of the row alone (no copy of the whole state)
    tot = s.coconuts[row].astype(np.int64) + (np.int64(s.golden[row]) == game._rel)
    return {
        "round": int(s.round[row]),
        "positions": s.pos[row].astype(np.int64),
        "alive": s.alive[row].astype(bool),
        "coconuts": tot,
        "golden": int(s.golden[row]),
        "tiger": int(s.tiger[row]),
        # one (12, P) int64 array, one row per statistic (a new array per call)
        "bluff_stats": dict(zip(STAT_NAMES, s.stats[row].T.astype(np.int64, order="C"), strict=True)),
    }


def honest_filter(game: Any) -> dict[str, np.ndarray]:
    """``{"honest": (A,) bool}``: every action except face-down plays whose announcement
    differs from the card (plays ``5 * card + announce`` with ``card != announce``).

    The honest-only ablation trains a learner restricted to it (``learner_actions="honest"``);
    every active turn keeps a legal action (each card in hand can be announced truthfully).
    """
    return action_filters(game.num_actions)
