"""Every ```python example in README.md and docs/*.md runs as written (a new user's first check),
and every command of their ```bash blocks works as typed (the cheap ones are run here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
_ALL = [
    (page, i, code)
    for page in PAGES
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S))
]
# a snippet shown on two pages (the README repeats a few of docs/usage.md) runs once
BLOCKS = [b for n, b in enumerate(_ALL) if all(b[2] != other[2] for other in _ALL[:n])]


def test_readme_has_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("page,index,code", BLOCKS, ids=[f"{p.relative_to(ROOT)}#{i}" for p, i, _ in BLOCKS])
def test_readme_example_runs(page, index, code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    name = f"{page.relative_to(ROOT)} example {index}"
    exec(compile(code, name, "exec"), {"__name__": f"readme_example_{index}"})


# ---------------------------------------------------------------------- the shell commands (issue 22, item 5)
# Every command of a ```bash block of README.md and docs/*.md, typed as written, must work: no
# placeholders, and each cheap one is run below, in page order (README.md, then docs/*.md by
# name), in one fresh folder (a later command reads what an earlier one wrote: the arena's
# games.json, play's my_game.json). They run in this process through the module's ``main(argv)``
# (what ``python -m MODULE`` calls), so the suite pays no interpreter start-ups; test_play.py and
# test_replay.py run the same command lines as real processes. A command shown on two pages (the
# README's Quickstart is also on docs/index.md) is checked and run once.
def _shell_commands() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for page in PAGES:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
            for line in block.splitlines():
                command = line.strip()
                if command and not command.startswith("#") and command not in (c for _, c in out):
                    out.append((str(page.relative_to(ROOT)), command))
    return out


PAGE_COMMANDS = _shell_commands()
COMMANDS = [command for _, command in PAGE_COMMANDS]

#: Commands not run here, by how they start, and why (each still must have no placeholder).
NOT_RUN = {
    "pip install": "installs packages and trains or runs the whole suite (minutes)",
    "python benchmarks/": "benchmarks (minutes)",
    "python -m training.run": "trains (minutes); tests/test_training_smoke.py runs training.run on the smoke config",
    "python -m training.exploit --game": "trains a best response (minutes); tests/test_training_exploit.py runs "
    "training.exploit on a tiny budget, a saved model as the agent too",
    "python -m training.exploit --table runs/exploit": "reads the results of those runs; "
    "tests/test_training_exploit.py makes one and tables it",
    "python -m monkey_envs.core.spec_docs docs/*.md": "rewrites the checkout's pages; tests/test_docs.py runs its "
    "--check on them",
    "python -m agents.arena --game monkey_fun --players 2 --agents random greedy --games 2000": "2,000 games "
    "(tens of seconds); the arena command of the replay example runs",
    "python -m agents.arena --game funky_monkey": "2,000 games (tens of seconds); the arena command of the replay "
    "example runs",
    "python -m agents.arena --game monkey_fun --players 2 --agents mcts": "a search agent's arena table (minutes); "
    "tests/test_search_agent.py plays the search agent in the arena",
    "python -m agents.arena --game monki --players 2 --agents mcts": "a search agent's arena table (minutes); "
    "tests/test_search_agent.py plays the search agent in the arena",
    "python -m agents.arena --game four_monkeys --players 4 --agents mcts": "a search agent's arena table "
    "(minutes); tests/test_search_agent.py plays the search agent in the arena",
    "python -m agents.arena --game monki --players 2 --agents best=ppo:runs/": "needs the trained runs it names "
    "(python -m training.run, minutes) and plays 2,016 games with the search agent (minutes); ppo: specs are "
    "tested in test_arena.py and test_untrusted_models.py",
    "python -m agents.arena --game four_monkeys --players 4 --agents plan=ppo:runs/": "needs the trained runs it "
    "names (python -m training.run, minutes) and plays 2,016 games with the search agent (minutes); ppo: specs are "
    "tested in test_arena.py and test_untrusted_models.py",
    "python -m agents.arena --game monkey_fun --players 2 --agents rollout_q=ppo:runs/": "needs the trained runs "
    "it names (python -m training.run, minutes) and plays 2,016 games with the search agent (minutes); ppo: specs "
    "are tested in test_arena.py and test_untrusted_models.py",
    'python -m agents.arena --game monkey_fun --players 2 --agents "rollout_q=ppo:$(ls': "needs a trained run "
    "(python -m training.run, minutes); ppo: specs are tested in test_arena.py and test_untrusted_models.py",
    'python -m agents.arena --game monkey_fun --players 2 --agents "s0k=ppo:$(ls': "needs a self-play run "
    "(minutes); ppo: specs are tested in test_arena.py and test_untrusted_models.py",
    'python -m agents.paired --game funky_monkey --players 4 --candidate "ppo:$(ls': "needs a trained run "
    "(python -m training.run, minutes); tests/test_paired.py runs agents.paired",
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
    bad = [f"{page}: {c}" for page, c in PAGE_COMMANDS if re.search(r"<[A-Za-z_][\w .-]*>", c)]
    assert not bad, f"shell commands with placeholders: {bad}"
    unknown = [s for s in (*NOT_RUN, *TYPED) if not any(c.startswith(s) for c in COMMANDS)]
    assert not unknown, f"the test names shell commands that are gone: {unknown}"


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
    """``{command: (exit status, screen)}`` of every command run here, run in page order in one
    fresh folder (with the ``docs/pictures/`` a checkout has, where the picture commands write)."""
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


@pytest.mark.parametrize("command", COMMANDS, ids=[f"{page}:{c[:60]}" for page, c in PAGE_COMMANDS])
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
