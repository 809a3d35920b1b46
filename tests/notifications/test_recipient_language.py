"""Every message is written in its recipient's language and on his clock, never the page's or
the task's (issue 29): the GM reads Italian, one player English in New York, the other
Italian in Rome; a batch of messages leaves no recipient's language or zone behind it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from campaign.models import Turn
from campaign.selectors import turn_current
from campaign.turns.services import turn_open
from notifications import services as notices
from notifications.models import Kind, Notification
from tests.reading import reads_in

pytestmark = pytest.mark.django_db

DEADLINE = datetime(2099, 7, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def turn(cast) -> Turn:
    reads_in(cast.users["gm"], language="it", zone="Europe/Rome")
    reads_in(cast.users["side_a"], language="en", zone="America/New_York")
    reads_in(cast.users["side_b"], language="it", zone="Europe/Rome")
    return turn_open(
        turn=turn_current(campaign=cast.campaign), deadline=DEADLINE, timezone="Asia/Tokyo"
    )


def test_each_recipient_reads_his_own_language_and_clock(cast, turn, mailoutbox):
    with translation.override("it"):  # the GM's Italian page caused it
        notices.notify_turn_opened(turn_id=turn.pk)
        assert translation.get_language() == "it"  # given back as it was
    assert timezone.get_current_timezone_name() == "UTC"
    [raider] = [m for m in mailoutbox if m.to == ["raider@example.org"]]
    [defender] = [m for m in mailoutbox if m.to == ["defender@example.org"]]
    assert raider.subject == "Incursion: turn 1 is open for orders"
    assert raider.body.startswith("Hello Ulfrik of Wolfstead,")
    assert "Wednesday 1 July 2099, 08:00 EDT" in raider.body
    assert defender.subject == "Incursion: il turno 1 è aperto agli ordini"
    assert defender.body.startswith("Ciao Sir Edmund of Ashbury,")
    assert "01 Luglio 2099 14:00 CEST" in defender.body
    assert "Hello" not in defender.body and "Tokyo" not in defender.body + raider.body


def test_a_notice_title_follows_its_reader_not_the_language_it_was_sent_in(cast, turn):
    notices.notify_turn_opened(turn_id=turn.pk)
    notice = Notification.objects.get(user=cast.users["side_a"], kind=Kind.TURN_OPENED)
    assert notice.subject == "Incursion: turn 1 is open for orders"  # the email's, English
    assert notice.params == {"title": "turn-opened", "campaign": "Incursion", "turn": 1}
    # the player switches to Italian: the title of the same notice is Italian now
    reads_in(cast.users["side_a"], language="it", zone="America/New_York")
    html = cast.client("side_a").get(reverse("notifications:log")).content.decode()
    assert "Incursion: il turno 1 è aperto agli ordini" in html
    assert "EDT" in html or "EST" in html  # when it came, on his clock
