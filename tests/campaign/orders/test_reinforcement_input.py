"""A reinforcement request whose name holds a NUL (issue 28, point 5) is refused with a
sentence, plain and through htmx, and the saved requests stay as they were: PostgreSQL's JSONB
cannot store it. Lone surrogates, which no browser's form can send but a script's can reach the
composing function, are refused the same way."""

from __future__ import annotations

import pytest

from campaign.access import viewer_for
from campaign.adapters import state_current
from campaign.models import Orders
from campaign.orders.reinforcement_catalogue import catalogue_get
from campaign.orders.reinforcements import compose
from campaign.orders.selectors import orders_page_get_for_player
from campaign.selectors import turn_current
from tests.campaign.orders.test_reinforcements import _general, _key, _requests, _url
from tests.stamp import stamped

pytestmark = pytest.mark.django_db


def _rows(cast) -> list:
    return list(Orders.objects.filter(turn__campaign=cast.campaign).order_by("pk").values())


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize("field", ["name", "general_name"])
def test_a_nul_in_a_name_is_refused_with_a_sentence(cast, htmx, field):
    c, client = cast.campaign, cast.client("side_b")
    spear = _key(c, "defenders", "Spearmen")
    client.post(_url(c), stamped(c.slug, {f"figures_{spear}": "10"}))
    before = _rows(cast)
    data = stamped(
        c.slug, {f"figures_{spear}": "5", "general": _general(c, "defenders"), field: "a\x00b"}
    )
    headers = {"HX-Request": "true"} if htmx else {}
    r = client.post(_url(c), data, headers=headers)
    assert r.status_code == 400
    page = r.content.decode()
    assert "NUL character" in page
    assert "DataError" not in page
    assert _rows(cast) == before and len(_requests(c, "defenders")) == 1


@pytest.mark.parametrize("text", ["a\ud800b", "\udfff", "x\x00"])
def test_compose_refuses_text_no_database_can_store(cast, text):
    c = cast.campaign
    viewer = viewer_for(user=cast.users["side_b"], campaign=c)
    page = orders_page_get_for_player(viewer=viewer, turn=turn_current(campaign=c))
    catalogue = catalogue_get(campaign=c, state=state_current(campaign=c), player_key="defenders")
    spear = _key(c, "defenders", "Spearmen")
    for field in ("name", "general_name"):
        data = {f"figures_{spear}": "5", "general": _general(c, "defenders"), field: text}
        composed = compose(data, catalogue, page)
        assert composed.request is None
        assert any("NUL" in e or "surrogate" in e for e in composed.errors), composed.errors
