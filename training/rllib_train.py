"""``algo: rllib_ppo``: ``python -m training.run`` on RLlib's PPO over the batched core (issue 27).

The YAML keys mean what they mean on the SB3 path -- ``env`` (game, options, opponent or mix with
weights, learner seat), ``seed``, ``total_timesteps``, ``ppo`` (learning rate, rollout length
``n_steps`` per game, minibatch ``batch_size``, epochs, discount, GAE, clipping, entropy and value
coefficients, gradient clipping, ``net_arch`` and ``activation`` of the network) and ``eval`` --
and ``selfplay`` (snapshots of the policy in every env runner's opponent pool:
:class:`RLlibSelfPlay`), plus Ray's own in ``ray`` (``address``, ``num_env_runners``,
``num_envs_per_env_runner``, ``num_learners``, ``num_gpus_per_learner``). Each env runner steps its games on the batched core
(:mod:`monkey_envs.integrations.rllib_vector`). The run folder holds ``config.yaml``, the policy in
the project's safe format (``rllib_module.safetensors`` + ``rllib_module.json``: the agent
``rllib:<run folder>``), Ray's checkpoint for resuming (``rllib_checkpoint/``), ``progress.csv``
and the evaluation (``eval.json``, ``eval.md``), made by the same seat-balanced games as the SB3
path's.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from training.config import TrainConfig, dump_config


def rllib_config(cfg: TrainConfig) -> Any:
    """The RLlib ``PPOConfig`` of ``cfg`` (``ValueError`` for a bad game option or opponent)."""
    from monkey_envs.integrations.rllib_vector import ppo_config

    e, p, r = cfg.env, cfg.ppo, cfg.ray
    opponent: Any = e.opponent if isinstance(e.opponent, str) and not cfg.selfplay.enabled else cfg.opponents
    options: dict[str, Any] = {"opponent": opponent, **e.game_options}
    if cfg.selfplay.enabled and cfg.selfplay.win_rate_memory is not None:
        options["opponent_memory"] = cfg.selfplay.win_rate_memory
    if e.opponent_weights is not None:
        options["opponent_weights"] = list(e.opponent_weights)
    if e.learner_seat is not None:
        options["learner_seat"] = e.learner_seat
    model = {"head_fcnet_hiddens": list(p.net_arch), "head_fcnet_activation": p.activation}
    runners = max(r.num_env_runners, 1)
    return (
        ppo_config(e.game, num_envs_per_env_runner=r.num_envs_per_env_runner, model_config=model, **options)
        .env_runners(num_env_runners=r.num_env_runners, rollout_fragment_length=p.n_steps)
        .learners(num_learners=r.num_learners, num_gpus_per_learner=r.num_gpus_per_learner)
        .training(
            lr=p.learning_rate,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            num_epochs=p.n_epochs,
            minibatch_size=p.batch_size,
            train_batch_size_per_learner=p.n_steps * r.num_envs_per_env_runner * runners,
        )
        .debugging(seed=cfg.seed)
    )


def _masked_env(runner: Any) -> Any:
    """The :class:`MaskedVectorEnv` an env runner steps (under RLlib's wrappers), or ``None``."""
    from monkey_envs.integrations.rllib_vector import MaskedVectorEnv

    env = getattr(runner, "env", None)
    while env is not None and not isinstance(env, MaskedVectorEnv):
        env = getattr(env, "env", None)
    return env


def _pool_update(
    runner: Any, snapshot: tuple[str, dict[str, bytes]] | None, sp: Any, heuristics: int, weights: Any, seed: int
) -> Any:
    """On an env runner: add a snapshot (name, its files) to the env's pool, then set the pool's
    weights from the self-play strategy and this runner's record; returns the pool's state."""
    import tempfile

    from agents.rllib_policy import RLlibPolicyAgent
    from training.selfplay import selfplay_weights

    env = _masked_env(runner)
    if env is None or env.pool is None:
        return None
    pool, game = env.pool, env.env.game
    if snapshot is not None:
        name, files = snapshot
        runner_seed = seed + 1_000_003 * int(getattr(runner, "worker_index", 0) or 0) + len(pool)
        with tempfile.TemporaryDirectory(prefix=f"monkey_envs_{name}_") as tmp:  # the module is loaded in memory
            for fname, blob in files.items():
                (Path(tmp) / fname).write_bytes(blob)
            member = RLlibPolicyAgent(tmp, game, deterministic=sp.deterministic, seed=runner_seed)
        member.name = f"rllib:{name}"
        pool.add(member, weight=0.0, name=name)
    fair = 1.0 / max(int(game.num_players), 2)
    w = selfplay_weights(
        heuristics,
        len(pool) - heuristics,
        pool.learner_win_rate(prior_rate=fair),
        sp,
        heuristic_weights=None if weights is None else np.asarray(weights, np.float64),
        fair_share=fair,
    )
    pool.set_weights(w)
    return {
        "members": list(pool.names),
        "weights": [round(float(x), 4) for x in w],
        "games": [int(g) for g in pool.games],
        "learner_win_rate": [round(float(x), 4) for x in pool.learner_win_rate(prior_rate=fair)],
    }


class RLlibSelfPlay:
    """Self-play on the RLlib path, with the SB3 path's keys (``selfplay``): every
    ``snapshot_every`` steps (and at step 0) the policy is saved in the safe format to
    ``<run>/snapshots/snapshot_<steps>/`` (the agent ``rllib:<that folder>``) and its files are
    sent to every env runner, whose env adds it to its opponent pool; after each iteration each
    runner sets its pool's weights by the strategy from its own record of the learner's games.
    """

    def __init__(self, cfg: TrainConfig, game: Any, run_dir: Path) -> None:
        self.sp, self.game, self.dir = cfg.selfplay, game, run_dir / "snapshots"
        self.heuristics, self.weights, self.seed = len(cfg.opponents), cfg.env.opponent_weights, int(cfg.seed)
        self.next, self.snapshots, self.state = 0, [], None

    def after(self, algo: Any, steps: int) -> None:
        """Take the snapshots due at ``steps`` (learner steps so far); update every runner's pool."""
        from monkey_envs.integrations.rllib_vector import MODULE_DESCRIPTION, MODULE_WEIGHTS, save_module

        snapshot = None
        if steps >= self.next:
            name = f"snapshot_{steps}"
            folder = self.dir / name
            save_module(algo, self.game, folder)
            snapshot = (name, {f: (folder / f).read_bytes() for f in (MODULE_WEIGHTS, MODULE_DESCRIPTION)})
            self.snapshots.append(steps)
            while self.next <= steps:
                self.next += self.sp.snapshot_every
        sp, h, w, seed = self.sp, self.heuristics, self.weights, self.seed
        states = algo.env_runner_group.foreach_env_runner(lambda runner: _pool_update(runner, snapshot, sp, h, w, seed))
        found = [x for x in states if x is not None]
        if found:
            self.state = found[-1]  # a remote runner's pool (the local one has no env when there are remote ones)


def run_rllib(cfg: TrainConfig, game: Any, make_run_dir: Any, evaluate_agent: Any) -> Path:
    """Train ``cfg`` with RLlib, save, evaluate; return the run folder.

    ``make_run_dir(cfg) -> Path`` and ``evaluate_agent(agent, cfg, game, run_dir) -> dict`` are
    ``training.run``'s (passed in: this module does not import the runner back).
    """
    import ray

    from agents.rllib_policy import RLlibPolicyAgent
    from monkey_envs.integrations.rllib_vector import save_module

    config = rllib_config(cfg)  # bad options fail here, before Ray starts or a folder is written
    r = cfg.ray
    started = not ray.is_initialized()
    if started:
        kwargs: dict[str, Any] = {"log_to_driver": False}
        if r.address is not None:
            kwargs["address"] = r.address
        else:  # a Ray of this run's own, even where a cluster runs on this machine (ray.address: auto joins it)
            kwargs.update(address="local", include_dashboard=False)
            if r.num_cpus:
                kwargs["num_cpus"] = r.num_cpus
        ray.init(**kwargs)
    try:
        algo = config.build_algo()
        run_dir = make_run_dir(cfg)
        (run_dir / "config.yaml").write_text(dump_config(cfg))
        print(f"run folder: {run_dir}")
        print(
            f"training rllib_ppo on {cfg.env.game} {cfg.env.game_options} vs {cfg.env.opponent!r}: "
            f"{cfg.total_timesteps} steps, {r.num_env_runners} env runners x {r.num_envs_per_env_runner} games, "
            f"seed {cfg.seed}"
        )
        steps, t0, rows = 0, time.perf_counter(), ["iteration,timesteps,seconds,episode_return_mean"]
        selfplay = RLlibSelfPlay(cfg, game, run_dir) if cfg.selfplay.enabled else None
        try:
            if selfplay is not None:
                selfplay.after(algo, 0)
            while steps < cfg.total_timesteps:
                result = algo.train()
                steps = int(result["num_env_steps_sampled_lifetime"])
                if selfplay is not None:
                    selfplay.after(algo, steps)
                ret = result["env_runners"].get("episode_return_mean", float("nan"))
                rows.append(f"{len(rows)},{steps},{time.perf_counter() - t0:.2f},{ret}")
                if cfg.progress_bar:
                    print(
                        f"  ... {steps}/{cfg.total_timesteps} steps, {time.perf_counter() - t0:.0f} s, return {ret:.3f}"
                    )
            train_seconds = time.perf_counter() - t0
            learners = {"remote": bool(algo.learner_group.is_remote), "count": max(len(algo.learner_group), 1)}
            save_module(algo, game, run_dir)
            algo.save_to_path(str((run_dir / "rllib_checkpoint").resolve()))
        finally:
            algo.stop()
        (run_dir / "progress.csv").write_text("\n".join(rows) + "\n")
        print(f"trained {steps} steps in {train_seconds:.1f} s ({steps / max(train_seconds, 1e-9):.0f} steps/s)")
    finally:
        if started:
            ray.shutdown()
    agent = RLlibPolicyAgent(str(run_dir), game)
    agent.name = "trained"
    evaluation = evaluate_agent(agent, cfg, game, run_dir) if cfg.eval.num_games and cfg.eval.opponents else {}
    summary = {
        "algo": "rllib_ppo",
        "timesteps": steps,
        "train_seconds": round(train_seconds, 2),
        "evaluation": evaluation,
        "learners": learners,
    }
    if selfplay is not None:
        summary["selfplay"] = {"snapshots": selfplay.snapshots, "pool_of_one_runner": selfplay.state}
    (run_dir / "eval.json").write_text(json.dumps(summary, indent=2, default=float))
    lines = [f"# {run_dir.name}", "", f"rllib_ppo, {steps} steps, {train_seconds:.1f} s of training.", ""]
    for name, res in evaluation.items():
        a = res["agents"][0]
        lines.append(f"- vs {name}: win rate {a['win_rate']:.3f} [{a['ci_low']:.3f}, {a['ci_high']:.3f}]")
    (run_dir / "eval.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {run_dir / 'eval.json'}, {run_dir / 'eval.md'}")
    return run_dir
