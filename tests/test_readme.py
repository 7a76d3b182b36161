"""Every ```python example in README.md runs as written (a new user's first check)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = BLOCKS[index]
    exec(compile(code, f"README.md example {index}", "exec"), {"__name__": f"readme_example_{index}"})


# ---------------------------------------------------------------------- the shell commands (issue 22, item 5)
# Every command of a ```bash block, typed as written, must work: no placeholders, and each cheap
# one is run below, in README order, in one fresh folder (a later command reads what an earlier
# one wrote: the arena's games.json, play's my_game.json). They run in this process through the
# module's ``main(argv)`` (what ``python -m MODULE`` calls), so the suite pays no interpreter
# start-ups; test_play.py and test_replay.py run the same command lines as real processes.
COMMANDS = [
    line.strip()
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    for line in block.splitlines()
    if line.strip() and not line.strip().startswith("#")
]

#: Commands not run here, by how they start, and why (each still must have no placeholder).
NOT_RUN = {
    "pip install": "installs packages and trains or runs the whole suite (minutes)",
    "python benchmarks/": "benchmarks (minutes)",
    "python -m agents.arena --game monkey_fun --players 2 --agents random greedy --games 2000": "2,000 games "
    "(tens of seconds); the arena command of the replay example runs",
    "python -m agents.arena --game funky_monkey": "2,000 games (tens of seconds); the arena command of the replay "
    "example runs",
    'python -m monkey_envs.play --game monkey_fun --agents human "ppo:$(ls': "needs a trained run (python -m "
    "training.run, minutes); ppo: specs are tested in test_arena.py and test_untrusted_models.py",
}

#: What a person types at a command's prompts (stdin), by how the command starts; empty otherwise.
TYPED = {
    "python -m monkey_envs.play --game funky_monkey": "q\n",  # look, then leave
    "python -m monkey_envs.play --game monki": "1\n" * 5_000,  # always the first move, to the end
    "python -m monkey_envs.replay runs/my_arena/games.json --index 3 --viewer 0 --pause": "\n?\n\nq\n",
}


def _why_not_run(command: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


def test_readme_shell_commands_have_no_placeholders():
    """Issue 22 item 5: the replay examples named files like ``games.json`` and
    ``runs/arena__monki__2p__0__<time>/games.json`` that no command wrote."""
    assert len(COMMANDS) >= 10
    bad = [c for c in COMMANDS if re.search(r"<[A-Za-z_][\w .-]*>", c)]
    assert not bad, f"README commands with placeholders: {bad}"
    unknown = [s for s in (*NOT_RUN, *TYPED) if not any(c.startswith(s) for c in COMMANDS)]
    assert not unknown, f"the test names README commands that are gone: {unknown}"


def _run(command: str, stdin: str) -> tuple[int, str]:
    import contextlib
    import importlib
    import io
    import shlex
    import sys

    argv = shlex.split(command, comments=True)
    assert argv[:2] == ["python", "-m"], f"not a python -m command: {command}"
    module = importlib.import_module(argv[2])
    out = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                rc = module.main(argv[3:])
            except SystemExit as exc:  # argparse
                rc = exc.code
    finally:
        sys.stdin = old_stdin
    return int(rc or 0), out.getvalue()


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """``{command: (exit status, screen)}`` of every README command run here, run in README order
    in one fresh folder (with the ``docs/pictures/`` a checkout has, where the picture commands write)."""
    import os

    folder = tmp_path_factory.mktemp("readme")
    (folder / "docs" / "pictures").mkdir(parents=True)
    here = os.getcwd()
    os.chdir(folder)
    try:
        results = {}
        for command in COMMANDS:
            if _why_not_run(command) is None:
                results[command] = _run(command, TYPED.get(next((s for s in TYPED if command.startswith(s)), ""), ""))
    finally:
        os.chdir(here)
    return results, folder


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_shell_command_runs_as_written(command, ran):
    why = _why_not_run(command)
    if why is not None:
        pytest.skip(f"not run here: {why}")
    rc, screen = ran[0][command]
    assert rc == 0, f"{command}\nexit {rc}:\n{screen[-3000:]}"
    assert "Traceback" not in screen


def test_the_readme_commands_wrote_what_the_next_ones_read(ran):
    results, folder = ran
    assert (folder / "runs" / "my_arena" / "games.json").is_file()
    assert (folder / "my_game.json").is_file()
    assert (folder / "game3.gif").is_file()
    paused = next(s for c, (_, s) in results.items() if "--pause" in c)
    assert "legend of the board:" in paused and "stopped after move 3 of " in paused
