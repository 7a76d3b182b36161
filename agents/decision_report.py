"""A game's report on one agent's decisions, from seat-balanced games (the ``decision_report`` hook).

::

    python -m agents.decision_report --game NAME --players 4 --agent ppo:runs/<run>/model.zip \\
        --opponents A B C --games 2000 [--json out.json] [--md out.md] [--import MODULE]

The focal agent plays ``--games`` seat-balanced games (:func:`agents.evaluate.decision_report`)
against the line-up; the decisions the game selects (``game.report_decisions``) are recorded
with the observation they were chosen from and tabulated by the game (``game.decision_report``;
Funky Monkey: the bluff rate by context). A game without a report exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from agents.evaluate import decision_report
from monkey_envs.games import add_import_option, import_plugins


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m agents.decision_report", description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, help="a registered game name")
    parser.add_argument("--players", type=int, default=None, help="number of players (game option num_players)")
    parser.add_argument("--agent", required=True, help="focal agent: a name or ppo:PATH")
    parser.add_argument("--opponents", nargs="+", required=True, help="P - 1 agents for the other seats")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--md", metavar="PATH")
    add_import_option(parser)
    args = parser.parse_args(argv)
    from monkey_envs.games import make_game

    try:
        import_plugins(args.imports)
        options = {} if args.players is None else {"num_players": args.players}
        game = make_game(args.game, **options)
        out = decision_report(game, args.agent, args.opponents, args.games, args.seed, name=args.agent)
    except (ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if out is None:
        print(f"error: {args.game!r} has no decision report", file=sys.stderr)
        return 2
    title, data, text = out
    print(f"# {title}\n\n{text}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"# {title}\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
