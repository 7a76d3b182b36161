"""What the terminal tools (:mod:`monkey_envs.play`, :mod:`monkey_envs.replay`) share about a
person at the keyboard: how they leave.

A person leaves by typing a quit word (``q``, ``quit``, ``exit``; case and blanks ignored), by
closing the input (end of input, Ctrl-D) or by Ctrl-C at a prompt. :func:`ask` turns each of
them into :class:`Quit`, so a tool stops at once and without a traceback however the person
left.
"""

from __future__ import annotations

from collections.abc import Callable

#: The answers that leave (compared after ``strip().lower()``).
QUIT_WORDS: tuple[str, ...] = ("q", "quit", "exit")


class Quit(Exception):
    """The person left (a quit word, end of input or Ctrl-C at a prompt)."""


def ask(read: Callable[[str], str], prompt: str) -> str:
    """One answer read with ``read(prompt)`` (``input`` in a terminal), as typed.

    Raises:
        Quit: the answer is a quit word, or reading raised ``EOFError`` (end of input) or
            ``KeyboardInterrupt`` (Ctrl-C).
    """
    try:
        text = read(prompt)
    except (EOFError, KeyboardInterrupt):
        raise Quit from None
    if text.strip().lower() in QUIT_WORDS:
        raise Quit
    return text
