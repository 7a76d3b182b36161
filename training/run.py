"""Train an agent, save it with its resolved config, and evaluate it.

::

    python -m training.run                                   # the embedded default
    python -m training.run --config configs/smoke.yaml       # a YAML config
    python -m training.run --set total_timesteps=50000 --set ppo.learning_rate=3e-4
    python -m training.run --help-config                     # every key, default and meaning

A run trains sb3-contrib's ``MaskablePPO`` in the native batched SB3 VecEnv
(:class:`monkey_envs.core.sb3_vec.MonkeyVecEnv`: opponents move inside ``step``, the learner's
seat is random per episode), then plays seat-balanced evaluation games with
:func:`agents.evaluate.play_games` and prints win rates with 95% Wilson intervals. The embedded
default run (:data:`training.config.DEFAULT_RUN`, spelled out in
``configs/monkey_fun_2p_vs_greedy.yaml``) is the strongest Monkey Fun (2 players) recipe: the
policy fitted to greedy's sampled action values (``pretrain.objective: rollout_q``, play-outs on
every CPU core), no PPO phase, evaluated against random and greedy; plain PPO against greedy
(the base values of every key) is ``configs/monkey_fun_2p_plain_ppo.yaml``.

Opponents: ``env.opponent`` is one agent or a list (a mix: each episode, each opponent seat
draws one, see :class:`monkey_envs.core.opponents.OpponentPool`); ``selfplay.enabled`` adds
frozen snapshots of the learner to that pool (:mod:`training.selfplay`); ``pretrain.teacher``
trains the policy from a teacher first, by imitation (:mod:`training.pretrain`) or by fitting the
teacher's sampled action values (``pretrain.objective: rollout_q``, :mod:`training.rollout_q`;
with ``total_timesteps: 0`` that is the whole training); ``env.learner_actions`` restricts the
learner (ablations).

Each run writes ``runs/<game>__<algo>__<seed>__<time>/``:

- ``config.yaml``: the resolved config (rerun it with ``--config``),
- ``model.zip``: the trained model (SB3's zip, pickled: for resuming in a trusted setting), and
  beside it ``model.safetensors`` + ``model.json``: its weights and network description, the safe
  form ``make_agent("ppo:<run>/model.zip", game)`` loads (:mod:`agents.policy`; no code from the
  files runs),
- ``checkpoints/model_<steps>_steps.zip`` (+ ``.safetensors`` / ``.json``): every ``checkpoint_every`` steps,
- ``snapshots/snapshot_<steps>.zip`` (+ ``.safetensors`` / ``.json``): self-play snapshots (rate them
  with ``agents.arena``),
- ``progress.csv`` and (``tensorboard: true``, the default) ``tb/``: SB3's training log (losses, fps, rollout win
  rate, learning-curve points, self-play pool facts),
- ``curve.csv`` / ``curve.png``: win rate (95% Wilson band) vs each evaluation opponent over
  training steps, every ``eval.curve_every`` steps,
- ``eval.json`` / ``eval.md``: training time and speed, pretraining, and the final evaluation
  per opponent, with the game's analytics of the trained agent (``stats_summary``) and its
  decision report (``decision_report``; Funky Monkey: bluff analytics and the bluff rate by
  context).

Errors: every config or ``--set`` problem prints ``error: <key>: <why>`` and exits 2 before any
folder is written; ``--dry-run`` loads no model (it checks that named model files exist). A
loss or a parameter that turns NaN/infinite stops training (``error: training diverged: ...``,
exit 2); the checkpoints written before stay, no final model is saved.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from training.config import ConfigError, TrainConfig, cut, describe, dump_config, load_config, short

#: Agent name prefixes that name saved models (``--dry-run`` checks their files without loading them).
MODEL_PREFIXES = {"ppo:": False, "ppo+pickle:": True}


class TrainingDiverged(ValueError):
    """A loss or a policy parameter became NaN or infinite during training."""


# ====================================================================== setup


def check_agent(name: str, game: Any, load: bool = True, seed: int = 0) -> None:
    """Check one agent name: build it (``load=True``), or -- for a saved model with ``load=False``
    -- only check that its files exist, reading nothing.

    Raises:
        ValueError: an unknown agent, an agent for another game, or a missing / unsafe model file.
    """
    from agents import make_agent
    from agents.policy import check_model_files  # registers the ppo+pickle: prefix too

    for prefix, trusted in MODEL_PREFIXES.items():
        if not load and name.startswith(prefix):
            check_model_files(name[len(prefix) :], trusted=trusted)
            return
    make_agent(name, game, seed)


def check_agents(cfg: TrainConfig, game: Any, load: bool = True) -> None:
    """Build every opponent named in ``cfg`` once, so a typo fails before training.

    Args:
        load: build saved-model agents too (``False``, ``--dry-run``: only check their files exist).

    Raises:
        ConfigError: an unknown agent, an agent for another game, or a missing model file.
    """
    from agents.evaluate import LINEUP_SEP, opponent_lineup

    for key, names in (
        ("env.opponent", cfg.opponents),
        ("pretrain.teacher", [cfg.pretrain.teacher] if cfg.pretrain.teacher else []),
    ):
        for name in names:
            try:
                check_agent(name, game, load)
            except ValueError as exc:
                raise ConfigError(key, f"agent {short(name)}: {exc}") from exc
    for name in cfg.eval.opponents:
        try:
            if "ppo+pickle:" in name:
                raise ValueError(
                    f"{LINEUP_SEP!r} joins the agents of a line-up, so a ppo+pickle: model cannot be an evaluation "
                    "opponent; convert it (python -m agents.policy convert PATH) and name it ppo:PATH"
                )
            if load:
                opponent_lineup(name, game, 0)
                continue
            parts = name.split(LINEUP_SEP)
            if len(parts) not in (1, game.num_players - 1):
                raise ValueError(
                    f"line-up {short(name)} names {len(parts)} agents; {game.num_players} players need "
                    f"{game.num_players - 1} opponents"
                )
            for part in parts:
                check_agent(part, game, load)
        except ValueError as exc:
            raise ConfigError("eval.opponents", f"{short(name)}: {exc}") from exc
    if cfg.env.learner_actions is not None:
        try:
            game.action_filter(cfg.env.learner_actions)
        except ValueError as exc:
            raise ConfigError("env.learner_actions", str(exc)) from exc
    if cfg.init_model is not None:
        from agents.policy import check_model_files

        try:
            if Path(cfg.init_model).suffix != ".zip":  # an SB3 zip's tensors load weights-only
                check_model_files(cfg.init_model)
            elif not Path(cfg.init_model).is_file():
                raise ValueError(f"no saved model at {short(cfg.init_model, 200)}")
        except ValueError as exc:
            raise ConfigError("init_model", str(exc)) from exc
    cfg.check_players(game.num_players)
    if cfg.tensorboard:
        try:
            import tensorboard  # noqa: F401
        except ImportError:
            raise ConfigError(
                "tensorboard",
                "the tensorboard package is not installed (pip install 'monkey-envs[train]', or set tensorboard: false)",
            ) from None


def make_run_dir(cfg: TrainConfig) -> Path:
    """Create ``<runs_dir>/<game>__<algo>__<seed>__<time>``, or ``...-1``, ``-2``, ... when a run
    folder of that name exists already.

    The folder is claimed atomically (an exclusive ``mkdir``, retried with the next suffix when it
    fails because the folder exists), so two runs started in the same second with the same config
    -- even in two processes racing each other -- never share a folder.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_dir) / f"{cfg.env.game}__{cfg.algo}__{cfg.seed}__{stamp}"
    base.parent.mkdir(parents=True, exist_ok=True)
    path, k = base, 1
    while True:
        try:
            path.mkdir()  # exclusive: fails if another run holds the name, whenever it took it
            return path
        except FileExistsError:
            path = base.with_name(f"{base.name}-{k}")
            k += 1


