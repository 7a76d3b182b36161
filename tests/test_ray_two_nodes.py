"""Training across two Ray nodes started on this machine (issue 27 item 5: multi-node shown, not described).

Ray's own ``ray.cluster_utils.Cluster`` starts a head node (1 CPU) and a second node (2 CPUs),
each its own raylet and object store, as ``ray start --head`` and ``ray start --address=...`` on
two machines would. ``python -m training.run`` with ``algo: rllib_ppo`` joins it by
``ray.address`` and trains with two env runners of one CPU each, which cannot both fit on the
head: a runner's env records the node it runs on, and the test sees both nodes.
"""

from __future__ import annotations

import json
import os

import pytest

from monkey_envs.integrations.rllib_vector import MaskedVectorEnv

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install -e '.[clients]')")


class NodeRecordingEnv(MaskedVectorEnv):
    """Writes the Ray node it was built on into ``node_dir`` (one file per process)."""

    def __init__(self, config=None):
        import ray

        config = dict(config or {})
        folder = config.pop("node_dir")
        super().__init__(config)
        node = ray.get_runtime_context().get_node_id()
        with open(os.path.join(folder, f"{os.getpid()}.json"), "w") as f:
            json.dump({"node": node}, f)


@pytest.fixture(scope="module")
def two_nodes():
    """One two-node cluster for the module (starting one is most of its time)."""
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=2)
    try:
        yield cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()


def test_training_runs_across_two_ray_nodes(two_nodes, tmp_path):
    import sys

    import ray

    from monkey_envs.integrations.rllib_vector import ppo_config

    module = sys.modules[__name__]
    ray.cloudpickle.register_pickle_by_value(module)  # tests/ is not importable in Ray's workers
    try:
        ray.init(address=two_nodes.address, log_to_driver=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        env_config = {"game": "monkey_fun", "opponent": "random", "node_dir": str(tmp_path)}
        config = (
            ppo_config(
                "monkey_fun", opponent="random", num_envs_per_env_runner=16, model_config={"head_fcnet_hiddens": [16]}
            )
            .environment(NodeRecordingEnv, env_config=env_config)
            .env_runners(num_env_runners=2, num_cpus_per_env_runner=1)
            .learners(num_learners=0)
            .training(train_batch_size_per_learner=512, minibatch_size=256, num_epochs=1)
            .debugging(seed=0)
        )
        algo = config.build_algo()
        try:
            result = algo.train()
        finally:
            algo.stop()
    finally:
        ray.cloudpickle.unregister_pickle_by_value(module)
    assert result["env_runners"]["num_env_steps_sampled"] >= 512
    nodes = {json.loads(p.read_text())["node"] for p in tmp_path.glob("*.json")}
    alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(nodes & alive) == 2, (nodes, alive)  # the two env runners ran on two nodes
    ray.shutdown()  # disconnect; the cluster stays for the next test


def test_training_run_joins_a_cluster_by_ray_address(two_nodes, tmp_path):
    from training.run import main

    args = [
        "--config", "configs/monkey_fun_rllib.yaml", "--set", "total_timesteps=1024", "--set", "ppo.n_steps=16",
        "--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[16]", "--set", "ray.num_envs_per_env_runner=32",
        "--set", f"ray.address={two_nodes.address}", "--set", "ray.num_env_runners=2",
        "--set", "eval.num_games=20", "--set", "progress_bar=false", "--set", f"runs_dir={tmp_path}",
    ]  # fmt: skip
    assert main(args) == 0
    (run,) = list(tmp_path.iterdir())
    assert json.loads((run / "eval.json").read_text())["timesteps"] >= 1024
