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


def _accepting(out: io.StringIO):
    """A person who accepts every offered card and otherwise takes the first move."""

    def read(prompt: str) -> str:
        menu = out.getvalue().rsplit("legal moves:\n", 1)[1].splitlines()
        for line in menu:
            if line.strip().endswith(". accept the card"):
                return line.split(".")[0].strip()
        return "1"

    return read


def test_after_accepting_a_funky_monkey_card_the_person_learns_what_it_was_and_did():
    """Issue 22 item 5: after you accept a face-down card, play says what was announced, what the
    card really was (truth or bluff) and what it did (``Game.action_outcome``)."""
    import re

    game = make_game("funky_monkey", num_players=4)
    out = io.StringIO()
    play(game, ["human", "honest", "track", "random"], seed=5, read=_accepting(out), out=out)
    text = out.getvalue()
    mine = re.findall(
        r"^   -> A accepted the card: announced (\S+), it was (\S+) \((the truth|a bluff)\) -- (.*)$", text, re.M
    )
    assert mine, "no accepted card of the person was explained"
    for announced, card, truth, did in mine:
        assert (truth == "the truth") == (announced == card)
        assert did.startswith("costs a coconut" if card == "MiNuss" else f"moves A {card} space")
    # the other seats' accepted cards are explained to the person too, as news
    assert re.search(r"^      -> [BCD] accepted the card: announced \S+, it was \S+", text, re.M)


def test_action_outcome_tells_the_real_card_only_once_it_is_turned_up():
    """The hook behind it: an accept names the card and the mover's move; a pass that travels on,
    and the face-down play itself, tell nothing (the card stays hidden)."""
    from monkey_envs.funky_monkey.actions import A_ACCEPT, A_PASS
    from monkey_envs.funky_monkey.data import CARD_NAMES, CARD_STEPS

    game = make_game("funky_monkey", num_players=4)
    rng = np.random.default_rng(0)
    s = game.init([11])
    checked = {"accept": 0, "pass": 0, "play": 0}
    while not (s.terminated[0] or s.truncated[0]):
        legal = np.flatnonzero(s.legal_action_mask[0])
        a = int(rng.choice(legal))
        if A_ACCEPT in legal and rng.random() < 0.5:
            a = A_ACCEPT
        after = game.step(s, [a])
        for viewer in (None, 0, 1, 2, 3):
            text = game.action_outcome(s, after, 0, a, viewer)
            if a == A_ACCEPT:
                card, ann, taker = int(s.offer_card[0]), int(s.announce[0]), int(s.holder[0])
                letter = "ABCD"[taker]
                assert text.startswith(
                    f"{letter} accepted the card: announced {CARD_NAMES[ann]}, it was {CARD_NAMES[card]}"
                )
                if CARD_STEPS[card]:
                    assert f"moves {letter} {int(CARD_STEPS[card])} space" in text
                    assert f"{letter}: space {int(s.pos[0, taker])} -> " in text
                checked["accept"] += viewer is None
            elif a == A_PASS and after.phase[0] == s.phase[0] and int(after.offer_card[0]) == int(s.offer_card[0]):
                assert text == ""
                checked["pass"] += viewer is None
            elif a < 25:
                assert text == ""
                checked["play"] += viewer is None
        s = after
    assert min(checked.values()) > 0, checked


def test_a_drawn_treasure_card_is_named_to_its_holder_only():
    game = make_game("funky_monkey", num_players=4)
    rng = np.random.default_rng(1)
    for seed in range(20):
        s = game.init([seed])
        while not (s.terminated[0] or s.truncated[0]):
            a = int(rng.choice(np.flatnonzero(s.legal_action_mask[0])))
            after = game.step(s, [a])
            gained = np.flatnonzero(after.treasures[0].sum(1) > s.treasures[0].sum(1))
            if gained.size:
                p = int(gained[0])
                others = game.action_outcome(s, after, 0, a, (p + 1) % 4)
                assert f"{'ABCD'[p]}: " in others and "drew a treasure card" in others
                mine = game.action_outcome(s, after, 0, a, p)
                assert any(f"drew a {name}" in mine for name in ("scales", "telescope", "crown"))
                return
            s = after
    raise AssertionError("no treasure card was drawn in 20 random games")
