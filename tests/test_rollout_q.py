"""Rollout policy improvement (``pretrain.objective: rollout_q``): action values and their fit."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heuristics.monkey_fun import GreedyMonkeyFun
from monkey_envs.monkey_fun import MonkeyFun
from training.rollout_q import ActionValueData, chunk_seed, probe_states, rollout_action_values


@pytest.fixture(scope="module")
def sampled():
    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    states = probe_states(game, greedy, games=60, seed=5, probe_prob=0.15)
    return game, greedy, states, rollout_action_values(game, greedy, states, chunk=40)


def test_every_legal_action_of_every_probe_state_gets_one_outcome(sampled):
    game, _, states, data = sampled
    n = states.batch_size
    assert n > 50 and data.obs.shape == (n, game.obs_dim)
    np.testing.assert_array_equal(data.mask, states.legal_action_mask)
    assert np.isnan(data.q[~data.mask]).all()
    assert set(np.unique(data.q[data.mask])) <= {0.0, 0.5, 1.0}  # win, draw, loss of the acting seat
    assert data.rollouts == int(data.mask.sum())
    np.testing.assert_array_equal(data.obs, game.observe(states, states.current_player))


def test_actions_with_the_same_effect_get_the_same_outcome(sampled):
    """Common random numbers: every action of a state continues from the same cards and draws,
    so two subsets of equal cards (same field, same hand left) must end the same way."""
    _, _, states, data = sampled
    pairs = 0
    for i in range(states.batch_size):
        hand = states.hands[i, states.current_player[i]]
        for j in range(3):
            if hand[j] == hand[j + 1] and hand[j] > 0:  # slots j and j+1 hold equal cards
                a, b = (1 << j) - 1, (1 << (j + 1)) - 1  # play slot j alone / slot j+1 alone
                if data.mask[i, a]:
                    assert data.q[i, a] == data.q[i, b]
                    pairs += 1
    assert pairs > 0


def test_a_winning_placement_is_worth_a_sure_win():
    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    # seat 0 holds the first three fields of the top row (23, 1, 34); the fourth is 29 = 1 + 9 + 19
    state = game.position(hands=[[1, 2, 9, 19], [5, 6, 7, 8]], board={23: [1, 0], 1: [1, 0], 34: [1, 0]})
    data = rollout_action_values(game, greedy, state)
    hand = [1, 2, 9, 19]
    win = [a for a in range(15) if sum(h for j, h in enumerate(hand) if (a + 1) >> j & 1) == 29]
    assert win and all(data.q[0, a] == 1.0 for a in win)
    assert data.teacher_actions[0] in win


def test_a_restricted_learner_samples_only_its_allowed_actions():
    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    states = probe_states(game, greedy, games=20, seed=1, probe_prob=0.2)
    allowed = np.zeros(16, dtype=bool)
    allowed[[0, 1, 2, 15]] = True
    data = rollout_action_values(game, greedy, states, allowed_actions=allowed)
    keeps = (states.legal_action_mask & allowed).any(1)
    assert (data.mask[keeps] <= allowed).all()
    np.testing.assert_array_equal(data.mask[~keeps], states.legal_action_mask[~keeps])


def test_no_probe_state_is_a_clear_error():
    game = MonkeyFun(num_players=2)
    with pytest.raises(ValueError, match="no state was probed"):
        probe_states(game, GreedyMonkeyFun(game), games=1, seed=0, probe_prob=1e-9)


def test_the_fit_makes_the_best_sampled_action_the_policys_choice():
    pytest.importorskip("sb3_contrib")
    from training.config import TrainConfig
    from training.rollout_q import fit_action_values
    from training.run import build_env, build_model

    cfg = TrainConfig()
    cfg.env.num_envs = 2
    cfg.ppo.features = "greedy"
    cfg.ppo.head = "scorer"
    cfg.ppo.net_arch = [32]
    cfg.ppo.board_channels = 4
    model = build_model(cfg, build_env(cfg))
    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    states = probe_states(game, greedy, games=40, seed=3, probe_prob=0.3)
    mask = states.legal_action_mask.copy()
    obs = game.observe(states, states.current_player)
    # synthetic values: the action playing the fewest cards (lowest index among those) wins,
    # every other legal action loses -- the policy starts uniform and must learn it
    cards = np.array([bin(a + 1).count("1") for a in range(15)] + [9])
    best = np.argmin(np.where(mask, cards * 16 + np.arange(16), 999), axis=1)
    q = np.where(mask, 0.0, np.nan).astype(np.float32)
    q[np.arange(len(q)), best] = 1.0
    data = ActionValueData(obs, mask, q, greedy.act(obs, mask), games=40, rollouts=int(mask.sum()))
    report = fit_action_values(model, data, epochs=40, batch_size=64, learning_rate=3e-3, seed=0)
    h = report["holdout"]
    assert report["states"] == len(q) and report["samples"] == int(mask.sum())
    assert h["states"] == round(len(q) * 0.1)
    assert h["q_of_choice"] > 0.9  # held-out positions: it picks the winning action
    actions, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert (actions == best).mean() > 0.9


def test_the_fit_computes_the_extractors_fixed_part_once_and_fits_exactly_as_without_it(monkeypatch):
    """The greedy terms (``GreedyActionExtractor.fixed_part``) are computed once for every position,
    not per minibatch and epoch; the fitted weights and the report are those of a fit that
    recomputes them in every forward pass."""
    pytest.importorskip("sb3_contrib")
    import torch

    import training.rollout_q as RQ
    from agents.heuristics.monkey_fun_features import GreedyActionExtractor
    from training.config import TrainConfig
    from training.run import build_env, build_model

    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    states = probe_states(game, greedy, games=30, seed=4, probe_prob=0.3)
    data = rollout_action_values(game, greedy, states, chunk=64)
    calls = []
    original = GreedyActionExtractor.fixed_part

    def counted(self, obs):
        calls.append(obs.shape[0])
        return original(self, obs)

    monkeypatch.setattr(GreedyActionExtractor, "fixed_part", counted)

    def fit():
        torch.manual_seed(0)
        cfg = TrainConfig()
        cfg.env.num_envs = 2
        cfg.ppo.features, cfg.ppo.head, cfg.ppo.net_arch, cfg.ppo.board_channels = "greedy", "scorer", [16], 4
        model = build_model(cfg, build_env(cfg))
        calls.clear()
        report = RQ.fit_action_values(model, data, epochs=3, batch_size=32, learning_rate=3e-3, seed=2)
        return model.policy.state_dict(), report, list(calls)

    cached, report_cached, calls_cached = fit()
    monkeypatch.setattr(RQ, "fixed_part", lambda policy, obs, chunk=8192: None)  # recompute per batch
    fresh, report_fresh, calls_fresh = fit()
    for k in cached:
        torch.testing.assert_close(cached[k], fresh[k], rtol=0, atol=0)
    assert report_cached["history"] == report_fresh["history"]
    assert report_cached["holdout"] == report_fresh["holdout"]
    n = data.obs.shape[0]
    assert calls_cached == [n]  # once, every position in one chunk
    assert len(calls_fresh) > 3 * (n // 32)  # every minibatch of every epoch, twice (policy and value)


def test_a_rollout_q_run_without_reinforcement_learning_writes_its_report(tmp_path):
    pytest.importorskip("sb3_contrib")
    import json

    from training.config import from_dict
    from training.run import run

    cfg = from_dict(
        {
            "total_timesteps": 0,
            "runs_dir": str(tmp_path),
            "progress_bar": False,
            "tensorboard": False,
            "checkpoint_every": 0,
            "env": {"num_envs": 4},
            "pretrain": {"teacher": "greedy", "objective": "rollout_q", "games": 30, "epochs": 1, "batch_size": 64},
            "ppo": {"features": "greedy", "head": "scorer", "net_arch": [16], "board_channels": 4, "batch_size": 64},
            "eval": {"opponents": ["greedy"], "num_games": 20, "curve_every": 0},
        }
    )
    cfg.validate()
    run_dir = run(cfg)
    summary = json.loads((run_dir / "eval.json").read_text())
    pre = summary["pretraining"]
    assert pre["objective"] == "rollout_q" and pre["teacher"] == "greedy" and pre["games"] == 30
    assert pre["rollouts"] >= pre["states"] > 0 and set(pre["holdout"]) >= {"agreement_with_teacher", "q_of_choice"}
    assert summary["training"]["timesteps"] == 0
    assert summary["evaluation"]["greedy"]["num_games"] == 20
    md = (run_dir / "eval.md").read_text()
    assert "Pretraining (teacher's action values, rollout_q)" in md and "played out once per legal action" in md
    # no PPO phase: the report says so instead of 0-step lines (issue 23)
    assert "- PPO: none" in md and "steps per second" not in md and "timesteps: 0" not in md
    assert (run_dir / "model.zip").is_file()


def _same_values(a: ActionValueData, b: ActionValueData) -> None:
    np.testing.assert_array_equal(a.obs, b.obs)
    np.testing.assert_array_equal(a.mask, b.mask)
    np.testing.assert_array_equal(a.q, b.q)  # NaN where no action was sampled, on both sides
    np.testing.assert_array_equal(a.teacher_actions, b.teacher_actions)
    assert a.rollouts == b.rollouts


def test_the_action_values_do_not_depend_on_the_number_of_workers():
    """Determinism: the same seed gives bit-identical training targets on 1 and 2 worker
    processes -- for a stochastic teacher (``random``: each chunk's teacher is seeded from the
    chunk, not from the worker that plays it) and for a teacher object shipped to the workers."""
    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    states = probe_states(game, greedy, games=12, seed=4, probe_prob=0.3)
    assert states.batch_size > 30  # at least 4 chunks of 8, so both workers get several
    one = rollout_action_values(game, "random", states, chunk=8, workers=1, seed=11)
    two = rollout_action_values(game, "random", states, chunk=8, workers=2, seed=11)
    _same_values(one, two)
    other_seed = rollout_action_values(game, "random", states, chunk=8, workers=1, seed=12)
    assert not np.array_equal(one.teacher_actions, other_seed.teacher_actions)  # the seed reaches the teacher
    in_process = rollout_action_values(game, greedy, states, chunk=8, workers=1)
    _same_values(in_process, rollout_action_values(game, greedy, states, chunk=8, workers=2))
    # greedy decides each row alone: the chunking does not matter either
    _same_values(in_process, rollout_action_values(game, greedy, states, chunk=1000))


def test_chunk_seeds_come_from_the_seed_and_the_chunk_alone():
    seeds = [chunk_seed(7, i) for i in range(100)]
    assert seeds == [chunk_seed(7, i) for i in range(100)]
    assert len(set(seeds)) == 100 and all(0 <= x < 2**63 for x in seeds)
    assert chunk_seed(8, 0) != chunk_seed(7, 0)


@pytest.mark.parametrize(("kwargs", "message"), [({"workers": 0}, "workers must be"), ({"chunk": 0}, "chunk must be")])
def test_bad_workers_or_chunk_is_a_clear_error(kwargs, message):
    game = MonkeyFun(num_players=2)
    states = game.init(np.arange(2))
    with pytest.raises(ValueError, match=message):
        rollout_action_values(game, "greedy", states, **kwargs)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1, r"^pretrain.workers: must be in \[0, 256\], got -1$"),
        (257, r"^pretrain.workers: must be in \[0, 256\], got 257$"),
        (1.5, r"^pretrain.workers: must be an integer, got 1.5$"),
        (True, r"^pretrain.workers: must be an integer, got True$"),
    ],
)
def test_pretrain_workers_is_checked_like_every_key(value, message):
    from training.config import ConfigError, from_dict

    with pytest.raises(ConfigError, match=message):
        from_dict({"pretrain": {"workers": value}}).validate()


def test_pretrain_workers_is_documented_and_defaults_to_every_core():
    from training.config import TrainConfig, describe

    assert TrainConfig().pretrain.workers == 0
    text = describe()
    assert "pretrain.workers = 0" in text and "os.sched_getaffinity" in text


def test_the_embedded_default_run_is_the_rollout_q_recipe():
    """``python -m training.run`` without --config runs the recipe that beats greedy
    (configs/monkey_fun_2p_rollout_q.yaml); the former default, plain PPO, is the base values
    spelled out in configs/monkey_fun_2p_plain_ppo.yaml."""
    from pathlib import Path

    from training.config import TrainConfig, default_run, load_config

    root = Path(__file__).resolve().parents[1] / "configs"
    cfg = load_config()
    assert cfg == default_run() == load_config(root / "monkey_fun_2p_rollout_q.yaml")
    assert cfg.total_timesteps == 0 and cfg.pretrain.objective == "rollout_q" and cfg.pretrain.teacher == "greedy"
    assert cfg.pretrain.workers == 0 and cfg.eval.num_games >= 2000 and "greedy" in cfg.eval.opponents
    assert load_config(root / "monkey_fun_2p_plain_ppo.yaml") == TrainConfig().validate()
    assert load_config(None, ["pretrain.games=100"]).pretrain.games == 100  # --set alone edits the default run


def test_a_table_seats_its_agents_and_the_play_outs_go_on_with_them_the_acting_seat_as_the_teacher():
    """``pretrain.table``: against a table of ``random`` players the teacher's (greedy's) sampled
    values are near-sure wins; with greedy in every seat (the same positions) about even. If the
    acting seat went on as its table agent, or the others as the teacher, neither would hold."""
    from agents import make_agent
    from training.rollout_q import table_states

    game = MonkeyFun(num_players=2)
    greedy = GreedyMonkeyFun(game)
    states, seat_agent = table_states(game, [greedy, make_agent("random", game, 3)], 40, 5, 0.2)
    assert seat_agent.shape == (states.batch_size, 2) and set(np.unique(seat_agent)) == {0, 1}
    vs_random = rollout_action_values(
        game, "greedy", states, chunk=50, table=["random", "random"], seat_agent=seat_agent
    )
    vs_greedy = rollout_action_values(game, "greedy", states, chunk=50)
    rows = np.arange(states.batch_size)
    q_random = vs_random.q[rows, vs_random.teacher_actions].mean()
    q_greedy = vs_greedy.q[rows, vs_greedy.teacher_actions].mean()
    assert q_random > 0.9 and 0.3 < q_greedy < 0.7
    np.testing.assert_array_equal(vs_random.teacher_actions, vs_greedy.teacher_actions)  # the teacher at the root
    two = rollout_action_values(
        game, "greedy", states, chunk=20, workers=2, table=["random", "random"], seat_agent=seat_agent
    )
    one = rollout_action_values(
        game, "greedy", states, chunk=20, workers=1, table=["random", "random"], seat_agent=seat_agent
    )
    _same_values(one, two)  # the table agents are seeded from the chunk, not the worker
    with pytest.raises(ValueError, match="go together"):
        rollout_action_values(game, "greedy", states, table=["random"])


@pytest.mark.parametrize(
    ("pretrain", "message"),
    [
        ({"objective": "rollout_q", "teacher": "greedy", "table": []}, "non-empty list of agent names"),
        ({"objective": "rollout_q", "teacher": "greedy", "table": ["greedy", 3]}, r"\[1\]: must be a string, got 3"),
        ({"objective": "imitation", "teacher": "greedy", "table": ["greedy"]}, "rollout_q objective only"),
    ],
)
def test_pretrain_table_is_checked(pretrain, message):
    from training.config import ConfigError, from_dict

    with pytest.raises(ConfigError, match=f"^pretrain.table.*{message}"):
        from_dict({"pretrain": pretrain}).validate()
