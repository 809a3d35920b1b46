"""Exports as the tests make them: asked for and written at once (`export_made`), as the
export page's POST and its task do, and read back through the download (`export_read`)."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from campaign.access import viewer_for
from campaign.exchange.jobs import export_job_run, export_job_start
from campaign.models import Campaign, ExportJob


def export_made(campaign: Campaign, user) -> ExportJob:
    """The member's export, asked for and written (the task's service, in this process)."""
    viewer = viewer_for(user=user, campaign=campaign)
    assert viewer is not None, f"{user} is no member"
    job = export_job_start(viewer=viewer)
    assert export_job_run(job_id=job.pk) == "ready"
    job.refresh_from_db()
    return job


def download_url(campaign: Campaign, job: ExportJob | int) -> str:
    pk = job if isinstance(job, int) else job.pk
    return reverse("campaign:export-download", args=[campaign.slug, pk])


def export_read(client: Client, campaign: Campaign, user) -> str:
    """The text of the member's export, downloaded as `client`."""
    response = client.get(download_url(campaign, export_made(campaign, user)))
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("application/json")
    return response.content.decode()
