"""Versioned PettingZoo modules ``monkey_envs.<game>_v<version>`` (issue 22, items 1 and 4).

Item 4: every registered game's module imports in every form PettingZoo users write, whether the
game ships a shim file or its module is generated. Item 1: a game's older versions (everything
below ``spec.version``) are refused in every form -- module, PettingZoo ids, gymnasium ids --
with an error naming the current version. Each check runs in a fresh interpreter, so a module
cached in ``sys.modules`` by another test cannot hide a failing form. The games and versions
come from the registry; nothing here names a game.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from monkey_envs.games import GAMES, game_class

ROOT = Path(__file__).resolve().parents[1]

#: ``{m}``: the module's short name (``<game>_v<version>``); the form leaves it in ``module``.
FORMS = {
    "import": "import monkey_envs.{m}\nmodule = sys.modules['monkey_envs.{m}']",
    "from_module_import_names": "from monkey_envs.{m} import env, raw_env\nmodule = sys.modules['monkey_envs.{m}']",
    "from_package_import_module": "from monkey_envs import {m} as module",
    "attribute": "import monkey_envs\nmodule = monkey_envs.{m}",
}

#: Builds the list of the registry's versioned modules, in the fresh interpreter.
_PRELUDE = """
import sys
import monkey_envs
from monkey_envs.games import GAMES, game_class
sys.path.insert(0, {tests!r})
{extra}
names = {{g: f"{{g}}_v{{game_class(g).spec.version}}" for g in GAMES}}
"""


def _python(code: str, extra: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``code`` after :data:`_PRELUDE` in a fresh interpreter of this checkout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    script = _PRELUDE.format(tests=str(ROOT / "tests"), extra=extra) + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
    )


def _ok(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode == 0, f"exit {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res.stdout


@pytest.mark.parametrize("form", list(FORMS))
def test_every_games_versioned_module_imports_in_every_form(form: str) -> None:
    """Issue 22, item 4: ``import monkey_envs.<g>_v<v>`` & co. work for every registered game."""
    code = f"""
    for game, m in names.items():
        assert 'monkey_envs.' + m not in sys.modules, m  # fresh: nothing imported it yet
        exec({FORMS[form]!r}.format(m=m))
        assert module.__name__ == 'monkey_envs.' + m and sys.modules[module.__name__] is module, m
        assert getattr(monkey_envs, m) is module, m
        wanted = ['env', 'raw_env'] + (['parallel_env'] if game_class(game).spec.simultaneous else [])
        assert all(callable(getattr(module, n, None)) for n in wanted), (m, dir(module))
        assert sorted(module.__all__) == sorted(wanted), (m, module.__all__)
        print('ok', m)
    """
    out = _ok(_python(code))
    assert sorted(out.split()[1::2]) == sorted(f"{g}_v{game_class(g).spec.version}" for g in GAMES)


def test_from_a_generated_module_import_parallel_env_of_every_simultaneous_game() -> None:
    """Issue 22, item 4: ``from monkey_envs.<g>_v<v> import parallel_env`` for simultaneous games."""
    code = """
    for game, m in names.items():
        if game_class(game).spec.simultaneous:
            exec(f'from monkey_envs.{m} import parallel_env')
            env = parallel_env()
            assert env.metadata['name'] == m, env.metadata
            print('ok', m)
    """
    _ok(_python(code))


_REFUSED = """
import gymnasium
import pettingzoo
from monkey_envs.registration import gymnasium_id, pettingzoo_id

def refusals(game, asked):
    spec = game_class(game).spec
    current = f"monkey_envs.{game}_v{spec.version}"
    old = f"{game}_v{asked}"
    for form in FORMS.values():
        try:
            exec(form.format(m=old))
        except (ImportError, AttributeError) as exc:
            assert current in str(exc) and "retired" in str(exc), (form, exc)
        else:
            raise AssertionError(f"{form!r} imported the retired {old}")
        assert "monkey_envs." + old not in sys.modules
    kinds = ["aec"] + (["parallel"] if spec.simultaneous else [])
    for kind in kinds:
        try:
            pettingzoo.make(kind, f"monkey_envs/{spec.name}-v{asked}")
        except pettingzoo.env_registry.exceptions.VersionNotFound as exc:  # PettingZoo's own error
            assert f"v{spec.version}" in str(exc) and spec.name in str(exc), exc
        else:
            raise AssertionError(f"pettingzoo.make({kind!r}) built version {asked}")
    try:
        gymnasium.make(f"monkey_envs/{spec.gym_name}-v{asked}")
    except gymnasium.error.DeprecatedEnv as exc:  # gymnasium's own error names the new id
        assert f"`{gymnasium_id(game)}`" in str(exc), exc
    else:
        raise AssertionError(f"gymnasium.make built version {asked}")
    # the current version is unaffected
    assert pettingzoo.make("aec", pettingzoo_id(game)) is not None
    print("refused", old)
