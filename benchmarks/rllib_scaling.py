"""Learner steps/s of RLlib PPO on the batched core (0, 1, 2 env runners) against the SB3 path and RLlib over the AEC adapter.

::

    python benchmarks/rllib_scaling.py                       # the default game vs random, 3 timed iterations
    python benchmarks/rllib_scaling.py --iterations 3 --markdown

Every row trains PPO with the same batch (``--num-envs`` games x ``--rollout`` steps = 4,096
learner steps per iteration by default), minibatch 512, one epoch, a 64x64 network, one torch
thread, against the ``random`` opponent (so the env is cheap and the framework's cost shows):

* **SB3**: sb3-contrib's ``MaskablePPO`` on :class:`~monkey_envs.core.sb3_vec.MonkeyVecEnv`
  (the project's own path, ``python -m training.run``);
* **RLlib, batched core, R runners**: :func:`monkey_envs.integrations.rllib_vector.ppo_config`
  (each env runner steps its ``--num-envs`` games in one call of the core; ``R = 0`` samples in the
  driver process, ``R >= 1`` in Ray worker processes);
* **RLlib, AEC adapter, R runners**: :func:`monkey_envs.integrations.rllib.ppo_config` (RLlib's
  ``PettingZooEnv`` over the AEC env, one Python env object per game, ``--num-envs`` of them per
  runner; both seats are the learner, so it samples two learner steps per game step).

Timed: the wall time of ``--iterations`` training iterations after one warm-up iteration (RLlib:
``algo.train()``; SB3: ``learn`` of the same number of steps); printed: learner steps sampled per
second and the ratio to the SB3 row. Ray gets ``--cpus`` CPUs. Benchmarks are not tests; run on a
quiet machine.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

from monkey_envs.games import DEFAULT_GAME  # noqa: E402

MODEL = {"head_fcnet_hiddens": [64, 64], "head_fcnet_activation": "relu"}


def sb3_row(game: str, num_envs: int, rollout: int, iterations: int) -> float:
    """Learner steps/s of MaskablePPO on the batched VecEnv."""
    import torch
    from sb3_contrib import MaskablePPO

    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    torch.set_num_threads(1)
    env = MonkeyVecEnv(game, num_envs=num_envs, opponent="random", seed=0)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=rollout, batch_size=512, n_epochs=1, policy_kwargs={"net_arch": [64, 64]}, seed=0
    )
    per = num_envs * rollout
    model.learn(per)  # warm-up
    t = time.perf_counter()
    model.learn(per * iterations, reset_num_timesteps=False)
    return per * iterations / (time.perf_counter() - t)


def rllib_row(game: str, num_envs: int, rollout: int, iterations: int, runners: int, batched: bool) -> float:
    """Learner steps/s of RLlib PPO (batched core or AEC adapter) with ``runners`` env runners."""
    if batched:
        from monkey_envs.integrations.rllib_vector import ppo_config

        config = ppo_config(game, opponent="random", num_envs_per_env_runner=num_envs, model_config=MODEL)
    else:
        from monkey_envs.integrations import rllib as mrl

        config = mrl.ppo_config(game, model_config=MODEL).env_runners(num_envs_per_env_runner=num_envs)
    per = num_envs * rollout
    config = (
        config.env_runners(num_env_runners=runners, rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=per, minibatch_size=512, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        algo.train()  # warm-up
        steps, t = 0, time.perf_counter()
        for _ in range(iterations):
            steps += int(algo.train()["env_runners"]["num_env_steps_sampled"])
        return steps / (time.perf_counter() - t)
    finally:
        algo.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help=f"a registered game (default {DEFAULT_GAME})")
    parser.add_argument("--num-envs", type=int, default=64, help="games per env runner (and SB3's VecEnv)")
    parser.add_argument("--rollout", type=int, default=64, help="steps per game per iteration")
    parser.add_argument("--iterations", type=int, default=3, help="timed iterations after one warm-up")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs Ray may use")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)

    import ray

    ray.init(address="local", num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    rows: list[tuple[str, float]] = [
        ("SB3 MaskablePPO, batched VecEnv", sb3_row(args.game, args.num_envs, args.rollout, args.iterations))
    ]
    for runners in (0, 1, 2):
        fps = rllib_row(args.game, args.num_envs, args.rollout, args.iterations, runners, batched=True)
        rows.append((f"RLlib PPO, batched core, {runners} env runners", fps))
    for runners in (1, 2):
        fps = rllib_row(args.game, args.num_envs, args.rollout, args.iterations, runners, batched=False)
        rows.append((f"RLlib PPO, AEC adapter, {runners} env runners", fps))
    ray.shutdown()
    base = rows[0][1]
    if args.markdown:
        print("| path | learner steps/s | / SB3 |\n|---|---|---|")
        for name, fps in rows:
            print(f"| {name} | {fps:,.0f} | {fps / base:.2f} |")
    else:
        for name, fps in rows:
            print(f"{name:48s} {fps:10,.0f} steps/s  {fps / base:5.2f} x SB3")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
