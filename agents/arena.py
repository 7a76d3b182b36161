"""The arena: benchmark any set of agents on any game, seat-balanced, batched, with ratings.

::

    python -m agents.arena --game funky_monkey --players 4 \\
        --agents random honest skeptic track best=ppo:runs/<run>/model.zip --games 2000 --seed 0 --out arena_fm4

or from Python::

    from agents.arena import run_arena
    result = run_arena("monkey_fun", ["random", "greedy"], num_games=2000, seed=0, num_players=2)
    print(result.table())
    result.save("arena_out")   # arena.json, arena.md, arena.png

Agents are names for :func:`agents.make_agent` (``random``, ``greedy``, ``honest``, ``believer``,
``skeptic``, ``track``, ``ppo:PATH/model.zip``), optionally labelled ``LABEL=SPEC``; the same
name twice gives two independently seeded copies. Agent ``i`` is built with seed ``seed + i``.

Line-ups (who sits where)
-------------------------
``K`` agents, ``P`` seats. A *roster* is the multiset of agents in one game:

* ``K >= P``: every set of ``P`` distinct agents (``C(K, P)`` rosters), so every agent plays
  equally often and every pair of agents meets equally often. Five agents in a 4-player game:
  5 rosters, each agent in 4 of them.
* ``K < P``: agents fill several seats. The rosters are every way to give each agent at least
  one seat (every composition of ``P`` into ``K`` positive parts, ``C(P-1, K-1)`` rosters).
  Two agents in a 4-player game: A+BBB, AA+BB and AAA+B; three agents: AABC, ABBC and ABCC. The
  set is symmetric in the agents, so none is favoured. Each seat an agent holds is one trial of
  its win rate (its chance baseline is ``1/P`` per seat whatever the roster).

Each roster is *seated* in every distinct order (``seating="permutations"``: every agent in
every seat and next to every other agent on either side equally often -- in Funky Monkey cards
travel to the left, so neighbours matter) or in its ``P`` rotations only
(``seating="rotations"``: every agent in every seat equally often). One round is every line-up
once; the arena plays ``ceil(num_games / line-ups)`` rounds, so the games played are
``num_games`` rounded up to a whole number of rounds (exact seat balance). ``"auto"`` (default)
takes permutations when one round of them fits into ``num_games`` and rounding up adds at most
10% more games, and rotations otherwise. Within a round
the rotations of one seating share a deal (game seed), so each deal is played from every seat.

All games of all line-ups are played as one batch of the core (chunks of ``batch_size`` games)
by :func:`agents.evaluate.play_lineups` -- the same code that :func:`agents.evaluate.play_games`
and training's evaluation use. Each chunk gets agents of its own, seeded from the arena seed and
the chunk's number (:func:`agents.evaluate.batch_seed`; the first chunk's agent ``i`` has seed
``seed + i``), so a chunk gives the same games wherever it runs: ``--ray`` (``ray=``) spreads the
chunks over Ray workers and reports exactly what the local run reports for the same seed and
``--batch-size``. Pick a ``--batch-size`` that cuts the games into at least as many chunks as
there are workers.

What is reported
----------------
* per agent: seats, wins / draws / losses, win rate with a 95% Wilson interval, mean score
  (games that keep one), and the game's own analytics summed over its seats (the game's
  ``stats_summary`` hook, e.g. Funky Monkey's bluff analytics; :func:`stats_summary`);
* head to head: for each pair, the games where both sat and how often A finished ahead of B
  (A won, B did not; a shared win or a draw is neither ahead);
* ratings: a Luce / Bradley–Terry fit on the Elo scale with 95% intervals
  (:mod:`agents.ratings`; Hessian intervals by default, ``bootstrap=`` resamples deals).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluate import (
    AgentResult,
    GameRecords,
    agent_results,
    play_tournament,
    replay_records,
)
from agents.ratings import DEFAULT_PRIOR, RatingFit, fit_ratings, seat_credit
from monkey_envs.games import add_import_option, import_plugins

SEATINGS = ("auto", "permutations", "rotations")
#: ``seating="auto"`` takes permutations when whole rounds of them exceed ``num_games`` by at most this factor.
AUTO_SLACK = 1.1
#: Games per batch of the core (memory bound; large enough for full vectorisation).
DEFAULT_BATCH = 4096


# ====================================================================== line-ups


def rosters(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """The rosters (sorted agent indices, one per seat) of the arena's scheme (module docstring)."""
    K, P = int(num_agents), int(num_players)
    if K < 2 or P < 2:
        raise ValueError(f"an arena needs at least 2 agents and 2 seats, got {K} agents and {P} seats")
    if K >= P:
        return list(itertools.combinations(range(K), P))
    out = []
    # compositions of P into K positive parts: choose K-1 cut points among the P-1 gaps
    for cuts in itertools.combinations(range(1, P), K - 1):
        counts = np.diff([0, *cuts, P])
        out.append(tuple(np.repeat(np.arange(K), counts).tolist()))
    return out


