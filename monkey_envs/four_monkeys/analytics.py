"""4 Monkeys analytics: what a seat can read of the standings, bluff summaries, bluff rate by standing.

* :func:`visible_points` -- every seat's visible points as Step 2 counts them (repeated combos
  set aside first, Hand replenish -1 once used), read from one seat's observation: everything it
  needs is public (owners, sides, the Hand replenish flag).
* :func:`standing` -- the acting seat's visible points minus the best other seat's (``> 0``: it
  leads and would be the Smartest Monkey, the one whose combos are checked).
* :func:`grab_is_correct` -- is the pending set a grab would place under its tile a correct combo
  (the rulebook's Step 3 rule, :func:`~monkey_envs.four_monkeys.kernels.correct`), read from the
  acting seat's own observation: its pending set is its own.
* :func:`bluff_summary` -- one agent's bluff analytics from its summed per-seat statistics (the
  game's ``stats_summary`` hook): bluff rate (grabs whose cards are not a correct combo), bluffs
  caught (own combos found incorrect in Step 3 and set aside) per bluff, Smartest Monkey rounds.
* :func:`bluff_by_standing` / :func:`standing_markdown` -- the game's ``decision_report``: the
  recorded grabs tabulated by the acting seat's standing on visible points when it grabbed.

A bluff is a grab whose cards are not a correct combo for the tile (the same definition as the
core's ``bluffs`` statistic, counted at the grab). Rates come with 95% Wilson intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from monkey_envs.core.stats import percent as pct
from monkey_envs.core.stats import rate_rows, wilson_interval
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.four_monkeys.state import STAT_NAMES

#: Standing groups of :func:`bluff_by_standing`: (label, lowest, highest) of own - best other.
STANDING_BUCKETS = (
    ("leads (ahead)", 1, 10_000),
    ("tied for the lead", 0, 0),
    ("behind by 1-2", -2, -1),
    ("behind by 3-5", -5, -3),
    ("behind by 6+", -10_000, -6),
)


def counts(fraction: np.ndarray, scale: float) -> np.ndarray:
    """Card counts from an observation piece stored as ``count / scale`` (``int64``, same shape)."""
    return np.rint(np.asarray(fraction, np.float64) * scale).astype(np.int64)


def visible_points(game: Any, obs: np.ndarray) -> np.ndarray:
    """``(B, P) int64`` every seat's visible points (observer first) from ``obs (B, D)``.

    Step 2 of the rulebook: the visible value of each tile (green, or green - 1 when burned),
    tiles of a combo the seat holds twice or more left out (Step 1 sets them aside first), and
    -1 for a used Hand replenish.
    """
    o = game.obs_layout.unflatten(np.asarray(obs, np.float32).reshape(-1, game.obs_dim))
    P, NT = game.num_players, game.num_tiles
    tiles = o["tiles"]  # (B, NT, 5 + P)
    owner = tiles[:, :, K.TILE_FEATURES :] > 0.5  # (B, NT, P), observer first
    burned = tiles[:, :, 2] > 0.5
    combo = np.arange(NT) % D.NUM_COMBOS
    value = D.COMBO_GREEN[combo][None, :] - burned.astype(np.int64)  # (B, NT)
    per_combo = owner.reshape(-1, NT // D.NUM_COMBOS, D.NUM_COMBOS, P).sum(1)  # (B, 10, P)
    repeated = np.take_along_axis(per_combo, np.broadcast_to(combo[None, :, None], (per_combo.shape[0], NT, P)), 1)
    keep = owner & (repeated == 1)
    pts = (keep * value[:, :, None]).sum(1)
    return pts - (o["seats"][:, :, 3] > 0.5).astype(np.int64)


def standing(game: Any, obs: np.ndarray) -> np.ndarray:
    """``(B,) int64``: the observer's visible points minus the best other seat's (``> 0``: it leads)."""
    pts = visible_points(game, obs)
    return pts[:, 0] - pts[:, 1:].max(1)


def grab_tiles(game: Any, actions: np.ndarray) -> np.ndarray:
    """``(n,) int64`` tile id of each grab action (-1 for other actions)."""
    a = np.asarray(actions, np.int64)
    is_grab = (a >= game.a_grab) & (a < game.a_burn)
    return np.where(is_grab, (a - game.a_grab) // game.grab_variants, -1)


#: ``(M, 10) int64`` every correct submission (cards per kind) of any combo, ``_SET_COMBO (M,)``
#: its combo. Correct submissions have at most 6 cards (CCTTSS from six one-figure cards).
def _correct_sets() -> tuple[np.ndarray, np.ndarray]:
    import itertools

    sets, combos = [], []
    for r in range(1, 7):
        for cards in itertools.combinations_with_replacement(range(D.NUM_KINDS), r):
            v = np.bincount(cards, minlength=D.NUM_KINDS).astype(np.int8)
            for c in range(D.NUM_COMBOS):
                if K.correct(c, v):
                    sets.append(v.astype(np.int64))
                    combos.append(c)
    return np.array(sets), np.array(combos, np.int64)


CORRECT_SETS, CORRECT_SET_COMBO = _correct_sets()


def is_correct_batch(combo: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``(n,) bool``: are ``cards (n, 10)`` (count per kind) a correct submission for ``combo (n,)``."""
    cards = np.asarray(cards, np.int64)
    combo = np.asarray(combo, np.int64)
    same = (cards[:, None, :] == CORRECT_SETS[None]).all(2) & (combo[:, None] == CORRECT_SET_COMBO[None])
    return same.any(1)


