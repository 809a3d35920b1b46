"""The navigation's "Turn report" opens the last resolved turn's report (issue 11: it opened
the current turn's, still empty), or the current turn's before any turn is resolved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from battles.models import Battle
from campaign.models import Turn
from campaign.selectors import turn_current
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles

pytestmark = pytest.mark.django_db


def _nav_report(client, slug: str) -> str:
    """Follow the overview's "Turn report" link; the report page it lands on."""
    overview = client.get(reverse("campaign:detail", args=[slug])).content.decode()
    nav = overview.split('class="campaign-nav"', 1)[1].split("</nav>", 1)[0]
    href = nav.split('">Turn report</a>', 1)[0].rsplit('href="', 1)[1]
    response = client.get(href, follow=True)
    assert response.status_code == 200
    return response.redirect_chain[-1][0]


def test_turn_report_opens_the_last_resolved_turn(cast):
    slug = cast.campaign.slug
    assert _nav_report(cast.client("side_a"), slug) == reverse("campaign:report", args=[slug, 1])
    turn = turn_close(turn=turn_current(campaign=cast.campaign), seed=5)
    turn_resolve(turn_id=turn.pk)
    assert not Battle.objects.filter(turn=turn).exists()
    turn_resolve_after_battles(turn_id=turn.pk)
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RESOLVED
    assert turn_current(campaign=cast.campaign).number == 2  # open, with nothing to report
    for who in ("gm", "side_a", "observer"):
        assert _nav_report(cast.client(who), slug) == reverse("campaign:report", args=[slug, 1])
