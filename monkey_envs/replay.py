"""Recorded games: small JSON files of seeds and actions, replayed exactly.

A replay file holds any number of games of one game configuration::

    {"format": "monkey_envs.replay", "version": 1,
     "game": {"name": "monki", "version": 0, "config": {"layout": "square", ...}},
     "games": [{"seed": 12, "seats": ["cautious", "random"], "actions": [3, 17, ...],
                "outcome": {"winners": [true, false], "scores": [9.0, 7.0] | null,
                            "length": 64, "end_reason": "fruits", "truncated": false}}, ...]}

Because every chance event of a game comes from its seed (the kit's per-row streams), the seed
and the actions are the whole game: :func:`replay` plays them again on the core and checks that
every action is legal where it was taken and that the outcome is the recorded one, so a file
that does not reproduce its game is an error, never a silently different game.

Who writes them: ``python -m agents.arena ... --save-games``, ``training.run`` with
``eval.save_games: true``, and ``python -m monkey_envs.play ... --save FILE``. Who reads them::

    python -m monkey_envs.replay FILE                 # every position and move as text
    python -m monkey_envs.replay FILE --index 3 --viewer 0 --pause   # game 3 as seat 0 saw it
                                                      # (Enter: next move; ?: legend; q, Ctrl-D, Ctrl-C: stop)
    python -m monkey_envs.replay FILE --legend        # first what each mark of the board means
    python -m monkey_envs.replay FILE --check         # replay every game, report only
    python -m monkey_envs.replay FILE --index 3 --movie game3.gif   # pictures: .gif or .mp4

Files are data, never code: loading parses JSON (size-capped), checks every field, rebuilds the
game through the registry (a registered name, options the game accepts) and raises
``ValueError`` naming the problem for anything else.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from monkey_envs.games import GAMES, add_import_option, import_plugins, make_game
from monkey_envs.terminal import Quit, ask

REPLAY_FORMAT = "monkey_envs.replay"
REPLAY_VERSION = 1
#: Refuse files larger than this (bytes) before parsing.
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Refuse games longer than this (moves).
MAX_MOVES = 1_000_000
MAX_SEED = 2**63


@dataclasses.dataclass
class GameRecord:
    """One recorded game.

    Attributes:
        seed: the game's seed (``init([seed])``).
        seats: who sat in each seat (labels, ``P`` strings).
        actions: ``(T,) int64`` the moves in order.
        outcome: ``{"winners": [P bools], "scores": [P floats] | None, "length": int,
            "end_reason": str, "truncated": bool}``.
    """

    seed: int
    seats: list[str]
    actions: np.ndarray
    outcome: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": int(self.seed),
            "seats": list(self.seats),
            "actions": self.actions.tolist(),
            "outcome": self.outcome,
        }


@dataclasses.dataclass
class Replays:
    """A loaded replay file: its game (built) and its games."""

    game: Any
    games: list[GameRecord]


def outcome_record(winners: Any, scores: Any, length: int, end_reason: str, truncated: bool) -> dict[str, Any]:
    """The JSON outcome of one game: ``winners (P,)`` bools, ``scores (P,)`` floats or ``None``,
    its length in moves, its end reason and whether it was truncated."""
    return {
        "winners": [bool(x) for x in winners],
        "scores": None if scores is None else [float(x) for x in scores],
        "length": int(length),
        "end_reason": str(end_reason),
        "truncated": bool(truncated),
    }


def outcome_of(game: Any, state: Any, row: int, cut: bool = False) -> dict[str, Any]:
    """The outcome record of ``row`` of a finished ``state``.

    ``cut``: the game was stopped by a caller's cap on moves before it ended (then nobody won,
    the end reason is ``"max_steps"`` and it counts as truncated, as in :mod:`agents.evaluate`).
    """
    scores = game.scores(state)
    return outcome_record(
        [False] * int(game.num_players) if cut else np.asarray(game.winners(state))[row],
        None if scores is None else np.asarray(scores)[row],
        int(state.step_count[row]),
        "max_steps" if cut else game.end_reason_names(state)[row],
        True if cut else bool(state.truncated[row]),
    )


def file_dict(game: Any, games: Sequence[GameRecord]) -> dict[str, Any]:
    """The JSON document of ``games`` of ``game``."""
    return {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "game": {"name": game.spec.name, "version": int(game.spec.version), "config": game.config},
        "games": [g.to_json() for g in games],
    }


def save_replays(path: str | Path, game: Any, games: Sequence[GameRecord]) -> Path:
    """Write ``games`` of ``game`` to ``path`` (JSON); the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(file_dict(game, games), separators=(",", ":")))
    return path