def build_opponent(cfg: TrainConfig) -> Any:
    """``env.opponent`` as the driver takes it: a name, or an ``OpponentPool`` for a mix or self-play."""
    from monkey_envs.core.opponents import OpponentPool

    if isinstance(cfg.env.opponent, str) and not cfg.selfplay.enabled:
        return cfg.env.opponent
    memory = cfg.selfplay.win_rate_memory if cfg.selfplay.enabled else None
    return OpponentPool(cfg.opponents, weights=cfg.env.opponent_weights, memory=memory)


def build_env(cfg: TrainConfig) -> Any:
    """The training VecEnv (native batched core, opponents inside ``step``), monitored."""
    from stable_baselines3.common.vec_env import VecMonitor

    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    venv = MonkeyVecEnv(
        cfg.env.game,
        num_envs=cfg.env.num_envs,
        opponent=build_opponent(cfg),
        seed=cfg.seed,
        learner_seat=cfg.env.learner_seat,
        learner_actions=cfg.env.learner_actions,
        **cfg.env.game_options,
    )
    return VecMonitor(venv)


def build_model(cfg: TrainConfig, venv: Any) -> Any:
    """A fresh ``MaskablePPO`` with the config's hyperparameters (its network as
    :func:`agents.policy.policy_kwargs_for` builds it, which is also how a saved policy is rebuilt)."""
    from sb3_contrib import MaskablePPO

    from agents.policy import policy_kwargs_for
    from monkey_envs.games import make_game
    from training.policies import HEADS

    p = cfg.ppo
    policy_kwargs = policy_kwargs_for(
        p.features,
        list(p.net_arch),
        p.activation,
        p.board_channels,
        make_game(cfg.env.game, **cfg.env.game_options),
        game_name=cfg.env.game,
        game_options=dict(cfg.env.game_options),
    )
    return MaskablePPO(
        HEADS[p.head] or "MlpPolicy",
        venv,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        policy_kwargs=policy_kwargs,
        seed=cfg.seed,
        device=cfg.device,
        verbose=0,
    )


