"""Train an agent, save it with its resolved config, and evaluate it.

::

    python -m training.run                                   # the embedded default
    python -m training.run --config configs/smoke.yaml       # a YAML config
    python -m training.run --set total_timesteps=50000 --set ppo.learning_rate=3e-4
    python -m training.run --help-config                     # every key, default and meaning
    python -m training.run --resume runs/<run>/checkpoints/model_<steps>_steps.zip   # go on after Ctrl-C

A run trains sb3-contrib's ``MaskablePPO`` in the native batched SB3 VecEnv
(:class:`monkey_envs.core.sb3_vec.MonkeyVecEnv`: opponents move inside ``step``, the learner's
seat is random per episode), then plays seat-balanced evaluation games with
:func:`agents.evaluate.play_games` and prints win rates with 95% Wilson intervals. The embedded
default run (``configs/default.yaml``, :data:`training.config.DEFAULT_CONFIG`, every key spelled
out) is the strongest Monkey Fun (2 players) recipe: the
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
- ``fit.png``: the pretraining fit's loss per epoch (runs with ``pretrain.teacher``),
- ``checkpoints/model_<steps>_steps.zip`` (+ ``.safetensors`` / ``.json``): every ``checkpoint_every`` PPO steps,
- ``snapshots/snapshot_<steps>.zip`` (+ ``.safetensors`` / ``.json``): self-play snapshots (rate them
  with ``agents.arena``),
- ``progress.csv`` and (``tensorboard: true``, the default) ``tb/``: SB3's training log (losses, fps, rollout win
  rate, learning-curve points, self-play pool facts); a run with no PPO phase (``total_timesteps: 0``
  and no learning curve, as the embedded default) has none,
- ``curve.csv`` / ``curve.png``: win rate (95% Wilson band) vs each evaluation opponent over
  training steps, every ``eval.curve_every`` steps,
- ``eval.json`` / ``eval.md``: training time and speed, pretraining, and the final evaluation
  per opponent, with the game's analytics of the trained agent (``stats_summary``) and its
  decision report (``decision_report``; Funky Monkey: bluff analytics and the bluff rate by
  context).

Progress: with ``progress_bar: true`` PPO shows a bar, and every other phase (setting up, where the
game's kernels compile on first use; pretraining; each evaluation line-up) prints a line when it
starts and ends and one at least every :data:`HEARTBEAT_SECONDS` while it runs
(:class:`training.progress.Heartbeat`).

Errors: every config or ``--set`` problem prints ``error: <key>: <why>`` and exits 2 before any
folder is written; ``--dry-run`` loads no model (it checks that named model files exist). A
loss or a parameter that turns NaN/infinite stops training (``error: training diverged: ...``,
exit 2); the checkpoints written before stay, no final model is saved.

Interrupting: SIGINT (Ctrl-C) or SIGTERM stops a run without a traceback, exit status 130 or 143
(128 + the signal). During PPO the model so far is saved as ``checkpoints/model_<steps>_steps.zip``
(+ ``.safetensors`` / ``.json``, loadable as ``ppo:PATH``); during the evaluation the final
``model.zip`` is already saved; stderr names the file and prints the command that resumes from it,
``python -m training.run --resume PATH`` (``--set`` still overrides keys, e.g. a new
``total_timesteps``), and ``interrupted.json`` in the run folder records the phase, the checkpoint,
its step count and the pretraining report. Stopped before PPO started nothing has been trained:
it says so (and ``--resume <run folder>`` starts that run again in its folder). ``--resume`` also
takes a run folder (its ``interrupted.json``, else ``model.zip``, else the latest checkpoint: a run
killed outright) or any checkpoint of a run. Resuming goes on in the same folder: PPO continues from
the checkpoint's step count (policy and optimizer tensors, read weights-only) to
``total_timesteps``; finished pretraining is not repeated; fresh games are dealt, and a self-play
pool starts again from the heuristics (its saved snapshots stay on disk). A second signal while
the checkpoint is being saved exits at once. Run folders are claimed with an exclusive ``mkdir``,
so runs started in the same second never share one (the later gets a ``-1``, ``-2``... suffix).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import shlex
import shutil
import signal
import sys
import threading
import time
import zipfile
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from training.config import (
    INIT_MODEL_REQUIRED,
    ConfigError,
    TrainConfig,
    cut,
    describe,
    dump_config,
    load_config,
    short,
)
from training.progress import Heartbeat

#: The longest silence of a run (``progress_bar: true``): a phase without a bar of its own (setup
#: and the kernels' first compile, pretraining, evaluation) prints a line at least this often.
HEARTBEAT_SECONDS = 10.0

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
    if cfg.init_model == INIT_MODEL_REQUIRED:
        raise ConfigError(
            "init_model",
            "this config fine-tunes a saved policy: give it with --set init_model=runs/<run>/model.zip "
            "(the comment at the top of the config says which run)",
        )
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


def load_initial_weights(model: Any, path: str, game: Any = None, key: str = "init_model") -> None:
    """Load a saved model's policy weights into ``model`` (``init_model``, or ``--resume``'s checkpoint).

    An SB3 ``.zip`` gives its policy and optimizer tensors (SB3 reads them with
    ``torch.load(weights_only=True)`` and does not unpickle the zip's ``data``); a ``.safetensors``
    / ``.json`` / run folder gives the policy weights of the safe form (:mod:`agents.policy`).

    Args:
        key: the config key or option an error names.

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
            raise ConfigError(key, f"{where}: {cut(str(exc), 400)}") from exc
        return
    try:
        model.set_parameters(path, exact_match=True, device=model.device)
    except Exception as exc:  # a damaged zip can fail in zipfile, torch's weights-only unpickler or SB3
        raise ConfigError(key, f"{where}: {cut(str(exc), 400)}") from exc


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


def evaluate(
    model: Any, cfg: TrainConfig, game: Any, run_dir: Path | None = None, beat: Heartbeat | None = None
) -> dict[str, Any]:
    """Seat-balanced games of the trained policy against each evaluation opponent.

    With ``eval.save_games`` the games go to ``run_dir / games_vs_<opponent>.json`` (replays);
    ``beat`` reports each line-up as a phase (a line at least every ``beat.every`` seconds).

    Returns:
        ``opponent name -> EvalResult.to_dict()``.
    """
    return _evaluate_agent(trained_agent(model, cfg, game), cfg, game, run_dir, beat)


def _evaluate_agent(
    policy: Any, cfg: TrainConfig, game: Any, run_dir: Path | None = None, beat: Heartbeat | None = None
) -> dict[str, Any]:
    """:func:`evaluate` of an agent (the SB3 path's policy, or the RLlib path's)."""
    from agents.arena import stats_summary
    from agents.evaluate import opponent_lineup, play_games

    out: dict[str, Any] = {}
    for name in cfg.eval.opponents:
        opponents, labels = opponent_lineup(name, game, cfg.eval.seed + 1)
        save = None
        if cfg.eval.save_games and run_dir is not None:
            save = run_dir / f"games_vs_{re.sub(r'[^A-Za-z0-9_.+-]+', '_', name)[:80]}.json"
        with (beat or Heartbeat(enabled=False)).phase(f"evaluation: {cfg.eval.num_games} games vs {name}"):
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


# ====================================================================== interruption and resuming

#: The run folder's record of an interrupted run: the phase, the checkpoint, what ``--resume`` needs.
INTERRUPTED_FILE = "interrupted.json"
#: The most bytes of an SB3 zip's ``data`` entry read to find its step count.
MAX_ZIP_DATA_BYTES = 16 << 20
_CHECKPOINT_NAME = re.compile(r"model_(\d+)_steps\.zip")


def signal_name(signum: int) -> str:
    """``"SIGINT"`` for ``signal.SIGINT`` (the number itself for a signal Python does not name)."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class RunInterrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped a run.

    The handler :func:`stop_on_signals` installs raises it with ``signum`` alone; :func:`run`
    catches it (or a plain ``KeyboardInterrupt``), saves what the interrupted phase has, and raises
    a new one carrying the ``report``. It is a ``KeyboardInterrupt``, so code that lets Ctrl-C
    through lets it through too.

    Attributes:
        signum: the signal's number (``signal.SIGINT`` for a plain ``KeyboardInterrupt``).
        report: what was saved and the command that resumes the run ("" when raised by the handler).
        checkpoint: the saved model (an SB3 zip with its ``.safetensors`` / ``.json``), or ``None``.
        resume_command: the command line that continues the run, or ``None`` (nothing to continue).
    """

    def __init__(
        self, signum: int, report: str = "", checkpoint: Path | None = None, resume_command: str | None = None
    ) -> None:
        super().__init__(report or signal_name(signum))
        self.signum = int(signum)
        self.report = report
        self.checkpoint = checkpoint
        self.resume_command = resume_command

    @property
    def exit_code(self) -> int:
        """The exit status: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + self.signum


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Inside: SIGINT and SIGTERM raise :class:`RunInterrupted` in the main thread.

    Python runs the handler between bytecodes of the main thread, so a compiled kernel finishes
    its call first and a worker pool is terminated by the code waiting on it. A second signal
    while the first is being handled (the checkpoint being saved) exits at once with its status.
    The previous handlers are restored on leaving. Outside the main thread nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        if caught:
            os.write(2, f"\ninterrupted again by {signal_name(signum)}: exiting now\n".encode())
            os._exit(128 + signum)
        caught.append(signum)
        raise RunInterrupted(signum)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def resume_command(target: Path) -> str:
    """The shell command continuing a run from ``target`` (a checkpoint or a run folder), run
    from the current folder (the interpreter by its full path unless ``python`` on ``PATH`` is it)."""
    on_path = shutil.which("python")
    python = "python" if on_path and os.path.realpath(on_path) == os.path.realpath(sys.executable) else sys.executable
    return f"{shlex.quote(python)} -m training.run --resume {shlex.quote(str(target))}"


@dataclasses.dataclass
class ResumePoint:
    """Where ``--resume`` continues a run (built by :func:`resume_point`).

    Attributes:
        run_dir: the run folder; the resumed run writes into it.
        checkpoint: the SB3 zip whose policy and optimizer tensors are loaded, or ``None``: nothing
            was saved (interrupted before or during pretraining) and the run starts again.
        timesteps: learner steps the checkpoint was trained for; training goes on to ``total_timesteps``.
        pretrained: pretraining finished before the checkpoint (it is not repeated).
        pretraining: its report (for ``eval.json``), when known.
        train_seconds: training time spent before, when known (else 0).
        resumed_from: the checkpoints earlier resumptions of this run started from.
    """

    run_dir: Path
    checkpoint: Path | None
    timesteps: int
    pretrained: bool
    pretraining: dict[str, Any] | None = None
    train_seconds: float = 0.0
    resumed_from: list[str] = dataclasses.field(default_factory=list)


def zip_timesteps(path: Path) -> int:
    """The learner steps an SB3 zip was saved at (``num_timesteps`` of its JSON ``data``, read
    without unpickling anything).

    Raises:
        ValueError: not a readable SB3 zip, or no step count in it.
    """
    try:
        with zipfile.ZipFile(path) as z:
            if z.getinfo("data").file_size > MAX_ZIP_DATA_BYTES:
                raise ValueError("its data entry is too large")
            steps = json.loads(z.read("data"))["num_timesteps"]
    except (OSError, KeyError, TypeError, ValueError, zipfile.BadZipFile) as exc:
        raise ConfigError(
            "--resume", f"{short(str(path), 200)} is not an SB3 checkpoint: {cut(str(exc), 200)}"
        ) from None
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ConfigError("--resume", f"{short(str(path), 200)} is not an SB3 checkpoint: num_timesteps {short(steps)}")
    return steps


def _read_state(run_dir: Path) -> ResumePoint | None:
    """The run folder's :data:`INTERRUPTED_FILE` as a :class:`ResumePoint` (``None`` if absent)."""
    path = run_dir / INTERRUPTED_FILE
    if not path.is_file():
        return None

    def bad(why: str) -> ConfigError:
        return ConfigError("--resume", f"{short(str(path), 200)} is damaged: {why}")

    try:
        state = json.loads(path.read_text()) if path.stat().st_size <= MAX_ZIP_DATA_BYTES else None
    except (OSError, ValueError) as exc:
        raise bad(cut(str(exc), 200)) from None
    if not isinstance(state, dict):
        raise bad("not a JSON object")
    checkpoint, steps = state.get("checkpoint"), state.get("timesteps")
    if checkpoint is not None and not isinstance(checkpoint, str):
        raise bad(f"checkpoint {short(checkpoint)}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise bad(f"timesteps {short(steps)}")
    seconds = state.get("train_seconds", 0.0)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < float("inf"):
        raise bad(f"train_seconds {short(seconds)}")
    pretraining, resumed = state.get("pretraining"), state.get("resumed_from", [])
    if pretraining is not None and not isinstance(pretraining, dict):
        raise bad("pretraining is not an object")
    if not isinstance(resumed, list) or not all(isinstance(r, str) for r in resumed):
        raise bad("resumed_from is not a list of paths")
    ckpt = None
    if checkpoint is not None:
        ckpt = run_dir / checkpoint
        if not ckpt.is_file():
            raise ConfigError("--resume", f"the checkpoint {short(str(ckpt), 200)} named by {path.name} is missing")
    return ResumePoint(run_dir, ckpt, steps, bool(state.get("pretrained")), pretraining, float(seconds), list(resumed))


def resume_point(path: str | Path) -> ResumePoint:
    """Where ``--resume PATH`` continues.

    ``PATH`` is a run folder or an SB3 zip in one (``model.zip``, ``checkpoints/model_<steps>_steps.zip``).
    A folder continues from what its :data:`INTERRUPTED_FILE` names (written when SIGINT / SIGTERM
    stopped the run), else from its ``model.zip`` (training finished, the evaluation did not), else
    from its latest checkpoint (a run killed outright). A zip continues from that zip; the run's
    interruption record supplies its pretraining report and time when it names the same zip, and
    any other checkpoint of a run was written by PPO, after pretraining.

    Raises:
        ConfigError: no run folder or checkpoint there, a finished run, a damaged record or zip.
    """
    p = Path(path)
    where = short(str(p), 200)
    if p.is_dir():
        run_dir: Path | None = p
    elif p.is_file():
        if p.suffix != ".zip":
            raise ConfigError("--resume", f"{where} is not a checkpoint: name a run folder or an SB3 .zip in one")
        run_dir = next((d for d in (p.parent, p.parent.parent) if (d / "config.yaml").is_file()), None)
    else:
        raise ConfigError("--resume", f"no run folder or checkpoint at {where}")
    if run_dir is None or not (run_dir / "config.yaml").is_file():
        raise ConfigError(
            "--resume", f"{where} is not in a run folder (no config.yaml beside it or above checkpoints/)"
        )
    state = _read_state(run_dir)
    if p.is_file():
        if state is not None and state.checkpoint is not None and state.checkpoint.resolve() == p.resolve():
            return state
        return ResumePoint(run_dir, p, zip_timesteps(p), pretrained=True)
    if state is not None:
        return state
    final = run_dir / "model.zip"
    if final.is_file():
        if (run_dir / "eval.json").is_file():
            raise ConfigError(
                "--resume", f"the run in {where} finished (it has eval.json); name its model.zip to evaluate it again"
            )
        return ResumePoint(run_dir, final, zip_timesteps(final), pretrained=True)
    steps = {
        int(m.group(1)): c
        for c in (run_dir / "checkpoints").glob("model_*_steps.zip")
        if (m := _CHECKPOINT_NAME.fullmatch(c.name))
    }
    if not steps:
        raise ConfigError(
            "--resume",
            f"{where} has nothing to resume from: no {INTERRUPTED_FILE}, model.zip or checkpoints/model_<steps>_steps.zip",
        )
    latest = steps[max(steps)]
    return ResumePoint(run_dir, latest, zip_timesteps(latest), pretrained=True)


def _write_state(run_dir: Path, signum: int, phase: str, point: ResumePoint) -> None:
    record = {
        "signal": signal_name(signum),
        "phase": phase,
        "checkpoint": None if point.checkpoint is None else str(point.checkpoint.relative_to(run_dir)),
        "timesteps": int(point.timesteps),
        "pretrained": bool(point.pretrained),
        "pretraining": point.pretraining,
        "train_seconds": round(float(point.train_seconds), 2),
        "resumed_from": list(point.resumed_from),
    }
    tmp = run_dir / f".{INTERRUPTED_FILE}.tmp"
    tmp.write_text(json.dumps(record, indent=2))
    tmp.replace(run_dir / INTERRUPTED_FILE)


@dataclasses.dataclass
class _Progress:
    """How far :func:`run` got: what an interruption can save."""

    phase: str = "setup"  # setup, pretraining, ppo, evaluation
    venv: Any = None
    model: Any = None
    run_dir: Path | None = None
    resume: ResumePoint | None = None
    pretraining: dict[str, Any] | None = None
    prior_seconds: float = 0.0
    learn_start: float | None = None
    train_seconds: float = 0.0
    progress_bar: Any = None
    callbacks: list[Any] = dataclasses.field(default_factory=list)
    beat: Any = None


def _interrupted(exc: KeyboardInterrupt, cfg: TrainConfig, game: Any, progress: _Progress) -> RunInterrupted:
    """Save what the interrupted phase has; the :class:`RunInterrupted` that reports it."""
    from agents.policy import write_safe_files

    signum = getattr(exc, "signum", signal.SIGINT)
    how = f"interrupted by {signal_name(signum)}"
    bar = getattr(progress.progress_bar, "pbar", None)
    if bar is not None:
        bar.close()
    run_dir, resume = progress.run_dir, progress.resume
    if run_dir is None:
        return RunInterrupted(signum, f"{how} before training started: no model yet, nothing saved")
    if progress.phase in ("setup", "pretraining"):
        where = "during pretraining" if progress.phase == "pretraining" else "before training started"
        if resume is not None and resume.checkpoint is not None:  # nothing new: the resume point stands
            _write_state(run_dir, signum, progress.phase, resume)
            command = resume_command(resume.checkpoint)
            return RunInterrupted(
                signum,
                f"{how} {where}: nothing new trained; the checkpoint it resumed from is unchanged: "
                f"{resume.checkpoint}\nresume with: {command}",
                resume.checkpoint,
                command,
            )
        _write_state(run_dir, signum, progress.phase, ResumePoint(run_dir, None, 0, False))
        command = resume_command(run_dir)
        what = " (pretraining keeps nothing until it finishes)" if progress.phase == "pretraining" else ""
        return RunInterrupted(
            signum,
            f"{how} {where}: no model trained yet{what}, nothing saved\n"
            f"start the run again in its folder with: {command}",
            None,
            command,
        )
    model = progress.model
    steps = int(model.num_timesteps)
    seconds = progress.train_seconds
    if progress.phase == "ppo":
        if progress.learn_start is not None:
            seconds = progress.prior_seconds + time.perf_counter() - progress.learn_start
        broken = non_finite(model)
        if broken is not None:
            return RunInterrupted(
                signum,
                f"{how} during PPO training at step {steps}: {broken}, so no checkpoint was saved "
                f"(the checkpoints written before stay in {run_dir / 'checkpoints'})",
            )
        checkpoint = run_dir / "checkpoints" / f"model_{steps}_steps.zip"
        checkpoint.parent.mkdir(exist_ok=True)
        model.save(checkpoint)
        write_safe_files(model, checkpoint, game, cfg.env.learner_actions)
        where = f"during PPO training at step {steps} of {cfg.total_timesteps}"
        saved = f"checkpoint: {checkpoint} (+ .safetensors, .json; it plays as ppo:{checkpoint})"
    else:
        checkpoint = run_dir / "model.zip"  # saved before the evaluation started
        where = f"during the evaluation (training finished at step {steps})"
        saved = (
            f"the trained model is saved: {checkpoint} (+ model.safetensors, model.json; it plays as ppo:{checkpoint})"
        )
    resumed = [] if resume is None else list(resume.resumed_from)
    if resume is not None and resume.checkpoint is not None:
        resumed.append(str(resume.checkpoint.relative_to(run_dir)))
    point = ResumePoint(run_dir, checkpoint, steps, True, progress.pretraining, seconds, resumed)
    _write_state(run_dir, signum, progress.phase, point)
    command = resume_command(checkpoint)
    return RunInterrupted(signum, f"{how} {where}\n{saved}\nresume with: {command}", checkpoint, command)


def _set_aside_log(run_dir: Path, steps: int) -> None:
    """Keep the interrupted part's ``progress.csv`` (SB3 rewrites the file) as ``progress_to_<steps>_steps.csv``."""
    log = run_dir / "progress.csv"
    if not log.is_file() or log.stat().st_size == 0:
        return
    target, k = run_dir / f"progress_to_{steps}_steps.csv", 1
    while target.exists():
        target, k = run_dir / f"progress_to_{steps}_steps-{k}.csv", k + 1
    log.replace(target)


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


def run(
    cfg: TrainConfig, game: Any = None, resume: ResumePoint | None = None, callbacks: list[Any] | None = None
) -> Path:
    """Train, save and evaluate as ``cfg`` says; return the run folder.

    Args:
        game: the built game (``prepare(cfg)`` when ``None``).
        resume: continue an interrupted run (:func:`resume_point`) in its own folder: its
            checkpoint's policy and optimizer tensors are loaded and PPO trains on from its step
            count to ``total_timesteps`` (the learning-rate schedule and checkpoint names go on
            from there; the envs start fresh games; a self-play pool starts again from the
            heuristics). Pretraining is repeated only if it had not finished. The earlier
            ``progress.csv`` is kept as ``progress_to_<steps>_steps.csv``; ``curve.csv`` and the
            checkpoints are added to.
        callbacks: more SB3 callbacks for the PPO phase, after the run's own (e.g. a caller's
            progress report, as :mod:`training.exploit` counts steps into its heartbeat).

    Raises:
        ConfigError: a bad game option, opponent, ``init_model`` or checkpoint (before a folder is written).
        TrainingDiverged: a loss or parameter turned NaN / infinite.
        RunInterrupted: SIGINT / SIGTERM (with :func:`stop_on_signals`) or a ``KeyboardInterrupt``
            stopped the run. Stopped during PPO it saved ``checkpoints/model_<steps>_steps.zip``
            (+ its safe files), during the evaluation it had saved ``model.zip``; either way it
            wrote :data:`INTERRUPTED_FILE` in the run folder, and its ``report`` says what was saved
            and the command that resumes the run.
    """
    import torch

    if game is None:
        game = prepare(cfg)
    if cfg.algo == "rllib_ppo":
        from training.rllib_train import run_rllib

        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        return run_rllib(cfg, game, make_run_dir, _evaluate_agent)
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    progress = _Progress(resume=resume, callbacks=list(callbacks or []))
    progress.beat = Heartbeat(every=HEARTBEAT_SECONDS, enabled=cfg.progress_bar)
    try:
        return _run(cfg, game, progress)
    except KeyboardInterrupt as exc:
        raise _interrupted(exc, cfg, game, progress) from None
    finally:
        progress.beat.close()
        if progress.venv is not None:
            progress.venv.close()
        logger = getattr(progress.model, "_logger", None)
        if logger is not None:  # progress.csv and the TensorBoard events, flushed and closed
            logger.close()


def _run(cfg: TrainConfig, game: Any, progress: _Progress) -> Path:
    resume = progress.resume
    beat = progress.beat
    # env and model first: a bad game option, opponent or init_model fails before a folder exists
    with beat.phase(f"setting up {cfg.env.num_envs} {cfg.env.game} envs and the model"):
        venv = progress.venv = build_env(cfg)
        model = progress.model = build_model(cfg, venv)
    done = 0
    if resume is not None and resume.checkpoint is not None:
        load_initial_weights(model, str(resume.checkpoint), game, key="--resume")
        model.num_timesteps = done = resume.timesteps
    elif cfg.init_model is not None:
        load_initial_weights(model, cfg.init_model, game)

    if resume is None:
        run_dir = make_run_dir(cfg)
    else:
        run_dir = resume.run_dir
        _set_aside_log(run_dir, done)
    progress.run_dir = run_dir
    (run_dir / "config.yaml").write_text(dump_config(cfg))
    print(f"run folder: {run_dir}")
    print(
        f"training {cfg.algo} on {cfg.env.game} {cfg.env.game_options} vs {cfg.env.opponent!r}: "
        f"{cfg.total_timesteps} steps, {cfg.env.num_envs} envs, seed {cfg.seed}"
    )
    if resume is not None and resume.checkpoint is not None:
        print(f"resuming from {resume.checkpoint} ({done} steps trained)")
    elif resume is not None:
        print("starting the interrupted run again in its folder (nothing of it was saved)")
    if cfg.init_model is not None and (resume is None or resume.checkpoint is None):
        print(f"starting from the weights of {cfg.init_model}")

    # ---- train -------------------------------------------------------------------------
    from stable_baselines3.common.callbacks import CallbackList, ProgressBarCallback
    from stable_baselines3.common.logger import configure

    from agents.policy import write_safe_files
    from training.outputs import CurveCallback

    pretrained = resume is not None and resume.pretrained
    pretraining = resume.pretraining if pretrained else None
    if cfg.pretrain.teacher and pretrained:
        print("pretraining: finished before the checkpoint, not repeated")
    elif cfg.pretrain.teacher:
        progress.phase = "pretraining"
        pretraining = pretrain(model, cfg, game, beat)
        if pretraining.get("history"):
            from training.outputs import plot_fit_curve

            plot_fit_curve(pretraining["history"], run_dir / "fit.png", title=f"{run_dir.name}: pretraining fit")
    progress.pretraining = pretraining
    progress.phase = "ppo"
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
    callbacks.extend(progress.callbacks)
    remaining = cfg.total_timesteps - done
    if cfg.progress_bar and remaining > 0:  # ours, not learn()'s, so that an interruption can close it
        progress.progress_bar = ProgressBarCallback()
        callbacks.append(progress.progress_bar)
    progress.prior_seconds = resume.train_seconds if resume is not None and resume.checkpoint is not None else 0.0
    t0 = progress.learn_start = time.perf_counter()
    # a fresh run with a learning curve learns even 0 steps: the curve's first point; with no
    # steps and no curve there is no PPO phase at all (no log, no empty bar, no "0 steps" line)
    learns = remaining > 0 or (done == 0 and any(isinstance(c, CurveCallback) for c in callbacks))
    if learns:
        model.set_logger(_tb_logger(run_dir) if cfg.tensorboard else configure(str(run_dir), ["csv"]))
        if cfg.total_timesteps > 0:
            print(f"PPO training: from step {done} to {cfg.total_timesteps}", flush=True)
        try:
            model.learn(
                max(remaining, 0),
                callback=CallbackList(callbacks),
                progress_bar=False,
                reset_num_timesteps=done == 0,
            )
        except TrainingDiverged:
            raise
        except (ValueError, RuntimeError) as exc:  # e.g. torch refusing NaN logits mid-update
            what = non_finite(model)
            if what is None:
                raise
            raise TrainingDiverged(
                f"training diverged: {what} ({model.num_timesteps} steps; {cut(str(exc), 160)})"
            ) from exc
    session_seconds = time.perf_counter() - t0
    train_seconds = progress.prior_seconds + session_seconds
    model.save(run_dir / "model.zip")
    write_safe_files(model, run_dir / "model.zip", game, cfg.env.learner_actions)
    progress.train_seconds = train_seconds
    progress.phase = "evaluation"
    steps = int(model.num_timesteps)
    speed = (steps - done) / max(session_seconds, 1e-9)
    if steps > done:
        print(f"trained {steps - done} steps in {session_seconds:.1f} s ({speed:.0f} steps/s)", flush=True)
    elif cfg.total_timesteps == 0:
        print("no PPO phase (total_timesteps: 0): the pretrained policy is the trained model", flush=True)

    # ---- evaluate ----------------------------------------------------------------------
    evaluation: dict[str, Any] = {}
    eval_seconds = 0.0
    if cfg.eval.num_games > 0 and cfg.eval.opponents:
        t1 = time.perf_counter()
        evaluation = evaluate(model, cfg, game, run_dir, beat)
        eval_seconds = time.perf_counter() - t1
    summary = {
        "run_dir": str(run_dir),
        "game": {"name": cfg.env.game, **game.config},
        "algo": cfg.algo,
        "seed": cfg.seed,
        "training": {
            "timesteps": steps,
            "seconds": round(train_seconds, 2),
            "steps_per_second": round(speed, 1),
            "opponent": cfg.env.opponent if not cfg.selfplay.enabled else f"self-play snapshots + {cfg.env.opponent}",
        },
        "evaluation_seconds": round(eval_seconds, 2),
        "evaluation": evaluation,
    }
    if resume is not None:
        resumed = list(resume.resumed_from)
        if resume.checkpoint is not None:
            resumed.append(str(resume.checkpoint.relative_to(run_dir)))
        summary["training"]["resumed_from"] = resumed
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
    if (run_dir / "fit.png").is_file():
        summary["fit_png"] = "fit.png"
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
    (run_dir / INTERRUPTED_FILE).unlink(missing_ok=True)  # finished: nothing left to resume
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


def pretrain(model: Any, cfg: TrainConfig, game: Any, beat: Heartbeat | None = None) -> dict[str, Any]:
    """Train from ``pretrain.teacher`` before RL, by imitation (:mod:`training.pretrain`) or by its
    action values (:mod:`training.rollout_q`); returns the report. ``beat`` reports the recording
    and the fitting as phases (a line at least every ``beat.every`` seconds), and every line of
    the pretraining (the per-epoch losses included) goes through ``beat.echo``: one sequence of
    whole lines with the heartbeat's."""
    pt = cfg.pretrain
    beat = beat or Heartbeat(enabled=False)
    if pt.objective == "rollout_q":
        return _pretrain_rollout_q(model, cfg, game, beat)
    from training.pretrain import behaviour_clone, record_teacher_games

    t0 = time.perf_counter()
    allowed = None if cfg.env.learner_actions is None else game.action_filter(cfg.env.learner_actions)
    beat.echo(f"pretraining: recording {pt.games} games of {pt.teacher!r}")
    with beat.phase(f"pretraining: {pt.games} games of {pt.teacher!r}"):
        data = record_teacher_games(
            game, pt.teacher, pt.games, seed=cfg.seed + 424_242, gamma=cfg.ppo.gamma, allowed_actions=allowed
        )
    record_seconds = time.perf_counter() - t0
    beat.echo(
        f"pretraining: recorded {data.actions.size} decisions of {pt.teacher!r} in {pt.games} games ({record_seconds:.1f} s)"
    )
    with beat.phase(f"pretraining: fitting {pt.epochs} epochs"):
        report = behaviour_clone(
            model,
            data,
            pt.epochs,
            pt.batch_size,
            pt.learning_rate,
            vf_coef=cfg.ppo.vf_coef,
            seed=cfg.seed,
            verbose=True,
            say=beat.echo,
        )
    report.update(
        {"objective": "imitation", "teacher": pt.teacher, "games": pt.games, "record_seconds": round(record_seconds, 2)}
    )
    beat.echo(
        f"pretraining: {report['accuracy']:.3f} of the teacher's moves reproduced after {pt.epochs} epochs ({report['seconds']} s)"
    )
    return report


def _pretrain_rollout_q(model: Any, cfg: TrainConfig, game: Any, beat: Heartbeat) -> dict[str, Any]:
    from training.rollout_q import available_cores, fit_action_values, record_action_values

    pt = cfg.pretrain
    t0 = time.perf_counter()
    allowed = None if cfg.env.learner_actions is None else game.action_filter(cfg.env.learner_actions)
    workers = pt.workers or available_cores()
    at = "" if pt.table is None else f" at a table of {pt.table}"
    with beat.phase(f"pretraining: {pt.games} {pt.teacher!r} games{at}, each probed position played out per action"):
        data = record_action_values(
            game,
            pt.teacher,
            pt.games,
            seed=cfg.seed + 424_242,
            probe_prob=pt.probe_prob,
            allowed_actions=allowed,
            workers=workers,
            imports=cfg.imports,
            table=pt.table,
        )
    record_seconds = time.perf_counter() - t0
    beat.echo(
        f"pretraining: {data.obs.shape[0]} positions of {pt.games} {pt.teacher!r} games played out once per legal "
        f"action ({data.rollouts} games, {record_seconds:.1f} s: probing {data.seconds['probe']:.1f} s, play-outs "
        f"{data.seconds['play_out']:.1f} s on {workers} worker{'s' if workers > 1 else ''})"
    )
    with beat.phase(f"pretraining: fitting {pt.epochs} epochs on {data.obs.shape[0]} positions"):
        report = fit_action_values(
            model,
            data,
            pt.epochs,
            pt.batch_size,
            pt.learning_rate,
            vf_coef=cfg.ppo.vf_coef,
            seed=cfg.seed,
            verbose=True,
            say=beat.echo,
        )
    report.update(
        {
            "objective": "rollout_q",
            "teacher": pt.teacher,
            "table": pt.table,
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
        beat.echo(
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
    parser.add_argument(
        "--resume",
        metavar="RUN_DIR_OR_CHECKPOINT",
        help="continue an interrupted run in its folder, with its config.yaml (--set still overrides keys): from "
        "the checkpoint SIGINT/SIGTERM saved (printed when it stopped), a run folder, or a checkpoint in one",
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
    """The command line (``python -m training.run --help``); returns the exit status.

    0: done; 2: a config, ``--set`` or ``--resume`` problem, or training diverged (``error: ...``
    on stderr); 128 + the signal (130 SIGINT, 143 SIGTERM): interrupted -- stderr says what was
    saved and the command that resumes the run (:func:`run`), without a traceback.
    """
    args = parse_args(argv)
    if args.help_config:
        print(describe())
        return 0
    with stop_on_signals():
        try:
            return _main(args)
        except KeyboardInterrupt as exc:  # RunInterrupted from a signal, or Ctrl-C before the handler
            signum = getattr(exc, "signum", signal.SIGINT)
            report = getattr(exc, "report", "") or (
                f"interrupted by {signal_name(signum)} before training started: no model yet, nothing saved"
            )
            sys.stdout.flush()
            print(f"\n{report}", file=sys.stderr, flush=True)
            return 128 + signum


def _main(args: argparse.Namespace) -> int:
    point = None
    try:
        if args.resume is not None:
            if args.config is not None:
                raise ConfigError(
                    "--resume", "continues with the run's own config.yaml; drop --config (--set still applies)"
                )
            point = resume_point(args.resume)
            cfg = load_config(point.run_dir / "config.yaml", args.set)
        else:
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
        run(cfg, game, resume=point)
    except ValueError as exc:  # building the env / model (before any folder exists), or divergence
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
