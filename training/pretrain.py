"""Warm start by imitation: behaviour cloning of a teacher agent before reinforcement learning.

``pretrain.teacher: greedy`` in a config makes ``training.run`` first record the teacher's
decisions, then fit the fresh ``MaskablePPO`` policy to them, then train with PPO as usual:

1. :func:`record_teacher_games` plays ``games`` games on the batched core, the teacher in every
   seat (all games side by side, no loop over games), and keeps every decision:
   the acting seat's observation ``(N, D) float32``, legal mask ``(N, A) bool``, the teacher's
   action ``(N,) int64`` and the value target ``(N,) float32`` -- the seat's final reward
   discounted by ``gamma ** (decisions the seat still makes before the end)``, the same
   per-decision discounting the single-agent envs give PPO.
2. :func:`behaviour_clone` minimises, over ``epochs`` passes in shuffled minibatches, the
   cross-entropy of the policy's *masked* action distribution against the teacher's action plus
   ``vf_coef`` times the squared error of the value head against the target -- so PPO starts
   with a policy that plays like the teacher and a critic that already knows the game.
   A features extractor without trainable parameters (a fixed function of the observation,
   such as a game's heuristic features) is computed once for all decisions instead of once per
   epoch (:func:`fixed_features`); the fit is the same, only faster.

The random state of the recording (teacher seeds and game seeds) comes from the run's seed,
so a pretrained run repeats like any other.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np


@dataclasses.dataclass
class TeacherData:
    """Decisions of a teacher (``N`` decisions, ``D`` observation size, ``A`` actions).

    Attributes:
        obs: ``(N, D) float32`` acting seat's observation.
        mask: ``(N, A) bool`` legal actions.
        actions: ``(N,) int64`` the teacher's choices.
        returns: ``(N,) float32`` discounted final reward of the acting seat.
        games: games played.
        teacher_win_rate: seat 0's share of wins (a sanity figure for mirror matches).
    """

    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    games: int
    teacher_win_rate: float


def record_teacher_games(
    game: Any, teacher: str, games: int, seed: int, gamma: float, allowed_actions: np.ndarray | None = None
) -> TeacherData:
    """Play ``games`` teacher-vs-teacher games side by side and record every decision.

    Args:
        game: the game.
        teacher: an agent name for :func:`agents.make_agent` (plays every seat).
        games: number of games (the batch size of the recording).
        seed: game seeds are ``seed .. seed + games - 1``; the teacher is built with ``seed``.
        gamma: discount per decision of the acting seat.
        allowed_actions: ``(A,) bool`` restriction of the learner (``env.learner_actions``):
            recorded masks are restricted to it and decisions whose teacher action it forbids
            are dropped (they still happen in the games), or ``None``.

    Returns:
        A :class:`TeacherData`.
    """
    from agents import make_agent
    from training.rollout_q import teacher_moves

    agent = make_agent(teacher, game, seed)
    state = game.init(np.arange(games, dtype=np.int64) + seed)
    P = game.num_players
    obs_l, mask_l, act_l, row_l, seat_l = [], [], [], [], []
    total = np.zeros((games, P), dtype=np.float64)
    while True:
        cp = state.current_player
        rows = np.flatnonzero(cp >= 0)
        if rows.size == 0:
            break
        sub = state.take(rows)
        seats = cp[rows].astype(np.int64)
        obs = game.observe(sub, seats)
        mask = sub.legal_action_mask.copy()
        acts = teacher_moves(game, agent, sub, obs)  # act(obs, mask), or act_state for a search agent
        obs_l.append(obs)
        mask_l.append(mask)
        act_l.append(acts)
        row_l.append(rows)
        seat_l.append(seats)
        full = np.zeros(games, dtype=np.int64)
        full[rows] = acts
        state = game.step(state, full)
        total += state.rewards
    rows = np.concatenate(row_l)
    seats = np.concatenate(seat_l)
    # decisions the same (game, seat) still makes after each one: count from the end
    # (decisions are recorded in time order, so a stable sort by (game, seat) ranks them in time)
    key = rows * P + seats
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    rank = np.empty_like(order)
    rank[order] = np.arange(key.size) - np.searchsorted(sorted_key, sorted_key, side="left")
    remaining = np.bincount(key, minlength=games * P)[key] - 1 - rank
    returns = (gamma**remaining) * total[rows, seats]
    winners = game.winners(state)
    mask = np.concatenate(mask_l).astype(bool)
    actions = np.concatenate(act_l)
    keep = slice(None)
    if allowed_actions is not None:
        mask &= np.asarray(allowed_actions, dtype=bool)
        keep = np.flatnonzero(mask[np.arange(actions.size), actions])
    return TeacherData(
        obs=np.concatenate(obs_l).astype(np.float32)[keep],
        mask=mask[keep],
        actions=actions[keep],
        returns=returns.astype(np.float32)[keep],
        games=games,
        teacher_win_rate=float(np.asarray(winners)[:, 0].mean()),
    )


def fixed_features(policy: Any, obs: Any, chunk: int = 8192) -> Any:
    """``(N, F) float32`` tensor of ``policy``'s features of ``obs (N, D)``, or ``None``.

    Only for a shared features extractor with no trainable parameters that is not SB3's plain
    flatten: its output does not change while the policy trains, so behaviour cloning can
    compute it once. ``None`` otherwise (the features must then be recomputed every step).
    """
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    fe = getattr(policy, "features_extractor", None)
    if fe is None or not getattr(policy, "share_features_extractor", True) or isinstance(fe, FlattenExtractor):
        return None
    if any(p.requires_grad for p in fe.parameters()):
        return None
    with torch.no_grad():
        parts = [policy.extract_features(obs[s : s + chunk]) for s in range(0, obs.shape[0], chunk)]
    return torch.cat(parts) if parts else None


def _heads(policy: Any, obs: Any, feats: Any, idx: Any, mask: Any) -> tuple[Any, Any]:
    """``(masked distribution, values (n,))`` of decisions ``idx``, from cached features when given."""
    if feats is None:
        dist = policy.get_distribution(obs[idx], action_masks=mask)
        return dist, policy.predict_values(obs[idx]).flatten()
    f = feats[idx]
    dist = policy._get_action_dist_from_latent(policy.mlp_extractor.forward_actor(f))
    dist.apply_masking(mask)
    return dist, policy.value_net(policy.mlp_extractor.forward_critic(f)).flatten()


def behaviour_clone(
    model: Any,
    data: TeacherData,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float = 0.5,
    seed: int = 0,
    verbose: bool = False,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Fit ``model.policy`` (a ``MaskablePPO`` policy) to the teacher's decisions, in place.

    ``verbose`` writes one line per epoch with ``say`` (default :func:`print`; ``training.run``
    passes its heartbeat's :meth:`~training.progress.Heartbeat.echo`, so the epoch lines and the
    heartbeat's come out as one sequence).

    Returns:
        ``{"decisions", "epochs", "accuracy", "value_mse", "seconds", "history"}``: the share of
        decisions where the policy's most likely legal action is the teacher's, after training.
    """
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    device = policy.device
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    n = data.actions.size
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(data.obs, device=device)
    mask = torch.as_tensor(data.mask, device=device)
    act = torch.as_tensor(data.actions, device=device)
    ret = torch.as_tensor(data.returns, device=device)
    history = []
    t0 = time.perf_counter()
    feats = fixed_features(policy, obs)
    for epoch in range(epochs):
        perm = torch.as_tensor(rng.permutation(n), device=device)
        ce_sum = vf_sum = 0.0
        for start in range(0, n, batch_size):
            idx = perm[start : start + batch_size]
            dist, values = _heads(policy, obs, feats, idx, mask[idx])
            ce = -dist.log_prob(act[idx]).mean()
            vf = torch.nn.functional.mse_loss(values, ret[idx])
            loss = ce + vf_coef * vf
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            ce_sum += ce.item() * idx.numel()
            vf_sum += vf.item() * idx.numel()
        history.append({"epoch": epoch + 1, "cross_entropy": ce_sum / n, "value_mse": vf_sum / n})
        if verbose:
            say(
                f"  pretraining epoch {epoch + 1}/{epochs}: cross-entropy {ce_sum / n:.4f}, value mse {vf_sum / n:.4f} "
                f"({time.perf_counter() - t0:.0f} s)"
            )
    policy.set_training_mode(False)
    with torch.no_grad():
        agree = 0
        for start in range(0, n, 8192):
            sl = torch.arange(start, min(start + 8192, n), device=device)
            dist, _ = _heads(policy, obs, feats, sl, mask[sl])
            agree += int((dist.distribution.probs.argmax(1) == act[sl]).sum())
    return {
        "decisions": int(n),
        "epochs": epochs,
        "accuracy": agree / max(n, 1),
        "value_mse": history[-1]["value_mse"] if history else None,
        "seconds": round(time.perf_counter() - t0, 2),
        "history": history,
    }
