"""Trained policies as batched agents (torch and Stable-Baselines3 are imported lazily).

``make_agent("ppo:runs/<run>/model.zip", game)`` loads a saved sb3-contrib ``MaskablePPO``
model and wraps it::

    agent = make_agent("ppo:runs/monkey_fun__maskable_ppo__0__20250101-120000/model.zip", game)
    actions = agent.act(obs, mask)   # model.predict(obs, action_masks=mask, deterministic=True)

An in-memory model can be wrapped directly with :class:`PolicyAgent` (as ``training.run``
does for its evaluation).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: Prefix of agent names that load a saved MaskablePPO model.
PPO_PREFIX = "ppo:"


class PolicyAgent:
    """A MaskablePPO model acting on batches.

    Args:
        model: a ``sb3_contrib.MaskablePPO`` (or anything with the same ``predict``).
        game: the game it plays (to check the observation and action sizes), or ``None``.
        deterministic: take the most likely legal action (``True``) or sample from the policy.
        name: display name.
        allowed_actions: ``(A,) bool`` actions the policy may take at all (a learner trained with
            ``learner_actions``, e.g. the honest-only ablation, keeps its restriction), or ``None``.

    Raises:
        ValueError: the model's observation or action space does not fit ``game``.
    """

    def __init__(
        self,
        model: Any,
        game: Any = None,
        deterministic: bool = True,
        name: str = "ppo",
        allowed_actions: np.ndarray | None = None,
    ) -> None:
        if game is not None:
            obs_shape = tuple(getattr(model.observation_space, "shape", ()) or ())
            if obs_shape != (game.obs_dim,):
                raise ValueError(
                    f"model observations have shape {obs_shape}, but {game!r} observations have ({game.obs_dim},) "
                    "-- trained on a different game or configuration?"
                )
            n = getattr(model.action_space, "n", None)
            if n != game.num_actions:
                raise ValueError(f"model has {n} actions, but {game!r} has {game.num_actions}")
        self.model = model
        self.deterministic = bool(deterministic)
        self.name = name
        self.allowed_actions = None if allowed_actions is None else np.asarray(allowed_actions, dtype=bool)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(B,) int64`` actions for ``obs (B, D) float32`` and ``mask (B, A)``.

        Rows without any legal action (finished games) get action 0.
        """
        obs = np.asarray(obs, dtype=np.float32)
        m = np.asarray(mask).astype(bool)
        if self.allowed_actions is not None:
            restricted = m & self.allowed_actions
            # a row whose legal moves are all outside the restriction keeps its legal moves
            m = np.where(restricted.any(1, keepdims=True), restricted, m)
        if obs.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        empty = ~m.any(1)
        if empty.any():  # a distribution over no action is undefined: let such rows pick anything
            m = m.copy()
            m[empty] = True
        actions, _ = self.model.predict(obs, action_masks=m, deterministic=self.deterministic)
        out = np.asarray(actions, dtype=np.int64).reshape(obs.shape[0])
        out[empty] = 0
        return out


def load_policy_agent(path: str | Path, game: Any = None, seed: int = 0, device: str = "cpu") -> PolicyAgent:
    """Load a saved MaskablePPO ``model.zip`` as a :class:`PolicyAgent`.

    Args:
        path: the ``.zip`` written by ``model.save`` (``training.run`` writes ``model.zip``).
        game: the game it will play (sizes are checked).
        seed: seeds torch's sampling (only matters with ``deterministic=False``).
        device: torch device.

    Raises:
        ValueError: the file does not exist or does not fit ``game``.
    """
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"no saved model at {str(p)!r}")
    from sb3_contrib import MaskablePPO  # lazy: torch is only needed here

    with _global_rng_kept():  # loading reseeds python/numpy/torch globally; a caller's training must not feel it
        model = MaskablePPO.load(str(p), device=device)
        model.set_random_seed(seed)
    allowed = None
    restriction = _learner_actions_of_run(p)
    if restriction is not None and game is not None:
        allowed = game.action_filter(restriction)
    label = p.parent.name if p.stem in ("model", "") else f"{p.parent.parent.name}/{p.stem}"
    return PolicyAgent(model, game, deterministic=True, name=f"ppo:{label}", allowed_actions=allowed)


class _global_rng_kept:
    """Context manager restoring the global ``random``, numpy and torch generators on exit."""

    def __enter__(self) -> None:
        import random

        import torch

        self._states = (random.getstate(), np.random.get_state(), torch.get_rng_state())  # noqa: NPY002 (SB3 seeds it)

    def __exit__(self, *exc: object) -> None:
        import random

        import torch

        random.setstate(self._states[0])
        np.random.set_state(self._states[1])  # noqa: NPY002
        torch.set_rng_state(self._states[2])


def _learner_actions_of_run(model_path: Path) -> str | None:
    """``env.learner_actions`` of the run a model file belongs to (its ``config.yaml`` in the same
    folder or one above, e.g. ``checkpoints/`` / ``snapshots/``), so a restricted learner stays
    restricted when loaded; ``None`` when there is no such config."""
    import yaml

    for folder in (model_path.parent, model_path.parent.parent):
        cfg = folder / "config.yaml"
        if cfg.is_file():
            data = yaml.safe_load(cfg.read_text()) or {}
            env = data.get("env") if isinstance(data, dict) else None
            return env.get("learner_actions") if isinstance(env, dict) else None
    return None


def make_ppo_agent(spec: str, game: Any, seed: int = 0) -> PolicyAgent:
    """Factory for ``make_agent("ppo:PATH", game, seed)``."""
    return load_policy_agent(spec[len(PPO_PREFIX) :], game, seed)