# ---------------------------------------------------------------------- loading (untrusted)
def _need(cond: bool, where: str, why: str) -> None:
    if not cond:
        raise ValueError(f"{where}: {why}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_replays(doc: Any, where: str = "replay") -> Replays:
    """Check a parsed replay document and build its game.

    Raises:
        ValueError: anything that is not a replay file of a registered game and a configuration
            it accepts, with the field named.
    """
    _need(isinstance(doc, dict), where, "must be a JSON object")
    _need(doc.get("format") == REPLAY_FORMAT, where, f"'format' must be {REPLAY_FORMAT!r}, got {doc.get('format')!r}")
    _need(
        doc.get("version") == REPLAY_VERSION, where, f"'version' must be {REPLAY_VERSION}, got {doc.get('version')!r}"
    )
    g = doc.get("game")
    _need(isinstance(g, dict), where, "'game' must be an object")
    name = g.get("name")
    _need(isinstance(name, str) and name in GAMES, where, f"unknown game {name!r}; known: {sorted(GAMES)}")
    config = g.get("config")
    _need(isinstance(config, dict), where, "'game.config' must be an object")
    try:
        game = make_game(name, **config)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: game.config is not a valid {name} configuration: {exc}") from None
    _need(
        g.get("version") == game.spec.version,
        where,
        f"recorded with version {g.get('version')!r} of the {name} rules; this is version {game.spec.version}",
    )
    games = doc.get("games")
    _need(isinstance(games, list), where, "'games' must be a list")
    P, A = int(game.num_players), int(game.num_actions)
    out: list[GameRecord] = []
    for i, item in enumerate(games):
        at = f"{where}: games[{i}]"
        _need(isinstance(item, dict), at, "must be an object")
        seed = item.get("seed")
        _need(_is_int(seed) and 0 <= seed < MAX_SEED, at, f"'seed' must be an int in [0, 2**63), got {seed!r}")
        seats = item.get("seats")
        _need(
            isinstance(seats, list) and len(seats) == P and all(isinstance(s, str) for s in seats),
            at,
            f"'seats' must be {P} strings",
        )
        actions = item.get("actions")
        _need(
            isinstance(actions, list) and len(actions) <= MAX_MOVES,
            at,
            f"'actions' must be a list of <= {MAX_MOVES} ints",
        )
        _need(all(_is_int(a) and 0 <= a < A for a in actions), at, f"every action must be an int in [0, {A})")
        o = item.get("outcome")
        _need(isinstance(o, dict), at, "'outcome' must be an object")
        w = o.get("winners")
        _need(
            isinstance(w, list) and len(w) == P and all(isinstance(x, bool) for x in w),
            at,
            f"'outcome.winners' must be {P} booleans",
        )
        sc = o.get("scores")
        _need(
            sc is None
            or (
                isinstance(sc, list)
                and len(sc) == P
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in sc)
            ),
            at,
            f"'outcome.scores' must be null or {P} numbers",
        )
        _need(_is_int(o.get("length")) and o["length"] >= 0, at, "'outcome.length' must be a non-negative int")
        _need(isinstance(o.get("end_reason"), str), at, "'outcome.end_reason' must be a string")
        _need(isinstance(o.get("truncated"), bool), at, "'outcome.truncated' must be a boolean")
        out.append(GameRecord(seed=seed, seats=seats, actions=np.asarray(actions, dtype=np.int64), outcome=o))
    return Replays(game=game, games=out)