def load_initial_weights(model: Any, path: str, game: Any = None) -> None:
    """Load a saved model's policy weights into ``model`` (``init_model``).

    An SB3 ``.zip`` gives its policy and optimizer tensors (SB3 reads them with
    ``torch.load(weights_only=True)`` and does not unpickle the zip's ``data``); a ``.safetensors``
    / ``.json`` / run folder gives the policy weights of the safe form (:mod:`agents.policy`).

    Raises:
        ConfigError: a missing or damaged file, or a network of other shapes than the configured one.
    """
    where = (
        f"{short(path, 200)} does not fit the configured game and network (ppo.net_arch, ppo.features, game options)"
    )
    if Path(path).suffix != ".zip":
        from agents.policy import load_safe_policy

        try:
            loaded, _ = load_safe_policy(path, game)
            model.policy.load_state_dict(loaded.policy.state_dict(), strict=True)
        except (RuntimeError, ValueError) as exc:
            raise ConfigError("init_model", f"{where}: {cut(str(exc), 400)}") from exc
        return
    try:
        model.set_parameters(path, exact_match=True, device=model.device)
    except Exception as exc:  # a damaged zip can fail in zipfile, torch's weights-only unpickler or SB3
        raise ConfigError("init_model", f"{where}: {cut(str(exc), 400)}") from exc


