"""A member's export, written by a worker and downloaded when ready (issue 28: the GM's
export of a campaign of 1,500 forces took 10.7 s in the request).

`export_job_start` records who asked and for what (`reader_of`: the same lens the export
applies, `campaign_export_for_viewer`) and queues `export_job_run` on the turns' queue once
that commits; without a broker it runs at once, in the web process. The run writes exactly
the bytes the export writes (`export_json`), keeps them gzipped in the row and says how far
it has got (`ExportJob.step`, `percent`), which the export page polls. Only the member who
asked downloads it, and only while he still reads the campaign as it was written for
(`export_job_refusal`). A member has one export under way at a time; he keeps his last
finished one, and every export is deleted a day after it was asked for
(`export_jobs_expire`, beat's `exports-expire`).
"""

from __future__ import annotations

import gzip
import logging
from datetime import datetime, timedelta

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.utils import timezone as djtz
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from campaign.access import Viewer, viewer_for
from campaign.exchange.export import campaign_export_for_viewer, export_json
from campaign.models import ExportJob
from config.celery import enqueue_on_commit

log = logging.getLogger(__name__)

# The tasks `campaign.exchange.tasks` defines, named (they call this module).
EXPORT_TASK = "campaign.export_write"
EXPIRE_TASK = "campaign.exports_expire"

# An export under way that has not moved for this long lost its worker (every step of the
# writing touches `updated_at`; a queued one waits at most behind a turn's resolution): a new
# click gives it up and starts another.
STALE = timedelta(minutes=10)
KEEP = timedelta(days=1)

# what the worker is at, as the progress line names it (`ExportJob.step`)
STEPS: dict[str, Promise] = {
    "state": _("reading the campaign's state"),
    "turns": _("reading the turns"),
    "battles": _("reading the battles"),
    "records": _("reading the campaign's records"),
    "fog": _("keeping what your side may see"),
    "writing": _("writing the file"),
}


def reader_of(viewer: Viewer) -> str:
    """For whom an export is written: what `campaign_export_for_viewer` reads of the viewer
    (his role, the army he plays or follows, whether he sees everything)."""
    player = viewer.player.key if viewer.player is not None else ""
    return f"{viewer.role}:{player}:{'all' if viewer.sees_everything else 'side'}"


def export_filename(viewer: Viewer) -> str:
    who = "full" if viewer.is_gm else (viewer.player.key if viewer.player else viewer.role)
    return f"{viewer.campaign.slug}-{who}.json"


def job_lost(job: ExportJob, now: datetime | None = None) -> bool:
    """Under way, but its worker has given no sign of life for `STALE`."""
    return job.status in ExportJob.IN_FLIGHT and job.updated_at < (now or djtz.now()) - STALE


def export_job_latest(*, viewer: Viewer) -> ExportJob | None:
    """The viewer's last export of the campaign, without its document."""
    return (
        ExportJob.objects.filter(campaign=viewer.campaign, user=viewer.user)
        .defer("content")
        .order_by("-created_at", "-pk")
        .first()
    )


def export_job_get(*, viewer: Viewer, pk: int, content: bool = False) -> ExportJob | None:
    """The viewer's own export `pk` of this campaign; anyone else's is not found."""
    jobs = ExportJob.objects.filter(pk=pk, campaign=viewer.campaign, user=viewer.user)
    return (jobs if content else jobs.defer("content")).first()


def export_job_start(*, viewer: Viewer) -> ExportJob:
    """Ask for an export: the one already under way for the viewer, or a new one, queued
    once this commits. One under way that was lost, or written for what the viewer no longer
    reads, is given up."""
    reader = reader_of(viewer)
    now = djtz.now()
    with transaction.atomic():
        current = (
            ExportJob.objects.select_for_update()
            .filter(campaign=viewer.campaign, user=viewer.user, status__in=ExportJob.IN_FLIGHT)
            .defer("content")
            .first()
        )
        if current is not None:
            if current.reader == reader and not job_lost(current, now):
                return current
            why = ExportJob.Failure.LOST if current.reader == reader else ExportJob.Failure.LEFT
            _fail(current.pk, why)
        try:
            with transaction.atomic():  # a second click at the same moment: the first's job
                job = ExportJob.objects.create(
                    campaign=viewer.campaign, user=viewer.user, reader=reader
                )
        except IntegrityError:
            return ExportJob.objects.defer("content").get(
                campaign=viewer.campaign, user=viewer.user, status__in=ExportJob.IN_FLIGHT
            )
        enqueue_on_commit(EXPORT_TASK, job.pk)
    return job


