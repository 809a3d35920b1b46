"""The order editor as issue 11 found it wanting: changing the order asked for redraws what
the force may do (a Defend force asking for Probe may move), "Close without saving" puts the
orders back as the editor opened on them (each map click saves on its own), and confirmed
orders are shown read-only with a button to unconfirm them."""

from __future__ import annotations

import html as htmllib
import re

import pytest

from campaign.models import Orders
from tests.campaign.orders.test_orders_page import HTMX, _force_data, _orders, _stamp, _url

pytestmark = pytest.mark.django_db


def _original(html: str) -> str:
    found = re.search(r'<input type="hidden" name="original" value="([^"]*)">', html)
    assert found, "the editor keeps the orders it opened on"
    return htmllib.unescape(found.group(1))


def test_asking_for_another_order_redraws_where_the_force_may_go(cast):
    client = cast.client("side_b")
    editor = client.get(_url(cast.campaign, "orders-force", "d2"), headers=HTMX).content.decode()
    assert "This force cannot move this turn as it stands" in editor  # d2 stands on Defend
    before = _orders(cast.campaign, "defenders").data
    preview = client.post(
        _url(cast.campaign, "orders-force", "d2"),
        {
            **_force_data(change_to="probe"),
            **_stamp(cast.campaign, "d2"),
            "preview": "1",
            "original": _original(editor),
        },
        headers=HTMX,
    ).content.decode()
    assert "cannot move" not in preview
    assert "Next step:" in preview and 'class="hl hl-legal"' in preview
    assert "Chance the force acts as ordered (Probe)" in preview
    assert _orders(cast.campaign, "defenders").data == before  # a preview saves nothing
    defend = client.post(
        _url(cast.campaign, "orders-force", "d2"),
        {**_force_data(change_to="defend"), **_stamp(cast.campaign, "d2"), "preview": "1"},
        headers=HTMX,
    ).content.decode()
    assert "Under the Defend order you ask for, the force does not move (R6.4.4)." in defend


def test_close_without_saving_undoes_the_clicks(cast):
    client = cast.client("side_a")
    before = _orders(cast.campaign, "raiders").data["forces"]["r2"]
    editor = client.get(_url(cast.campaign, "orders-force", "r2"), headers=HTMX).content.decode()
    original = _original(editor)
    # a click on the map saves at once, and the editor keeps what it opened on
    clicked = client.post(
        _url(cast.campaign, "orders-path", "r2"),
        {
            **_force_data(path=""),
            **_stamp(cast.campaign, "r2"),
            "x": "3",
            "y": "4",
            "original": original,
        },
        headers=HTMX,
    ).content.decode()
    assert _orders(cast.campaign, "raiders").data["forces"]["r2"]["path"] == [[3, 4]]
    assert _original(clicked) == original
    closed = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {
            **_force_data(path="3,4"),
            **_stamp(cast.campaign, "r2"),
            "restore": "1",
            "original": original,
        },
        headers=HTMX,
    ).content.decode()
    assert "Your changes are undone: the orders are as they were." in closed
    assert 'id="orders-form-r2"' not in closed  # the editor is closed
    assert _orders(cast.campaign, "raiders").data["forces"]["r2"] == before


def test_closing_an_untouched_editor_saves_nothing(cast):
    client = cast.client("side_a")
    editor = client.get(_url(cast.campaign, "orders-force", "r2"), headers=HTMX).content.decode()
    saved_at = _orders(cast.campaign, "raiders").saved_at
    closed = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {
            **_force_data(),
            **_stamp(cast.campaign, "r2"),
            "restore": "1",
            "original": _original(editor),
        },
        headers=HTMX,
    ).content.decode()
    assert "undone" not in closed
    assert _orders(cast.campaign, "raiders").saved_at == saved_at


def test_confirmed_orders_are_read_only_until_unconfirmed(cast):
    client = cast.client("side_a")
    confirmed = client.post(
        _url(cast.campaign, "orders-confirm"),
        {"action": "confirm", **_stamp(cast.campaign, player="raiders")},
        headers=HTMX,
    ).content.decode()
    assert _orders(cast.campaign, "raiders").status == Orders.Status.CONFIRMED
    # the answer redraws the forces too (out of band): no editor, no "Edit" button
    assert 'id="orders-forces" aria-labelledby="forces-title" hx-swap-oob="true"' in confirmed
    assert "Edit the orders of" not in confirmed and "orders-form-" not in confirmed
    assert "Unconfirm to change my orders" in confirmed
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    assert "Edit the orders of" not in page
    editor = client.get(_url(cast.campaign, "orders-force", "r2")).content.decode()
    assert 'id="orders-form-r2"' not in editor  # opened by its address: the summary
    unconfirmed = client.post(
        _url(cast.campaign, "orders-confirm"),
        {"action": "unconfirm", **_stamp(cast.campaign)},
        headers=HTMX,
    ).content.decode()
    assert "Edit the orders of" in unconfirmed
