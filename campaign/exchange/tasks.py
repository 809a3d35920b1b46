"""Export tasks: each takes ids, calls one service of `campaign.exchange.jobs`, and is safe to
run twice (a finished export is left alone). Retries: `config.celery.RETRY`. They go to the
turns' queue (the default one), not the mail's."""

from __future__ import annotations

from celery import shared_task

from campaign.exchange import jobs
from config.celery import RETRY


@shared_task(name=jobs.EXPORT_TASK, **RETRY)
def export_write_task(job_id: int) -> str:
    """Write the export a member asked for; he downloads it from the export page."""
    return jobs.export_job_run(job_id=job_id)


@shared_task(name=jobs.EXPIRE_TASK, **RETRY)
def exports_expire_task() -> str:
    """Periodic (celery beat, hourly): delete the exports asked for more than a day ago."""
    return f"{jobs.export_jobs_expire()} exports deleted"
