"""Training config: YAML loading, overrides, and clear errors before any training starts."""

from __future__ import annotations

import pytest

from training.config import ConfigError, TrainConfig, apply_overrides, describe, from_dict, load_config
from training.run import main

CONFIG_FILES = ["configs/smoke.yaml", "configs/default.yaml"]


def test_embedded_default_is_valid_and_trains_monkey_fun_2p_vs_greedy():
    from training.config import default_run

    cfg = load_config()
    assert cfg == default_run()
    assert cfg.algo == "maskable_ppo" and cfg.env.game == "monkey_fun"
    assert cfg.env.game_options == {"num_players": 2} and cfg.env.opponent == "greedy"
    assert cfg.eval.num_games >= 500 and set(cfg.eval.opponents) == {"random", "greedy"}


@pytest.mark.parametrize("path", CONFIG_FILES)
def test_shipped_configs_load(path):
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert load_config(root / path).validate()


def test_overrides_reach_nested_keys_and_parse_yaml_scalars():
    cfg = load_config(overrides=["ppo.learning_rate=3e-4", "ppo.net_arch=[64, 64]", "env.learner_seat=null", "seed=7"])
    assert cfg.ppo.learning_rate == pytest.approx(3e-4)
    assert cfg.ppo.net_arch == [64, 64] and cfg.env.learner_seat is None and cfg.seed == 7


def test_yaml_file_overrides_only_the_keys_it_names(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("total_timesteps: 5000\nppo:\n  n_steps: 32\n")
    cfg = load_config(path)
    assert cfg.total_timesteps == 5000 and cfg.ppo.n_steps == 32
    assert cfg.ppo.batch_size == TrainConfig().ppo.batch_size


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"total_timestep": 10}, r"^total_timestep: unknown config key; known keys: \["),
        ({"ppo": {"lerning_rate": 0.1}}, r"^ppo.lerning_rate: unknown config key; known keys in section 'ppo'"),
        ({"ppo": {"n_steps": "many"}}, r"^ppo.n_steps: must be an integer, got 'many'$"),
        ({"ppo": {"learning_rate": -1.0}}, r"^ppo.learning_rate: must be in \(0, 1\], got -1.0$"),
        ({"ppo": {"net_arch": 64}}, r"^ppo.net_arch: must be a list, got 64$"),
        ({"ppo": {"activation": "gelu"}}, r"^ppo.activation: must be one of"),
        ({"ppo": {"batch_size": 100_000}}, r"^ppo.batch_size: 100000 exceeds the rollout size"),
        ({"progress_bar": "yes"}, r"^progress_bar: must be true or false, got 'yes'$"),
        ({"algo": "dqn"}, r"^algo: must be one of"),
        ({"env": 3}, r"^env: must be a mapping of keys, got int$"),
        ({"env": {"num_envs": 0}}, r"^env.num_envs: must be in \[1, 65536\], got 0$"),
        ({"env": {"opponent": []}}, r"^env.opponent: must name an agent"),
        ({"env": {"opponent": 7}}, r"^env.opponent: must be a string or a list of strings, got 7$"),
        ({"env": {"opponent": ["a", "b"], "opponent_weights": [1.0]}}, r"^env.opponent_weights: needs one weight"),
        ({"env": {"opponent": ["a", "b"], "opponent_weights": [0, 0]}}, r"^env.opponent_weights: must be >= 0"),
        ({"selfplay": {"sampling": "best"}}, r"^selfplay.sampling: must be one of"),
        ({"selfplay": {"heuristic_share": 1.0}}, r"^selfplay.heuristic_share: must be in \[0, 1\), got 1.0$"),
        ({"selfplay": {"window": 0}}, r"^selfplay.window: must be in \[1, 1000\], got 0$"),
        ({"selfplay": {"win_rate_memory": 0}}, r"^selfplay.win_rate_memory: must be in \[1, 10\*\*9\] or null, got 0$"),
        ({"pretrain": {"games": 0}}, r"^pretrain.games: must be in \[1, 100000\], got 0$"),
        ({"eval": {"curve_games": 0}}, r"^eval.curve_games: must be in \[1, 100000\], got 0$"),
        ({"checkpoint_every": -1}, r"^checkpoint_every: must be in \[0, 10\*\*10\], got -1$"),
        ({"ppo": {"head": "attention"}}, r"^ppo.head: must be one of"),
        ({"pretrain": {"objective": "dagger"}}, r"^pretrain.objective: must be one of"),
        ({"pretrain": {"probe_prob": 0.0}}, r"^pretrain.probe_prob: must be in \(0, 1\], got 0.0$"),
        ({"total_timesteps": 0}, r"^total_timesteps: 0 \(no reinforcement learning\) needs pretraining"),
        ({"total_timesteps": -5}, r"^total_timesteps: must be in \[0, 10\*\*10\], got -5$"),
        ({"ppo": {"head": "scorer", "features": "mlp"}}, r"^ppo.head: 'scorer' needs per-action features"),
        ({"env": {"opponent": ["greedy", "greedy"]}}, r"^env.opponent: lists an agent twice"),
        (
            {"env": {"opponent": ["a", "b"], "opponent_weights": [float("inf"), 1]}},
            r"^env.opponent_weights\[0\]: must be a finite number, got inf$",
        ),
    ],
)
def test_bad_config_raises_a_clear_error(data, message):
    with pytest.raises(ValueError, match=message):
        from_dict(data).validate()