def load_replays(path: str | Path) -> Replays:
    """Read and check a replay file (see :func:`parse_replays`).

    Raises:
        ValueError: a missing, oversized, non-UTF-8 or non-JSON file, or a bad document; the
            message names the file.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror}") from None
    _need(size <= MAX_FILE_BYTES, str(path), f"{size} bytes is more than the {MAX_FILE_BYTES} a replay file may have")
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply") from None
    return parse_replays(doc, str(path))


# ---------------------------------------------------------------------- replaying
def positions(game: Any, record: GameRecord) -> Iterator[tuple[Any, int | None]]:
    """The positions of a recorded game: ``(state, action taken there)``, the last with ``None``.

    Every action is checked against the mask where it is taken.

    Raises:
        ValueError: an action that is illegal where it was taken, or moves after the game ended.
    """
    state = game.init(np.array([record.seed], dtype=np.int64))
    for t, a in enumerate(record.actions.tolist()):
        if bool(state.terminated[0]) or bool(state.truncated[0]):
            raise ValueError(f"move {t}: the game was already over, yet {record.actions.size - t} moves follow")
        if not bool(state.legal_action_mask[0, a]):
            raise ValueError(f"move {t}: action {a} ({game.action_name(state, 0, a)}) is not legal there")
        yield state, a
        state = game.step(state, np.array([a], dtype=np.int64))
    yield state, None


def replay(game: Any, record: GameRecord) -> Any:
    """Play a recorded game again; its final (batch-1) state.

    Raises:
        ValueError: an illegal move, or an outcome that differs from the recorded one (the
            message shows both).
    """
    state = None
    for position, _ in positions(game, record):
        state = position
    over = bool(state.terminated[0]) or bool(state.truncated[0])
    recorded = record.outcome
    if not over and not recorded["truncated"]:
        raise ValueError(f"the moves end after {record.actions.size} moves but the game is not over")
    got = outcome_of(game, state, 0, cut=not over)
    for key in ("winners", "scores", "length", "end_reason", "truncated"):
        a, b = recorded.get(key), got[key]
        same = np.allclose(a, b) if key == "scores" and a is not None and b is not None else a == b
        if not same:
            raise ValueError(f"the game does not replay: recorded {key} {a!r}, replayed {b!r}")
    return state


#: What a paused replay asks after every move.
PAUSE_PROMPT = "[Enter: next move, ?: legend, q: stop] "


def seat_letter(seat: int) -> str:
    """The letter a seat is shown by: ``A`` for seat 0, ``B`` for seat 1, ..."""
    return chr(ord("A") + seat)


def show(
    game: Any,
    record: GameRecord,
    viewer: int | None = None,
    out: Any = None,
    pause: bool = False,
    *,
    read: Callable[[str], str] = input,
    legend: bool = False,
) -> bool:
    """Print a recorded game as text, position by position, as ``viewer`` sees it (``None``: a spectator):
    each move as ``viewer`` saw it (:meth:`~monkey_envs.core.game.Game.action_seen`) and what it did
    (:meth:`~monkey_envs.core.game.Game.action_outcome`).

    With ``pause``, waits after every move for an answer read by ``read`` (``input`` by default):
    Enter goes on; ``?`` prints the game's legend of the board
    (:meth:`~monkey_envs.core.game.Game.render_legend`) and asks again; a quit word, end of input
    or Ctrl-C (:func:`monkey_envs.terminal.ask`) stops at once, without the result. ``legend``
    prints the legend once, before the first position. Returns ``True`` when the whole game was
    shown, ``False`` when the person stopped it.
    """
    stream = out if out is not None else sys.stdout
    seats = ", ".join(f"{seat_letter(i)} ({s})" for i, s in enumerate(record.seats))
    stream.write(f"{game.spec.title}: {seats}; seed {record.seed}\n")
    if legend:
        stream.write("legend of the board:\n" + game.render_legend() + "\n")
    steps = positions(game, record)
    state, action = next(steps)
    for t in itertools.count():
        stream.write("\n" + game.render(state, 0, viewer=viewer) + "\n")
        if action is None:
            break
        mover = int(state.current_player[0])
        stream.write(
            f"move {t + 1}: {seat_letter(mover)} ({record.seats[mover]}): {game.action_seen(state, 0, action, viewer)}\n"
        )
        after, next_action = next(steps)
        outcome = game.action_outcome(state, after, 0, action, viewer)
        if outcome:
            stream.write(f"   -> {outcome}\n")
        stream.flush()
        if pause:
            try:
                while ask(read, PAUSE_PROMPT).strip() in ("?", "h", "help"):
                    stream.write("legend of the board:\n" + game.render_legend() + "\n")
                    stream.flush()
            except Quit:
                stream.write(f"\nstopped after move {t + 1} of {record.actions.size}\n")
                stream.flush()
                return False
        state, action = after, next_action
    o = record.outcome
    won = [f"{seat_letter(i)} ({record.seats[i]})" for i, w in enumerate(o["winners"]) if w]
    stream.write(
        f"\nresult: {'winner(s) ' + ', '.join(won) if won else 'no winner'}; end: {o['end_reason']} after {o['length']} moves\n"
    )
    stream.flush()
    return True


def frames(game: Any, record: GameRecord, viewer: int | None = None) -> list[np.ndarray]:
    """The pictures of every position of a recorded game, ``(H, W, 3) uint8`` each, as ``viewer``
    sees them (the game's ``picture`` hook).

    Raises:
        ValueError: the game draws no pictures, or the moves do not replay.
    """
    from monkey_envs.core.pictures import has_picture

    if not has_picture(game):
        raise ValueError(f"{game.spec.name} has no picture hook: only the text replay is available")
    return [game.picture(state, 0, viewer).to_array() for state, _ in positions(game, record)]


def write_movie(game: Any, record: GameRecord, path: str | Path, viewer: int | None = None, fps: float = 2.0) -> Path:
    """Write a recorded game as an animated GIF (Pillow) or an MP4 (moviepy), by ``path``'s suffix.

    Raises:
        ValueError: another suffix, ``fps`` not positive, no pictures, or the library missing.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ValueError(f"{path}: write a .gif or an .mp4")
    if not (isinstance(fps, (int, float)) and not isinstance(fps, bool) and 0 < fps <= 60):
        raise ValueError(f"fps must be in (0, 60], got {fps!r}")
    images = frames(game, record, viewer)
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".gif":
        try:
            from PIL import Image
        except ImportError:
            raise ValueError("writing a GIF needs Pillow: pip install 'monkey-envs[pictures]'") from None
        first, *rest = [Image.fromarray(f) for f in images]
        first.save(path, save_all=True, append_images=rest, duration=int(1000 / fps), loop=0)
    else:
        try:
            from moviepy import ImageSequenceClip
        except ImportError:
            raise ValueError("writing an MP4 needs moviepy: pip install moviepy") from None
        clip = ImageSequenceClip(images, fps=fps)
        clip.write_videofile(str(path), codec="libx264", audio=False, logger=None)
        clip.close()
    return path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m monkey_envs.replay", description="Step through recorded games.")
    p.add_argument("file", help="a replay file (JSON)")
    p.add_argument("--index", type=int, default=0, help="which game of the file (default 0)")
    p.add_argument("--viewer", type=int, default=None, help="show the game as this seat saw it (default: a spectator)")
    p.add_argument("--pause", action="store_true", help="wait for Enter after every move (q, Ctrl-D or Ctrl-C: stop)")
    p.add_argument("--legend", action="store_true", help="print the legend of the board (what each mark means) first")
    p.add_argument("--check", action="store_true", help="replay every game of the file and report; show nothing")
    p.add_argument("--movie", default=None, metavar="OUT", help="write the game as pictures: OUT.gif or OUT.mp4")
    p.add_argument("--fps", type=float, default=2.0, help="positions per second of --movie (default 2)")
    add_import_option(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import_plugins(args.imports)
        reps = load_replays(args.file)
        if args.check:
            for i, rec in enumerate(reps.games):
                try:
                    replay(reps.game, rec)
                except ValueError as exc:
                    raise ValueError(f"{args.file}: game {i}: {exc}") from None
            print(f"{args.file}: {len(reps.games)} games of {reps.game.spec.name} replay exactly")
            return 0
        if not 0 <= args.index < len(reps.games):
            raise ValueError(f"--index must be in [0, {len(reps.games)}), got {args.index}")
        game = reps.game
        if args.viewer is not None and not 0 <= args.viewer < game.num_players:
            raise ValueError(f"--viewer must be a seat in [0, {game.num_players}), got {args.viewer}")
        rec = reps.games[args.index]
        replay(game, rec)  # check first: never show a game that is not the recorded one
        if args.movie is not None:
            out = write_movie(game, rec, args.movie, args.viewer, args.fps)
            print(f"wrote {out} ({rec.actions.size + 1} positions)")
        else:
            show(game, rec, args.viewer, pause=args.pause, legend=args.legend)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C away from a prompt (loading, checking, writing a movie)
        print("\ninterrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
