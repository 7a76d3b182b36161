"""The terminal player ``python -m monkey_envs.play``: driven through a pseudo-terminal as a person
would use it (scripted answers typed at its prompt, the screen text checked), plus what a seat
may learn of the other seats' moves (``Game.action_seen``)."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from monkey_envs.games import make_game
from monkey_envs.play import choose, play

ROOT = Path(__file__).resolve().parents[1]


def drive(args: list[str], answers, timeout: float = 120.0) -> tuple[int, str]:
    """Run the player on a pseudo-terminal; answer each ``"> "`` prompt with ``answers(screen)``.

    ``answers`` returns the next line to type, or ``None`` to close the terminal's input (end of
    input). Returns the exit status and the whole screen text.
    """
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "monkey_envs.play", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    screen = ""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536).decode(errors="replace")
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                screen += chunk
                if screen.endswith("> "):
                    line = answers(screen.replace("\r\n", "\n"))
                    if line is None:
                        os.write(master, b"\x04")  # Ctrl-D at the start of a line: end of input
                    else:
                        os.write(master, (line + "\n").encode())
            elif proc.poll() is not None:
                break
        else:
            proc.kill()
            raise AssertionError(f"the player did not finish in {timeout} s; screen tail:\n{screen[-2000:]}")
    finally:
        os.close(master)
    return proc.wait(timeout=30), screen.replace("\r\n", "\n")


def test_a_person_plays_a_whole_game_and_bad_input_is_asked_again():
    """Bad answers (a word, a number out of range, an empty line) are re-asked with a reason, help
    and the board can be shown; then always the first legal move, to the end of the game."""
    script = iter(["abc", "0", "", "?", "b"])

    def answers(screen: str) -> str:
        return next(script, "1")

    rc, screen = drive(["--game", "monkey_fun", "--agents", "human", "random", "--seed", "3"], answers)
    assert rc == 0, screen[-3000:]
    assert "'abc' is not a legal move here: type a number from 1 to" in screen
    assert "0 is not one of the moves" in screen
    assert "type the number of a move (or its full name)" in screen
    assert "== A (human) to move" in screen
    assert "hand of A:" in screen  # the person sees their own hand
    assert "hand of B:" not in screen.split("== game over")[0]  # ... and never the agent's
    assert "B (random): play " in screen  # the agent's open moves are reported
    assert "== game over" in screen
    assert "Traceback" not in screen
    tail = screen.split("== game over")[1]
    assert "winner(s): " in tail or "no winner" in tail
    assert "end: " in tail


def test_a_move_can_be_typed_by_its_name():
    typed = []

    def answers(screen: str) -> str:
        menu = screen.rsplit("legal moves:\n", 1)[1].splitlines()
        name = menu[0].split(". ", 1)[1].strip()  # the first move, by its name, in capitals
        typed.append(name)
        return name.upper() if len(typed) == 1 else "q"

    rc, screen = drive(["--game", "monki", "--agents", "human", "random", "--seed", "1"], answers)
    assert rc == 0
    assert "not a legal move" not in screen
    assert screen.count("== A (human) to move") == 2  # the name was taken: the game went on
    assert "you left the game (no undo); bye" in screen


@pytest.mark.parametrize("how", ["q", "quit", None])
def test_quitting_or_closing_the_input_leaves_safely(how):
    rc, screen = drive(
        ["--game", "funky_monkey", "--players", "4", "--agents", "human", "track", "honest", "random"],
        lambda screen: how,
    )
    assert rc == 0
    assert "you left the game (no undo); bye" in screen
    assert "Traceback" not in screen


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess", "--agents", "human", "random"], "unknown game 'chess'"),
        (["--game", "monki", "--agents", "human", "nobody"], "unknown agent 'nobody'"),
        (["--game", "monki", "--players", "3", "--agents", "human", "random"], "--players 3 needs 3 agents"),
        (["--game", "monki", "--agents", "human", "random", "--config", "[1]"], "--config must be a JSON object"),
        (["--game", "monki", "--agents", "human", "random", "--config", '{"turn_cap": -1}'], "turn_cap"),
    ],
)
def test_bad_arguments_are_a_clear_error(args, message):
    proc = subprocess.run(
        [sys.executable, "-m", "monkey_envs.play", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_person_learns_only_the_announcement_of_another_seats_face_down_card():
    """Funky Monkey: a card is passed face down with an announced value -- the other seats' news
    shows the announcement, never the card; the mover itself knows the card."""
    game = make_game("funky_monkey", num_players=4)
    out = io.StringIO()
    answers = iter(["1"] * 400)
    play(game, ["human", "honest", "track", "random"], seed=5, read=lambda prompt: next(answers, "q"), out=out)
    news = [line.strip() for line in out.getvalue().splitlines() if line.startswith("   ") and ": " in line]
    face_down = [line for line in news if "face down" in line]
    assert face_down, "no face-down play by another seat was reported"
    assert all("play a card face down, announce" in line for line in face_down)
    assert not any(line.startswith(("B (", "C (", "D (")) and "play 1 face down" in line for line in news)


def test_action_seen_hides_hidden_moves_and_shows_open_ones():
    fm = make_game("funky_monkey", num_players=4)
    s = fm.init([0])
    mover = int(s.current_player[0])
    a = int(np.flatnonzero(s.legal_action_mask[0])[0])  # a face-down play
    assert fm.action_seen(s, 0, a, mover) == fm.action_name(s, 0, a)
    other = (mover + 1) % 4
    assert fm.action_seen(s, 0, a, other).startswith("play a card face down, announce")
    assert fm.action_seen(s, 0, a, None) == fm.action_seen(s, 0, a, other)
    mf = make_game("monkey_fun")
    s = mf.init([0])
    a = int(np.flatnonzero(s.legal_action_mask[0])[0])
    assert mf.action_seen(s, 0, a, 1 - int(s.current_player[0])) == mf.action_name(s, 0, a)


def test_choose_accepts_numbers_and_names_and_raises_quit_on_end_of_input():
    said: list[str] = []
    answers = iter([" 2 ", "Pass"])
    names = ["accept", "pass"]
    assert choose(names, lambda p: next(answers), said.append, lambda: None) == 1
    assert choose(names, lambda p: next(answers), said.append, lambda: None) == 1

    def eof(prompt: str) -> str:
        raise EOFError

    from monkey_envs.terminal import Quit

    with pytest.raises(Quit):
        choose(names, eof, said.append, lambda: None)
    assert said == []


def test_a_finished_game_can_be_saved_and_replays_exactly(tmp_path):
    from monkey_envs.replay import load_replays, replay

    path = tmp_path / "mine.json"
    rc, screen = drive(
        ["--game", "monki", "--agents", "human", "cautious", "--seed", "2", "--save", str(path)], lambda s: "1"
    )
    assert rc == 0, screen[-2000:]
    assert f"saved the game to {path}" in screen
    reps = load_replays(path)
    (rec,) = reps.games
    assert rec.seats == ["human", "cautious"]
    replay(reps.game, rec)


def test_ctrl_c_away_from_a_prompt_is_exit_130_without_a_traceback(monkeypatch, capsys):
    """Issue 22 item 5: Ctrl-C while an agent thinks (no prompt open) ends play with status 130
    and one line, as replay does."""
    import monkey_envs.play as P

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(P, "play", interrupted)
    assert P.main(["--game", "monkey_fun", "--agents", "random", "random"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted"
