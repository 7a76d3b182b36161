"""Learner steps per second of the Monki training VecEnv by opponent (no PPO: random learner).

Where does a training run's time go? This times ``MonkeyVecEnv.step`` alone, 128 envs, with
each opponent mix, so the opponents' share of a PPO step can be read off (compare with the run's
steps/s in its ``eval.md``).

    PYTHONPATH=$PWD python docs/evidence/monki_ceiling/env_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from monkey_envs.core.sb3_vec import MonkeyVecEnv


def speed(opponent, steps: int = 300, envs: int = 128) -> float:
    env = MonkeyVecEnv("monki", num_envs=envs, opponent=opponent, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    for i in range(steps + 20):
        if i == 20:
            t = time.perf_counter()
        m = env.action_masks()
        u = rng.random(m.shape)
        u[~m] = -1
        env.step(u.argmax(1))
    return steps * envs / (time.perf_counter() - t)


if __name__ == "__main__":
    for opp in ["random", "cautious", "greedy", "lookahead"]:
        print(f"{opp:10s} {speed(opp):9.0f} learner steps/s (128 envs, random learner)")
