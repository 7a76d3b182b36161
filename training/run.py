"""Train an agent, save it with its resolved config, and evaluate it.

::

    python -m training.run                                   # the embedded default
    python -m training.run --config configs/smoke.yaml       # a YAML config
    python -m training.run --set total_timesteps=50000 --set ppo.learning_rate=3e-4
    python -m training.run --help-config                     # every key, default and meaning

The default trains sb3-contrib's ``MaskablePPO`` on Monkey Fun (2 players) against the greedy
heuristic in the native batched SB3 VecEnv (:class:`monkey_envs.core.sb3_vec.MonkeyVecEnv`:
opponents move inside ``step``, the learner's seat is random per episode), then plays
seat-balanced evaluation games against random and greedy with
:func:`agents.evaluate.play_games` and prints win rates with 95% Wilson intervals.

Each run writes ``runs/<game>__<algo>__<seed>__<time>/``:

- ``config.yaml``: the resolved config (rerun it with ``--config``),
- ``model.zip``: the trained model (``make_agent("ppo:<run>/model.zip", game)`` plays it),
- ``progress.csv``: SB3's training log (losses, fps, rollout win rate per update),
- ``eval.json``: training time and speed, and the evaluation per opponent.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from training.config import TrainConfig, describe, load_config

# ====================================================================== setup


def check_agents(cfg: TrainConfig, game: Any) -> None:
    """Build every opponent named in ``cfg`` once, so a typo fails before training.

    Raises:
        ValueError: an unknown agent, an agent for another game, or a missing model file.
    """
    from agents import make_agent

    for name in [cfg.env.opponent, *cfg.eval.opponents]:
        try:
            make_agent(name, game, 0)
        except ValueError as exc:
            raise ValueError(f"config: opponent {name!r}: {exc}") from exc


def make_run_dir(cfg: TrainConfig) -> Path:
    """Create ``<runs_dir>/<game>__<algo>__<seed>__<time>`` (suffixed if it already exists)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_dir) / f"{cfg.env.game}__{cfg.algo}__{cfg.seed}__{stamp}"
    path, k = base, 1
    while path.exists():
        path = base.with_name(f"{base.name}-{k}")
        k += 1
    path.mkdir(parents=True)
    return path


def build_env(cfg: TrainConfig) -> Any:
    """The training VecEnv (native batched core, opponents inside ``step``), monitored."""
    from stable_baselines3.common.vec_env import VecMonitor

    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    venv = MonkeyVecEnv(
        cfg.env.game,
        num_envs=cfg.env.num_envs,
        opponent=cfg.env.opponent,
        seed=cfg.seed,
        learner_seat=cfg.env.learner_seat,
        **cfg.env.game_options,
    )
    return VecMonitor(venv)


