"""Every moment a page shows states its time zone (issue 11: "times without a time-zone
label"), the deadline field says on which clock it is read, and the time-zone select is
ordered: UTC first, then one group per region."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.models import Invitation, Orders
from campaign.selectors import turn_current
from campaign.setup.invitations import invitation_create
from campaign.turns.services import turn_open
from tests.reading import reads_in

pytestmark = pytest.mark.django_db

ROME_WINTER = datetime(timezone.now().year + 2, 1, 15, 18, 0)  # naive, on Rome's clock: CET


def _deadline_in_rome(campaign):
    return turn_open(
        turn=turn_current(campaign=campaign), deadline=ROME_WINTER, timezone="Europe/Rome"
    )


def test_the_orders_page_gives_each_time_with_its_zone(cast):
    for who in ("side_a", "gm"):
        reads_in(cast.users[who], zone="Europe/Rome")
    _deadline_in_rome(cast.campaign)
    summer = datetime(2026, 7, 1, 10, 30, tzinfo=UTC)
    Orders.objects.filter(turn__campaign=cast.campaign).update(saved_at=summer)
    html = (
        cast.client("side_a")
        .get(reverse("campaign:orders", args=[cast.campaign.slug]))
        .content.decode()
    )
    assert f"Deadline: 15 Jan {ROME_WINTER.year}, 18:00 CET" in html
    assert "Last saved: 1 Jul 2026, 12:30 CEST" in html  # 10:30 UTC on Rome's summer clock
    gm = (
        cast.client("gm")
        .get(reverse("campaign:orders", args=[cast.campaign.slug]))
        .content.decode()
    )
    assert re.search(r"<time datetime=\"[^\"]+\">1 Jul 2026, 12:30 CEST</time>", gm)


def test_the_deadline_field_names_its_zone_and_the_zones_are_grouped(cast):
    _deadline_in_rome(cast.campaign)
    html = (
        cast.client("gm")
        .get(reverse("campaign:detail", args=[cast.campaign.slug]))
        .content.decode()
    )
    assert "Read on the clock of the time zone below (now: Europe/Rome)." in html
    select = html.split('name="timezone"', 1)[1].split("</select>", 1)[0]
    first = re.search(r'<option value="([^"]+)"', select)
    assert first and first.group(1) == "UTC"
    groups = re.findall(r'<optgroup label="([^"]+)">', select)
    assert groups[:3] == ["Africa", "America", "Antarctica"] and "Europe" in groups
    assert groups[-1] == "Other"
    europe = select.split('<optgroup label="Europe">', 1)[1].split("</optgroup>", 1)[0]
    places = re.findall(r'<option value="Europe/([^"]+)"', europe)
    assert places == sorted(places) and "Rome" in places
    assert '<option value="Europe/Rome" selected>Rome</option>' in europe
    assert '<option value="America/New_York">New York</option>' in select


def test_an_invitation_expiry_has_its_zone(cast):
    invitation_create(
        campaign=cast.campaign, role="observer", expires=timezone.now() + timedelta(days=2)
    )
    html = (
        cast.client("gm")
        .get(reverse("campaign:invite", args=[cast.campaign.slug]))
        .content.decode()
    )
    when = Invitation.objects.filter(campaign=cast.campaign).latest("pk").expires_at
    assert f"{when:%H:%M} UTC" in html