def win_rate_callback() -> Any:
    """An SB3 callback logging ``rollout/win_rate``: the learner's mean score over its last 200
    episodes (1 a win, ``1 / k`` a win shared by ``k`` seats, 0 otherwise -- as the self-play
    pool's record counts it)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from monkey_envs.core.driver import learner_score

    class WinRate(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.outcomes: deque[float] = deque(maxlen=200)

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
                if done and "winners" in info and "learner_seat" in info:
                    self.outcomes.append(learner_score(info))
            return True

        def _on_rollout_end(self) -> None:
            if self.outcomes:
                self.logger.record("rollout/win_rate", float(np.mean(self.outcomes)))

    return WinRate()


def checkpoint_callback(every: int, folder: Path, game: Any, learner_actions: str | None) -> Any:
    """SB3's ``CheckpointCallback`` (``model_<steps>_steps.zip`` every ``every`` calls) that also
    writes each checkpoint's safe files (``.safetensors`` + ``.json``, :mod:`agents.policy`)."""
    from stable_baselines3.common.callbacks import CheckpointCallback

    from agents.policy import write_safe_files

    class SafeCheckpoint(CheckpointCallback):
        def _on_step(self) -> bool:
            out = super()._on_step()
            if self.n_calls % self.save_freq == 0:
                write_safe_files(self.model, self._checkpoint_path(extension="zip"), game, learner_actions)
            return out

    return SafeCheckpoint(every, str(folder), "model")


#: Logged values of an update that must stay finite (``train/explained_variance`` is NaN for a
#: rollout whose returns are all equal: no divergence).
WATCHED_LOGS = ("train/loss", "train/value_loss", "train/policy_gradient_loss", "train/entropy_loss", "train/approx_kl")


def non_finite(model: Any) -> str | None:
    """What is NaN or infinite in ``model``: the first policy parameter, else the first of the
    last update's logged losses (:data:`WATCHED_LOGS`); ``None`` when everything is finite."""
    import torch

    for name, param in model.policy.named_parameters():
        finite = torch.isfinite(param)
        if not bool(finite.all()):
            nan = int(torch.isnan(param).sum())
            return f"policy parameter {name!r} has {nan} NaN and {int((~finite).sum()) - nan} infinite values"
    values = getattr(getattr(model, "logger", None), "name_to_value", {}) or {}
    for key in WATCHED_LOGS:
        value = values.get(key)
        if isinstance(value, (int, float)) and not np.isfinite(value):
            return f"{key} is {value}"
    return None