def test_bad_override_and_missing_file_raise():
    with pytest.raises(ValueError, match=r"^--set: .ppo.learning_rate. must look like KEY=VALUE"):
        apply_overrides({}, ["ppo.learning_rate"])
    with pytest.raises(ValueError, match=r"^configs/no_such_file\.yaml: config file not found$"):
        load_config("configs/no_such_file.yaml")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "env.opponent=grandmaster"], "unknown agent 'grandmaster'"),
        (["--set", "env.game_options={num_players: 9}"], "num_players"),
        (["--set", "eval.opponents=[random, ppo:nowhere.zip]"], "no saved model"),
        (["--set", "ppo.gamma=2"], "ppo.gamma"),
        (["--set", "env.learner_actions=honest"], "monkey_fun has no action filter 'honest'"),
        (["--set", "pretrain.teacher=oracle"], "agent 'oracle'"),
        (["--set", "env.learner_seat=5"], "error: env.learner_seat: must be in [0, 2) or null, got 5"),
        (["--set", "eval.opponents=[greedy+random]"], "2 players need 1 opponents"),
        (
            [
                "--set",
                "env.game=funky_monkey",
                "--set",
                "env.opponent=random",
                "--set",
                "eval.opponents=[random]",
                "--set",
                "pretrain.teacher=random",  # the default run's teacher, greedy, plays Monkey Fun only
                "--set",
                "ppo.features=board",
            ],
            "error: ppo.features: 'funky_monkey' has no features 'board'",
        ),
        (
            [
                "--set",
                "env.game_options={num_players: 1}",
                "--set",
                "ppo.features=greedy",
                "--set",
                "eval.opponents=[]",
                "--set",
                "eval.num_games=0",
            ],
            "error: ppo.features: the greedy features need Monkey Fun's normal or quick game",
        ),
    ],
)
def test_cli_reports_config_errors_before_training(args, message, capsys, tmp_path):
    assert main([*args, "--set", f"runs_dir={tmp_path}"]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir()), "no run folder is created for a bad config"


def test_help_config_documents_every_key():
    text = describe()
    for key in ("total_timesteps", "env.opponent", "ppo.learning_rate", "eval.num_games"):
        assert key in text
    assert "Adam step size" in text


def test_the_embedded_default_run_is_configs_default_yaml_with_every_key_and_the_game_named(tmp_path, monkeypatch):
    """Explicit defaults: ``python -m training.run`` with no ``--config`` reads
    ``configs/default.yaml`` (not a dict in the code): the file names every key of the schema,
    the game among them, so no registry order or base value decides the default run; and a
    changed file changes the run."""
    import dataclasses
    from pathlib import Path

    import training.config as C

    root = Path(__file__).resolve().parents[1]
    assert C.DEFAULT_CONFIG == root / "configs" / "default.yaml"
    assert load_config(C.DEFAULT_CONFIG) == load_config()
    data = C.read_yaml(C.DEFAULT_CONFIG)
    assert data["env"]["game"] == "monkey_fun"

    def leaves(cls: type, prefix: str = "") -> list[str]:
        out = []
        for f in dataclasses.fields(cls):
            value = getattr(cls(), f.name)
            out += leaves(type(value), f"{prefix}{f.name}.") if dataclasses.is_dataclass(value) else [prefix + f.name]
        return out

    named = set(C._dotted(data))
    missing = [k for k in leaves(TrainConfig) if k not in named]
    assert not missing, f"configs/default.yaml leaves keys to the base values: {missing}"
    other = tmp_path / "default.yaml"
    other.write_text(C.DEFAULT_CONFIG.read_text().replace("seed: 0", "seed: 5", 1))
    monkeypatch.setattr(C, "DEFAULT_CONFIG", other)
    assert load_config().seed == 5


