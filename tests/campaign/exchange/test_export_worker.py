"""A real Celery worker writes the export a member asks for on the export page (issue 28).

The worker is a subprocess on the real broker, on a queue of its own, pointed at the test
database; the test's data is committed (`transaction=True`) so the worker sees it, and the
page queues its task on the worker's queue (tests/campaign/turns/workers.py). The page's
progress line is polled as htmx polls it, until it answers 286 with the download link."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.urls import reverse

from campaign.exchange.export import campaign_export, export_json
from campaign.models import Campaign, ExportJob
from config import celery_app
from tests.campaign.exchange.exports import download_url
from tests.campaign.turns.workers import WORKER_TEST, Worker, queue_forget, wait_for, worker_start

pytestmark = WORKER_TEST


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Worker]:
    """A worker on a queue of its own; what this process queues goes there, not eagerly."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_default_queue
    queue = f"fw-test-{uuid.uuid4().hex[:12]}"
    started = worker_start(queue, tmp_path / "worker.log")
    conf.task_always_eager, conf.task_default_queue = False, queue
    try:
        yield started
    finally:
        conf.task_always_eager, conf.task_default_queue = saved
        started.stop()
        queue_forget(queue)


def test_a_real_worker_writes_the_export_the_gm_asked_for(cast, worker):
    client = cast.client("gm")
    page = reverse("campaign:export", args=[cast.campaign.slug])
    assert client.post(page).status_code == 302  # queued at commit, to the worker
    job = ExportJob.objects.get(campaign=cast.campaign, user=cast.users["gm"])
    line = reverse("campaign:export-job", args=[cast.campaign.slug, job.pk])
    htmx = {"HX-Request": "true"}

    def polled_to_the_end() -> bool:
        return client.get(line, headers=htmx).status_code == 286

    wait_for(polled_to_the_end, "export written", worker)
    answer = client.get(line, headers=htmx).content.decode()
    assert "is ready" in answer and download_url(cast.campaign, job) in answer
    body = client.get(download_url(cast.campaign, job)).content.decode()
    campaign = Campaign.objects.get(pk=cast.campaign.pk)
    assert body == export_json(campaign_export(campaign=campaign))
    output = worker.output(tail=10**7)
    assert "campaign.export_write" in output and ": 'ready'" in output
