"""A wake-up of the run's signal watcher that carries no signal of ours is ignored.

Seen for real: under a sampling profiler (py-spy record -- pricewatch run ...) sigtimedwait
returned a si_signo of 1031048512, the watcher thread died on signal.Signals(1031048512) and the
run ended after its first night with "error: 1031048512 is not a valid Signals". The tracer is
the one thing stood in for here: sigtimedwait answers that value once, then nothing."""

from __future__ import annotations

import signal
import time
from types import SimpleNamespace

from pricewatch.server import run_guard


def test_a_wakeup_with_no_signal_of_ours_neither_stops_the_run_nor_kills_the_watcher(monkeypatch):
    answers = [SimpleNamespace(si_signo=1031048512)]
    real = signal.sigtimedwait

    def sigtimedwait(sigset, timeout):
        if answers:
            return answers.pop()
        return real(sigset, min(timeout, 0.05))

    monkeypatch.setattr(run_guard.signal, "sigtimedwait", sigtimedwait)
    said = []
    with run_guard.RunGuard(echo=said.append) as guard:
        deadline = time.monotonic() + 5
        while answers and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)                      # the watcher has looked again since
        assert guard._thread.is_alive()
        assert guard.signum is None
    assert said == [] and guard.signum is None