def _rotations(t: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [t[r:] + t[:r] for r in range(len(t))]


def lineups(num_agents: int, num_players: int, seating: str = "permutations") -> tuple[np.ndarray, np.ndarray]:
    """Every line-up of one round.

    Args:
        num_agents: ``K >= 2``.
        num_players: ``P >= 2`` seats.
        seating: ``"permutations"`` or ``"rotations"`` (see the module docstring).

    Returns:
        ``seat_agent (L, P) int64`` (agent in each seat) and ``cycle (L,) int64``: line-ups that are
        rotations of each other share a cycle id (they share deals).
    """
    if seating not in ("permutations", "rotations"):
        raise ValueError(f"seating must be 'permutations' or 'rotations' here, got {seating!r}")
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[int, ...]] = []
    for roster in rosters(num_agents, num_players):
        orders = itertools.permutations(roster) if seating == "permutations" else _rotations(roster)
        for order in sorted(set(orders)):
            if order not in seen:
                seen.add(order)
                out.append(order)
    canon = [min(_rotations(t)) for t in out]
    index: dict[tuple[int, ...], int] = {}
    cycle = np.array([index.setdefault(c, len(index)) for c in canon], dtype=np.int64)
    return np.array(out, dtype=np.int64), cycle


@dataclasses.dataclass
class Schedule:
    """The games of an arena.

    Attributes:
        seeds: ``(N,) int64`` game seeds.
        seat_agent: ``(N, P) int64`` agent in each seat.
        lineup: ``(N,) int64`` line-up index of each game (row of ``lineups``).
        deal: ``(N,) int64`` deal id (games sharing one seed: the rotations of one seating in one round).
        lineups: ``(L, P) int64`` the line-ups of one round.
        seating: ``"permutations"`` or ``"rotations"``.
        rounds: rounds played (every line-up once per round).
    """

    seeds: np.ndarray
    seat_agent: np.ndarray
    lineup: np.ndarray
    deal: np.ndarray
    lineups: np.ndarray
    seating: str
    rounds: int


