"""The training heartbeat (issue 23: a line at least every 10 s in every phase of a run)."""

from __future__ import annotations

import io
import time

import pytest

from training.progress import Heartbeat


def test_a_silent_phase_still_prints_a_line_every_interval_with_its_count():
    out = io.StringIO()
    beat = Heartbeat(every=0.1, stream=out)
    with beat.phase("play-outs", total=4, unit="chunks") as p:
        p.advance(3)
        time.sleep(0.55)
    beat.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "play-outs ..."
    beats = [line for line in lines if line.startswith("  ... play-outs: 3/4 chunks, ")]
    assert len(beats) >= 3  # 0.55 s of silence at a 0.1 s interval
    assert lines[-1].startswith("play-outs: done in ")


def test_a_phase_that_prints_often_gets_no_heartbeat():
    out = io.StringIO()
    beat = Heartbeat(every=0.3, stream=out)
    with beat.phase("fitting"):
        for k in range(6):
            beat.say(f"epoch {k}")
            time.sleep(0.05)
    beat.close()
    assert not [line for line in out.getvalue().splitlines() if line.startswith("  ...")]


def test_no_heartbeat_between_phases_and_none_when_disabled():
    out = io.StringIO()
    beat = Heartbeat(every=0.05, stream=out)
    with beat.phase("evaluation"):
        pass
    time.sleep(0.3)  # no phase runs: nothing to report
    beat.close()
    assert out.getvalue().splitlines()[0] == "evaluation ..."
    assert len(out.getvalue().splitlines()) == 2
    quiet = io.StringIO()
    off = Heartbeat(every=0.05, stream=quiet, enabled=False)
    with off.phase("evaluation"):
        time.sleep(0.2)
    off.close()
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("every", [0, -1.0, True, "10", float("nan")])
def test_a_bad_interval_is_a_value_error(every):
    with pytest.raises(ValueError, match="every"):
        Heartbeat(every=every)
