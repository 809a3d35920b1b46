"""The export page (issue 28): a member asks for his export (a POST), a task writes it, the
page's progress line follows it and offers the file once ready, to him alone. The bytes are
those of the export (`export_json` of `campaign_export_for_viewer`), for every reader."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from campaign.access import viewer_for
from campaign.exchange import jobs
from campaign.exchange.export import campaign_export, campaign_export_for_viewer, export_json
from campaign.exchange.tasks import exports_expire_task
from campaign.models import ExportJob, Membership
from tests.campaign.exchange.exports import download_url, export_made

pytestmark = pytest.mark.django_db

PAGE = reverse("campaign:export", args=["incursion"])
HTMX = {"HX-Request": "true"}


def _resolve() -> None:
    call_command("resolve_turn", "incursion", "--seed", "7", stdout=StringIO())


def _job_url(job: ExportJob) -> str:
    return reverse("campaign:export-job", args=["incursion", job.pk])


def _ask(cast, who: str, capture, *, run: bool = True) -> ExportJob:
    """`who` clicks "Export"; with `run`, the task queued at commit runs (as eagerly as
    without a broker)."""
    with capture(execute=run) as queued:
        response = cast.client(who).post(PAGE)
    assert response.status_code == 302 and response["Location"] == PAGE
    assert len(queued) <= 1
    return _latest(cast, who)


def _latest(cast, who: str) -> ExportJob:
    mine = ExportJob.objects.filter(campaign=cast.campaign, user=cast.users[who])
    return mine.order_by("-created_at", "-pk").first()


def test_the_gm_asks_waits_and_downloads_the_very_bytes_of_the_export(
    cast, django_capture_on_commit_callbacks
):
    _resolve()
    client = cast.client("gm")
    assert "You have no export yet." in client.get(PAGE).content.decode()
    job = _ask(cast, "gm", django_capture_on_commit_callbacks)
    assert job.status == ExportJob.Status.READY and job.percent == 100
    page = client.get(PAGE).content.decode()
    assert "is ready" in page
    assert 'hx-trigger="every 2s"' not in page  # finished: nothing to poll
    link = download_url(cast.campaign, job)
    assert f'href="{link}"' in page
    response = client.get(link)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="incursion-full.json"'
    cast.campaign.refresh_from_db()
    assert response.content == export_json(campaign_export(campaign=cast.campaign)).encode()
    assert job.size == len(response.content)


@pytest.mark.parametrize("who", ["side_a", "side_b", "observer"])
def test_a_reader_gets_the_bytes_of_his_own_view(cast, who, django_capture_on_commit_callbacks):
    _resolve()
    job = _ask(cast, who, django_capture_on_commit_callbacks)
    response = cast.client(who).get(download_url(cast.campaign, job))
    cast.campaign.refresh_from_db()  # the export reads the campaign row's turn and day
    viewer = viewer_for(user=cast.users[who], campaign=cast.campaign)
    expected = export_json(campaign_export_for_viewer(campaign=cast.campaign, viewer=viewer))
    assert response.content == expected.encode()
    name = {"side_a": "raiders", "side_b": "defenders", "observer": "observer"}[who]
    assert response["Content-Disposition"] == f'attachment; filename="incursion-{name}.json"'


def test_the_line_polls_while_the_export_waits_and_stops_once_it_is_ready(
    cast, django_capture_on_commit_callbacks
):
    job = _ask(cast, "gm", django_capture_on_commit_callbacks, run=False)
    assert job.status == ExportJob.Status.QUEUED
    client = cast.client("gm")
    page = client.get(PAGE).content.decode()
    assert "waiting for a worker" in page
    assert f'hx-get="{_job_url(job)}" hx-trigger="every 2s"' in page
    line = client.get(_job_url(job), headers=HTMX)
    assert line.status_code == 200 and "waiting for a worker" in line.content.decode()
    # the worker at work: the step it is at, and how far
    ExportJob.objects.filter(pk=job.pk).update(status="running", step="turns", percent=10)
    line = client.get(_job_url(job), headers=HTMX).content.decode()
    assert "Writing the export: reading the turns (10%)" in line
    assert '<progress max="100" value="10">' in line
    assert jobs.export_job_run(job_id=job.pk) == "ready"
    line = client.get(_job_url(job), headers=HTMX)
    assert line.status_code == 286  # htmx: stop polling
    assert "is ready" in line.content.decode()
    assert download_url(cast.campaign, job) in line.content.decode()


def test_a_second_click_finds_the_export_under_way(cast, django_capture_on_commit_callbacks):
    first = _ask(cast, "gm", django_capture_on_commit_callbacks, run=False)
    with django_capture_on_commit_callbacks() as queued:
        cast.client("gm").post(PAGE)
    assert queued == []  # nothing queued again
    assert list(ExportJob.objects.filter(user=cast.users["gm"])) == [first]


def test_an_export_whose_worker_was_lost_is_given_up_for_a_new_one(
    cast, django_capture_on_commit_callbacks
):
    lost = _ask(cast, "gm", django_capture_on_commit_callbacks, run=False)
    ExportJob.objects.filter(pk=lost.pk).update(
        updated_at=timezone.now() - jobs.STALE - timedelta(seconds=1)
    )
    page = cast.client("gm").get(PAGE).content.decode()
    assert "The export failed: its worker stopped before it was written." in page
    assert "hx-get" not in page
    new = _ask(cast, "gm", django_capture_on_commit_callbacks, run=False)
    assert new != lost
    lost.refresh_from_db()
    assert (lost.status, lost.failure) == ("failed", "lost")
    # the run of the lost one, come at last, finds it given up
    assert jobs.export_job_run(job_id=lost.pk) == "skipped"
    assert jobs.export_job_run(job_id=new.pk) == "ready"
    assert not ExportJob.objects.filter(pk=lost.pk).exists()  # the last finished one is kept


def test_a_member_keeps_his_last_finished_export_and_none_past_a_day(cast):
    first = export_made(cast.campaign, cast.users["gm"])
    second = export_made(cast.campaign, cast.users["gm"])
    other = export_made(cast.campaign, cast.users["side_a"])
    assert set(ExportJob.objects.values_list("pk", flat=True)) == {second.pk, other.pk}
    assert jobs.export_job_run(job_id=second.pk) == "skipped"  # a task run twice: once
    assert not ExportJob.objects.filter(pk=first.pk).exists()
    ExportJob.objects.filter(pk=second.pk).update(
        created_at=timezone.now() - jobs.KEEP - timedelta(minutes=1)
    )
    assert exports_expire_task.delay().get() == "1 exports deleted"
    assert list(ExportJob.objects.all()) == [other]


def test_nobody_but_the_one_who_asked_reads_it(cast):
    job = export_made(cast.campaign, cast.users["side_a"])
    for who in ("gm", "side_b", "observer", "outsider", "staff"):
        client = cast.client(who)
        assert client.get(download_url(cast.campaign, job)).status_code == 404, who
        assert client.get(_job_url(job)).status_code == 404, who
    anonymous = cast.client("anonymous").get(download_url(cast.campaign, job))
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    assert cast.client("side_a").get(download_url(cast.campaign, job)).status_code == 200


def test_the_download_checks_the_membership_again(cast):
    job = export_made(cast.campaign, cast.users["side_a"])
    url = download_url(cast.campaign, job)
    membership = Membership.objects.get(campaign=cast.campaign, user=cast.users["side_a"])
    # no longer the raiders' player: what he was written for is not his to read now
    membership.role, membership.player = Membership.Role.OBSERVER, None
    membership.save(update_fields=["role", "player"])
    response = cast.client("side_a").get(url)
    assert response.status_code == 409
    assert "What you may see of the campaign has changed since this export" in (
        response.content.decode()
    )
    membership.delete()  # no longer a member at all
    assert cast.client("side_a").get(url).status_code == 404


def test_fog_lifted_after_the_export_was_written_asks_for_a_new_one(cast):
    """Written under fog, a player's export was of his side's view; with fog off he would be
    written more, and the other way round: the export must be written again."""
    cast.campaign.fog_of_war = False
    cast.campaign.save(update_fields=["fog_of_war"])
    job = export_made(cast.campaign, cast.users["side_a"])
    cast.campaign.fog_of_war = True
    cast.campaign.save(update_fields=["fog_of_war"])
    assert cast.client("side_a").get(download_url(cast.campaign, job)).status_code == 409


def test_an_export_asked_before_a_change_of_role_is_not_written(cast):
    viewer = viewer_for(user=cast.users["side_b"], campaign=cast.campaign)
    job = jobs.export_job_start(viewer=viewer)
    Membership.objects.filter(campaign=cast.campaign, user=cast.users["side_b"]).update(
        role=Membership.Role.OBSERVER, player=None
    )
    assert jobs.export_job_run(job_id=job.pk) == "failed"
    job.refresh_from_db()
    assert (job.status, job.failure, job.content) == ("failed", "left", None)
    page = cast.client("side_b").get(PAGE).content.decode()
    assert "The export failed: what you may see of the campaign changed before it was" in page


def test_an_error_while_writing_is_told_on_the_page(cast, monkeypatch):
    def broken(**kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(jobs, "campaign_export_for_viewer", broken)
    viewer = viewer_for(user=cast.users["gm"], campaign=cast.campaign)
    job = jobs.export_job_start(viewer=viewer)
    assert jobs.export_job_run(job_id=job.pk) == "failed"
    page = cast.client("gm").get(PAGE).content.decode()
    assert "The export failed: an error stopped it (the worker" in page
    line = cast.client("gm").get(_job_url(job), headers=HTMX)
    assert line.status_code == 286
    assert cast.client("gm").get(download_url(cast.campaign, job)).status_code == 409


def test_an_export_not_ready_is_not_downloaded(cast, django_capture_on_commit_callbacks):
    job = _ask(cast, "side_a", django_capture_on_commit_callbacks, run=False)
    response = cast.client("side_a").get(download_url(cast.campaign, job))
    assert response.status_code == 409
    assert "This export is not ready" in response.content.decode()


def test_the_progress_the_writing_reports_covers_the_way(cast):
    """The steps the export reports, in order, for the GM and for a player (the fog)."""
    _resolve()
    for who, steps in (
        ("gm", ["state", "turns", "battles", "records", "writing"]),
        ("side_a", ["state", "turns", "battles", "fog", "writing"]),
    ):
        seen: list[tuple[str, int]] = []
        viewer = viewer_for(user=cast.users[who], campaign=cast.campaign)
        campaign_export_for_viewer(
            campaign=cast.campaign,
            viewer=viewer,
            progress=lambda s, p, into=seen: into.append((s, p)),
        )
        seen.append(("writing", 85))  # the job's own step, once the document is made
        assert list(dict.fromkeys(s for s, _ in seen)) == steps
        percents = [p for _, p in seen]
        assert percents == sorted(percents) and percents[-1] < 100
        assert set(dict.fromkeys(s for s, _ in seen)) <= set(jobs.STEPS)


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_export_is_ready_when_the_page_comes_back(cast):
    """The demo: no broker, tasks run in the web process once the request's transaction
    commits (committed here for real): the page the POST comes back to offers the file."""
    client = cast.client("side_a")
    page = client.post(PAGE, follow=True).content.decode()
    assert "is ready" in page
    link = re.search(r'href="([^"]*/export/\d+\.json)"', page)
    assert link is not None
    assert client.get(link.group(1)).json()["viewer"]["player"] == "raiders"
