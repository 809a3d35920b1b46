"""Notification tests run Celery eagerly (tasks run in-process when queued)."""

from __future__ import annotations

import pytest

from config import celery_app


@pytest.fixture(autouse=True)
def eager():
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved
