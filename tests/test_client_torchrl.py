"""TorchRL's ``PettingZooWrapper(use_mask=True)`` on the AEC envs: its spec checker and a masked rollout.

Rules checked: TorchRL's ``check_env_specs`` accepts the wrapped env (the specs it derives from
the PettingZoo spaces match what the env returns); a rollout with TorchRL's random policy, which
samples from the ``action_mask`` spec, plays a whole game in which every acting agent's action
is legal and the end rewards are the rules' (+1 winner, -1 loser for two players). Skipped when
TorchRL is not installed (the ``clients`` extra installs it; CI does).
"""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl", reason="TorchRL is not installed (pip install -e '.[clients]')")

import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

from monkey_envs import funky_monkey_v0, monkey_fun_v0


@pytest.mark.parametrize(
    ("make", "players"), [(monkey_fun_v0.env, 2), (funky_monkey_v0.env, 3)], ids=["monkey_fun", "funky_monkey"]
)
def test_torchrl_pettingzoo_wrapper_with_mask(make, players):
    env = PettingZooWrapper(env=make(num_players=players), use_mask=True, seed=0)
    check_env_specs(env)
    td = env.rollout(2_000, break_when_any_done=True)
    assert td["next", "done"][-1].all() and not td["next", "done"][:-1].any()  # one whole game
    totals = []
    for group, agents in env.group_map.items():
        acting = td[group, "mask"]  # (T, n_agents) bool: the agent moved at that step
        mask = td[group, "action_mask"]  # (T, n_agents, A) bool
        action = td[group, "action"]  # (T, n_agents) int64
        chosen = torch.gather(mask, -1, action.unsqueeze(-1)).squeeze(-1)
        assert chosen[acting].all(), f"{group}: an action outside the mask"
        totals += td["next", group, "reward"].sum(0).flatten().tolist()
        assert len(agents) == acting.shape[1]
    assert len(totals) == players and set(totals) <= {-1.0, 0.0, 1.0}
    if players == 2:
        assert sorted(totals) in ([-1.0, 1.0], [0.0, 0.0])