def test_help_config_comes_from_the_schema_not_the_source(monkeypatch):
    """``--help-config`` reads each key's documentation from the schema (``setting`` docs in the
    fields' metadata): every leaf key has one, and it is what ``describe`` prints -- no source is
    parsed (``inspect.getsource`` made to fail changes nothing)."""
    import dataclasses
    import inspect

    def no_source(obj):
        raise OSError("no source")

    monkeypatch.setattr(inspect, "getsource", no_source)
    text = describe()
    for f in dataclasses.fields(TrainConfig().ppo):
        doc = f.metadata.get("doc")
        assert doc, f"ppo.{f.name} has no documentation"
        assert f"ppo.{f.name} = {getattr(TrainConfig().ppo, f.name)!r}" in text and doc in text


def _shipped_configs() -> list:
    from pathlib import Path

    return sorted((Path(__file__).resolve().parents[1] / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", _shipped_configs(), ids=lambda p: p.stem)
def test_every_shipped_config_loads_and_prepares(path):
    """Each file in configs/ is valid: keys, values, agents, line-ups, filters, extractor."""
    from training.run import prepare

    cfg = load_config(path)
    if cfg.init_model == "required":  # a fine-tuning recipe: it refuses fresh weights
        with pytest.raises(ConfigError, match=r"init_model.*--set init_model="):
            prepare(cfg)
        cfg.init_model = None
    game = prepare(cfg)
    assert game.spec.name == cfg.env.game


def test_a_recipe_that_needs_a_trained_policy_refuses_to_start_without_one(capsys, tmp_path):
    from training.run import main

    args = ["--config", "configs/monki_2p_lookahead_ppo.yaml", "--set", f"runs_dir={tmp_path}"]
    assert main(args) == 2
    assert "error: init_model: this config fine-tunes a saved policy" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_shipped_configs_cover_the_issue_list():
    names = {p.stem for p in _shipped_configs()}
    assert {
        "default",
        "monkey_fun_2p_rollout_q",
        "monkey_fun_2p_selfplay",
        "monkey_fun_4p_vs_greedy",
        "funky_monkey_4p_vs_heuristics",
        "funky_monkey_4p_selfplay",
        "funky_monkey_4p_honest_only",
        "smoke",
    } <= names
    by_name = {p.stem: load_config(p) for p in _shipped_configs()}
    main, ablation = by_name["funky_monkey_4p_vs_heuristics"], by_name["funky_monkey_4p_honest_only"]
    assert ablation.env.learner_actions == "honest" and main.env.learner_actions is None
    # the ablation differs from the main run in the restriction only
    ablation.env.learner_actions = None
    assert ablation.to_dict() == main.to_dict()
    assert by_name["monkey_fun_2p_selfplay"].selfplay.enabled and by_name["funky_monkey_4p_selfplay"].selfplay.enabled


def test_init_model_starts_from_saved_weights_and_rejects_a_misfit(tmp_path):
    """``init_model`` loads a saved model's weights into the configured model; a model of another
    network shape is a clear error, and a missing file fails before training."""
    pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    from training.run import build_env, build_model, load_initial_weights, main

    cfg = load_config(None, ["env.num_envs=4", "ppo.n_steps=8", "ppo.batch_size=32", "ppo.net_arch=[16]"])
    venv = build_env(cfg)
    saved = build_model(cfg, venv)
    saved.learn(64)
    saved.save(tmp_path / "m.zip")
    fresh = build_model(cfg, venv)
    load_initial_weights(fresh, str(tmp_path / "m.zip"))
    for (n, p), (_, q) in zip(saved.policy.named_parameters(), fresh.policy.named_parameters(), strict=True):
        assert torch.equal(p, q), n
    other = build_model(load_config(None, ["env.num_envs=4", "ppo.n_steps=8", "ppo.batch_size=32"]), venv)
    with pytest.raises(ValueError, match="does not fit"):
        load_initial_weights(other, str(tmp_path / "m.zip"))
    assert main(["--set", f"init_model={tmp_path / 'nope.zip'}", "--set", f"runs_dir={tmp_path / 'runs'}"]) == 2
