"""Replays (``monkey_envs.replay``): the arena and the evaluation save games as seed + moves, a
replay reproduces each game exactly, and a damaged or hostile file is a clear ``ValueError``."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.arena import run_arena
from agents.evaluate import play_games, play_lineups, replay_records, seat_assignment
from monkey_envs import replay as R
from monkey_envs.games import GAMES, make_game

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [g for g in ("monkey_fun", "funky_monkey", "monki") if g in GAMES]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "monkey_envs.replay", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )


@pytest.fixture(scope="module")
def arena_file(tmp_path_factory):
    """An arena of Monki heuristics with --save-games semantics (record_games=True)."""
    out = tmp_path_factory.mktemp("arena")
    result = run_arena("monki", ["random", "cautious", "greedy"], num_games=24, seed=4, record_games=True)
    files = result.save(out)
    return result, files["games"]


def test_the_arena_saves_every_game_and_each_replays_to_its_recorded_outcome(arena_file):
    result, path = arena_file
    reps = R.load_replays(path)
    assert reps.game.spec.name == "monki" and reps.game.config == make_game("monki").config
    assert len(reps.games) == result.num_games
    wins = {name: 0 for name in result.names}
    for rec in reps.games:
        state = R.replay(reps.game, rec)
        assert bool(state.terminated[0] or state.truncated[0])
        assert rec.outcome["length"] == rec.actions.size
        w = rec.outcome["winners"]
        if any(w) and not all(w) and not rec.outcome["truncated"]:
            for seat, won in enumerate(w):
                wins[rec.seats[seat]] += won
    assert wins == {a.name: a.wins for a in result.agents}  # the file is the tournament


def test_moves_recorded_in_a_batch_replay_each_game_alone():
    """Games played side by side in one batch (rows finishing at different times) are recorded
    per game; each replays alone, on a batch of one, to the outcome the batch reported."""
    from agents.evaluate import build_agents

    game = make_game("funky_monkey", num_players=4)
    seeds, seats = seat_assignment(8, 4, 3)
    agents = build_agents(game, ["random", "honest", "track", "skeptic"], 3)
    batched = play_lineups(game, agents, seeds, seats, record_actions=True)
    assert batched.actions is not None
    assert [a.size for a in batched.actions] == batched.lengths.tolist()
    assert len(set(batched.lengths.tolist())) > 1  # the rows really ended at different steps
    recs = replay_records(game, batched, ["random", "honest", "track", "skeptic"])
    for i, rec in enumerate(recs):
        state = R.replay(game, rec)
        np.testing.assert_array_equal(game.winners(state)[0], batched.winners[i])
        np.testing.assert_array_equal(state.step_count[0], batched.lengths[i])


def test_play_games_writes_a_replay_file(tmp_path):
    game = make_game("monkey_fun")
    path = tmp_path / "games.json"
    result = play_games(game, ["random", "greedy"], 10, seed=2, save_games=path)
    reps = R.load_replays(path)
    assert len(reps.games) == 10
    assert (
        sum(rec.outcome["winners"][rec.seats.index(result.agents[1].name)] for rec in reps.games)
        >= result.agents[1].wins
    )
    for rec in reps.games:
        R.replay(game, rec)


def test_the_cli_checks_and_shows_a_game(arena_file):
    _, path = arena_file
    proc = _cli(str(path), "--check")
    assert proc.returncode == 0, proc.stderr
    assert "24 games of monki replay exactly" in proc.stdout
    proc = _cli(str(path), "--index", "2")
    assert proc.returncode == 0, proc.stderr
    assert "move 1: " in proc.stdout and "result: " in proc.stdout
    assert (
        proc.stdout.count("Monki (layout square") == json.loads(path.read_text())["games"][2]["outcome"]["length"] + 1
    )
    for bad, message in ((["--index", "99"], "--index must be in [0, 24)"), (["--viewer", "5"], "--viewer must be")):
        proc = _cli(str(path), *bad)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_a_seat_replaying_funky_monkey_does_not_see_the_others_face_down_cards(tmp_path):
    game = make_game("funky_monkey", num_players=4)
    rec = replay_records(
        game,
        play_lineups(
            game,
            [__import__("agents.registry", fromlist=["make_agent"]).make_agent("honest", game, 0)],
            np.array([7]),
            np.zeros((1, 4), dtype=np.int64),
            record_actions=True,
        ),
        ["honest"],
    )[0]
    out = io.StringIO()
    R.show(game, rec, viewer=0, out=out)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("move ")]
    others = [line for line in lines if "face down" in line and not line.split(": ", 1)[1].startswith("A ")]
    assert others and all("play a card face down, announce" in line for line in others)
    mine = [line for line in lines if "face down" in line and line.split(": ", 1)[1].startswith("A ")]
    assert mine and all("play a card" not in line for line in mine)  # its own cards by name


# ---------------------------------------------------------------------- damaged and hostile files
def _doc(arena_file) -> dict:
    return json.loads(arena_file[1].read_text())


def _write(tmp_path: Path, doc) -> Path:
    p = tmp_path / "r.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


def _set(doc: dict, path: tuple, value) -> dict:
    d = json.loads(json.dumps(doc))
    target = d
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return d


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("format",), "pickle", "'format' must be 'monkey_envs.replay'"),
        (("version",), 2, "'version' must be 1"),
        (("game", "name"), "chess", "unknown game 'chess'"),
        (("game", "config"), {"turn_cap": -3}, "not a valid monki configuration"),
        (("game", "config"), {"no_such_option": 1}, "not a valid monki configuration"),
        (("game", "version"), 99, "recorded with version 99"),
        (("games",), {}, "'games' must be a list"),
        (("games", 0, "seed"), -1, "'seed' must be an int"),
        (("games", 0, "seed"), True, "'seed' must be an int"),
        (("games", 0, "seats"), ["a"], "'seats' must be 2 strings"),
        (("games", 0, "actions"), [0, "1"], "every action must be an int"),
        (("games", 0, "actions"), [10**6], "every action must be an int in [0, "),
        (("games", 0, "actions"), [True], "every action must be an int"),
        (("games", 0, "outcome", "winners"), [1, 0], "'outcome.winners' must be 2 booleans"),
        (("games", 0, "outcome", "scores"), ["x", 1], "'outcome.scores' must be null or 2 numbers"),
        (("games", 0, "outcome", "length"), -1, "'outcome.length'"),
        (("games", 0, "outcome", "end_reason"), 3, "'outcome.end_reason'"),
        (("games", 0, "outcome", "truncated"), "no", "'outcome.truncated'"),
    ],
)
def test_a_damaged_field_is_a_clear_error(arena_file, tmp_path, path, value, message):
    with pytest.raises(ValueError, match=None) as err:
        R.load_replays(_write(tmp_path, _set(_doc(arena_file), path, value)))
    assert message in str(err.value)
    assert str(tmp_path / "r.json") in str(err.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_a_file_that_is_not_a_replay_is_a_clear_error(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        R.load_replays(_write(tmp_path, text))


def test_binary_missing_and_oversized_files_are_clear_errors(tmp_path, monkeypatch, arena_file):
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not UTF-8"):
        R.load_replays(p)
    with pytest.raises(ValueError, match="cannot read"):
        R.load_replays(tmp_path / "absent.json")
    monkeypatch.setattr(R, "MAX_FILE_BYTES", 100)
    with pytest.raises(ValueError, match="more than the 100"):
        R.load_replays(arena_file[1])


def test_changed_moves_or_outcomes_do_not_replay(arena_file, tmp_path):
    """A replay is checked move by move and against its outcome: tampering is caught."""
    doc = _doc(arena_file)
    game = R.load_replays(arena_file[1]).game
    g0 = doc["games"][0]
    # a move that is out of turn: the first legal move is replaced by an illegal one
    state = game.init(np.array([g0["seed"]]))
    illegal = int(np.flatnonzero(~state.legal_action_mask[0].astype(bool))[0])
    bad = R.parse_replays(_set(doc, ("games", 0, "actions", 0), illegal))
    with pytest.raises(ValueError, match=r"move 0: action .* is not legal there"):
        R.replay(bad.game, bad.games[0])
    # a flipped result
    flipped = [not w for w in g0["outcome"]["winners"]]
    bad = R.parse_replays(_set(doc, ("games", 0, "outcome", "winners"), flipped))
    with pytest.raises(ValueError, match="does not replay: recorded winners"):
        R.replay(bad.game, bad.games[0])
    # moves cut short / moves after the end
    bad = R.parse_replays(_set(doc, ("games", 0, "actions"), g0["actions"][:-3]))
    with pytest.raises(ValueError, match="not over"):
        R.replay(bad.game, bad.games[0])
    bad = R.parse_replays(_set(doc, ("games", 0, "actions"), [*g0["actions"], 0]))
    with pytest.raises(ValueError, match="already over"):
        R.replay(bad.game, bad.games[0])
    # the CLI refuses to show a game that does not replay
    proc = _cli(str(_write(tmp_path, _set(doc, ("games", 0, "outcome", "winners"), flipped))))
    assert proc.returncode == 2 and "does not replay" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", SHIPPED)
def test_every_game_round_trips_through_a_replay_file(name, tmp_path):
    game = make_game(name)
    path = tmp_path / f"{name}.json"
    play_games(game, ["random"] * game.num_players, game.num_players * 2, seed=9, save_games=path)
    reps = R.load_replays(path)
    assert reps.game.config == game.config
    for rec in reps.games:
        R.replay(reps.game, rec)


def test_the_arena_command_saves_games_with_save_games(tmp_path):
    out = tmp_path / "arena"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "agents.arena", "--game", "monki", "--agents", "random", "cautious"),
            *("--games", "4", "--seed", "1", "--out", str(out), "--quiet", "--save-games"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert str(out / "games.json") in proc.stdout
    assert _cli(str(out / "games.json"), "--check").returncode == 0


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_a_recorded_game_becomes_a_movie_of_its_positions(arena_file, tmp_path, suffix):
    """--movie: one frame per position (GIF read back frame by frame; MP4 by its frame count)."""
    _, path = arena_file
    out = tmp_path / f"game{suffix}"
    proc = _cli(str(path), "--index", "1", "--movie", str(out), "--fps", "4")
    assert proc.returncode == 0, proc.stderr
    reps = R.load_replays(path)
    n = reps.games[1].actions.size + 1
    assert f"({n} positions)" in proc.stdout
    if suffix == ".gif":
        from PIL import Image

        with Image.open(out) as im:
            assert im.n_frames == n
            im.seek(n - 1)
            last = np.asarray(im.convert("RGB"))
        expected = R.frames(reps.game, reps.games[1])[-1]
        assert last.shape == expected.shape
    else:
        moviepy = pytest.importorskip("moviepy")
        with moviepy.VideoFileClip(str(out)) as clip:
            assert abs(clip.duration - n / 4) <= 0.5


def test_a_movie_needs_a_known_suffix(arena_file, tmp_path):
    proc = _cli(str(arena_file[1]), "--movie", str(tmp_path / "x.avi"))
    assert proc.returncode == 2 and "write a .gif or an .mp4" in proc.stderr


# ---------------------------------------------------------------------- leaving a paused replay (issue 22, item 5)
PROMPT = R.PAUSE_PROMPT


def test_q_at_a_paused_replay_stops_it_like_play(arena_file):
    """Issue 22 item 5: ``--pause`` then ``q`` stops the replay (before, ``q`` advanced like Enter);
    stdin answers: Enter, Enter, q -- three moves are shown, then the replay stops, exit 0."""
    _, path = arena_file
    proc = subprocess.run(
        [sys.executable, "-m", "monkey_envs.replay", str(path), "--index", "0", "--viewer", "0", "--pause"],
        input="\n\nq\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.count(PROMPT) == 3
    assert "move 3: " in proc.stdout and "move 4: " not in proc.stdout
    assert "stopped after move 3 of " in proc.stdout
    assert "result: " not in proc.stdout


@pytest.mark.parametrize("leave", [KeyboardInterrupt, EOFError, "QUIT "])
def test_ctrl_c_or_end_of_input_at_a_paused_replay_stops_it(arena_file, leave):
    """Issue 22 item 5: Ctrl-C (``KeyboardInterrupt`` from the prompt) at a paused replay stops it
    without a traceback, as end of input and the quit words do (the mechanism play uses)."""
    reps = R.load_replays(arena_file[1])
    answers = iter(["", leave])

    def read(prompt: str) -> str:
        assert prompt == PROMPT
        a = next(answers)
        if isinstance(a, type):
            raise a
        return a

    out = io.StringIO()
    assert R.show(reps.game, reps.games[0], viewer=0, out=out, pause=True, read=read) is False
    text = out.getvalue()
    assert "move 2: " in text and "move 3: " not in text
    assert "stopped after move 2 of " in text and "result: " not in text


def test_ctrl_c_at_a_paused_replay_in_a_terminal_leaves_without_a_traceback(arena_file):
    """Issue 22 item 5: the real thing -- SIGINT to ``replay --pause`` waiting at its prompt."""
    import signal

    _, path = arena_file
    proc = subprocess.Popen(
        [sys.executable, "-m", "monkey_envs.replay", str(path), "--index", "0", "--viewer", "0", "--pause"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
    )
    seen = b""
    try:
        while not seen.endswith(PROMPT.encode()):
            chunk = proc.stdout.read1(65536)
            assert chunk, f"no prompt; output: {seen[-2000:]!r}"
            seen += chunk
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert b"Traceback" not in err
    assert b"stopped after move 1 of " in seen + rest


def test_ctrl_c_away_from_a_prompt_is_exit_130_without_a_traceback(monkeypatch, capsys, tmp_path):
    """Issue 22 item 5: Ctrl-C while replay works (loading, checking, writing a movie) ends it
    with status 130 and one line, not a traceback."""

    def interrupted(path):
        raise KeyboardInterrupt

    monkeypatch.setattr(R, "load_replays", interrupted)
    assert R.main([str(tmp_path / "any.json"), "--check"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted"
