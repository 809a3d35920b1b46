"""Each reader reads every moment on his own clock, with the zone named, in his language's
date format, and every person by his display name (issue 29): the deadline the GM set in
Rome's zone, read by an Italian in Rome and an Englishman in New York; the audit log, the
amendment page and the notices; a notice's title written in its reader's language, and the
title of a notice from before titles had codes read back by the data migration."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from campaign.models import Amendment, AuditEntry
from campaign.moments import Reading, moment, reading_as
from campaign.selectors import turn_current
from campaign.turns.services import turn_open
from notifications.models import Kind, Notification
from notifications.titles import title_params
from tests.reading import reads_in

pytestmark = pytest.mark.django_db

DEADLINE = datetime(2099, 7, 1, 12, 0, tzinfo=UTC)  # 14:00 in Rome, 08:00 in New York


@pytest.fixture
def deadline(cast):
    turn_open(turn=turn_current(campaign=cast.campaign), deadline=DEADLINE, timezone="Europe/Rome")
    reads_in(cast.users["side_a"], language="it", zone="Europe/Rome")
    reads_in(cast.users["side_b"], language="en", zone="America/New_York")


def _get(cast, who: str, name: str, *args) -> str:
    response = cast.client(who).get(reverse(name, args=[cast.campaign.slug, *args]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_deadline_is_on_each_readers_clock_in_his_language(cast, deadline):
    italian = _get(cast, "side_a", "campaign:detail")
    english = _get(cast, "side_b", "campaign:detail")
    assert "Mercoledì 01 Luglio 2099 14:00 CEST" in italian
    assert "Wednesday 1 July 2099, 08:00 EDT" in english
    assert "14:00" not in english and "08:00" not in italian
    # the orders page: the short format, same clocks
    assert "01/07/2099 14:00 CEST" in _get(cast, "side_a", "campaign:orders")
    assert "1 Jul 2099, 08:00 EDT" in _get(cast, "side_b", "campaign:orders")


def test_a_visitor_reads_utc_and_the_next_reader_never_inherits_a_zone(cast, deadline):
    _get(cast, "side_b", "campaign:detail")  # New York's clock, for that request only
    assert timezone.get_current_timezone_name() == "America/New_York"
    html = cast.client("observer").get(reverse("campaign:detail", args=["incursion"]))
    assert "Wednesday 1 July 2099, 12:00 UTC" in html.content.decode()


def test_the_helper_names_the_zone_in_each_language():
    at = datetime(2026, 12, 7, 17, 40, tzinfo=UTC)
    with reading_as(Reading("it", "Europe/Rome")):
        assert moment(at) == "07/12/2026 18:40 CET"
    with reading_as(Reading("en", "Europe/Rome")):
        assert moment(at) == "7 Dec 2026, 18:40 CET"
        assert moment(at, "long") == "Monday 7 December 2026, 18:40 CET"
    with reading_as(Reading("en", "Asia/Kolkata")):
        assert moment(at).endswith("23:10 IST")
    assert translation.get_language() == "en" and timezone.get_current_timezone_name() == "UTC"


def test_the_audit_log_and_the_amendment_name_people_by_display_name(cast):
    gm = cast.users["gm"]
    reads_in(gm, language="en", zone="Asia/Tokyo")
    a = Amendment.objects.create(
        campaign=cast.campaign,
        number=1,
        turn_number=1,
        kind=Amendment.Kind.ROLLBACK,
        reason="A mistake.",
        created_by=gm,
    )
    AuditEntry.objects.create(
        campaign=cast.campaign, action=AuditEntry.Action.OVERRIDDEN, user=gm, turn_number=1
    )
    log = _get(cast, "gm", "campaign:audit")
    page = _get(cast, "gm", "campaign:amendment", a.number)
    for html in (log, page):
        assert "The Game Master" in html and "JST" in html and " UTC" not in html
    assert ">gm<" not in log and "Asked by The Game Master" in page


def _notice(cast, who: str, **fields) -> Notification:
    return Notification.objects.create(
        user=cast.users[who],
        campaign=cast.campaign,
        turn=turn_current(campaign=cast.campaign),
        kind=Kind.TURN_OPENED,
        body="…",
        **fields,
    )


def test_a_notice_title_is_written_in_its_readers_language(cast, deadline):
    params = title_params("turn-opened", campaign="Incursion", turn=8)
    _notice(
        cast, "side_a", key="new", subject="Incursion: turn 8 is open for orders", params=params
    )
    _notice(cast, "side_a", key="old", subject="An old notice, as it was written")
    html = cast.client("side_a").get(reverse("notifications:log")).content.decode()
    assert "Incursion: il turno 8 è aperto agli ordini" in html
    assert "turn 8 is open for orders" not in html
    assert "An old notice, as it was written" in html  # no code: its stored subject
    assert "CEST" in html or "CET" in html  # the notice's time on Rome's clock


def test_the_migration_reads_the_english_subjects_back_into_codes():
    migration = importlib.import_module(
        "notifications.migrations.0006_notification_params_from_subjects"
    )
    read = migration.params_of
    assert read("turn-opened", "Wend: Valley: turn 3 is open for orders") == {
        "title": "turn-opened",
        "campaign": "Wend: Valley",
        "turn": 3,
    }
    assert read("battle", "Incursion: battle at (4, -8) on turn 2") == {
        "title": "battle",
        "campaign": "Incursion",
        "x": 4,
        "y": -8,
        "turn": 2,
    }
    assert read("turn-opened", "Incursion: the deadline of turn 2 has changed")["title"] == (
        "deadline-changed"
    )
    assert read("amended", "Incursion: il master ha emendato il turno 2") is None


def test_the_gm_sets_a_first_deadline_on_his_own_clock(cast):
    reads_in(cast.users["gm"], zone="Asia/Tokyo")
    html = _get(cast, "gm", "campaign:detail")
    form = html.split('name="timezone"', 1)[1].split("</select>", 1)[0]
    assert '<option value="Asia/Tokyo" selected>Tokyo</option>' in form