"""


def test_older_versions_of_every_game_are_refused_naming_the_current_one() -> None:
    """Issue 22, item 1: each older version of every registered game (below ``spec.version``) is
    refused by every import form and by the PettingZoo and gymnasium registries."""
    old = [(g, v) for g in GAMES for v in range(game_class(g).spec.version)]
    if not old:
        pytest.skip("no registered game has an older version")
    code = f"FORMS = {FORMS!r}\n" + _REFUSED + "".join(f"refusals({g!r}, {v})\n" for g, v in old)
    out = _ok(_python(code))
    assert out.count("refused") == len(old)


def test_a_game_that_only_declares_its_version_refuses_the_older_ones(tmp_path: Path) -> None:
    """Issue 22, item 1, in the kit: a game (outside the package) that declares nothing but
    ``spec.version = 2`` gets v0 and v1 refused in every form and id, v2 served."""
    (tmp_path / "toy_retired.py").write_text(
        textwrap.dedent(
            """
            import dataclasses
            from toy_games.dice import ToyDice

            class ToyRetired(ToyDice):
                spec = dataclasses.replace(ToyDice.spec, name="toy_retired", gym_name="ToyRetired", version=2)
            """
        ),
        encoding="utf-8",
    )
    extra = (
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import toy_games.dice\n"  # registered first: importing it while toy_retired loads re-enters the registry
        "from monkey_envs.games import register_game\n"
        "register_game('toy_retired', 'toy_retired:ToyRetired')\n"
    )
    code = (
        f"FORMS = {FORMS!r}\n"
        + _REFUSED
        + "refusals('toy_retired', 0)\nrefusals('toy_retired', 1)\n"
        + "from monkey_envs import toy_retired_v2\nassert toy_retired_v2.raw_env().metadata['name'] == 'toy_retired_v2'\n"
        + "try:\n    import monkey_envs.toy_retired_v3\nexcept ImportError as exc:\n"
        + "    assert 'does not exist' in str(exc) and 'monkey_envs.toy_retired_v2' in str(exc), exc\n"
        + "else:\n    raise AssertionError('imported a future version')\n"
    )
    out = _ok(_python(code, extra))
    assert out.count("refused") == 2


def test_names_that_are_no_games_module_stay_ordinary_errors() -> None:
    """The finder claims only ``<registered game>_v<N>``: other names fail as Python's own errors."""
    code = """
    try:
        import monkey_envs.no_such_game_v0
    except ModuleNotFoundError as exc:
        assert exc.name == 'monkey_envs.no_such_game_v0', exc
    else:
        raise AssertionError('imported a module of no game')
    try:
        monkey_envs.no_such_attribute
    except AttributeError as exc:
        assert 'no_such_attribute' in str(exc)
    else:
        raise AssertionError('an unknown attribute')
    import monkey_envs.games  # real submodules are untouched
    """
    _ok(_python(code))


def test_an_env_pickled_here_loads_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """Issue 22, item 4: the env classes live in the versioned modules, so unpickling one in a
    new process (a worker of a vector env or an RL library) imports the module by name -- which
    failed for generated modules until the finder served ``import monkey_envs.<g>_v<v>``."""
    import pickle

    import monkey_envs

    agents = {}
    for game in GAMES:
        env = monkey_envs.versioned_module(f"{game}_v{game_class(game).spec.version}").raw_env()
        env.reset(seed=1)
        (tmp_path / f"{game}.pkl").write_bytes(pickle.dumps(env))
        agents[game] = env.agent_selection
    code = f"""
    import pickle
    for game, agent in {agents!r}.items():
        env = pickle.loads(open({str(tmp_path)!r} + '/' + game + '.pkl', 'rb').read())
        assert type(env).__module__ == 'monkey_envs.' + names[game], type(env).__module__
        assert env.agent_selection == agent
        print('ok', game)
    """
    out = _ok(_python(code))
    assert out.count("ok") == len(GAMES)