def build_model(cfg: TrainConfig, venv: Any) -> Any:
    """A fresh ``MaskablePPO`` with the config's hyperparameters."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.policies import EXTRACTORS

    p = cfg.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(p.net_arch), "vf": list(p.net_arch)},
        "activation_fn": activation,
    }
    extractor = EXTRACTORS[p.features]
    if extractor is not None:
        policy_kwargs["features_extractor_class"] = extractor
        policy_kwargs["features_extractor_kwargs"] = {
            "game": cfg.env.game,
            "game_options": dict(cfg.env.game_options),
            "channels": p.board_channels,
        }
    return MaskablePPO(
        "MlpPolicy",
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


def win_rate_callback() -> Any:
    """An SB3 callback logging ``rollout/win_rate``: share of the last 200 episodes the learner won."""
    from stable_baselines3.common.callbacks import BaseCallback

    class WinRate(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.outcomes: deque[float] = deque(maxlen=200)

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
                if done and "winners" in info:
                    self.outcomes.append(float(info.get("learner_seat", -1) in info["winners"]))
            return True

        def _on_rollout_end(self) -> None:
            if self.outcomes:
                self.logger.record("rollout/win_rate", float(np.mean(self.outcomes)))

    return WinRate()


# ====================================================================== evaluation


def evaluate(model: Any, cfg: TrainConfig, game: Any) -> dict[str, Any]:
    """Seat-balanced games of the trained policy against each evaluation opponent.

    Returns:
        ``opponent name -> EvalResult.to_dict()``.
    """
    from agents import make_agent
    from agents.evaluate import play_games
    from agents.policy import PolicyAgent

    policy = PolicyAgent(model, game, deterministic=cfg.eval.deterministic, name="trained")
    out: dict[str, Any] = {}
    P = game.num_players
    for name in cfg.eval.opponents:
        opponent = make_agent(name, game, cfg.eval.seed + 1)
        result = play_games(
            game,
            [policy] + [opponent] * (P - 1),
            cfg.eval.num_games,
            seed=cfg.eval.seed,
            names=["trained"] + [name if P == 2 else f"{name}#{k}" for k in range(1, P)],
        )
        out[name] = result.to_dict()
        me = result.agents[0]
        print(f"\n--- trained vs {name}: {cfg.eval.num_games} seat-balanced games")
        print(result.table())
        print(
            f"==> win rate vs {name}: {me.win_rate:.3f} (95% CI [{me.ci_low:.3f}, {me.ci_high:.3f}]), "
            f"draws {me.draws}, losses {me.losses}"
        )
    return out


# ====================================================================== main


def prepare(cfg: TrainConfig) -> Any:
    """Build the game and every named opponent once; return the game.

    Raises:
        ValueError: bad game options or opponents (before any training starts).
    """
    from monkey_envs.games import make_game

    try:
        game = make_game(cfg.env.game, **cfg.env.game_options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"config 'env.game' / 'env.game_options': {exc}") from exc
    check_agents(cfg, game)
    if cfg.ppo.features == "board":
        from training.policies import BOARD_PIECES

        missing = BOARD_PIECES - set(game.obs_layout.slices)
        if missing:
            raise ValueError(
                f"config 'ppo.features': 'board' needs observation pieces {sorted(BOARD_PIECES)}; "
                f"{cfg.env.game!r} lacks {sorted(missing)} -- use 'mlp'"
            )
    return game


def run(cfg: TrainConfig, game: Any = None) -> Path:
    """Train, save and evaluate as ``cfg`` says; return the run folder."""
    import torch
    import yaml

    if game is None:
        game = prepare(cfg)
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)

    run_dir = make_run_dir(cfg)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    print(f"run folder: {run_dir}")
    print(
        f"training {cfg.algo} on {cfg.env.game} {cfg.env.game_options} vs {cfg.env.opponent!r}: "
        f"{cfg.total_timesteps} steps, {cfg.env.num_envs} envs, seed {cfg.seed}"
    )

    # ---- train -------------------------------------------------------------------------
    from stable_baselines3.common.logger import configure

    venv = build_env(cfg)
    model = build_model(cfg, venv)
    model.set_logger(configure(str(run_dir), ["csv"]))
    t0 = time.perf_counter()
    model.learn(cfg.total_timesteps, callback=win_rate_callback(), progress_bar=cfg.progress_bar)
    train_seconds = time.perf_counter() - t0
    model.save(run_dir / "model.zip")
    steps = int(model.num_timesteps)
    print(f"trained {steps} steps in {train_seconds:.1f} s ({steps / max(train_seconds, 1e-9):.0f} steps/s)")

    # ---- evaluate ----------------------------------------------------------------------
    evaluation: dict[str, Any] = {}
    eval_seconds = 0.0
    if cfg.eval.num_games > 0 and cfg.eval.opponents:
        t1 = time.perf_counter()
        evaluation = evaluate(model, cfg, game)
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
            "opponent": cfg.env.opponent,
        },
        "evaluation_seconds": round(eval_seconds, 2),
        "evaluation": evaluation,
    }
    (run_dir / "eval.json").write_text(json.dumps(summary, indent=2))
    venv.close()
    print(f"\nsaved {run_dir / 'model.zip'}, {run_dir / 'config.yaml'}, {run_dir / 'eval.json'}")
    return run_dir


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
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
    parser.add_argument("--help-config", action="store_true", help="list every config key with default and meaning")
    parser.add_argument("--dry-run", action="store_true", help="print the resolved config and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.help_config:
        print(describe())
        return 0
    try:
        cfg = load_config(args.config, args.set)
        game = prepare(cfg)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        import yaml

        print(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
        return 0
    run(cfg, game)
    return 0


if __name__ == "__main__":
    sys.exit(main())
