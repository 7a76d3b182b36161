"""RLlib over the batched core (``monkey_envs.integrations.rllib_vector``; issue 27, item 2).

Without Ray: the env RLlib's runner steps is the project's vector env (same games, same
observations) with RLlib's masked observation, and its mask-blind ``sample()`` is legal. With a
local Ray: PPO trains one iteration with one *remote* env runner stepping 16 games per call, and
every action the runner sent was legal for the mask it was last given (the runner's env writes
what it saw to a file the test reads back).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from agents import make_agent
from agents.arena import run_arena
from monkey_envs.games import make_game
from monkey_envs.integrations.rllib_vector import MODULE_WEIGHTS, MaskedVectorEnv, ppo_config, save_module


def test_the_env_is_the_projects_vector_env_with_rllibs_observation():
    env = MaskedVectorEnv({"game": "monkey_fun", "opponent": "greedy", "num_envs": 8, "worker_index": 3})
    ref = gym.make_vec(
        "monkey_envs/MonkeyFun-v0", num_envs=8, vectorization_mode="vector_entry_point", opponent="greedy",
        autoreset_mode="NextStep",
    )  # fmt: skip
    obs, _ = env.reset(seed=5)
    want, info = ref.reset(seed=5)
    assert set(obs) == {"observations", "action_mask"} and env.single_observation_space.contains(
        {k: v[0] for k, v in obs.items()}
    )
    ended = 0
    for _ in range(60):
        np.testing.assert_array_equal(obs["observations"], want)
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"].astype(np.float32))
        actions = env.action_space.sample()  # mask-blind: RLlib's random actions
        live = obs["action_mask"].any(1)
        assert obs["action_mask"][live, actions[live]].all()
        obs, r, te, tr, _ = env.step(actions)
        want, r2, te2, tr2, info = ref.step(actions)
        np.testing.assert_array_equal(r, r2)
        np.testing.assert_array_equal(te, te2)
        np.testing.assert_array_equal(tr, tr2)
        ended += int(te.sum())
    assert ended > 0  # games ended and restarted (NextStep) within the window
    with pytest.raises(ValueError, match="NextStep"):
        MaskedVectorEnv({"game": "monkey_fun", "autoreset_mode": "SameStep"})
    with pytest.raises(ValueError):
        ppo_config("monkey_fun", opponent="no_such_agent")


class AuditedEnv(MaskedVectorEnv):
    """Writes, per process, how many actions it took and which were outside their mask (``audit_dir``)."""

    def __init__(self, config=None):
        config = dict(config or {})
        self._audit = Path(config.pop("audit_dir"))
        super().__init__(config)
        self._steps = 0
        self._illegal: list[list[int]] = []

    def step(self, actions):
        a = np.asarray(actions, dtype=np.int64)
        m = self.last_mask
        live = m.any(1)  # a game that just ended shows an empty mask: its action is ignored
        for i in np.flatnonzero(live & (m[np.arange(a.size), a] == 0)).tolist():
            self._illegal.append([i, int(a[i])])
        self._steps += int(live.sum())
        if self._illegal:  # an illegal action would raise in the env: report it, then let it fail
            self._write()
        out = super().step(a)
        self._write()
        return out

    def _write(self):
        (self._audit / f"{os.getpid()}.json").write_text(json.dumps({"steps": self._steps, "illegal": self._illegal}))


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[clients]')")
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
    module = sys.modules[__name__]
    ray.cloudpickle.register_pickle_by_value(module)  # tests/ is not importable in Ray's workers
    # address="local": a Ray of its own, even while another test (or a user) runs a cluster here
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()
    ray.cloudpickle.unregister_pickle_by_value(module)


def test_ppo_trains_with_a_remote_runner_stepping_the_batched_core_and_sends_only_legal_actions(local_ray, tmp_path):
    config = (
        ppo_config(
            "monkey_fun", opponent="greedy", num_envs_per_env_runner=16, model_config={"head_fcnet_hiddens": [32]}
        )
        .environment(AuditedEnv, env_config={"game": "monkey_fun", "opponent": "greedy", "audit_dir": str(tmp_path)})
        .env_runners(num_env_runners=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=512, minibatch_size=128, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
        game = make_game("monkey_fun")
        save_module(algo, game, tmp_path / "module")
        trained = algo.get_module()
    finally:
        algo.stop()
    _the_saved_module_is_an_agent(tmp_path / "module", game, trained)
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= 512 and runners["num_episodes"] >= 16
    losses = result["learners"]["default_policy"]
    assert np.isfinite([losses["policy_loss"], losses["vf_loss"], losses["total_loss"]]).all()
    audits = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    remote = [a for p, a in zip(tmp_path.glob("*.json"), audits, strict=True) if p.stem != str(os.getpid())]
    assert remote and sum(a["steps"] for a in remote) >= 512  # the remote runner's env stepped the games
    assert all(a["illegal"] == [] for a in audits), audits


def _the_saved_module_is_an_agent(folder, game, trained):
    """Issue 27 item 3: the saved module (safetensors + JSON, no pickle) is the ``rllib:FOLDER`` agent:
    its logits are the trained module's, it plays legal arena games, and a damaged or foreign file is
    a clear ``ValueError``."""
    import torch

    agent = make_agent(f"rllib:{folder}", game, 0)
    s = game.init(np.arange(6))
    obs = game.observe(s, s.current_player)
    mask = s.legal_action_mask
    batch = {"obs": {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(mask.astype(np.float32))}}
    with torch.no_grad():
        want = trained.forward_inference(batch)["action_dist_inputs"].numpy()
    np.testing.assert_allclose(agent.logits(obs, mask), want, rtol=1e-6, atol=1e-6)
    result = run_arena(game, [f"rllib:{folder}", "random"], num_games=8, seed=0)
    assert result.num_games == 8 and result.truncated == 0
    with pytest.raises(ValueError, match="trained on"):
        make_agent(f"rllib:{folder}", make_game("monkey_fun", num_players=3), 0)
    (folder / MODULE_WEIGHTS).write_bytes(b"not a safetensors file")
    with pytest.raises(ValueError, match=MODULE_WEIGHTS):
        make_agent(f"rllib:{folder}", game, 0)
