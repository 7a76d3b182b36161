"""Self-play: an opponent pool of frozen snapshots of the learner, mixed with heuristics.

How it works (``selfplay.enabled: true`` in a config)::

    pool = OpponentPool(["greedy"])                 # env.opponent seeds the pool
    venv = MonkeyVecEnv(game, 128, opponent=pool)   # each episode, each opponent seat draws a member
    callback = SelfPlayCallback(pool, cfg.selfplay, game, num_heuristics=1, snapshot_dir=run / "snapshots")
    model.learn(steps, callback=callback)

* **Snapshots.** At the start of training and then every ``snapshot_every`` learner steps the
  callback deep-copies the current policy network, freezes it (eval mode, no gradients), wraps
  it as a batched agent and adds it to the pool; the model at that moment is also saved to
  ``snapshots/snapshot_<steps>.zip`` so the arena can rate the snapshots afterwards
  (``python -m agents.arena ... --agents ppo:<run>/snapshots/snapshot_*.zip``). Members are
  never removed (episodes in progress keep their opponents); only the newest ``window``
  snapshots get a positive weight.
* **Sampling** (:func:`selfplay_weights`), recomputed after every rollout and snapshot:
  ``uniform`` over the window, ``latest`` (only the newest snapshot: classic naive self-play),
  or ``prioritized`` -- prioritised fictitious self-play: weight ``(1 - w) ** priority_power``
  where ``w`` is the learner's smoothed win rate against that member (the pool's record, kept
  by the driver), so opponents the learner still loses to come up more often.
* **Heuristics** from ``env.opponent`` stay in the pool with a total probability of
  ``heuristic_share`` (split evenly), which keeps the learner honest against fixed styles and
  guards against forgetting.

Rewards and dones remain the learner's own (the driver credits the learner's seat only; see
``tests/test_learner_perspective.py``): a snapshot's wins are the learner's losses.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.policy import PolicyAgent, write_safe_files
from monkey_envs.core.opponents import OpponentPool
from training.config import SelfPlayConfig


def selfplay_weights(
    num_heuristics: int,
    num_snapshots: int,
    learner_win_rate: np.ndarray,
    cfg: SelfPlayConfig,
    heuristic_weights: np.ndarray | None = None,
    fair_share: float = 0.5,
) -> np.ndarray:
    """Pool weights for ``num_heuristics`` heuristics followed by ``num_snapshots`` snapshots.

    Args:
        num_heuristics: members ``0 .. H-1`` are heuristics.
        num_snapshots: members ``H .. H+S-1`` are snapshots, oldest first.
        learner_win_rate: ``(H + S,) float64`` learner's smoothed win rate against each member.
        cfg: the sampling strategy, window, power and heuristic share.
        heuristic_weights: ``(H,)`` relative weights of the heuristics (``env.opponent_weights``),
            ``None`` for equal.
        fair_share: the learner's expected win rate against an equal opponent (``1 / P``);
            prioritized weights are ``(1 - w) ** power`` with ``w`` rescaled so that
            ``fair_share`` maps to 0.5 (an opponent as strong as the learner).

    Returns:
        ``(H + S,) float64`` non-negative weights summing to 1.
    """
    H, S = num_heuristics, num_snapshots
    w = np.zeros(H + S, dtype=np.float64)
    hw = np.ones(H) if heuristic_weights is None else np.asarray(heuristic_weights, dtype=np.float64)
    hw = hw / hw.sum() if H else hw
    if S == 0:
        w[:H] = hw
        return w
    lo = H + max(S - cfg.window, 0)
    window = np.arange(lo, H + S)
    if cfg.sampling == "latest":
        snap = np.zeros(window.size)
        snap[-1] = 1.0
    elif cfg.sampling == "prioritized":
        wr = learner_win_rate[window]
        # piecewise-linear rescale: 0 -> 0, fair_share -> 0.5, 1 -> 1
        scaled = np.where(wr <= fair_share, 0.5 * wr / fair_share, 0.5 + 0.5 * (wr - fair_share) / (1 - fair_share))
        snap = np.clip(1.0 - scaled, 0.0, 1.0) ** cfg.priority_power
        if snap.sum() <= 0:
            snap = np.ones(window.size)
    else:
        snap = np.ones(window.size)
    share = cfg.heuristic_share if H > 0 else 0.0
    w[window] = (1.0 - share) * snap / snap.sum()
    if H > 0:
        w[:H] = share * hw
    return w


class FrozenPolicy:
    """A deep copy of an SB3 policy in eval mode: what a snapshot plays with.

    Its ``predict`` is the policy's (``action_masks`` supported), so :class:`PolicyAgent` wraps it.
    """

    def __init__(self, policy: Any) -> None:
        optimizer = getattr(policy, "optimizer", None)
        policy.optimizer = None  # a snapshot only predicts: do not copy the Adam state (2x the weights)
        try:
            self.policy = copy.deepcopy(policy)
        finally:
            policy.optimizer = optimizer
        self.policy.set_training_mode(False)
        for p in self.policy.parameters():
            p.requires_grad_(False)
        self.observation_space = self.policy.observation_space
        self.action_space = self.policy.action_space

    def predict(self, obs: np.ndarray, action_masks: np.ndarray | None = None, deterministic: bool = False) -> Any:
        """``(actions (B,) int64, None)`` for ``obs (B, D) float32`` and ``action_masks (B, A) bool``."""
        return self.policy.predict(obs, action_masks=action_masks, deterministic=deterministic)


class SelfPlayCallback(BaseCallback):
    """Adds snapshots of the learner to ``pool`` and keeps the pool's weights up to date.

    Args:
        pool: the VecEnv's opponent pool; its first ``num_heuristics`` members are heuristics.
        cfg: the ``selfplay`` config section.
        game: the game (to check the snapshots' sizes).
        num_heuristics: heuristics at the front of the pool.
        snapshot_dir: where ``snapshot_<steps>.zip`` files go (``None``: not saved).
        allowed_actions: ``(A,) bool`` restriction of the learner (ablations) that its
            snapshots keep, or ``None``.
    """

    def __init__(
        self,
        pool: OpponentPool,
        cfg: SelfPlayConfig,
        game: Any,
        num_heuristics: int,
        snapshot_dir: Path | None = None,
        allowed_actions: np.ndarray | None = None,
        heuristic_weights: list[float] | None = None,
    ) -> None:
        super().__init__()
        self.heuristic_weights = None if heuristic_weights is None else np.asarray(heuristic_weights, np.float64)
        self.fair_share = 1.0 / max(int(game.num_players), 2)
        self.pool = pool
        self.cfg = cfg
        self.game = game
        self.num_heuristics = int(num_heuristics)
        self.snapshot_dir = None if snapshot_dir is None else Path(snapshot_dir)
        self.allowed_actions = allowed_actions
        self.snapshot_steps: list[int] = []
        self._next = 0

    @property
    def num_snapshots(self) -> int:
        return len(self.snapshot_steps)

    def take_snapshot(self) -> None:
        """Freeze the current policy, add it to the pool (and save it), update the weights."""
        steps = int(self.num_timesteps)
        name = f"snapshot_{steps}"
        agent = PolicyAgent(
            FrozenPolicy(self.model.policy),
            self.game,
            deterministic=self.cfg.deterministic,
            name=name,
            allowed_actions=self.allowed_actions,
        )
        self.pool.add(agent, weight=0.0, name=name)
        self.snapshot_steps.append(steps)
        if self.snapshot_dir is not None:
            self.snapshot_dir.mkdir(parents=True, exist_ok=True)
            self.model.save(self.snapshot_dir / f"{name}.zip")
            write_safe_files(
                self.model, self.snapshot_dir / f"{name}.zip", self.game, allowed_actions=self.allowed_actions
            )
        self.update_weights()

    def update_weights(self) -> None:
        """Recompute the pool's weights from the strategy and the learner's record."""
        w = selfplay_weights(
            self.num_heuristics,
            self.num_snapshots,
            self.pool.learner_win_rate(prior_rate=self.fair_share),
            self.cfg,
            heuristic_weights=self.heuristic_weights,
            fair_share=self.fair_share,
        )
        self.pool.set_weights(w)

    def _on_training_start(self) -> None:
        self._next = int(self.num_timesteps)
        self._maybe_snapshot()

    def _maybe_snapshot(self) -> None:
        if self.num_timesteps >= self._next:
            self.take_snapshot()
            while self._next <= self.num_timesteps:
                self._next += self.cfg.snapshot_every

    def _on_step(self) -> bool:
        self._maybe_snapshot()
        return True

    def _on_rollout_end(self) -> None:
        self.update_weights()
        wr = self.pool.learner_win_rate(prior_rate=self.fair_share)
        self.logger.record("selfplay/snapshots", self.num_snapshots)
        if self.num_snapshots:
            self.logger.record("selfplay/win_rate_vs_latest", float(wr[-1]))
            self.logger.record("selfplay/games_vs_latest", int(self.pool.games[-1]))