def divergence_callback() -> Any:
    """An SB3 callback raising :class:`TrainingDiverged` when a policy parameter or a logged loss
    is NaN/infinite: at the start of training, after every update (at the next rollout's start,
    before anything plays or saves with the broken network) and at the end."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Divergence(BaseCallback):
        def _check(self, when: str) -> None:
            what = non_finite(self.model)
            if what is not None:
                raise TrainingDiverged(f"training diverged: {what} ({when}, {self.num_timesteps} steps)")

        def _on_training_start(self) -> None:
            self._check("before the first rollout")

        def _on_rollout_start(self) -> None:
            if self.num_timesteps > 0:
                self._check("after an update")

        def _on_step(self) -> bool:
            return True

        def _on_training_end(self) -> None:
            self._check("after the last update")

    return Divergence()


# ====================================================================== evaluation


def trained_agent(model: Any, cfg: TrainConfig, game: Any) -> Any:
    """The model as a batched agent named ``trained`` (keeping ``env.learner_actions``)."""
    from agents.policy import PolicyAgent

    allowed = None if cfg.env.learner_actions is None else game.action_filter(cfg.env.learner_actions)
    return PolicyAgent(model, game, deterministic=cfg.eval.deterministic, name="trained", allowed_actions=allowed)


def evaluate(model: Any, cfg: TrainConfig, game: Any, run_dir: Path | None = None) -> dict[str, Any]:
    """Seat-balanced games of the trained policy against each evaluation opponent.

    With ``eval.save_games`` the games go to ``run_dir / games_vs_<opponent>.json`` (replays).

    Returns:
        ``opponent name -> EvalResult.to_dict()``.
    """
    from agents.arena import stats_summary
    from agents.evaluate import opponent_lineup, play_games

    policy = trained_agent(model, cfg, game)
    out: dict[str, Any] = {}
    for name in cfg.eval.opponents:
        opponents, labels = opponent_lineup(name, game, cfg.eval.seed + 1)
        save = None
        if cfg.eval.save_games and run_dir is not None:
            save = run_dir / f"games_vs_{re.sub(r'[^A-Za-z0-9_.+-]+', '_', name)[:80]}.json"
        result = play_games(
            game,
            [policy, *opponents],
            cfg.eval.num_games,
            seed=cfg.eval.seed,
            names=["trained", *labels],
            save_games=save,
        )
        out[name] = result.to_dict()
        me = result.agents[0]
        mine = stats_summary(game, me)
        if mine is not None:
            out[name]["analytics"] = {a.name: stats_summary(game, a) for a in result.agents}
        print(f"\n--- trained vs {name}: {cfg.eval.num_games} seat-balanced games")
        print(result.table())
        if mine is not None:
            shown = ", ".join(f"{k} {_fmt(v)}" for k, v in _scalars(mine).items())
            print(f"    trained ({game.stats_title.lower()}): {shown}")
        print(
            f"==> win rate vs {name}: {me.win_rate:.3f} (95% CI [{me.ci_low:.3f}, {me.ci_high:.3f}]), "
            f"draws {me.draws}, losses {me.losses}"
        )
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _fmt(x: Any) -> str:
    return "-" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))


def _scalars(summary: dict[str, Any]) -> dict[str, Any]:
    """The numbers of a ``stats_summary`` (no totals, no intervals)."""
    return {k: v for k, v in summary.items() if v is None or isinstance(v, (int, float))}


# ====================================================================== main


def prepare(cfg: TrainConfig, load_models: bool = True) -> Any:
    """Build the game and every named opponent once; return the game.

    Args:
        load_models: build ``ppo:`` opponents too (``False``, for ``--dry-run``: only check that
            their files exist; nothing is loaded).

    Raises:
        ConfigError: bad game options or opponents (before any training starts).
    """
    from monkey_envs.games import make_game

    try:
        game = make_game(cfg.env.game, **cfg.env.game_options)
    except (TypeError, ValueError) as exc:
        key = "env.game" if "unknown game" in str(exc) else "env.game_options"
        raise ConfigError(key, cut(str(exc), 300)) from exc
    check_agents(cfg, game, load=load_models)
    from agents.registry import features_class, resolve_features

    try:
        features_class(cfg.ppo.features, game)  # an unknown name or a configuration it cannot serve
    except ValueError as exc:
        raise ConfigError("ppo.features", str(exc)) from exc
    cfg.ppo.features = resolve_features(cfg.ppo.features, game)  # the resolved config names it
    if cfg.ppo.head == "scorer" and cfg.ppo.features == "mlp":
        raise ConfigError("ppo.head", f"'scorer' needs per-action features; {cfg.env.game!r} uses 'mlp'")
    return game


def run(cfg: TrainConfig, game: Any = None) -> Path:
    """Train, save and evaluate as ``cfg`` says; return the run folder."""
    import torch

    if game is None:
        game = prepare(cfg)
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)

    # env and model first: a bad game option, opponent or init_model fails before a folder exists
    venv = build_env(cfg)
    model = build_model(cfg, venv)
    if cfg.init_model is not None:
        load_initial_weights(model, cfg.init_model, game)

    run_dir = make_run_dir(cfg)
    (run_dir / "config.yaml").write_text(dump_config(cfg))
    print(f"run folder: {run_dir}")
    print(
        f"training {cfg.algo} on {cfg.env.game} {cfg.env.game_options} vs {cfg.env.opponent!r}: "
        f"{cfg.total_timesteps} steps, {cfg.env.num_envs} envs, seed {cfg.seed}"
    )
    if cfg.init_model is not None:
        print(f"starting from the weights of {cfg.init_model}")

    # ---- train -------------------------------------------------------------------------
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.logger import configure

    from agents.policy import write_safe_files
    from training.outputs import CurveCallback

    model.set_logger(_tb_logger(run_dir) if cfg.tensorboard else configure(str(run_dir), ["csv"]))
    pretraining = None
    if cfg.pretrain.teacher:
        pretraining = pretrain(model, cfg, game)
    callbacks: list[Any] = [divergence_callback(), win_rate_callback()]
    if cfg.checkpoint_every:
        callbacks.append(
            checkpoint_callback(
                max(cfg.checkpoint_every // cfg.env.num_envs, 1),
                run_dir / "checkpoints",
                game,
                cfg.env.learner_actions,
            )
        )
    if cfg.eval.curve_every and cfg.eval.opponents:
        callbacks.append(
            CurveCallback(
                game,
                cfg.eval.opponents,
                lambda m: trained_agent(m, cfg, game),
                every=cfg.eval.curve_every,
                num_games=cfg.eval.curve_games,
                seed=cfg.eval.seed + 7,
                csv_path=run_dir / "curve.csv",
            )
        )
    if cfg.selfplay.enabled:
        from training.selfplay import SelfPlayCallback

        callbacks.append(
            SelfPlayCallback(
                venv.venv.driver.pool,
                cfg.selfplay,
                game,
                num_heuristics=len(cfg.opponents),
                snapshot_dir=run_dir / "snapshots",
                allowed_actions=None
                if cfg.env.learner_actions is None
                else game.action_filter(cfg.env.learner_actions),
                heuristic_weights=cfg.env.opponent_weights,
            )
        )
    t0 = time.perf_counter()
    try:
        model.learn(cfg.total_timesteps, callback=CallbackList(callbacks), progress_bar=cfg.progress_bar)
    except TrainingDiverged:
        venv.close()
        raise
    except (ValueError, RuntimeError) as exc:  # e.g. torch refusing NaN logits mid-update
        what = non_finite(model)
        if what is None:
            raise
        venv.close()
        raise TrainingDiverged(
            f"training diverged: {what} ({model.num_timesteps} steps; {cut(str(exc), 160)})"
        ) from exc
    train_seconds = time.perf_counter() - t0
    model.save(run_dir / "model.zip")
    write_safe_files(model, run_dir / "model.zip", game, cfg.env.learner_actions)
    steps = int(model.num_timesteps)
    print(f"trained {steps} steps in {train_seconds:.1f} s ({steps / max(train_seconds, 1e-9):.0f} steps/s)")

    # ---- evaluate ----------------------------------------------------------------------
    evaluation: dict[str, Any] = {}
    eval_seconds = 0.0
    if cfg.eval.num_games > 0 and cfg.eval.opponents:
        t1 = time.perf_counter()
        evaluation = evaluate(model, cfg, game, run_dir)
        eval_seconds = time.perf_counter() - t1
    summary = {
        "run_dir": str(run_dir),
        "game": {"name": cfg.env.game, **game.config},
        "algo": cfg.algo,
        "seed": cfg.seed,
        "training": {
            "timesteps": steps,
            "seconds": round(train_seconds, 2),
            "steps_per_second": round(steps / max(train_seconds, 1e-9), 1),
            "opponent": cfg.env.opponent if not cfg.selfplay.enabled else f"self-play snapshots + {cfg.env.opponent}",
        },
        "evaluation_seconds": round(eval_seconds, 2),
        "evaluation": evaluation,
    }
    if pretraining is not None:
        summary["pretraining"] = pretraining
    if cfg.selfplay.enabled:
        pool = venv.venv.driver.pool
        summary["selfplay"] = {
            "members": pool.names,
            "final_weights": pool.weights.round(4).tolist(),
            "games": pool.games.tolist(),
            "learner_win_rate": pool.learner_win_rate().round(4).tolist(),
        }
    analytics = {name: r["analytics"]["trained"] for name, r in evaluation.items() if r.get("analytics")}
    if analytics:
        summary["analytics_title"] = game.stats_title
        summary["analytics"] = {name: _scalars(a) for name, a in analytics.items()}
    report = decision_report(model, cfg, game, summary) if evaluation else None
    curve_csv = run_dir / "curve.csv"
    if curve_csv.is_file():
        from training.outputs import plot_learning_curve

        plot_learning_curve(
            curve_csv, run_dir / "curve.png", title=f"{run_dir.name}: win rate", num_players=game.num_players
        )
        summary["curve_png"] = "curve.png"
    (run_dir / "eval.json").write_text(json.dumps(summary, indent=2))
    from training.outputs import write_eval_md

    write_eval_md(summary, run_dir / "eval.md")
    if report:
        with open(run_dir / "eval.md", "a") as f:
            f.write(f"\n## {report[0]}\n\n" + report[1] + "\n")
    venv.close()
    print(
        f"\nsaved {run_dir / 'model.zip'} (+ model.safetensors, model.json), {run_dir / 'config.yaml'}, "
        f"{run_dir / 'eval.json'}, {run_dir / 'eval.md'}"
    )
    return run_dir


def decision_report(model: Any, cfg: TrainConfig, game: Any, summary: dict[str, Any]) -> tuple[str, str] | None:
    """The game's report on the trained agent's decisions (the ``decision_report`` hook, e.g. Funky
    Monkey's bluff rate by context) against the first evaluation line-up, stored in
    ``summary["decision_report"]``; returns ``(title, markdown)``, or ``None`` for a game without one."""
    from agents.evaluate import decision_report as play_report
    from agents.evaluate import opponent_lineup

    name = cfg.eval.opponents[0]
    opponents, _ = opponent_lineup(name, game, cfg.eval.seed + 1)
    out = play_report(
        game, trained_agent(model, cfg, game), opponents, cfg.eval.num_games, seed=cfg.eval.seed, name="trained"
    )
    if out is None:
        return None
    title, data, text = out
    summary["decision_report"] = {"title": title, "opponents": name, **data}
    print(f"\n{title}\n" + text)
    return title, f"Against {name}:\n\n" + text


def _tb_logger(run_dir: Path) -> Any:
    """SB3 logger writing ``progress.csv`` to the run folder and TensorBoard events to ``tb/``."""
    from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat

    return Logger(
        str(run_dir),
        [CSVOutputFormat(str(run_dir / "progress.csv")), TensorBoardOutputFormat(str(run_dir / "tb"))],
    )


def pretrain(model: Any, cfg: TrainConfig, game: Any) -> dict[str, Any]:
    """Train from ``pretrain.teacher`` before RL, by imitation (:mod:`training.pretrain`) or by its
    action values (:mod:`training.rollout_q`); returns the report."""
    pt = cfg.pretrain
    if pt.objective == "rollout_q":
        return _pretrain_rollout_q(model, cfg, game)
    from training.pretrain import behaviour_clone, record_teacher_games

    t0 = time.perf_counter()
    allowed = None if cfg.env.learner_actions is None else game.action_filter(cfg.env.learner_actions)
    data = record_teacher_games(
        game, pt.teacher, pt.games, seed=cfg.seed + 424_242, gamma=cfg.ppo.gamma, allowed_actions=allowed
    )
    record_seconds = time.perf_counter() - t0
    print(
        f"pretraining: recorded {data.actions.size} decisions of {pt.teacher!r} in {pt.games} games ({record_seconds:.1f} s)"
    )
    report = behaviour_clone(
        model, data, pt.epochs, pt.batch_size, pt.learning_rate, vf_coef=cfg.ppo.vf_coef, seed=cfg.seed, verbose=True
    )
    report.update(
        {"objective": "imitation", "teacher": pt.teacher, "games": pt.games, "record_seconds": round(record_seconds, 2)}
    )
    print(
        f"pretraining: {report['accuracy']:.3f} of the teacher's moves reproduced after {pt.epochs} epochs ({report['seconds']} s)"
    )
    return report


def _pretrain_rollout_q(model: Any, cfg: TrainConfig, game: Any) -> dict[str, Any]:
    from training.rollout_q import available_cores, fit_action_values, record_action_values

    pt = cfg.pretrain
    t0 = time.perf_counter()
    allowed = None if cfg.env.learner_actions is None else game.action_filter(cfg.env.learner_actions)
    workers = pt.workers or available_cores()
    data = record_action_values(
        game,
        pt.teacher,
        pt.games,
        seed=cfg.seed + 424_242,
        probe_prob=pt.probe_prob,
        allowed_actions=allowed,
        workers=workers,
        imports=cfg.imports,
    )
    record_seconds = time.perf_counter() - t0
    print(
        f"pretraining: {data.obs.shape[0]} positions of {pt.games} {pt.teacher!r} games played out once per legal "
        f"action ({data.rollouts} games, {record_seconds:.1f} s: probing {data.seconds['probe']:.1f} s, play-outs "
        f"{data.seconds['play_out']:.1f} s on {workers} worker{'s' if workers > 1 else ''})"
    )
    report = fit_action_values(
        model, data, pt.epochs, pt.batch_size, pt.learning_rate, vf_coef=cfg.ppo.vf_coef, seed=cfg.seed, verbose=True
    )
    report.update(
        {
            "objective": "rollout_q",
            "teacher": pt.teacher,
            "games": pt.games,
            "rollouts": data.rollouts,
            "record_seconds": round(record_seconds, 2),
            "probe_seconds": data.seconds["probe"],
            "play_out_seconds": data.seconds["play_out"],
            "workers": workers,
        }
    )
    h = report["holdout"]
    if h:
        print(
            f"pretraining: on {h['states']} held-out positions the policy's choice is the teacher's in "
            f"{h['agreement_with_teacher']:.3f}; sampled value of its choice {h['q_of_choice']:.3f} vs the "
            f"teacher's {h['q_of_teacher_choice']:.3f} ({report['seconds']} s)"
        )
    return report


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    from monkey_envs.games import add_import_option

    parser = argparse.ArgumentParser(
        prog="python -m training.run",
        description="Train MaskablePPO on a monkey-envs game, save the run, evaluate it.",
    )
    parser.add_argument("--config", metavar="PATH", help="YAML config (default: the embedded default run)")
    parser.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override a config key, dotted for sections (e.g. --set ppo.learning_rate=3e-4); repeatable",
    )
    add_import_option(parser)  # added to the config's imports
    parser.add_argument("--help-config", action="store_true", help="list every config key with default and meaning")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check the config, print it resolved and exit (named model files are checked to exist, not loaded)",
    )
    return parser.parse_args(argv)


def import_plugins(cfg: TrainConfig) -> None:
    """Import the config's ``imports`` (modules that register games or agents), in order.

    Raises:
        ConfigError: a module that cannot be imported (or fails while importing).
    """
    import importlib

    for i, module in enumerate(cfg.imports):
        try:
            importlib.import_module(module)
        except Exception as exc:  # the plugin's own error, whatever it is, is a config error here
            raise ConfigError(f"imports[{i}]", f"cannot import {short(module)}: {cut(str(exc), 300)}") from exc


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.help_config:
        print(describe())
        return 0
    try:
        cfg = load_config(args.config, args.set)
        cfg.imports = [*cfg.imports, *(m for m in args.imports if m not in cfg.imports)]
        cfg.validate()
        import_plugins(cfg)
        game = prepare(cfg, load_models=not args.dry_run)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        print(dump_config(cfg))
        return 0
    try:
        run(cfg, game)
    except ValueError as exc:  # building the env / model (before any folder exists), or divergence
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