def grab_is_correct(game: Any, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """``(n,) bool``: would each grab in ``actions`` place a correct combo (its pending set, from ``obs``)?"""
    o = game.obs_layout.unflatten(np.asarray(obs, np.float32).reshape(-1, game.obs_dim))
    t = grab_tiles(game, actions)
    pend = counts(o["pending"], 8.0)
    return (t >= 0) & is_correct_batch(np.maximum(t, 0) % D.NUM_COMBOS, pend)


def bluff_summary(totals: dict[str, int], seats: int) -> dict[str, Any] | None:
    """Bluff analytics of one agent from its statistics summed over the ``seats`` seats it held.

    Returns ``None`` without seats. Rates (``None`` when their denominator is 0):

    * ``bluff_rate`` (+ ``bluff_rate_ci``, 95% Wilson): bluffs / successful grabs;
    * ``bluffs_caught_rate``: own combos found incorrect in Step 3 (set aside) / bluffs;
    * ``smartest_per_seat``: rounds ended as (one of) the Smartest Monkey(s), per seat held;
    * per seat: grabs, set-asides (repeats and caught bluffs), burns, Hand replenishes;
    * counts: bluffs, bluffs caught, failed grabs, valid and invalid Stops.
    """
    if seats <= 0:
        return None
    s = {k: int(v) for k, v in totals.items()}
    grabs, bluffs, caught = s.get("grabs", 0), s.get("bluffs", 0), s.get("checked_wrong", 0)
    lo, hi = wilson_interval(bluffs, grabs) if grabs else (None, None)
    return {
        "grabs_per_seat": grabs / seats,
        "bluff_rate": bluffs / grabs if grabs else None,
        "bluff_rate_ci": [lo, hi],
        "bluffs": bluffs,
        "bluffs_caught": caught,
        "bluffs_caught_rate": caught / bluffs if bluffs else None,
        "smartest_per_seat": s.get("smartest", 0) / seats,
        "set_asides_per_seat": s.get("set_asides", 0) / seats,
        "burns_per_seat": s.get("burns", 0) / seats,
        "replenishes_per_seat": s.get("replenishes", 0) / seats,
        "failed_grabs": s.get("failed_grabs", 0),
        "stops": s.get("stops", 0),
        "invalid_stops": s.get("invalid_stops", 0),
    }


def _bluff_rows(labels: list[str], groups: np.ndarray, bluff: np.ndarray) -> list[dict[str, Any]]:
    return rate_rows(labels, groups, bluff, count_key="grabs", hit_key="bluffs", rate_key="bluff_rate")


def bluff_by_standing(game: Any, obs: np.ndarray, actions: np.ndarray) -> dict[str, Any]:
    """Tabulate grabs ``actions (n,) int64`` chosen from ``obs (n, D)`` by the grabber's standing.

    The standing (:func:`standing`) and whether the grab is a bluff (:func:`grab_is_correct`)
    are both read from the acting seat's own observation, so this is exactly what a policy could
    condition on. A grab that fails (the tile went earlier in the tick) still counts as chosen.

    Returns:
        ``{"grabs", "bluff_rate", "by_standing", "by_lead"}``; tables are lists of rows
        ``context, grabs, bluffs, bluff_rate, ci``. ``by_lead`` has two rows: leads (strictly
        ahead) or not.
    """
    acts = np.asarray(actions, np.int64).reshape(-1)
    obs = np.asarray(obs, np.float32).reshape(acts.size, game.obs_dim)
    grab = grab_tiles(game, acts) >= 0
    acts, obs = acts[grab], obs[grab]
    n = acts.size
    bluff = ~grab_is_correct(game, obs, acts) if n else np.zeros(0, bool)
    st = standing(game, obs) if n else np.zeros(0, np.int64)
    groups = np.full(n, -1)
    for i, (_, lo, hi) in enumerate(STANDING_BUCKETS):
        groups[(st >= lo) & (st <= hi)] = i
    return {
        "grabs": int(n),
        "bluff_rate": float(bluff.mean()) if n else None,
        "by_standing": _bluff_rows([b[0] for b in STANDING_BUCKETS], groups, bluff),
        "by_lead": _bluff_rows(["leads", "does not lead"], np.where(st > 0, 0, 1), bluff),
    }


def standing_markdown(ctx: dict[str, Any]) -> str:
    """The tables of :func:`bluff_by_standing` as Markdown (``agent``/``games``/``win_rate`` keys optional)."""

    head = f"Bluff rate of **{ctx.get('agent', 'the agent')}** by its standing on visible points ("
    if "games" in ctx:
        head += f"{ctx['games']} games, "
    head += f"{ctx['grabs']} grabs chosen, overall {pct(ctx['bluff_rate'])}"
    if "win_rate" in ctx:
        head += f"; win rate {pct(ctx['win_rate'])}"
    lines = [head + ").", ""]
    for title, key in (("own - best other visible points", "by_standing"), ("leads?", "by_lead")):
        lines += [f"| {title} | grabs | bluffs | bluff rate | 95% CI |", "|---|---:|---:|---:|---:|"]
        for row in ctx[key]:
            lo, hi = row["ci"]
            ci = "-" if lo is None else f"[{100 * lo:.1f}, {100 * hi:.1f}]"
            lines.append(f"| {row['context']} | {row['grabs']} | {row['bluffs']} | {pct(row['bluff_rate'])} | {ci} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------------- the game's Analytics hooks
def scores(game: Any, state: Any) -> np.ndarray:
    """``(B, P) float64`` game totals (round points and invalid-Stop penalties)."""
    return state.totals.astype(np.float64)


def episode_info(game: Any, s: Any, row: int) -> dict[str, Any]:
    """``scores (P,) int64``: the game totals (beside the shared end facts)."""
    return {"scores": s.totals[row].astype(np.int64)}


def episode_stats(game: Any, state: Any) -> dict[str, np.ndarray]:
    """Per-seat counters (:data:`~monkey_envs.four_monkeys.state.STAT_NAMES`), each ``(B, P) int64``."""
    return {name: state.stats[:, :, i].astype(np.int64) for i, name in enumerate(STAT_NAMES)}


def stats_summary(game: Any, totals: dict[str, int], seats: int) -> dict[str, Any] | None:
    """Bluff analytics of one agent (:func:`bluff_summary`): bluff rate with its Wilson interval,
    bluffs caught in Step 3, Smartest Monkey rounds."""
    return bluff_summary(totals, seats)


def report_decisions(game: Any, actions: np.ndarray) -> np.ndarray:
    """The grabs (``a_grab <= action < a_burn``): what :func:`bluff_by_standing` reads."""
    a = np.asarray(actions)
    return (a >= game.a_grab) & (a < game.a_burn)


def decision_report(
    game: Any, obs: np.ndarray, actions: np.ndarray, about: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any], str]:
    """The bluff rate of the recorded grabs by the grabber's standing on visible points (:func:`bluff_by_standing`)."""
    ctx = {**(about or {}), **bluff_by_standing(game, obs, actions)}
    return "When does the agent bluff?", ctx, standing_markdown(ctx)


def no_stop_filter(game: Any) -> dict[str, np.ndarray]:
    """``{"no_stop": (A,) bool}``: every action except calling Stop (``wait`` stays, so every
    decision keeps a legal action) -- a learner that cannot throw 10 points away on an invalid
    Stop. There is no ``honest`` filter: whether a grab is a bluff depends on the pending set
    (a grab of tile ``t`` is honest exactly when the pending cards are a correct combo for
    ``t``), so the same grab action is honest in one position and a bluff in another, and no
    fixed ``(A,) bool`` set can express it (``agents.heuristics.four_monkeys.honest_mask``
    is the position-dependent version)."""
    allowed = np.ones(game.num_actions, bool)
    allowed[game.a_stop] = False
    return {"no_stop": allowed}
