"""A heartbeat for the phases of a run that have no progress bar of their own.

The long phases of ``python -m training.run`` -- the first call of a game's kernels (numba
compiles them once), the teacher's play-outs, the fitting epochs, the evaluation games -- are a few
large batched calls each, so there is no loop of small steps to hang a bar on. :class:`Heartbeat`
prints a line when a phase starts and ends, and from a background thread a line whenever
``every`` seconds went by without one, naming the phase, its count (``done/total``, where the
phase reports one) and the time it has taken. Under any load a user sees a line at least every
``every`` seconds, except while one compiled kernel call holds the interpreter longer than that
(the batched calls of the shipped games take milliseconds). The phases' own lines (the fitting's
per-epoch losses) go through :meth:`Heartbeat.echo`, so they and the heartbeat lines come out
as one sequence of whole lines on one stream, and a phase that prints often gets no heartbeat.

Usage::

    beat = Heartbeat(every=10.0)
    with beat.phase("play-outs", total=12, unit="chunks") as p:
        for chunk in chunks:
            work(chunk)
            p.advance()
            beat.echo(f"chunk {chunk}: ...")  # the phase's own lines go through the heartbeat too
    beat.close()
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO


class Phase:
    """The running phase of a :class:`Heartbeat`: its label and how far it has come."""

    def __init__(self, label: str, total: int | None, unit: str) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.done = 0
        self.started = time.perf_counter()

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more units done."""
        self.done += int(n)

    def status(self) -> str:
        """``"<label>: 3/12 chunks, 41 s"`` (the count left out where the phase has none)."""
        elapsed = time.perf_counter() - self.started
        count = f"{self.done}/{self.total} {self.unit}, " if self.total is not None else ""
        return f"{self.label}: {count}{elapsed:.0f} s"


class Heartbeat:
    """Prints a phase's start and end, and a line at least every ``every`` seconds in between.

    Args:
        every: the longest silence, in seconds (> 0).
        stream: where lines go (default ``sys.stdout``, flushed after each line).
        enabled: ``False`` prints nothing (and starts no thread).

    Raises:
        ValueError: ``every`` not a positive number.
    """

    def __init__(self, every: float = 10.0, stream: IO[str] | None = None, enabled: bool = True) -> None:
        if isinstance(every, bool) or not isinstance(every, (int, float)) or not every > 0:
            raise ValueError(f"every must be a positive number of seconds, got {every!r}")
        self.every = float(every)
        self.stream = stream
        self.enabled = bool(enabled)
        self._phase: Phase | None = None
        self._last = time.perf_counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def say(self, text: str) -> None:
        """Print one line now (and count it as the latest sign of life); nothing when disabled."""
        if self.enabled:
            self._write(text)

    def echo(self, text: str) -> None:
        """Print one line of the run's own output (a fitting epoch, a result), even when disabled.

        The line goes to the heartbeat's stream under its lock, in one write, so it never splits
        a heartbeat line and the two form one sequence of whole lines; it also counts as the
        latest sign of life, so a phase that prints often gets no heartbeat in between.
        """
        self._write(text)

    def _write(self, text: str) -> None:
        with self._lock:
            out = self.stream if self.stream is not None else sys.stdout
            out.write(f"{text}\n")  # one write: a line of another thread cannot land inside it
            out.flush()
            self._last = time.perf_counter()

    @contextmanager
    def phase(self, label: str, total: int | None = None, unit: str = "") -> Iterator[Phase]:
        """Run a phase: a line at its start, heartbeats while it runs, a line with its time at the end."""
        p = Phase(label, total, unit)
        self.say(f"{label} ...")
        self._phase = p
        self._start_thread()
        try:
            yield p
        finally:
            self._phase = None
        self.say(f"{label}: done in {time.perf_counter() - p.started:.1f} s")

    def close(self) -> None:
        """Stop the background thread (the heartbeat can start it again with a new phase)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._thread = None
        self._stop.clear()

    def _start_thread(self) -> None:
        if not self.enabled or (self._thread is not None and self._thread.is_alive()):
            return
        self._thread = threading.Thread(target=self._run, name="training-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        tick = min(1.0, self.every / 4)
        while not self._stop.wait(tick):
            p = self._phase
            if p is not None and time.perf_counter() - self._last >= self.every:
                self.say(f"  ... {p.status()}")
