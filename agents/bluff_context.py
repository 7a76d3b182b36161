"""When does an agent bluff? Funky Monkey bluff rates by context, from seat-balanced games.

::

    python -m agents.bluff_context --players 4 --agent ppo:runs/<run>/model.zip \\
        --opponents honest skeptic track --games 2000 [--json out.json] [--md out.md]

The focal agent plays ``--games`` seat-balanced games (:func:`agents.evaluate.play_games`)
against the line-up; every one of its face-down plays (an action ``5 * card + announcement``
below ``NUM_PLAY_ACTIONS``) is recorded with what the agent saw when it chose it, read from
its own observation (so the context is exactly what the policy could condition on):

* **by the true card**: 1, 2, 3, 4 spaces or MiNuss;
* **by the receiver's distance to the tiger** (the receiver is the next player still in the
  game on the left, who must accept or pass the card on): 1-4 spaces (a card can put it on
  the tiger -- or beyond), 5-8, 9 or more;
* **by the receiver's position relative to the agent**: ahead, level, behind;
* and which value the agent announces when it bluffs.

Rates come with 95% Wilson intervals. A bluff is a play whose announcement differs from the
card (the same definition as the core's ``bluffs`` statistic, which counts at the reveal).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.evaluate import play_games, wilson_interval

CARD_LABELS = ("1", "2", "3", "4", "MiNuss")
DISTANCE_BUCKETS = (("1-4", 1, 4), ("5-8", 5, 8), ("9+", 9, 10_000))


class RecordingAgent:
    """Wraps an agent and keeps the observation and action of each of its face-down plays.

    Attributes:
        obs: list of ``(n, D) float32`` observations (one entry per call with plays).
        actions: list of ``(n,) int64`` chosen play actions.
    """

    def __init__(self, inner: Any, num_play_actions: int) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "agent")
        self.num_play_actions = num_play_actions
        self.obs: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        acts = np.asarray(self.inner.act(obs, mask), dtype=np.int64)
        m = np.asarray(mask).astype(bool)
        rows = np.flatnonzero(m.any(1) & (acts < self.num_play_actions))
        if rows.size:
            self.obs.append(np.asarray(obs)[rows].copy())
            self.actions.append(acts[rows])
        return acts


def _rate_table(keys: Sequence[str], groups: np.ndarray, bluff: np.ndarray) -> list[dict[str, Any]]:
    out = []
    for i, key in enumerate(keys):
        sel = groups == i
        n = int(sel.sum())
        b = int(bluff[sel].sum())
        lo, hi = wilson_interval(b, n) if n else (None, None)
        out.append({"context": key, "plays": n, "bluffs": b, "bluff_rate": b / n if n else None, "ci": [lo, hi]})
    return out


def bluff_context(
    game: Any, agent: Any, opponents: Sequence[Any], num_games: int, seed: int = 0, name: str = "agent"
) -> dict[str, Any]:
    """Play seat-balanced games and tabulate the focal agent's bluffs by context.

    Args:
        game: a ``FunkyMonkey`` game.
        agent: the focal agent (object with ``act``, or a name for ``make_agent``).
        opponents: ``P - 1`` agents or names for the other seats.
        num_games: games (a multiple of ``P`` balances seats).
        seed: deals and agent seeds.
        name: the focal agent's display name.

    Returns:
        ``{"agent", "games", "win_rate", "plays", "bluff_rate", "by_card", "by_receiver_distance",
        "by_receiver_position", "announced_when_bluffing"}`` (tables are lists of rows with
        ``context, plays, bluffs, bluff_rate, ci``).

    Raises:
        ValueError: a game other than Funky Monkey, or a wrong number of opponents.
    """
    from agents import make_agent
    from agents.heuristics.funky_monkey import Reading
    from monkey_envs.funky_monkey.rules import NUM_PLAY_ACTIONS

    if getattr(game, "spec", None) is None or game.spec.name != "funky_monkey":
        raise ValueError(f"bluff_context needs a funky_monkey game, got {game!r}")
    if len(opponents) != game.num_players - 1:
        raise ValueError(f"need {game.num_players - 1} opponents for {game.num_players} players, got {len(opponents)}")
    rec = RecordingAgent(make_agent(agent, game, seed), NUM_PLAY_ACTIONS)
    result = play_games(
        game,
        [rec, *opponents],
        num_games,
        seed=seed,
        names=[name, *[f"{getattr(o, 'name', o)}#{k}" for k, o in enumerate(opponents, start=1)]],
    )
    obs = np.concatenate(rec.obs) if rec.obs else np.zeros((0, game.obs_dim), np.float32)
    acts = np.concatenate(rec.actions) if rec.actions else np.zeros(0, np.int64)
    K = len(CARD_LABELS)
    card, announced = acts // K, acts % K
    bluff = card != announced
    r = Reading(game, obs)
    n = acts.size
    ar = np.arange(n)
    recv = r.receiver
    recv_pos = r.pos[ar, recv]
    dist = r.tiger - recv_pos
    dist_group = np.full(n, -1)
    for i, (_, lo, hi) in enumerate(DISTANCE_BUCKETS):
        dist_group[(dist >= lo) & (dist <= hi)] = i
    rel = np.sign(recv_pos - r.pos[:, 0])  # +1 receiver ahead, 0 level, -1 behind
    rel_group = np.select([rel > 0, rel == 0], [0, 1], 2)
    me = result.agents[0]
    return {
        "agent": name,
        "games": int(num_games),
        "win_rate": me.win_rate,
        "win_rate_ci": [me.ci_low, me.ci_high],
        "plays": int(n),
        "bluff_rate": float(bluff.mean()) if n else None,
        "by_card": _rate_table(CARD_LABELS, card, bluff),
        "by_receiver_distance": _rate_table([b[0] for b in DISTANCE_BUCKETS], dist_group, bluff),
        "by_receiver_position": _rate_table(["ahead", "level", "behind"], rel_group, bluff),
        "announced_when_bluffing": {CARD_LABELS[k]: int(((announced == k) & bluff).sum()) for k in range(K)},
    }


def context_markdown(ctx: dict[str, Any]) -> str:
    """The tables of :func:`bluff_context` as Markdown."""

    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}%"

    lines = [
        f"Bluff rate of **{ctx['agent']}** by context ({ctx['games']} games, {ctx['plays']} face-down plays, "
        f"overall {pct(ctx['bluff_rate'])}; win rate {pct(ctx['win_rate'])}).",
        "",
    ]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.bluff_context", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--agent", required=True, help="focal agent: a name or ppo:PATH")
    parser.add_argument("--opponents", nargs="+", required=True, help="P - 1 agents for the other seats")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--md", metavar="PATH")
    args = parser.parse_args(argv)
    from monkey_envs.games import make_game

    try:
        game = make_game("funky_monkey", num_players=args.players)
        ctx = bluff_context(game, args.agent, args.opponents, args.games, args.seed, name=args.agent)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = context_markdown(ctx)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(ctx, f, indent=2)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
