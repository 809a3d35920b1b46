"""A Celery worker that stops once at a named point of a turn's resolution, for the tests of a
worker that dies (test_worker_killed.py), which start it as
`python -m tests.campaign.turns.stopping_worker -A config worker …` (the `celery` command's
arguments).

FW_TEST_STOP says where and what, `<phases>:<action>`:

- phases `0-2` or `4-8`: inside that run's transaction, just after it wrote the new state
  (its record of the run and the state are written, its battles or next turn and the turn's
  own move on are not): a point reached by every run, whatever its timing;
- action `kill`: the worker SIGKILLs itself there; `hold`: it waits there until the test
  says go.

In FW_TEST_STOP_DIR it writes `reached` when it gets there, and waits for `go` (a hold is
bounded: after five minutes it goes on). It stops the first time only: a retry goes through.

The point is reached by wrapping the engine's functions in this process alone: nothing of
this is in the application, and production never runs this module.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

HOLD_AT_MOST = 300  # seconds


def _install() -> None:
    from campaign import adapters
    from campaign.turns import resolution

    phases, action = os.environ["FW_TEST_STOP"].split(":")
    where = Path(os.environ["FW_TEST_STOP_DIR"])
    running = {"phases": ""}

    def tracked(name: str, label: str) -> None:
        real = getattr(resolution, name)

        @functools.wraps(real)
        def run(*args: Any, **kwargs: Any) -> Any:
            running["phases"] = label
            try:
                return real(*args, **kwargs)
            finally:
                running["phases"] = ""

        setattr(resolution, name, run)

    tracked("phases_0_2_run", "0-2")
    tracked("phases_4_8_run", "4-8")
    real_save = adapters.state_save

    @functools.wraps(real_save)
    def state_save(**kwargs: Any) -> Any:
        saved = real_save(**kwargs)
        reached = where / "reached"
        if running["phases"] == phases and not reached.exists():
            reached.write_text(str(os.getpid()))
            if action == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            give_up = time.monotonic() + HOLD_AT_MOST
            while not (where / "go").exists() and time.monotonic() < give_up:
                time.sleep(0.05)
        return saved

    adapters.state_save = state_save


if __name__ == "__main__":
    import django

    django.setup()  # the worker's own setup later finds it done
    _install()
    from celery.__main__ import main

    sys.exit(main())
