"""Untrusted configs: no YAML trick, malformed ``--set`` or out-of-range value gets past the loader.

Every case asserts the exact ``<key>: <why>`` message (``error: <key>: <why>`` and exit 2 on the
command line), that it comes at once (a billion-laughs file fails at its first anchor), that
messages stay short whatever the input, and that nothing is written: no run folder, no marker file.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import pytest

from training.config import (
    ConfigError,
    TrainConfig,
    apply_overrides,
    describe,
    dump_config,
    from_dict,
    load_config,
    parse_yaml,
)

ROOT = Path(__file__).resolve().parents[1]

BILLION_LAUGHS = "\n".join(
    [
        'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
        *(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
    ]
)

#: YAML files and the error they give (``{path}`` is the file's path).
BAD_FILES = {
    "billion laughs": (BILLION_LAUGHS, r"^{path}: line 1, column 4: YAML anchors \(&a\) are not allowed$"),
    "alias": ("seed: *x\n", r"^{path}: line 1, column 7: YAML aliases \(\*x\) are not allowed$"),
    "merge key": ("<<: {seed: 1}\n", r"^{path}: line 1, column 1: YAML merge keys \(<<\) are not allowed$"),
    "duplicate key": ("seed: 1\nseed: 2\n", r"^{path}: line 2, column 1: duplicate key 'seed'$"),
    "nested duplicate key": (
        "env:\n  num_envs: 8\n  num_envs: 9\n",
        r"^{path}: line 3, column 3: duplicate key 'num_envs'$",
    ),
    "python tag": (
        "seed: !!python/object/apply:os.system ['touch {marker}']\n",
        r"^{path}: not valid YAML: line 1, column 7: could not determine a constructor for the tag "
        r"'tag:yaml.org,2002:python/object/apply:os.system'$",
    ),
    "deep nesting": ("seed: " + "[" * 200_000, r"^{path}: line 1, column 71: nested deeper than 64 levels$"),
    "syntax": (
        "ppo: [1, 2\n",
        r"^{path}: not valid YAML: line 2, column 1: expected ',' or ']', but got '<stream end>'$",
    ),
    "huge integer": ("seed: " + "9" * 5000 + "\n", r"^{path}: not valid YAML: Exceeds the limit \(4300 digits\)"),
    "not a mapping": ("- 1\n- 2\n", r"^{path}: must hold a mapping of keys at the top level$"),
    "too large": ("#" * (1 << 20) + "\n", r"^{path}: 1048577 bytes: a config file may hold at most 1048576$"),
    "unknown key": ("sed: 1\n", r"^sed: unknown config key; known keys: \['algo', "),
}


@pytest.mark.parametrize("case", list(BAD_FILES), ids=list(BAD_FILES))
def test_a_bad_yaml_file_is_refused_at_once_naming_the_problem(tmp_path, case, capsys):
    from training.run import main

    marker = tmp_path / "PWNED"
    path = tmp_path / "c.yaml"
    text, message = BAD_FILES[case]
    path.write_text(text.replace("{marker}", str(marker)))
    pattern = message.replace("{path}", re.escape(str(path)))
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=pattern) as info:
        load_config(path)
    assert time.perf_counter() - t0 < 2.0, "refused at once"
    assert len(str(info.value)) < 400
    runs = tmp_path / "runs"
    assert main(["--config", str(path), "--set", f"runs_dir={runs}"]) == 2
    err = capsys.readouterr().err
    assert re.match("error: " + pattern.lstrip("^"), err), err
    assert err.count("\n") == 1 and len(err) < 400
    assert not runs.exists() and not marker.exists()


def test_a_file_that_is_not_utf8_or_missing_is_refused(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_bytes(b"seed: \xff\xfe\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}: not UTF-8 text$"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"config file not found$"):
        load_config(tmp_path / "none.yaml")


#: ``--set`` items and the error they give.
BAD_OVERRIDES = {
    "unclosed list": (
        "ppo.net_arch=[64,",
        r"^ppo.net_arch: not valid YAML: line 1, column 5: expected the node content",
    ),
    "unclosed mapping": (
        "env.game_options={",
        r"^env.game_options: not valid YAML: line 1, column 2: expected the node",
    ),
    "python tag": (
        "seed=!!python/object/apply:os.system ['touch {marker}']",
        r"^seed: not valid YAML: line 1, column 1: could not determine a constructor for the tag "
        r"'tag:yaml.org,2002:python/object/apply:os.system'$",
    ),
    "alias": ("seed=*a", r"^seed: line 1, column 1: YAML aliases \(\*a\) are not allowed$"),
    "anchor": ("seed=&a 1", r"^seed: line 1, column 1: YAML anchors \(&a\) are not allowed$"),
    "duplicate key": (
        "env.game_options={num_players: 2, num_players: 3}",
        r"^env.game_options: line 1, column 18: duplicate key 'num_players'$",
    ),
    "no equals sign": ("seed", r"^--set: 'seed' must look like KEY=VALUE \(e.g. ppo.learning_rate=3e-4\)$"),
    "empty key": ("=3", r"^--set: '=3' has an empty key$"),
    "not a section": (
        "ppo.learning_rate.x=3",
        r"^ppo.learning_rate: is not a section \(in --set 'ppo.learning_rate.x=3'\)$",
    ),
    # the default run names every key (configs/default.yaml), so a scalar key is one already set
    "under a scalar": ("seed.x=1", r"^seed: is not a section \(in --set 'seed.x=1'\)$"),
    "long value": ("ppo.activation=" + "x" * 10_000, r"^ppo.activation: must be at most 4096 characters, got 10000$"),
    "very long value": ("seed=" + "1" * 70_000, r"^seed: the --set value has 70000 characters \(at most 65536\)$"),
    "unknown key": ("ppo.lerning_rate=0.1", r"^ppo.lerning_rate: unknown config key; known keys in section 'ppo': "),
}


@pytest.mark.parametrize("case", list(BAD_OVERRIDES), ids=list(BAD_OVERRIDES))
def test_a_malformed_set_is_key_colon_why_with_exit_2_and_writes_nothing(tmp_path, case, capsys):
    from training.run import main

    marker = tmp_path / "PWNED"
    item, message = BAD_OVERRIDES[case]
    item = item.replace("{marker}", str(marker))
    with pytest.raises(ConfigError, match=message):
        apply_overrides({}, [item]) if case in ("no equals sign", "empty key") else load_config(None, [item])
    runs = tmp_path / "runs"
    assert main(["--set", item, "--set", f"runs_dir={runs}"]) == 2
    err = capsys.readouterr().err
    assert re.match("error: " + message.lstrip("^"), err), err
    assert len(err) < 400
    assert not runs.exists() and not marker.exists()


#: Values that parse but are refused, and the message (from ``from_dict(data).validate()``).
BAD_VALUES = [
    ({"total_timesteps": 1e12}, r"^total_timesteps: must be an integer, got 1000000000000.0$"),
    ({"total_timesteps": 4.0}, r"^total_timesteps: must be an integer, got 4.0$"),
    ({"total_timesteps": True}, r"^total_timesteps: must be an integer, got True$"),
    ({"total_timesteps": 10**10 + 1}, r"^total_timesteps: must be in \[0, 10\*\*10\], got 10000000001$"),
    ({"total_timesteps": 10**400}, r"^total_timesteps: must be in \[0, 10\*\*10\], got <an integer of 1329 bits>$"),
    ({"seed": 2**63}, r"^seed: must be in \[0, 2\*\*63\), got 9223372036854775808$"),
    ({"seed": -1}, r"^seed: must be in \[0, 2\*\*63\), got -1$"),
    ({"torch_threads": 257}, r"^torch_threads: must be in \[0, 256\], got 257$"),
    ({"env": {"num_envs": 65_537}}, r"^env.num_envs: must be in \[1, 65536\], got 65537$"),
    ({"env": {"num_envs": False}}, r"^env.num_envs: must be an integer, got False$"),
    ({"env": {"learner_seat": 5000}}, r"^env.learner_seat: must be in \[0, 1023\], got 5000$"),
    ({"env": {"game_options": {"x": {"y": 1}}}}, r"^env.game_options.x: must be a number, string, boolean, null"),
    ({"env": {"game_options": {"x": math.nan}}}, r"^env.game_options.x: must be a finite number, got nan$"),
    ({"env": {"game_options": {"not a name": 1}}}, r"^env.game_options: keys must be names, got 'not a name'$"),
    ({"env": {"opponent": ["a"] * 2000}}, r"^env.opponent: must be a string or a list of strings, got \['a', "),
    ({"ppo": {"learning_rate": math.nan}}, r"^ppo.learning_rate: must be a finite number, got nan$"),
    ({"ppo": {"learning_rate": math.inf}}, r"^ppo.learning_rate: must be a finite number, got inf$"),
    ({"ppo": {"learning_rate": "nan"}}, r"^ppo.learning_rate: must be a finite number, got nan$"),
    (
        {"ppo": {"learning_rate": 10**400}},
        r"^ppo.learning_rate: must be a finite number, got <an integer of 1329 bits>$",
    ),
    ({"ppo": {"learning_rate": 0.0}}, r"^ppo.learning_rate: must be in \(0, 1\], got 0.0$"),
    ({"ppo": {"learning_rate": 1.5}}, r"^ppo.learning_rate: must be in \(0, 1\], got 1.5$"),
    ({"ppo": {"learning_rate": "fast"}}, r"^ppo.learning_rate: must be a number, got 'fast'$"),
    ({"ppo": {"clip_range": 2.0}}, r"^ppo.clip_range: must be in \(0, 1\], got 2.0$"),
    ({"ppo": {"ent_coef": -0.1}}, r"^ppo.ent_coef: must be in \[0, 1\], got -0.1$"),
    ({"ppo": {"vf_coef": 11}}, r"^ppo.vf_coef: must be in \[0, 10\], got 11.0$"),
    ({"ppo": {"gamma": 1.01}}, r"^ppo.gamma: must be in \(0, 1\], got 1.01$"),
    ({"ppo": {"gae_lambda": -1}}, r"^ppo.gae_lambda: must be in \[0, 1\], got -1.0$"),
    ({"ppo": {"max_grad_norm": 0}}, r"^ppo.max_grad_norm: must be in \(0, 1000\], got 0.0$"),
    ({"ppo": {"n_epochs": 1001}}, r"^ppo.n_epochs: must be in \[1, 1000\], got 1001$"),
    ({"ppo": {"net_arch": [5000]}}, r"^ppo.net_arch: needs 1 to 16 layer sizes in \[1, 4096\], got \[5000\]$"),
    ({"ppo": {"net_arch": [8] * 17}}, r"^ppo.net_arch: needs 1 to 16 layer sizes in \[1, 4096\], got \[8, 8, "),
    ({"ppo": {"net_arch": []}}, r"^ppo.net_arch: needs 1 to 16 layer sizes in \[1, 4096\], got \[\]$"),
    ({"ppo": {"net_arch": [64.0]}}, r"^ppo.net_arch\[0\]: must be an integer, got 64.0$"),
    ({"ppo": {"board_channels": 2000}}, r"^ppo.board_channels: must be in \[1, 1024\], got 2000$"),
    (
        {"ppo": {"n_steps": 100_000}},
        r"^ppo.n_steps: the rollout n_steps \* num_envs = 12800000 exceeds 1048576 \(2\*\*20\); lower",
    ),
    ({"ppo": {"activation": "x" * 10_000}}, r"^ppo.activation: must be at most 4096 characters, got 10000$"),
    ({"ppo": {"activation": "x" * 1000}}, r"^ppo.activation: must be one of \('tanh', 'relu'\), got 'xxxx+\.\.\.$"),
    ({"selfplay": {"priority_power": 101}}, r"^selfplay.priority_power: must be in \[0, 100\], got 101.0$"),
    (
        {"selfplay": {"enabled": True, "snapshot_every": 100}},
        r"^selfplay.snapshot_every: 100 would take 4001 snapshots \(at most 1000, each kept in memory\); raise it$",
    ),
    ({"checkpoint_every": 1}, r"^checkpoint_every: 1 would write 400000 checkpoints \(at most 10000\); raise it$"),
    ({"pretrain": {"games": 10**6}}, r"^pretrain.games: must be in \[1, 100000\], got 1000000$"),
    ({"pretrain": {"learning_rate": 2}}, r"^pretrain.learning_rate: must be in \(0, 1\], got 2.0$"),
    ({"eval": {"num_games": 10**6}}, r"^eval.num_games: must be in \[0, 100000\], got 1000000$"),
    (
        {"eval": {"opponents": []}},
        r"^eval.opponents: is empty but eval.num_games is 1000; name opponents or set eval.num_games: 0$",
    ),
    ({"eval": {"seed": 2**64}}, r"^eval.seed: must be in \[0, 2\*\*63\), got 18446744073709551616$"),
    ({"imports": ["os; rm -rf /"]}, r"^imports\[0\]: must be a dotted module name, got 'os; rm -rf /'$"),
    ({"env": {"game": "../../etc"}}, r"^env.game: must be a game name, got '../../etc'$"),
    ({"device": "cuda:0; rm"}, r"^device: must be cpu, cuda or auto, got 'cuda:0; rm'$"),
    ({"runs_dir": ""}, r"^runs_dir: must name a folder$"),
]


@pytest.mark.parametrize(("data", "message"), BAD_VALUES, ids=[m[:40] for _, m in BAD_VALUES])
def test_an_out_of_range_or_mistyped_value_is_refused(data, message):
    with pytest.raises(ConfigError, match=message) as info:
        from_dict(data).validate()
    assert len(str(info.value)) < 400, "messages quote values cut short"


def test_the_boundaries_of_the_ranges_are_accepted():
    cfg = from_dict(
        {
            "total_timesteps": 10**10,
            "seed": 2**63 - 1,
            "torch_threads": 256,
            "checkpoint_every": 10**7,
            "env": {"num_envs": 65_536, "learner_seat": 0},
            "ppo": {"learning_rate": 1, "n_steps": 16, "batch_size": 2**20, "net_arch": [4096] * 16, "gamma": 1},
            "eval": {"num_games": 0, "opponents": [], "seed": 0},
        }
    ).validate()
    assert cfg.ppo.learning_rate == 1.0 and isinstance(cfg.ppo.learning_rate, float)
    # YAML 1.1 reads 3e-4 as a string: a float key still takes it; an integer key takes 100_000
    cfg = load_config(None, ["ppo.learning_rate=3e-4", "total_timesteps=100_000"])
    assert cfg.ppo.learning_rate == pytest.approx(3e-4) and cfg.total_timesteps == 100_000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "eval.num_games=1001"], "error: eval.num_games: must be a multiple of the player count 2"),
        (
            ["--set", "env.game_options={num_players: 3}", "--set", "eval.num_games=1000"],
            "error: eval.num_games: must be a multiple of the player count 3 (seat-balanced games), got 1000\n",
        ),
        (
            ["--set", "eval.num_games=100", "--set", "eval.curve_every=1000", "--set", "eval.curve_games=25"],
            "error: eval.curve_games: must be a multiple of the player count 2 (seat-balanced games), got 25\n",
        ),
        (["--set", "eval.opponents=[]"], "error: eval.opponents: is empty but eval.num_games is 4000;"),
        (["--set", "env.learner_seat=2"], "error: env.learner_seat: must be in [0, 2) or null, got 2\n"),
        (["--set", "env.game=chess"], "error: env.game: unknown game 'chess'; known games: ["),
        (["--set", "env.game_options={num_players: 99}"], "error: env.game_options: "),
        (["--set", "imports=[no_such_module_xyz]"], "error: imports[0]: cannot import 'no_such_module_xyz': "),
        (["--set", "init_model=/nowhere/m.zip"], "error: init_model: no saved model at '/nowhere/m.zip'\n"),
        (["--set", "env.opponent=grandmaster"], "error: env.opponent: agent 'grandmaster': unknown agent"),
        (["--import", "no_such_module_xyz"], "error: imports[0]: cannot import 'no_such_module_xyz': "),
    ],
)
def test_game_dependent_checks_fail_on_the_command_line_before_anything_is_written(tmp_path, args, message, capsys):
    from training.run import main

    runs = tmp_path / "runs"
    assert main([*args, "--set", f"runs_dir={runs}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) or message in err, err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert not runs.exists()
    assert main([*args, "--set", f"runs_dir={runs}", "--dry-run"]) == 2, "a dry run checks the same"
    assert not runs.exists()


def test_seat_balanced_counts_pass_for_the_player_count(tmp_path, capsys):
    from training.run import main

    args = ["--set", "env.game_options={num_players: 3}", "--set", "eval.num_games=999", "--set", "eval.curve_games=30"]
    assert main([*args, "--set", f"runs_dir={tmp_path / 'runs'}", "--dry-run"]) == 0
    assert "num_games: 999" in capsys.readouterr().out


def test_the_resolved_config_round_trips_through_the_strict_loader(tmp_path):
    """``config.yaml`` of a run (written without anchors) loads back with the strict loader."""
    cfg = load_config(None, ["env.opponent=[random, greedy]", "eval.opponents=[random, greedy]", "seed=3"])
    text = dump_config(cfg)
    assert "&" not in text and "*" not in text
    path = tmp_path / "config.yaml"
    path.write_text(text)
    assert load_config(path) == cfg
    assert parse_yaml(text, "x") == cfg.to_dict()


def test_every_numeric_key_documents_its_range():
    """``--help-config`` (built from the ``#:`` comments) states a range for every number."""
    import dataclasses
    import typing

    text = describe()
    blocks = dict(re.findall(r"^(\S+) = .*\n    (.*)$", text, flags=re.M))

    def leaves(tp: object) -> list[object]:
        args = typing.get_args(tp)
        return [tp] if not args else [t for a in args for t in leaves(a)]

    def numeric(cls: type, prefix: str) -> list[str]:
        out = []
        for f in dataclasses.fields(cls):
            tp = typing.get_type_hints(cls)[f.name]
            if dataclasses.is_dataclass(tp):
                out += numeric(tp, f"{prefix}{f.name}.")
            elif f.name != "game_options" and any(t in (int, float) for t in leaves(tp)):
                out.append(f"{prefix}{f.name}")
        return out

    keys = numeric(TrainConfig, "")
    assert "ppo.learning_rate" in keys and "env.opponent_weights" in keys and "seed" in keys
    for key in keys:
        doc = blocks[key]
        assert "Range: " in doc or "in [" in doc or ">= 0" in doc, f"{key}: {doc}"
