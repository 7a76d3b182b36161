"""4 Monkeys network features for SB3 policies (torch is imported by this module; load it lazily).

Registered with :func:`agents.registry.register_features` by :mod:`agents.heuristics.four_monkeys`
as ``ppo.features: plan``.

Why: a grab is honest only if the cards put one by one into the pending set (which cannot be
taken back) form exactly a correct combo, and whether a grab is a bluff depends on the pending
set, the hand and the standing together. An MLP on the raw observation has to rediscover the 189
correct card multisets from the 439 floats; the behaviour clone of ``smart`` that did so reached
84.8% of smart's moves, and its errors compound (its pending sets go astray, most of its grabs
become bluffs). :class:`PlanExtractor` hands the network what the seat can compute from its own
observation with the heuristics' plan (:class:`agents.heuristics.four_monkeys._View`):

* the observation itself ``(D,)``;
* the one-hot action ``smart`` would take ``(A,)`` and the one-hot action of the honest plan
  ``(A,)`` (all zeros when the plan has nothing to do), each computed with deterministic tie
  breaks (the first legal tile of a combo instead of a random one); when smart reveals, every
  reveal candidate is marked (the observation does not say which available tile is a stack top);
* per combo ``(10,)`` each: wanted (available, not held), held, some correct set reachable from
  pending set + hand, the best reachable points per tick, and smart's bluff choice (one-hot);
* scalars ``(8,)``: standing (own minus best other visible points) / 10, room to bluff safely
  (credible leader - own points - 3) / 10, the plan's points per tick, cards the plan still needs
  / 5, different combos held / 10, has a plan, stuck (no plan while some combo is wanted), pending
  cards / 8.

Everything is computed in numpy from the observation alone (no hidden information), inside the
extractor, so the environment, saved models and every agent wrapper stay unchanged. The legal
mask the heuristics read is rebuilt from the observation (:func:`legal_mask_from_obs`), exactly
for puts, grabs, burns, Hand replenish and Stop, and as a superset for reveals (the observation
does not say whether an available tile is a stack top or a revealed one); the policy's own mask
still applies to its choice.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from monkey_envs.four_monkeys import analytics as A
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys import kernels as K
from monkey_envs.games import make_game

#: Per-combo feature groups (10 values each) and scalars appended after the two one-hot actions.
NUM_COMBO_GROUPS = 5
NUM_SCALARS = 8


class _FirstChoice:
    """A stand-in for ``numpy.random.Generator`` whose ``random`` is all zeros: the heuristics'
    random tie breaks (which tile of a combo to grab, which tile to reveal) pick the first one."""

    def random(self, shape: Any = None) -> np.ndarray:
        return np.zeros(shape if shape is not None else (), np.float64)


def legal_mask_from_obs(game: Any, obs: np.ndarray) -> np.ndarray:
    """``(B, A) bool`` the acting seat's legal actions, rebuilt from ``obs (B, D) float32``.

    The rules of ``kernels.mask_rows`` for one playing area: put a card kind held; grab (variant
    0, and the Banana-skin variants when the seat has not handed its skin yet) any available tile
    while a card is pending; burn an own green tile; Hand replenish (both forms) once a round;
    Stop while replays are left or with 10 different combos; wait. Reveals are marked on every
    available tile when the seat holds every available combo and some stack has 2 or more tiles
    (the real mask allows only the stack tops: a superset).
    """
    g = game
    o = g.obs_layout.unflatten(np.asarray(obs, np.float32).reshape(-1, g.obs_dim))
    B = o["hand"].shape[0]
    NT, NC, G = g.num_tiles, D.NUM_COMBOS, g.grab_variants
    mask = np.zeros((B, g.num_actions), bool)
    hand = A.counts(o["hand"], 8.0)
    npend = A.counts(o["pending"], 8.0).sum(1)
    mask[:, : D.NUM_KINDS] = hand > 0
    tiles = o["tiles"]
    available = tiles[:, :, 0] > 0.5
    mine = tiles[:, :, K.TILE_FEATURES] > 0.5
    green = tiles[:, :, 2] < 0.5
    seats = o["seats"]  # (B, P, SEAT_FEATURES), observer first
    grab = available & (npend > 0)[:, None]
    cols = g.a_grab + np.arange(NT) * G
    mask[:, cols] = grab
    if G > 1:
        skin_left = seats[:, 0, 4] < 0.5
        for j in range(1, G):
            mask[:, cols + j] = grab & skin_left[:, None]
    mask[:, g.a_burn : g.a_burn + NT] = mine & green
    owned = np.zeros((B, NC), bool)
    avail_c = np.zeros((B, NC), bool)
    for c in range(NC):
        owned[:, c] = mine[:, c::NC].any(1)
        avail_c[:, c] = available[:, c::NC].any(1)
    all_owned = ~(avail_c & ~owned).any(1)
    depth = int(g.cfg[K.C_DEPTH])
    tall = (np.rint(o["stacks"] * depth) >= 2).any(1)
    mask[:, g.a_reveal : g.a_reveal + NT] = available & (all_owned & tall)[:, None]
    unused = seats[:, 0, 3] < 0.5
    mask[:, g.a_swap] = unused
    mask[:, g.a_draw3] = unused
    mr = int(g.max_replays)
    replays = np.rint(o["clock"][:, 2] * max(1, mr))
    mask[:, g.a_stop] = (replays < mr) | (owned.sum(1) >= D.STOP_COMBOS)
    mask[:, g.a_wait] = True
    return mask


def plan_features(game: Any, obs: np.ndarray, safety: int = 3) -> np.ndarray:
    """``(B, D + 2A + 5 * 10 + 8) float32`` the plan features of observations ``obs (B, D)``.

    See the module docstring for the blocks, in order. Deterministic: the same observation
    always gives the same features (whatever else is in the batch).
    """
    from agents.heuristics.four_monkeys import SmartAgent, _View

    obs = np.asarray(obs, np.float32).reshape(-1, game.obs_dim)
    B, Aa = obs.shape[0], game.num_actions
    mask = legal_mask_from_obs(game, obs)
    smart = SmartAgent(game, 0, safety=safety)
    smart.rng = _FirstChoice()
    s_act = smart.act(obs, mask)
    v = _View(game, obs, mask, _FirstChoice())
    h_act = v.honest_actions()
    out = np.zeros((B, game.obs_dim + 2 * Aa + NUM_COMBO_GROUPS * D.NUM_COMBOS + NUM_SCALARS), np.float32)
    out[:, : game.obs_dim] = obs
    i = game.obs_dim
    rows = np.arange(B)
    out[rows, i + s_act] = 1.0
    # a reveal: which available tile is a stack top is not observable, so mark every candidate
    lo, hi = game.a_reveal, game.a_reveal + game.num_tiles
    rev = (s_act >= lo) & (s_act < hi)
    out[rev, i + lo : i + hi] = mask[rev, lo:hi]
    i += Aa
    ok = h_act >= 0
    out[rows[ok], i + h_act[ok]] = 1.0
    i += Aa
    # per combo: wanted, held, reachable, best reachable points per tick, smart's bluff choice
    from agents.heuristics.four_monkeys import _SET_COMBO, _SET_SIZE, _SET_VALUE, _SETS

    pend, have = v.pend[:, None, :], (v.pend + v.hand)[:, None, :]
    reach = (_SETS[None] >= pend).all(2) & (_SETS[None] <= have).all(2)  # (B, M)
    need = np.maximum(_SET_SIZE[None, :] - v.npend[:, None], 0)
    rate = np.where(reach, _SET_VALUE[None] / (need + 1), 0.0)
    reach_c = np.zeros((B, D.NUM_COMBOS), bool)
    rate_c = np.zeros((B, D.NUM_COMBOS))
    for c in range(D.NUM_COMBOS):
        sel = _SET_COMBO == c
        reach_c[:, c] = reach[:, sel].any(1)
        rate_c[:, c] = rate[:, sel].max(1)
    room = v.credible_other - v.points - safety
    bc = v.best_bluff_combo(max_value=room)
    bluff_1h = np.zeros((B, D.NUM_COMBOS), np.float32)
    bluff_1h[rows[bc >= 0], bc[bc >= 0]] = 1.0
    for block in (v.wanted, v.owned, reach_c, rate_c / 5.0, bluff_1h):
        out[:, i : i + D.NUM_COMBOS] = block
        i += D.NUM_COMBOS
    has = v.target >= 0
    stuck = ~has & v.wanted.any(1)
    scalars = (
        -v.gap / 10.0,
        room / 10.0,
        v.target_rate / 5.0,
        v.need / 5.0,
        v.combos_held / 10.0,
        has,
        stuck,
        v.npend / 8.0,
    )
    for s in scalars:
        out[:, i] = np.clip(np.asarray(s, np.float64), -3.0, 3.0)
        i += 1
    return out


class PlanExtractor(BaseFeaturesExtractor):
    """The observation plus the heuristics' plan read from it (:func:`plan_features`).

    Args:
        observation_space: the env's ``Box((D,), float32)``.
        game: game name (only ``"four_monkeys"``).
        game_options: the game's options (the observation layout depends on the player count).
        channels: unused (the registry passes it to every extractor); accepted for the interface.

    Raises:
        ValueError: not 4 Monkeys, two playing areas (7-8 players), or a layout that does not
            match the space.
    """

    @classmethod
    def check_game(cls, game: Any) -> None:
        """Raise ``ValueError`` unless ``game`` is 4 Monkeys with one playing area (2-6 players)."""
        if game.spec.name != "four_monkeys":
            raise ValueError(f"the plan features need 4 Monkeys, got {game!r}")
        if int(game.cfg[K.C_SETS0]) * D.NUM_COMBOS != game.num_tiles:
            raise ValueError(f"the plan features need one playing area (2-6 players), got {game!r}")

    def __init__(
        self,
        observation_space: spaces.Box,
        game: str,
        game_options: dict[str, Any] | None = None,
        channels: int | None = None,
    ) -> None:
        g = make_game(game, **(game_options or {}))
        self.check_game(g)
        if observation_space.shape != (g.obs_dim,):
            raise ValueError(f"observation space {observation_space.shape} does not match {g!r} ({g.obs_dim},)")
        dim = g.obs_dim + 2 * g.num_actions + NUM_COMBO_GROUPS * D.NUM_COMBOS + NUM_SCALARS
        super().__init__(observation_space, features_dim=dim)
        self.game = g

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        o = obs.detach().cpu().numpy().astype(np.float32, copy=False)
        return torch.as_tensor(plan_features(self.game, o), device=obs.device)
