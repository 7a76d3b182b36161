"""Run outputs beyond the model: a learning curve recorded during training, its plot, a Markdown report.

Three pieces, each usable on its own (``training.run`` wires them into a run):

- :class:`CurveCallback` -- an SB3 callback that plays seat-balanced evaluation games of the
  current policy against fixed opponents at the start of training, every ``every`` timesteps and
  at the end, appending one row per opponent to a CSV (``timesteps, opponent, games, win_rate,
  ci_low, ci_high, mean_score, wall_seconds``) and logging ``eval/win_rate_<opponent>`` to the
  model's logger (SB3's ``progress.csv`` / TensorBoard)::

      from agents.policy import PolicyAgent
      from training.outputs import CurveCallback, plot_learning_curve

      curve = CurveCallback(
          game,
          ["random", "greedy"],
          make_policy=lambda model: PolicyAgent(model, game, deterministic=True, name="trained"),
          every=50_000,
          num_games=200,
          seed=1_000_003,
          csv_path=run_dir / "curve.csv",
      )
      model.learn(400_000, callback=[win_rate_callback(), curve])
      plot_learning_curve(run_dir / "curve.csv", run_dir / "curve.png", num_players=game.num_players)

- :func:`plot_learning_curve` -- win rate against timesteps, one line per opponent with its 95%
  Wilson interval as a band (matplotlib's Agg canvas: no display needed, no global backend set).
- :func:`write_eval_md` -- ``eval.md``: a readable report of the ``summary`` that
  ``training.run`` saves as ``eval.json``.

matplotlib, torch and Stable-Baselines3 are imported lazily or only where needed, except the
callback base class (this module is only imported by training code, which has SB3).
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

#: Columns of the learning-curve CSV, in order.
CURVE_COLUMNS = ("timesteps", "opponent", "games", "win_rate", "ci_low", "ci_high", "mean_score", "wall_seconds")


# ====================================================================== learning curve


class CurveCallback(BaseCallback):
    """Evaluate the current policy periodically during training (the learning curve).

    Evaluations happen when training starts, whenever ``num_timesteps`` has reached or crossed a
    multiple of ``every`` (checked at the start of every rollout, after the update of the one
    before, so a point lands on the first rollout boundary at or past the multiple), and when
    training ends (after the last update). A point at ``T`` timesteps is therefore always the
    policy trained on those ``T`` steps -- every update of them included, the last point the final
    policy. Each evaluation plays
    ``play_games(game, [policy, *line_up], num_games, seed=seed)`` against every opponent's
    line-up (:func:`agents.evaluate.opponent_lineup`) -- the same deals every time, so points are
    comparable -- and

    - appends one row per opponent to ``csv_path`` (columns :data:`CURVE_COLUMNS`; the header is
      written when the file is new or empty; the file is closed after each evaluation, so it can
      be read while training runs),
    - records ``eval/win_rate_<opponent>`` on ``self.logger`` (written with SB3's next dump; the
      final evaluation is dumped at once),
    - appends the same rows, as dicts, to :attr:`points`.

    Args:
        game: the built core game the policy plays (``P = game.num_players`` seats).
        opponents: agent names (each plays every other seat) or line-ups ``a+b+c`` (one agent
            per other seat); built once here with ``opponent_lineup(name, game, seed + 1)``.
        make_policy: turns the model being trained into a batched agent (an object with
            ``act(obs (B, D) float32, mask (B, A) bool) -> (B,) int64``), e.g.
            ``lambda m: PolicyAgent(m, game, deterministic=True)``; called at every evaluation.
        every: timesteps between evaluations (>= 1).
        num_games: seat-balanced games per opponent and evaluation (>= 1; a multiple of ``P``
            balances seats exactly).
        seed: seed of the evaluation deals (the same for every evaluation).
        csv_path: the CSV to append to (its folder is created if missing).
        verbose: ``1`` prints one line per evaluation.

    Attributes:
        points: every evaluated row so far, as dicts keyed by :data:`CURVE_COLUMNS`
            (``timesteps int, opponent str, games int, win_rate/ci_low/ci_high float,
            mean_score float | None, wall_seconds float``).

    Raises:
        ValueError: no opponents, ``every < 1``, ``num_games < 1``, or an unknown opponent.
    """

    def __init__(
        self,
        game: Any,
        opponents: Sequence[str],
        make_policy: Callable[[Any], Any],
        every: int,
        num_games: int,
        seed: int,
        csv_path: str | Path,
        verbose: int = 0,
    ) -> None:
        super().__init__(verbose)
        from agents.evaluate import opponent_lineup

        if not opponents:
            raise ValueError("CurveCallback needs at least one opponent")
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive int, got {every!r}")
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive int, got {num_games!r}")
        self.game = game
        self.opponent_names = [str(o) for o in opponents]
        self.opponents = {name: opponent_lineup(name, game, int(seed) + 1) for name in self.opponent_names}
        self.make_policy = make_policy
        self.every = int(every)
        self.num_games = int(num_games)
        self.seed = int(seed)
        self.csv_path = Path(csv_path)
        self.points: list[dict[str, Any]] = []
        self._t0 = time.perf_counter()
        self._next_eval = 0
        self._last_eval: int | None = None

    # ------------------------------------------------------------------ SB3 hooks
    def _on_training_start(self) -> None:
        self._t0 = time.perf_counter()
        self.evaluate()
        self._next_eval = (self.num_timesteps // self.every + 1) * self.every

    def _on_rollout_start(self) -> None:
        # a rollout starts after the previous rollout's update: the policy of these timesteps
        if self.num_timesteps >= self._next_eval:
            self.evaluate()
            self._next_eval = (self.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        if self._last_eval != self.num_timesteps:
            self.evaluate()
            self.logger.dump(self.num_timesteps)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self) -> list[dict[str, Any]]:
        """Play the evaluation games now (at ``self.num_timesteps``); record and return the new rows."""
        from agents.evaluate import play_games

        policy = self.make_policy(self.model)
        rows: list[dict[str, Any]] = []
        for name in self.opponent_names:
            opponents, labels = self.opponents[name]
            result = play_games(
                self.game, [policy, *opponents], self.num_games, seed=self.seed, names=["trained", *labels]
            )
            me = result.agents[0]
            rows.append(
                {
                    "timesteps": int(self.num_timesteps),
                    "opponent": name,
                    "games": int(result.num_games),
                    "win_rate": float(me.win_rate),
                    "ci_low": float(me.ci_low),
                    "ci_high": float(me.ci_high),
                    "mean_score": None if me.mean_score is None else float(me.mean_score),
                    "wall_seconds": round(time.perf_counter() - self._t0, 3),
                }
            )
            self.logger.record(f"eval/win_rate_{name}", float(me.win_rate))
            if self.verbose:
                print(
                    f"[curve] {self.num_timesteps} steps: vs {name} win rate {me.win_rate:.3f} "
                    f"[{me.ci_low:.3f}, {me.ci_high:.3f}]"
                )
        _append_rows(self.csv_path, rows)
        self.points.extend(rows)
        self._last_eval = int(self.num_timesteps)
        return rows


def _append_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CURVE_COLUMNS)
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if row[k] is None else row[k] for k in CURVE_COLUMNS})


def read_curve(csv_path: str | Path) -> list[dict[str, Any]]:
    """The rows of a learning-curve CSV written by :class:`CurveCallback`, typed.

    Returns:
        One dict per row, keys :data:`CURVE_COLUMNS`: ``timesteps``/``games`` int, ``opponent``
        str, ``win_rate``/``ci_low``/``ci_high``/``wall_seconds`` float, ``mean_score`` float or
        ``None`` (empty cell).

    Raises:
        ValueError: the file lacks a column of :data:`CURVE_COLUMNS`.
    """
    with Path(csv_path).open(newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in CURVE_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{str(csv_path)!r} is not a learning-curve CSV: missing columns {missing}")
        out = []
        for r in reader:
            out.append(
                {
                    "timesteps": int(r["timesteps"]),
                    "opponent": r["opponent"],
                    "games": int(r["games"]),
                    "win_rate": float(r["win_rate"]),
                    "ci_low": float(r["ci_low"]),
                    "ci_high": float(r["ci_high"]),
                    "mean_score": float(r["mean_score"]) if r["mean_score"] not in ("", None) else None,
                    "wall_seconds": float(r["wall_seconds"]),
                }
            )
    return out


def plot_learning_curve(
    csv_path: str | Path, png_path: str | Path, title: str = "", num_players: int | None = None
) -> Path:
    """Plot win rate against timesteps from a learning-curve CSV and save it as a PNG.

    One line per opponent (in order of first appearance) with its 95% Wilson interval as a
    shaded band; y from 0 to 1; a dashed line at the fair share ``1 / num_players`` when given.
    Uses matplotlib's ``Figure`` with the Agg canvas directly, so no display is needed and the
    global pyplot backend is left alone. A CSV without rows gives an empty, labelled plot.

    Args:
        csv_path: the CSV written by :class:`CurveCallback`.
        png_path: where to write the PNG (its folder is created if missing).
        title: plot title (default: none).
        num_players: seats of the game, for the fair-share line; ``None`` omits it.

    Returns:
        ``png_path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: the CSV lacks a learning-curve column.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = read_curve(csv_path)
    by_opponent: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_opponent.setdefault(r["opponent"], []).append(r)

    fig = Figure(figsize=(7.0, 4.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for name, pts in by_opponent.items():
        pts = sorted(pts, key=lambda r: r["timesteps"])
        x = [r["timesteps"] for r in pts]
        (line,) = ax.plot(x, [r["win_rate"] for r in pts], marker="o", markersize=3, label=f"vs {name}")
        ax.fill_between(
            x, [r["ci_low"] for r in pts], [r["ci_high"] for r in pts], color=line.get_color(), alpha=0.2, linewidth=0
        )
    if num_players:
        ax.axhline(1.0 / num_players, color="grey", linestyle="--", linewidth=1, label=f"fair share 1/{num_players}")
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("timesteps")
    ax.set_ylabel("win rate (95% Wilson interval)")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if not rows:
        ax.text(0.5, 0.5, "no evaluation points", ha="center", va="center", transform=ax.transAxes)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best")
    fig.tight_layout()
    out = Path(png_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png")
    return out


def plot_fit_curve(history: list[dict[str, Any]], png_path: str | Path, title: str = "") -> Path:
    """Plot a pretraining fit's losses against its epochs and save it as a PNG.

    Args:
        history: the fit's ``history`` (``training.rollout_q.fit_action_values`` or
            ``training.pretrain.behaviour_clone``): one dict per epoch with ``"epoch"`` and one or
            more loss values (``train_bce``; ``cross_entropy`` and ``value_mse``), one line each.
        png_path: where to write the PNG (its folder is created if missing).
        title: plot title (default: none).

    Returns:
        ``png_path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: an entry without an integer ``"epoch"``.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    for h in history:
        if not isinstance(h, dict) or isinstance(h.get("epoch"), bool) or not isinstance(h.get("epoch"), int):
            raise ValueError(f"a fit history entry needs an integer 'epoch', got {h!r}")
    keys = [k for k in dict.fromkeys(k for h in history for k in h) if k != "epoch"]
    fig = Figure(figsize=(7.0, 4.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for k in keys:
        pts = [(h["epoch"], h[k]) for h in history if isinstance(h.get(k), (int, float))]
        ax.plot([e for e, _ in pts], [v for _, v in pts], marker="o", markersize=3, label=k.replace("_", " "))
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if keys:
        ax.legend(loc="best")
    else:
        ax.text(0.5, 0.5, "no epochs", ha="center", va="center", transform=ax.transAxes)
    fig.tight_layout()
    out = Path(png_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png")
    return out


# ====================================================================== Markdown report


def write_eval_md(summary: dict[str, Any], path: str | Path) -> Path:
    """Write a Markdown report of a finished run.

    Args:
        summary: the dict ``training.run.run`` saves as ``eval.json``: ``run_dir``, ``game``
            (``{"name": ..., **game.config}``), ``algo``, ``seed``, ``training`` (``timesteps``,
            ``seconds``, ``steps_per_second``, ``opponent``), ``evaluation_seconds`` and
            ``evaluation`` (``opponent -> EvalResult.to_dict()``, the trained agent first in
            ``agents``). Optional: ``pretraining`` (``training.run.pretrain``'s report),
            ``selfplay`` (``members``, ``final_weights``, ``games``, ``learner_win_rate``),
            ``analytics`` (a dict of statistics, listed as given, under ``analytics_title``), ``fit_png`` and ``curve_png``
            (file names, linked as images relative to the report). Missing keys are left out or shown as ``-``.
        path: where to write (e.g. ``<run_dir>/eval.md``; the folder is created if missing).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(eval_markdown(summary))
    return out


def eval_markdown(summary: dict[str, Any]) -> str:
    """The Markdown text :func:`write_eval_md` writes (same ``summary``)."""
    game = summary.get("game") or {}
    if isinstance(game, dict):
        game_name = str(game.get("name", "?"))
        options = {k: v for k, v in game.items() if k != "name"}
    else:
        game_name, options = str(game), {}
    algo = summary.get("algo", "?")
    lines = [f"# {game_name} -- {algo}, seed {summary.get('seed', '?')}", ""]
    if summary.get("run_dir"):
        lines += [f"Run folder: `{summary['run_dir']}`", ""]

    lines += ["## Training", ""]
    tr = summary.get("training") or {}
    facts = [
        ("game", f"{game_name} {_fmt_options(options)}".strip()),
        ("algorithm", str(algo)),
        ("seed", _fmt(summary.get("seed"))),
        ("training opponent", _fmt(tr.get("opponent"))),
    ]
    if tr.get("timesteps") == 0:  # no PPO phase (the pretrained policy is the model): no 0-step lines
        facts.append(("PPO", "none (total_timesteps 0: the pretrained policy is the trained model)"))
    else:
        facts += [
            ("timesteps", _fmt_int(tr.get("timesteps"))),
            ("training time", _fmt_seconds(tr.get("seconds"))),
            ("steps per second", _fmt_int(tr.get("steps_per_second"))),
        ]
    facts.append(("evaluation time", _fmt_seconds(summary.get("evaluation_seconds"))))
    lines += [f"- {k}: {v}" for k, v in facts]
    lines.append("")

    evaluation = summary.get("evaluation") or {}
    lines += ["## Evaluation", ""]
    if evaluation:
        lines += [
            "Seat-balanced games of the trained policy against each opponent (which plays every other seat); "
            "win rate with its 95% Wilson interval.",
            "",
            "| opponent | games | wins | draws | losses | win rate | 95% CI |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, result in evaluation.items():
            agents = (result or {}).get("agents") or []
            me = agents[0] if agents else {}
            games = me.get("games", result.get("num_games") if result else None)
            ci = (
                f"[{me['ci_low']:.3f}, {me['ci_high']:.3f}]"
                if me.get("ci_low") is not None and me.get("ci_high") is not None
                else "-"
            )
            win_rate = f"{me['win_rate']:.3f}" if me.get("win_rate") is not None else "-"
            cells = [_md_cell(name), _fmt(games), _fmt(me.get("wins")), _fmt(me.get("draws"))]
            cells += [_fmt(me.get("losses")), win_rate, ci]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    else:
        lines += ["No evaluation games were played.", ""]

    pre = summary.get("pretraining")
    if pre and pre.get("objective") == "rollout_q":
        h = pre.get("holdout") or {}
        lines += ["## Pretraining (teacher's action values, rollout_q)", ""]
        lines += [
            f"- teacher: {_fmt(pre.get('teacher'))}, {_fmt_int(pre.get('games'))} games, "
            f"{_fmt_int(pre.get('states'))} positions played out once per legal action "
            f"({_fmt_int(pre.get('rollouts'))} games), {_fmt(pre.get('epochs'))} epochs",
            f"- held-out positions: {_fmt_int(h.get('states'))}; the policy's choice is the teacher's in "
            f"{_fmt(h.get('agreement_with_teacher'))}; sampled value of its choice {_fmt(h.get('q_of_choice'))} "
            f"vs the teacher's choice {_fmt(h.get('q_of_teacher_choice'))}",
            f"- time: recording {_fmt_seconds(pre.get('record_seconds'))} (probing "
            f"{_fmt_seconds(pre.get('probe_seconds'))}, play-outs {_fmt_seconds(pre.get('play_out_seconds'))} on "
            f"{_fmt_int(pre.get('workers'))} workers), fitting {_fmt_seconds(pre.get('seconds'))}",
            "",
        ]
    elif pre:
        lines += ["## Pretraining (imitation)", ""]
        lines += [
            f"- teacher: {_fmt(pre.get('teacher'))}, {_fmt_int(pre.get('games'))} games, "
            f"{_fmt_int(pre.get('decisions'))} decisions, {_fmt(pre.get('epochs'))} epochs",
            f"- teacher's moves reproduced: {_fmt(pre.get('accuracy'))}",
            f"- time: recording {_fmt_seconds(pre.get('record_seconds'))}, fitting {_fmt_seconds(pre.get('seconds'))}",
            "",
        ]
    sp = summary.get("selfplay")
    if sp and sp.get("members"):
        lines += [
            "## Self-play pool",
            "",
            "| member | final weight | episodes | learner's win rate (smoothed) |",
            "|---|---:|---:|---:|",
        ]
        for name, w, g, wr in zip(
            sp["members"], sp["final_weights"], sp["games"], sp["learner_win_rate"], strict=False
        ):
            lines.append(f"| {_md_cell(name)} | {w:.3f} | {g} | {wr:.3f} |")
        lines.append("")

    analytics = summary.get("analytics")
    if analytics:
        lines += [f"## {summary.get('analytics_title', 'Game statistics')}", ""]
        lines += _bullets(analytics) if isinstance(analytics, dict) else [f"- {analytics}"]
        lines.append("")

    fit = summary.get("fit_png")
    if fit:
        lines += ["## Pretraining fit", "", f"![pretraining fit]({Path(str(fit)).name})", ""]
    curve = summary.get("curve_png")
    if curve:
        lines += ["## Learning curve", "", f"![learning curve]({Path(str(curve)).name})", ""]
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.3f}"
    if isinstance(value, float):
        return str(int(value))
    return str(value)


def _fmt_int(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return f"{round(value):,}"
    return _fmt(value)


def _fmt_seconds(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.1f} s"
    return _fmt(value)


def _fmt_options(options: dict[str, Any]) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in options.items()) + ")" if options else ""


def _md_cell(text: Any) -> str:
    return str(text).replace("|", "\\|")


def _bullets(data: dict[str, Any], indent: int = 0) -> list[str]:
    pad = "  " * indent
    lines = []
    for k, v in data.items():
        if isinstance(v, dict):
            lines.append(f"{pad}- {k}:")
            lines += _bullets(v, indent + 1)
        else:
            lines.append(f"{pad}- {k}: {_fmt(v)}")
    return lines