class _GivenUp(Exception):
    """The job was given up (or deleted) while it was being written."""


def export_job_run(*, job_id: int) -> str:
    """Write the export `job_id` asked for (the task's one service; safe to run twice: a
    finished or given-up job is left alone). Returns what became of it."""
    claimed = ExportJob.objects.filter(pk=job_id, status__in=ExportJob.IN_FLIGHT).update(
        status=ExportJob.Status.RUNNING, step="state", percent=0, updated_at=djtz.now()
    )
    if not claimed:
        return "skipped"
    job = ExportJob.objects.select_related("campaign", "user").defer("content").get(pk=job_id)
    viewer = viewer_for(user=job.user, campaign=job.campaign)
    if viewer is None or reader_of(viewer) != job.reader:
        _fail(job_id, ExportJob.Failure.LEFT)
        return "failed"

    def progress(step: str, percent: int) -> None:
        moved = ExportJob.objects.filter(pk=job_id, status=ExportJob.Status.RUNNING).update(
            step=step, percent=percent, updated_at=djtz.now()
        )
        if not moved:
            raise _GivenUp

    try:
        data = campaign_export_for_viewer(campaign=job.campaign, viewer=viewer, progress=progress)
        progress("writing", 85)
        text = export_json(data).encode()
        packed = gzip.compress(text, compresslevel=6, mtime=0)  # 9 takes 7 times longer
    except _GivenUp:
        return "skipped"
    except (OperationalError, InterfaceError):
        raise  # the task's retry (config.celery.RETRY) writes it again
    except Exception:
        log.exception("export %s of campaign %s failed", job_id, job.campaign.slug)
        _fail(job_id, ExportJob.Failure.ERROR)
        return "failed"
    now = djtz.now()
    done = ExportJob.objects.filter(pk=job_id, status=ExportJob.Status.RUNNING).update(
        status=ExportJob.Status.READY,
        content=packed,
        size=len(text),
        step="",
        percent=100,
        updated_at=now,
        finished_at=now,
    )
    if not done:
        return "skipped"
    _forget_older(job)
    return "ready"


def _fail(job_id: int, failure: str) -> None:
    now = djtz.now()
    ExportJob.objects.filter(pk=job_id, status__in=ExportJob.IN_FLIGHT).update(
        status=ExportJob.Status.FAILED, failure=failure, updated_at=now, finished_at=now
    )


def _forget_older(job: ExportJob) -> None:
    """A member keeps his last finished export of a campaign."""
    ExportJob.objects.filter(
        campaign_id=job.campaign_id,
        user_id=job.user_id,
        status__in=(ExportJob.Status.READY, ExportJob.Status.FAILED),
    ).exclude(pk=job.pk).delete()


def export_job_refusal(*, viewer: Viewer, job: ExportJob) -> str:
    """Why the viewer may not download his export `job` now ("" if he may)."""
    if job.status != ExportJob.Status.READY:
        return str(_("This export is not ready: wait for it on this page."))
    if job.reader != reader_of(viewer):
        return str(
            _(
                "What you may see of the campaign has changed since this export was written: "
                "export it again."
            )
        )
    return ""


def export_document(job: ExportJob) -> bytes:
    """The JSON document of a ready export, as `export_json` wrote it."""
    return gzip.decompress(bytes(job.content or b""))


def export_jobs_expire(*, now: datetime | None = None) -> int:
    """Delete the exports asked for more than `KEEP` ago; returns how many."""
    cutoff = (now or djtz.now()) - KEEP
    deleted, _rows = ExportJob.objects.filter(created_at__lt=cutoff).delete()
    return deleted
