"""The export page and its downloads. A member asks for his export there (the whole campaign
for the GM, what his side may see for anyone else: `campaign_export_for_viewer`); a worker
writes it (`campaign.exchange.jobs`), the page's progress line follows it and offers the file
once ready, to him alone. The GM also downloads the whole campaign with its photo files, as a
.zip (`campaign.exchange.archive`), written in the request."""

from __future__ import annotations

import tempfile
from typing import Any

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HTMX_STOP_POLLING

from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer, require_gm
from campaign.exchange import jobs
from campaign.exchange.archive import archive_write
from campaign.models import ExportJob

TEMPLATE = "campaign/export.html"


def _context(viewer: Viewer, job: ExportJob | None, **extra: Any) -> dict[str, Any]:
    failure = ""
    if job is not None and job.status == ExportJob.Status.FAILED:
        failure = job.get_failure_display()
    elif job is not None and jobs.job_lost(job):
        failure = str(ExportJob.Failure.LOST.label)
    return {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "job": job,
        "failure": failure,
        # the line polls while a worker may still move it
        "polling": job is not None and not job.finished and not failure,
        "step": jobs.STEPS.get(job.step, "") if job is not None else "",
        **extra,
    }


def _job(viewer: Viewer, pk: int, *, content: bool = False) -> ExportJob:
    job = jobs.export_job_get(viewer=viewer, pk=pk, content=content)
    if job is None:  # another member's export is no business of his
        raise Http404("No such export.")
    return job


@never_cache
@require_http_methods(["GET", "POST"])
def export(request: HttpRequest, slug: str) -> HttpResponse:
    """The export page with the viewer's last export; a POST asks for a new one (or finds
    the one under way) and comes back here."""
    viewer = campaign_viewer(request, slug)
    if request.method == "POST":
        jobs.export_job_start(viewer=viewer)
        return redirect("campaign:export", slug=viewer.campaign.slug)
    return render(request, TEMPLATE, _context(viewer, jobs.export_job_latest(viewer=viewer)))


@never_cache
@require_GET
def export_job(request: HtmxHttpRequest, slug: str, job: int) -> HttpResponse:
    """The progress line of the viewer's export `job`. htmx polls it every two seconds; once
    the export is finished the answer is 286, which tells htmx to stop."""
    viewer = campaign_viewer(request, slug)
    context = _context(viewer, _job(viewer, job))
    response = render(request, f"{TEMPLATE}#export-job", context)
    if request.htmx and not context["polling"]:
        response.status_code = HTMX_STOP_POLLING
    return response


@never_cache
@require_GET
def export_download(request: HttpRequest, slug: str, job: int) -> HttpResponse:
    """The viewer's ready export, as `export_json` wrote it. Sent uncompressed, as before:
    it holds what other readers must not see, next to text players wrote."""
    viewer = campaign_viewer(request, slug)
    found = _job(viewer, job, content=True)
    refusal = jobs.export_job_refusal(viewer=viewer, job=found)
    if refusal:
        context = _context(viewer, jobs.export_job_latest(viewer=viewer), refusal=refusal)
        return render(request, TEMPLATE, context, status=409)
    response = HttpResponse(
        jobs.export_document(found), content_type="application/json; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{jobs.export_filename(viewer)}"'
    return response


@never_cache
@require_GET
def export_archive(request: HttpRequest, slug: str) -> FileResponse:
    """The whole campaign with its photos, as a .zip: the GM's only."""
    viewer = campaign_viewer(request, slug)
    require_gm(viewer)
    out = tempfile.TemporaryFile()  # noqa: SIM115 - FileResponse closes it once sent
    archive_write(campaign=viewer.campaign, out=out)
    out.seek(0)
    return FileResponse(
        out, as_attachment=True, filename=f"{slug}-full.zip", content_type="application/zip"
    )
