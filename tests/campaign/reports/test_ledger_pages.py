"""The dice ledger a page at a time (issue 14): a big turn's report shows 100 rolls, with
links to the earlier and later ones (htmx swaps the ledger only), instead of every roll."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.models import Membership
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add, user_get_or_create
from campaign.turns.services import turn_close, turn_resolve

pytestmark = pytest.mark.django_db


def test_a_big_ledger_shows_a_page_of_rolls_at_a_time(make_campaign, submit_orders, client):
    campaign = make_campaign(width=24, height=24, players=4, forces=120, seed=2)
    submit_orders(campaign, seed=2)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=2)
    turn_resolve(turn_id=turn.pk)
    gm = user_get_or_create(username="ledger-gm")
    membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
    client.force_login(gm)
    url = reverse("campaign:report", args=[campaign.slug, turn.number])
    html = client.get(url).content.decode()
    total = len(turn.resolutions.get(stage="turn").ledger)
    assert total > 200
    assert html.count("<tr data-purpose=") == 100
    assert f"Rolls 1 to 100 of {total}" in html and "Later rolls" in html
    assert "Earlier rolls" not in html
    later = client.get(url + "?from=100", headers={"HX-Request": "true", "HX-Target": "ledger"})
    part = later.content.decode()
    assert part.lstrip().startswith('<div id="ledger">')  # the ledger alone
    assert f"Rolls 101 to {min(200, total)} of {total}" in part and "Earlier rolls" in part
    odd = client.get(url + "?from=99999").content.decode()  # past the end: the first page
    assert f"Rolls 1 to 100 of {total}" in odd
