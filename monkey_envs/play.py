"""Play a game in the terminal against any agents: ``python -m monkey_envs.play``.

::

    python -m monkey_envs.play --game funky_monkey --players 4 --agents human greedy random ppo:runs/x/model.zip
    python -m monkey_envs.play --game monki --agents random human --seed 7
    python -m monkey_envs.play --game monkey_fun --agents human human        # two people, one terminal

Every seat is ``human`` (a person at this terminal) or an agent spec as everywhere else in the
project: ``random``, a registered heuristic name (``greedy``, ...), ``ppo:PATH`` -- resolved
through the installed agent library (:func:`monkey_envs.core.opponents.resolve_agent`).

On a person's turn the screen shows the position as that seat sees it (its own hand, nothing
hidden from it), what the other seats did since (as much as that seat may know of it:
:meth:`~monkey_envs.core.game.Game.action_seen`, and what it brought about:
:meth:`~monkey_envs.core.game.Game.action_outcome`, e.g. a Funky Monkey card accepted and turned
up), and the numbered legal moves with their
readable names. Type the number (or the move's full name); anything else is re-asked with a
reason. ``q`` (or end of input, or Ctrl-C) leaves the game at once, without a traceback; there
is no undo. ``b`` shows the board again, ``?`` the help and the game's legend of the board (what
each mark means: :meth:`~monkey_envs.core.game.Game.render_legend`; ``--legend`` prints it once at
the start). When several people share the
terminal, each sees only their own view on their turn (hot seat: look away for the others).

Exit status: 0 after a finished or quit game, 2 for bad arguments (unknown game, agent or
option, wrong number of agents), 130 after Ctrl-C away from a prompt (no traceback either).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from monkey_envs.core.opponents import ask_agent, resolve_agent
from monkey_envs.games import GAMES, add_import_option, import_plugins, make_game
from monkey_envs.replay import seat_letter
from monkey_envs.terminal import Quit, ask

HUMAN = "human"
HELP = (
    "type the number of a move (or its full name) and press Enter; "
    "b = show the board again, ? = this help and the legend of the board, q = quit (no undo)"
)


class _RandomAgent:
    """Uniformly random legal moves from a seeded generator (no agent library needed)."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = np.flatnonzero(np.asarray(mask)[0])
        return np.array([int(self._rng.choice(legal))], dtype=np.int64)


def seat_label(seat: int, specs: Sequence[str]) -> str:
    """``"A (human)"``-style label of a seat: its letter and who plays it."""
    return f"{seat_letter(seat)} ({specs[seat]})"


def choose(
    names: Sequence[str],
    read: Callable[[str], str],
    write: Callable[[str], None],
    show_board: Callable[[], None],
    help_text: str = HELP,
) -> int:
    """Ask until the person picks one of ``names``; the index into ``names``.

    Accepts ``1 .. len(names)`` or a name (case and surrounding blanks ignored); ``?`` writes
    ``help_text`` (the play help and the game's legend, in :func:`play`), ``b`` calls
    ``show_board``. Raises
    :class:`~monkey_envs.terminal.Quit` on a quit word, end of input or Ctrl-C
    (:func:`~monkey_envs.terminal.ask`).
    """
    lowered = [n.strip().lower() for n in names]
    while True:
        answer = ask(read, "> ").strip()
        low = answer.lower()
        if low in ("?", "h", "help"):
            write(help_text)
            continue
        if low == "b":
            show_board()
            continue
        if not answer:
            write(f"type a number from 1 to {len(names)} (? for help)")
            continue
        if answer.isdigit():
            k = int(answer)
            if 1 <= k <= len(names):
                return k - 1
            write(f"{answer} is not one of the moves: type a number from 1 to {len(names)}")
            continue
        if low in lowered:
            return lowered.index(low)
        shown = answer if len(answer) <= 40 else answer[:40] + "..."
        write(f"{shown!r} is not a legal move here: type a number from 1 to {len(names)} (? for help)")