def schedule(num_agents: int, num_players: int, num_games: int, seed: int = 0, seating: str = "auto") -> Schedule:
    """Seat-balanced games for ``num_agents`` agents: whole rounds of line-ups, at least ``num_games``.

    Raises:
        ValueError: bad counts or seating, or ``num_games`` too small for one round of rotations.
    """
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be a positive int, got {num_games!r}")
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {SEATINGS}, got {seating!r}")
    if seating == "auto":
        L = lineups(num_agents, num_players, "permutations")[0].shape[0]
        played = -(-int(num_games) // L) * L
        seating = "permutations" if L <= num_games and played <= AUTO_SLACK * num_games else "rotations"
    table, cycle = lineups(num_agents, num_players, seating)
    L = table.shape[0]
    if L > num_games and seating == "rotations":
        raise ValueError(
            f"{num_agents} agents in {num_players} seats need at least {L} games for one seat-balanced round "
            f"({seating}); got num_games={num_games}"
        )
    rounds = -(-int(num_games) // L)
    n_cycles = int(cycle.max()) + 1
    deals = np.random.default_rng(seed).integers(0, 2**62, size=(rounds, n_cycles), dtype=np.int64)
    rnd = np.repeat(np.arange(rounds), L)
    lu = np.tile(np.arange(L), rounds)
    return Schedule(
        seeds=deals[rnd, cycle[lu]],
        seat_agent=table[lu],
        lineup=lu,
        deal=rnd * n_cycles + cycle[lu],
        lineups=table,
        seating=seating,
        rounds=rounds,
    )


# ====================================================================== analysis


def head_to_head(records: GameRecords, num_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise encounters.

    Returns:
        ``together (K, K) int64``: games in which both agents sat, and ``ahead (K, K) int64``:
        games in which the row agent finished ahead of the column agent (one of its seats won, no
        seat of the other did; draws count for neither). Diagonals are 0.
    """
    present, won = _presence(records, num_agents)
    p = present.astype(np.int64)
    w = won.astype(np.int64)
    together = p.T @ p
    ahead = w.T @ (p - w)  # won implies present
    np.fill_diagonal(together, 0)
    np.fill_diagonal(ahead, 0)
    return together, ahead


def _presence(records: GameRecords, K: int) -> tuple[np.ndarray, np.ndarray]:
    """``(N, K) bool`` agent sat in the game, and agent won it (not a draw)."""
    N = records.num_games
    sa = records.seat_agent
    rows = np.repeat(np.arange(N), sa.shape[1])
    present = np.zeros((N, K), dtype=bool)
    present[rows, sa.reshape(-1)] = True
    won = np.zeros((N, K), dtype=bool)
    wins = (records.winners & ~records.drawn[:, None]).reshape(-1)
    won[rows[wins], sa.reshape(-1)[wins]] = True
    return present, won


def rating_data(records: GameRecords, num_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """``seats (N, K) int64`` and ``credit (N, K) float64`` for :func:`agents.ratings.fit_ratings`."""
    N = records.seat_agent.shape[0]
    idx = (np.arange(N)[:, None] * num_agents + records.seat_agent).reshape(-1)
    seats = np.bincount(idx, minlength=N * num_agents).reshape(N, num_agents)
    cred = seat_credit(records.winners, records.drawn).reshape(-1)
    credit = np.bincount(idx, weights=cred, minlength=N * num_agents).reshape(N, num_agents)
    return seats.astype(np.int64), credit


def stats_summary(game: Any, result: AgentResult) -> dict[str, Any] | None:
    """The game's analytics of one agent (``game.stats_summary``) from its statistics summed over its seats."""
    if not result.stats:
        return None
    return game.stats_summary(dict(result.stats), result.seats)


# ====================================================================== result


@dataclasses.dataclass
class ArenaResult:
    """Everything an arena run measured (see the module docstring).

    Attributes:
        game: game name and config.
        specs: the agent specs as given; ``names`` their labels (``K``).
        seed: arena seed.
        requested_games / num_games: games asked for and played (whole rounds).
        seating / rounds / lineups: the line-up scheme (``lineups`` as lists of labels per seat).
        agents: one :class:`~agents.evaluate.AgentResult` per agent.
        together / ahead: ``(K, K)`` head-to-head counts (:func:`head_to_head`).
        ratings: the :class:`~agents.ratings.RatingFit`.
        analytics: ``label -> game.stats_summary`` of each agent (e.g. Funky Monkey's bluff
            analytics), else ``None``; ``analytics_title`` names the table.
        end_reasons / mean_length / truncated: game facts.
        seconds: wall time of the games; ``games_per_second`` from it.
        command: the command line (CLI runs).
        replays: the games as replay records (:class:`monkey_envs.replay.GameRecord`) when
            played with ``record_games=True``; :meth:`save` writes them to ``games.json``.
    """

    game: dict[str, Any]
    specs: list[str]
    names: list[str]
    seed: int
    requested_games: int
    num_games: int
    seating: str
    rounds: int
    lineups: list[list[str]]
    agents: list[AgentResult]
    together: np.ndarray
    ahead: np.ndarray
    ratings: RatingFit
    analytics: dict[str, Any] | None
    end_reasons: dict[str, int]
    mean_length: float
    truncated: int
    seconds: float
    command: str | None = None
    analytics_title: str = "Game statistics"
    replays: list[Any] | None = None
    game_obj: Any = None

    @property
    def games_per_second(self) -> float:
        return self.num_games / max(self.seconds, 1e-9)

    def ahead_rate(self) -> np.ndarray:
        """``(K, K)``: share of shared games in which the row agent finished ahead (NaN if none)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            r = self.ahead / self.together
        r[self.together == 0] = np.nan
        return r

    def beats_rate(self) -> np.ndarray:
        """``(K, K)``: of the shared games in which one of the two finished ahead of the other, the
        share the row agent won (0.5 = even; NaN if none). In a 2-player game without draws
        this is the plain win rate against the column agent."""
        decisive = self.ahead + self.ahead.T
        with np.errstate(invalid="ignore", divide="ignore"):
            r = self.ahead / decisive
        r[decisive == 0] = np.nan
        return r

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        rate = self.ahead_rate()
        beats = self.beats_rate()
        return {
            "game": self.game,
            "agents_specs": self.specs,
            "names": self.names,
            "seed": self.seed,
            "requested_games": self.requested_games,
            "num_games": self.num_games,
            "seating": self.seating,
            "rounds": self.rounds,
            "lineups": self.lineups,
            "agents": [a.to_dict() for a in self.agents],
            "head_to_head": {
                "together": self.together.tolist(),
                "ahead": self.ahead.tolist(),
                "ahead_rate": [[None if math.isnan(x) else float(x) for x in row] for row in rate],
                "beats_rate": [[None if math.isnan(x) else float(x) for x in row] for row in beats],
            },
            "ratings": self.ratings.to_dict(),
            "analytics_title": self.analytics_title,
            "analytics": self.analytics,
            "end_reasons": self.end_reasons,
            "mean_length": self.mean_length,
            "truncated": self.truncated,
            "seconds": self.seconds,
            "games_per_second": self.games_per_second,
            "command": self.command,
        }

    # ---------------------------------------------------------------- text
    def _agent_rows(self) -> list[list[str]]:
        r = self.ratings
        rows = []
        for i in np.argsort(-r.elo, kind="stable"):
            a = self.agents[i]
            rows.append(
                [
                    a.name,
                    str(a.seats),
                    str(a.wins),
                    str(a.draws),
                    f"{a.win_rate:.3f}",
                    f"[{a.ci_low:.3f}, {a.ci_high:.3f}]",
                    "-" if a.mean_score is None else f"{a.mean_score:.2f}",
                    f"{r.elo[i]:+.0f}",
                    f"[{r.elo_low[i]:+.0f}, {r.elo_high[i]:+.0f}]",
                ]
            )
        return rows

    _AGENT_HEAD = ("agent", "seats", "wins", "draws", "win rate", "95% CI", "score", "Elo", "Elo 95% CI")

    def _h2h_rows(self, rate: np.ndarray) -> list[list[str]]:
        return [
            [self.names[i]]
            + ["-" if i == j or math.isnan(rate[i, j]) else f"{rate[i, j]:.3f}" for j in range(len(self.names))]
            for i in range(len(self.names))
        ]

    def _analytics_columns(self) -> list[str]:
        cols: list[str] = []
        for summary in (self.analytics or {}).values():
            for k, v in summary.items():
                if k not in cols and not isinstance(v, dict):
                    cols.append(k)
        return cols

    def _analytics_rows(self) -> list[list[str]]:
        def f(x: Any) -> str:
            if x is None:
                return "-"
            if isinstance(x, (list, tuple)):
                return "-" if any(v is None for v in x) else "[" + ", ".join(f(v) for v in x) + "]"
            if isinstance(x, float):
                return f"{x:.3f}"
            return str(x)

        cols = self._analytics_columns()
        return [
            [name, *(f(self.analytics[name].get(c)) for c in cols)]
            for name in self.names
            if (self.analytics or {}).get(name) is not None
        ]

    def _summary_line(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.game.items() if k != "name")
        return (
            f"{self.game['name']} ({opts}): {self.num_games} games ({self.rounds} rounds of {len(self.lineups)} "
            f"line-ups, seating {self.seating}), seed {self.seed}, {self.seconds:.1f} s "
            f"({self.games_per_second:.0f} games/s), mean length {self.mean_length:.1f} decisions"
        )

    def table(self) -> str:
        """The terminal report: agents with ratings, head to head, the game's analytics."""
        out = [self._summary_line(), "", _text_table(self._AGENT_HEAD, self._agent_rows())]
        out += [
            "",
            "head to head: share of the games both sat in that the row agent finished ahead of the column agent",
        ]
        out.append(_text_table(("", *self.names), self._h2h_rows(self.ahead_rate())))
        out += ["", "head to head: share of the decisive encounters (one of the two ahead) won by the row agent"]
        out.append(_text_table(("", *self.names), self._h2h_rows(self.beats_rate())))
        if self.analytics:
            out += [
                "",
                f"{self.analytics_title.lower()} (summed over each agent's seats)",
                _text_table(("agent", *self._analytics_columns()), self._analytics_rows()),
            ]
        out += ["", f"end reasons: {self.end_reasons}; truncated: {self.truncated}"]
        return "\n".join(out)

    def markdown(self) -> str:
        """The report as Markdown (``arena.md``)."""
        r = self.ratings
        out = ["# Arena", "", self._summary_line() + ".", ""]
        if self.command:
            out += ["```", self.command, "```", ""]
        out += ["## Agents", "", _md_table(self._AGENT_HEAD, self._agent_rows()), ""]
        out.append(
            f"Win rate: wins per seat held, 95% Wilson interval. Elo: Luce / Bradley–Terry fit "
            f"({r.interval} 95% intervals, prior precision {r.prior:g}), "
            + (f"relative to `{r.anchor}`." if r.anchor else "mean 0.")
            + " In a game of these seats, seat *s* wins with probability 10^(R_s/400) / Σ_j 10^(R_j/400)."
        )
        out += [
            "",
            "## Head to head",
            "",
            "Share of the games both sat in that the row agent finished ahead of the column agent.",
            "",
        ]
        out.append(_md_table(("", *self.names), self._h2h_rows(self.ahead_rate())))
        out += [
            "",
            "Of the games in which one of the two finished ahead of the other, the share the row agent won "
            "(0.5 = even):",
            "",
            _md_table(("", *self.names), self._h2h_rows(self.beats_rate())),
        ]
        out += [
            "",
            "Games together:",
            "",
            _md_table(
                ("", *self.names),
                [
                    [n, *("-" if i == j else str(c) for j, c in enumerate(row))]
                    for i, (n, row) in enumerate(zip(self.names, self.together.tolist(), strict=True))
                ],
            ),
        ]
        if self.analytics:
            out += [
                "",
                f"## {self.analytics_title}",
                "",
                _md_table(("agent", *self._analytics_columns()), self._analytics_rows()),
                "",
                "Summed over each agent's seats (the game's ``stats_summary``).",
            ]
        out += ["", "## Games", "", f"End reasons: {self.end_reasons}. Truncated: {self.truncated}.", ""]
        out += ["Line-ups of one round (seat 0 first):", ""]
        out += [f"- {' / '.join(lu)}" for lu in self.lineups[:50]]
        if len(self.lineups) > 50:
            out.append(f"- ... {len(self.lineups) - 50} more (see arena.json)")
        return "\n".join(out) + "\n"

    # ---------------------------------------------------------------- files
    def plot(self, path: str | Path) -> Path:
        """Save a PNG: ratings with 95% intervals, and the head-to-head heat map."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        r = self.ratings
        K = len(self.names)
        order = np.argsort(r.elo, kind="stable")
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6 + 1.2 * K, 1.5 + 0.6 * K + 2), constrained_layout=True)
        y = np.arange(K)
        err = np.vstack([r.elo[order] - r.elo_low[order], r.elo_high[order] - r.elo[order]])
        ax1.errorbar(r.elo[order], y, xerr=err, fmt="o", capsize=4, color="tab:blue")
        ax1.set_yticks(y, [self.names[i] for i in order])
        ax1.axvline(0, color="grey", lw=0.8, ls=":")
        ax1.set_xlabel("Elo (95% interval)" + (f", {r.anchor} = 0" if r.anchor else ", mean 0"))
        ax1.set_title("ratings")
        rate = self.beats_rate()
        im = ax2.imshow(rate, vmin=0, vmax=1, cmap="RdBu_r")
        ax2.set_xticks(range(K), self.names, rotation=45, ha="right")
        ax2.set_yticks(range(K), self.names)
        for i in range(K):
            for j in range(K):
                if i != j and not math.isnan(rate[i, j]):
                    ax2.text(j, i, f"{rate[i, j]:.2f}", ha="center", va="center", fontsize=8)
        ax2.set_title("head to head: row ahead of column,\nshare of decisive encounters")
        fig.colorbar(im, ax=ax2, shrink=0.8)
        fig.suptitle(f"{self.game['name']}, {self.game.get('num_players', '?')} players, {self.num_games} games")
        p = Path(path)
        fig.savefig(p, dpi=110)
        plt.close(fig)
        return p

    def save(self, out_dir: str | Path) -> dict[str, Path]:
        """Write ``arena.json``, ``arena.md`` and ``arena.png`` into ``out_dir`` (created), and
        ``games.json`` (replays: ``python -m monkey_envs.replay``) when the games were recorded."""
        d = Path(out_dir)
        d.mkdir(parents=True, exist_ok=True)
        files = {"json": d / "arena.json", "md": d / "arena.md", "png": d / "arena.png"}
        files["json"].write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        files["md"].write_text(self.markdown())
        self.plot(files["png"])
        if self.replays is not None:
            from monkey_envs.replay import save_replays

            files["games"] = save_replays(d / "games.json", self.game_obj, self.replays)
        return files


def _text_table(head: Sequence[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h)) for i, h in enumerate(head)]
    line = "  ".join(f"{h:<{w}}" if i == 0 else f"{h:>{w}}" for i, (h, w) in enumerate(zip(head, widths, strict=True)))
    out = [line, "-" * len(line)]
    for r in rows:
        out.append(
            "  ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        )
    return "\n".join(out)


def _md_table(head: Sequence[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


# ====================================================================== running


def parse_agent_specs(specs: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split ``LABEL=SPEC`` entries; default labels are the names (``ppo:`` paths shortened).

    Returns:
        ``(specs, labels)``; repeated labels get ``#i`` suffixes.

    Raises:
        ValueError: an empty entry or label.
    """
    out_specs, labels = [], []
    for s in specs:
        if not isinstance(s, str) or not s.strip():
            raise ValueError(f"agent specs must be non-empty strings, got {s!r}")
        label, spec = None, s
        head, sep, tail = s.partition("=")
        if sep and ":" not in head and "/" not in head:
            if not head or not tail:
                raise ValueError(f"agent entry {s!r}: expected LABEL=SPEC")
            label, spec = head, tail
        if label is None:
            label = spec
            if spec.startswith("ppo:"):
                p = Path(spec[4:])
                label = f"ppo:{p.parent.name}" if p.stem == "model" else f"ppo:{p.parent.name}/{p.stem}"
        out_specs.append(spec)
        labels.append(label)
    final = [f"{x}#{i}" if labels.count(x) > 1 else x for i, x in enumerate(labels)]
    return out_specs, final


def run_arena(
    game: Any,
    agents: Sequence[Any],
    num_games: int = 2000,
    seed: int = 0,
    *,
    seating: str = "auto",
    names: Sequence[str] | None = None,
    max_steps: int = 10_000,
    batch_size: int | None = DEFAULT_BATCH,
    prior: float = DEFAULT_PRIOR,
    anchor: str | None = None,
    bootstrap: int = 0,
    record_games: bool = False,
    ray: str | None = None,
    imports: Sequence[str] = (),
    **game_options: Any,
) -> ArenaResult:
    """Play a seat-balanced tournament and analyse it.

    Args:
        game: a game name (with ``game_options``, e.g. ``num_players=4``) or a built game.
        agents: ``K >= 2`` agent specs (``LABEL=SPEC`` allowed) or agent objects.
        num_games: games to play at least (rounded up to whole rounds of line-ups).
        seed: derives the deals and the agents' seeds (agent ``i``: ``seed + i``).
        seating: ``"auto"``, ``"permutations"`` or ``"rotations"``.
        names: labels (default: from the specs, see :func:`parse_agent_specs`).
        max_steps: cap on decisions per game (cut games are draws).
        batch_size: games per batch of the core (``None``: all at once).
        prior, anchor, bootstrap: passed to :func:`agents.ratings.fit_ratings` (the bootstrap
            resamples deals).
        record_games: keep every game's moves (``ArenaResult.replays``; saved as ``games.json``).
        ray: ``None`` plays here; an address spreads the batches over Ray workers, one task of
            one CPU a batch (``"local"``: a Ray of this process's own; ``"auto"``, ``"host:6379"``
            or ``"ray://host:10001"``: a running cluster). The results are the local run's
            (:func:`agents.evaluate.play_tournament`); agents must be names or factories.
        imports: plug-in modules each Ray worker imports first (the CLI's ``--import``).

    Returns:
        An :class:`ArenaResult`; the same arguments give the same results (wall times aside).

    Raises:
        ValueError: an unknown game or agent, bad options, or too few games.
    """
    from monkey_envs.games import resolve_game

    g = resolve_game(game, **game_options)
    if len(agents) < 2:
        raise ValueError(f"an arena needs at least 2 agents, got {len(agents)}")
    str_specs = [a if isinstance(a, str) else getattr(a, "name", type(a).__name__) for a in agents]
    parsed, labels = parse_agent_specs(str_specs)
    objs = [p if isinstance(a, str) else a for a, p in zip(agents, parsed, strict=True)]
    if names is not None:
        if len(names) != len(agents):
            raise ValueError(f"names must have {len(agents)} entries, got {len(names)}")
        labels = [str(x) for x in names]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agent labels must be distinct, got {labels}")
    if anchor is not None and anchor not in labels:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {labels}")
    K, P = len(labels), int(g.num_players)
    sched = schedule(K, P, num_games, seed, seating)
    rec = play_tournament(
        g,
        objs,
        seed,
        sched.seeds,
        sched.seat_agent,
        max_steps=max_steps,
        batch_size=batch_size,
        labels=labels,
        record_actions=record_games,
        ray_address=ray,
        imports=imports,
    )
    results = agent_results(rec, labels)
    together, ahead = head_to_head(rec, K)
    seats, credit = rating_data(rec, K)
    fit = fit_ratings(
        seats, credit, labels, prior=prior, anchor=anchor, bootstrap=bootstrap, groups=sched.deal, seed=seed
    )
    analytics = {a.name: x for a in results if (x := stats_summary(g, a)) is not None} or None
    return ArenaResult(
        game={"name": g.spec.name, **g.config},
        specs=str_specs,
        names=labels,
        seed=int(seed),
        requested_games=int(num_games),
        num_games=rec.num_games,
        seating=sched.seating,
        rounds=sched.rounds,
        lineups=[[labels[k] for k in row] for row in sched.lineups.tolist()],
        agents=results,
        together=together,
        ahead=ahead,
        ratings=fit,
        analytics=analytics,
        analytics_title=g.stats_title,
        end_reasons=rec.end_reasons(),
        mean_length=float(rec.lengths.mean()),
        truncated=int(rec.truncated.sum()),
        seconds=rec.seconds,
        replays=replay_records(g, rec, labels) if record_games else None,
        game_obj=g,
    )


# ====================================================================== command line


def parse_value(text: str) -> Any:
    """A ``--set`` value: int, float, ``true``/``false``, ``none``/``null``, else the string."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m agents.arena",
        description="Seat-balanced tournament of agents on a monkey-envs game: win rates, head to head, ratings.",
    )
    p.add_argument("--game", required=True, help="a registered game name (monkey_envs.games.GAMES)")
    add_import_option(p)
    p.add_argument("--players", type=int, default=None, help="number of players (game option num_players)")
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help="agent names or LABEL=SPEC (e.g. best=ppo:runs/x/model.zip)",
    )
    p.add_argument("--games", type=int, default=2000, help="games to play at least (rounded up to whole rounds)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", dest="options", action="append", default=[], metavar="KEY=VALUE", help="game option")
    p.add_argument("--seating", choices=SEATINGS, default="auto")
    p.add_argument("--anchor", default=None, help="agent label whose rating is fixed at 0 (default: mean 0)")
    p.add_argument("--bootstrap", type=int, default=0, help="bootstrap resamples for rating intervals (0: Hessian)")
    p.add_argument("--prior", type=float, default=DEFAULT_PRIOR, help="prior precision of the rating fit")
    p.add_argument("--max-steps", type=int, default=10_000)
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH, help="games per batch of the core")
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="spread the batches over Ray workers (no ADDRESS: a Ray of this run's own; 'auto', "
        "HOST:PORT or ray://HOST:PORT: a running cluster); same results as the local run",
    )
    p.add_argument("--out", default=None, help="output folder (default runs/arena__<game>__<P>p__<seed>__<time>)")
    p.add_argument("--quiet", action="store_true", help="no table on the terminal")
    p.add_argument(
        "--save-games",
        action="store_true",
        help="also write every game (seed + moves) to games.json: python -m monkey_envs.replay FILE",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    # small policy networks run several times faster on one torch thread (set before torch loads)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    args = build_parser().parse_args(argv)
    options: dict[str, Any] = {}
    for item in args.options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print(f"error: --set expects KEY=VALUE, got {item!r}", file=sys.stderr)
            return 2
        options[key.strip()] = parse_value(value)
    if args.players is not None:
        options["num_players"] = args.players
    try:
        import_plugins(args.imports)
        result = run_arena(
            args.game,
            args.agents,
            num_games=args.games,
            seed=args.seed,
            seating=args.seating,
            max_steps=args.max_steps,
            batch_size=args.batch_size,
            prior=args.prior,
            anchor=args.anchor,
            bootstrap=args.bootstrap,
            record_games=args.save_games,
            ray=args.ray,
            imports=args.imports,
            **options,
        )
    except (ValueError, TypeError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result.command = "python -m agents.arena " + shlex.join(list(argv) if argv is not None else sys.argv[1:])
    P = result.game.get("num_players", "?")
    out = args.out or f"runs/arena__{result.game['name']}__{P}p__{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
    files = result.save(out)
    if not args.quiet:
        print(result.table())
    print("\nwrote " + ", ".join(str(f) for f in files.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
