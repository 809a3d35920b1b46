"""The process pool that shares a simulation's runs out (`rules.tactical.simulate(pool=...)`).

The engine itself starts no process: whoever asks for odds (this CLI, a benchmark, the web
app) opens `odds_pool(runs)` around the call. The odds do not depend on the pool.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.context import BaseContext

POOL_FROM = 400  # fewer runs are quicker in-process than a pool's start-up
MAX_WORKERS = 8


class OddsPool(ProcessPoolExecutor):
    """A process pool that says how many workers share the runs (a `RunPool`)."""

    def __init__(self, workers: int) -> None:
        super().__init__(max_workers=workers, mp_context=start_method())
        self._workers = workers

    @property
    def workers(self) -> int:
        return self._workers


@contextmanager
def odds_pool(runs: int, workers: int | None = None) -> Iterator[OddsPool | None]:
    """A pool for `runs` simulated battles, or None where in-process is better: `workers`
    processes when given (1: None), else one per CPU (at most MAX_WORKERS) from POOL_FROM
    runs, and None inside a daemon process (a Celery prefork child may not start a pool)."""
    n = min(pool_size(runs, workers), max(1, runs))  # never more workers than runs
    if n == 1:
        yield None
        return
    with OddsPool(n) as pool:
        yield pool


def pool_size(runs: int, workers: int | None) -> int:
    if workers is not None:
        return max(1, workers)
    if runs < POOL_FROM or multiprocessing.current_process().daemon:
        return 1
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


def start_method() -> BaseContext:
    """Fork when this process has a single thread (quick); otherwise (a threaded web server)
    a fork server, since forking a threaded process may deadlock the child."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