def play(
    game: Any,
    specs: Sequence[str],
    seed: int = 0,
    *,
    read: Callable[[str], str] = input,
    out: TextIO | None = None,
    max_steps: int = 100_000,
    legend: bool = False,
) -> dict[str, Any]:
    """Play one game of ``game`` with one seat per spec; people answer through ``read``.

    Args:
        game: a core game (its ``num_players`` must equal ``len(specs)``).
        specs: per seat ``"human"`` or an agent spec (an agent object, a factory, a name).
        seed: the game's seed (agents get ``seed + seat``).
        read: how a person's answer is read (``input`` by default; a prompt is passed).
        out: where the screen goes (``sys.stdout`` by default).
        max_steps: a safety cap on decisions.
        legend: print the game's legend of its board (:meth:`~monkey_envs.core.game.Game.render_legend`)
            once at the start; ``?`` shows it at any prompt either way.

    Returns:
        ``{"quit": bool, "winners": [seats], "scores": [...] | None, "end_reason": str, "steps": int,
        "actions": [int, ...]}``.

    Raises:
        ValueError: wrong number of specs, an unknown agent, or an agent returning an illegal move.
    """
    stream = out if out is not None else sys.stdout
    P = int(game.num_players)
    if len(specs) != P:
        raise ValueError(f"{game.spec.name} with {P} players needs {P} agents, got {len(specs)}: {list(specs)}")

    def write(text: str) -> None:
        stream.write(text + "\n")
        stream.flush()

    agents: list[Any] = []
    for seat, spec in enumerate(specs):
        if spec == HUMAN:
            agents.append(None)
        elif spec == "random":
            agents.append(_RandomAgent(seed * 1_000 + seat))
        else:
            agents.append(resolve_agent(spec, game, seed + seat))
    labels = [str(s) if isinstance(s, str) else getattr(s, "name", type(s).__name__) for s in specs]
    humans = [s for s in range(P) if agents[s] is None]
    # what each person has not yet been told about the others' moves
    news: dict[int, list[str]] = {h: [] for h in humans}
    actions: list[int] = []

    state = game.init(np.array([seed], dtype=np.int64))
    write(f"{game.spec.title}: {', '.join(seat_label(s, labels) for s in range(P))}; seed {seed}")
    board_legend = game.render_legend()
    if legend:
        write("legend of the board:\n" + board_legend)
    help_text = f"{HELP}\nlegend of the board:\n{board_legend}"
    quit_ = False
    steps = 0
    while not (bool(state.terminated[0]) or bool(state.truncated[0])) and steps < max_steps:
        seat = int(state.current_player[0])
        mask = np.asarray(state.legal_action_mask[0]).astype(bool)
        legal = np.flatnonzero(mask)
        if agents[seat] is None:

            def show_board(seat: int = seat, state: Any = state) -> None:
                write("")
                write(game.render(state, 0, viewer=seat))

            write("")
            write(f"== {seat_label(seat, labels)} to move")
            for line in news[seat]:
                write(f"   {line}")
            news[seat] = []
            show_board()
            names = [game.action_name(state, 0, int(a)) for a in legal]
            write("legal moves:")
            width = len(str(len(names)))
            for i, name in enumerate(names, 1):
                write(f"  {i:>{width}}. {name}")
            try:
                action = int(legal[choose(names, read, write, show_board, help_text)])
            except Quit:
                write("you left the game (no undo); bye")
                quit_ = True
                break
        else:
            obs = game.observe(state, np.array([seat], dtype=np.int64))
            chosen = np.asarray(
                ask_agent(
                    agents[seat],
                    obs,
                    state.legal_action_mask,
                    lambda state=state, seat=seat: (state.take(slice(None)), np.array([seat], dtype=np.int64)),
                )
            ).reshape(-1)
            if chosen.shape != (1,) or not 0 <= int(chosen[0]) < mask.size or not mask[int(chosen[0])]:
                raise ValueError(f"agent {labels[seat]!r} chose an illegal move {chosen.tolist()}")
            action = int(chosen[0])
        seen = {h: game.action_seen(state, 0, action, h) for h in humans if h != seat}
        actions.append(action)
        before, state = state, game.step(state, np.array([action], dtype=np.int64))
        steps += 1
        for h in humans:
            outcome = game.action_outcome(before, state, 0, action, h)
            if h == seat:
                if outcome:  # what the person's own move did (an accepted card turned up, ...)
                    write(f"   -> {outcome}")
                continue
            news[h].append(f"{seat_label(seat, labels)}: {seen[h]}")
            if outcome:
                news[h].append(f"   -> {outcome}")

    result: dict[str, Any] = {"quit": quit_, "steps": steps, "actions": actions}
    winners = np.flatnonzero(np.asarray(game.winners(state))[0]).tolist()
    scores = game.scores(state)
    result["winners"] = winners
    result["scores"] = None if scores is None else np.asarray(scores)[0].tolist()
    result["end_reason"] = game.end_reason_names(state)[0]
    if not quit_:
        from monkey_envs.replay import GameRecord, outcome_of

        over = bool(state.terminated[0]) or bool(state.truncated[0])
        result["record"] = GameRecord(
            seed=int(seed),
            seats=labels,
            actions=np.asarray(actions, dtype=np.int64),
            outcome=outcome_of(game, state, 0, cut=not over),
        )
    if not quit_:
        write("")
        write("== game over")
        write(game.render(state, 0, viewer=None))
        if winners:
            write("winner(s): " + ", ".join(seat_label(s, labels) for s in winners))
        else:
            write("no winner (a draw)")
        if result["scores"] is not None:
            write("scores: " + ", ".join(f"{seat_letter(s)} {v:g}" for s, v in enumerate(result["scores"])))
        write(f"end: {result['end_reason']} after {steps} moves")
    return result


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m monkey_envs.play",
        description="Play a game in the terminal against agents (human = you).",
    )
    parser.add_argument("--game", required=True, help=f"one of the registered games ({', '.join(GAMES)})")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: as many as --agents)")
    parser.add_argument(
        "--agents", nargs="+", required=True, help="one per seat: human, random, a heuristic name or ppo:PATH"
    )
    parser.add_argument("--seed", type=int, default=0, help="the game's seed")
    parser.add_argument(
        "--legend", action="store_true", help="print the legend of the board once at the start (? shows it any time)"
    )
    parser.add_argument("--save", default=None, metavar="FILE", help="write the finished game as a replay file")
    parser.add_argument("--config", default="{}", help='further game options as JSON, e.g. \'{"variant": "quick"}\'')
    add_import_option(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import_plugins(args.imports)
        options = json.loads(args.config)
        if not isinstance(options, dict):
            raise ValueError(f"--config must be a JSON object, got {args.config!r}")
        players = args.players if args.players is not None else len(args.agents)
        if players != len(args.agents):
            raise ValueError(f"--players {players} needs {players} agents, got {len(args.agents)}")
        if args.game not in GAMES:
            raise ValueError(f"unknown game {args.game!r}; known: {sorted(GAMES)}")
        game = make_game(args.game, **{**options, "num_players": players})
        result = play(game, args.agents, seed=args.seed, legend=args.legend)
        if args.save is not None:
            if "record" in result:
                from monkey_envs.replay import save_replays

                path = save_replays(args.save, game, [result["record"]])
                print(f"saved the game to {path} (python -m monkey_envs.replay {path})")
            else:
                print("the game was left before its end: nothing saved")
    except (ValueError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C away from a prompt (an agent thinking, kernels compiling)
        print("\ninterrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
