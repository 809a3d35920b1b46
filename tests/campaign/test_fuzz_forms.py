"""Hostile input for the play forms (issue 12): orders (one force, a click on the path map,
confirming), the GM's turn controls and the invitations. No example ends in a server
error; each refusal says why, and leaves the rows it concerns as they were.
(The set-up forms are in test_fuzz_setup.py; tests/fuzzing.py draws the input.)"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.urls import reverse
from hypothesis import example, given
from hypothesis import strategies as st

from campaign.models import Campaign, Invitation, Orders, Turn
from tests.campaign.orders.test_orders_page import _stamp
from tests.fuzzing import FUZZ, HUGE_DIGITS, answered, client_for, nasty, posted, rolled_back
from tests.stamp import stamped

pytestmark = pytest.mark.django_db

SQUARES = ["4,5", "4,5; 5,6", "4,5; 5,6; 6,6", "", "3,5; 2,5", "15,11", "16,12"]

ORDERS_FIELDS = {
    "change_to": ["", "full-speed", "probe", "defend"],
    "path": SQUARES,
    "zoc": ["stop", "engage"],
    "countermarch": ["never", "if-stopped-in-zoc", "always"],
    "countermarch_square": ["", "2,5", "3,4"],
    "retreat_squares": SQUARES,
    "initiative": ["early", "late"],
    "sack": ["", "on"],
    "flank_attack": ["", "on"],
    "ambush": ["", "on"],
    "turn": ["1"],  # the page's turn (a stale one: tests/campaign/orders/test_stale.py)
}
ORIGINALS = [
    json.dumps({"path": "4,5", "zoc": "stop", "countermarch": "never", "initiative": "early"}),
    "{}",
    '{"path": "' + HUGE_DIGITS + ',1"}',
    "[" * 100_000,
    '{"zoc": ["stop"]}',
]


def _rows(*querysets: Any) -> list[list[dict[str, Any]]]:
    return [list(qs.values()) for qs in querysets]


def _orders(campaign: Campaign) -> list[list[dict[str, Any]]]:
    return _rows(Orders.objects.filter(turn__campaign=campaign).order_by("pk"))


def _turn(campaign: Campaign) -> list[list[dict[str, Any]]]:
    return _rows(Turn.objects.filter(campaign=campaign).order_by("pk"), Campaign.objects.all())


def _base(cast: Any, force: str) -> str:
    """The version of the force's saved orders an editor drawn now stands on."""
    return _stamp(cast.campaign, force)["base"]


def _post_checked(
    cast: Any, who: str, url: str, data: dict[str, Any], rows: Any, **kw: Any
) -> None:
    """Post `data` in an example of its own; a refusal leaves `rows()` as they were."""
    with rolled_back():
        before = rows()
        htmx = kw.pop("htmx", False)
        headers = {"HX-Request": "true"} if htmx else {}
        response = client_for(cast.users[who]).post(url, data, headers=headers)
        refused = answered(response, **kw) if not htmx else _htmx_answered(response)
        if refused:
            assert rows() == before, data


def _htmx_answered(response: Any) -> bool:
    """An htmx answer is a fragment, 200 either way: no server error, no repr in it."""
    answered(response, success=lambda r: r.status_code in (200, 286))
    return False


# --- orders ----------------------------------------------------------------------------------


@FUZZ
@given(
    data=posted(ORDERS_FIELDS, extra=["original", "base"]),
    button=st.sampled_from(["", "clear", "preview", "restore"]),
    original=st.sampled_from(ORIGINALS),
    htmx=st.booleans(),
)
@example(data={"turn": "1"}, button="restore", original="[" * 100_000, htmx=False)
def test_the_orders_of_one_force(cast, data, button, original, htmx):
    data.setdefault("original", original)
    data.setdefault("base", _base(cast, "r1"))  # the editor's, unless drawn hostile
    if button:
        data[button] = "1"
    url = reverse("campaign:orders-force", args=["incursion", "r1"])
    # "preview" redraws the editor for the order asked for, saving nothing: not a refusal
    previewed = "preview" in data and "restore" not in data

    def success(r: Any) -> bool:
        return r.status_code == 302 or (previewed and r.status_code == 200)

    _post_checked(
        cast, "side_a", url, data, lambda: _orders(cast.campaign), htmx=htmx, success=success
    )


@FUZZ
@given(
    data=posted(
        {**ORDERS_FIELDS, "square": ["5,6", "4,5", "0,0"], "x": ["4", "5"], "y": ["5", "6"]},
        extra=["clear_path", "original", "base"],
    ),
    htmx=st.booleans(),
)
def test_a_click_on_the_path_map(cast, data, htmx):
    data.setdefault("base", _base(cast, "r1"))
    url = reverse("campaign:orders-path", args=["incursion", "r1"])
    _post_checked(cast, "side_a", url, data, lambda: _orders(cast.campaign), htmx=htmx)


@FUZZ
@given(
    data=posted({"action": ["confirm", "unconfirm"], "turn": ["1"]}, ["base"]), htmx=st.booleans()
)
def test_confirming_orders(cast, data, htmx):
    data.setdefault("base", _stamp(cast.campaign, player="raiders")["base"])
    url = reverse("campaign:orders-confirm", args=["incursion"])
    _post_checked(cast, "side_a", url, data, lambda: _orders(cast.campaign), htmx=htmx)


# --- the GM's turn controls ------------------------------------------------------------------

_SOON = datetime.now(UTC) + timedelta(days=3)
DEADLINES = [
    _SOON.strftime("%Y-%m-%dT%H:%M"),
    _SOON.strftime("%Y-%m-%dT%H:%M:%S+05:00"),
    "2099-06-30T23:59:59",
    "",
    "2001-01-01T00:00",
    "9999-12-31T23:59",
    "0001-01-01T00:00",
]
ZONES = ["UTC", "Europe/Rome", "America/Los_Angeles", "Pacific/Kiritimati", "Asia/Tokyo"]
CONTROLS = {
    "deadline": {"deadline": DEADLINES, "timezone": ZONES},
    "battles-deadline": {"deadline": DEADLINES, "timezone": ZONES},
    "extend": {"days": ["1", "0", "7", "8"], "hours": ["0", "5", "23", "24"]},
    "pause": {},
    "resume": {},
    "close": {},
    "remind": {"player": ["", "raiders", "defenders"]},
    "auto-close": {"auto_close": ["on", "", "off"]},
    "advance": {},
}


@st.composite
def _control(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    action = draw(st.sampled_from(sorted(CONTROLS)))
    fields = CONTROLS[action]
    return action, draw(posted(fields, extra=() if fields else ["x"]))


@FUZZ
@given(asked=_control(), paused=st.booleans(), deadline=st.sampled_from([None, "far", "end"]))
def test_the_gm_turn_controls(cast, asked, paused, deadline):
    action, data = asked
    with rolled_back():
        at = {None: None, "far": datetime(2099, 1, 1, tzinfo=UTC)}
        # a deadline at the end of the calendar, as the forms no longer set one (the admin or
        # an old import could): resuming or extending it is refused, never an overflow
        at["end"] = datetime(9999, 12, 31, 20, tzinfo=UTC)
        Turn.objects.filter(campaign=cast.campaign).update(
            deadline=at[deadline], paused_at=datetime(2000, 1, 1, tzinfo=UTC) if paused else None
        )
        url = reverse(f"campaign:turn-{action}", args=["incursion"])
        _post_checked(cast, "gm", url, stamped("incursion", data), lambda: _turn(cast.campaign))


# --- invitations -----------------------------------------------------------------------------

INVITATION_FIELDS = {
    "role": ["player", "observer", "gm"],
    "target": ["", "player:raiders", "player:defenders", "side:raiders"],
    "max_uses": ["1", "5", "1000"],
    "expires_in_days": ["", "1", "14", "365"],
    "email": ["", "guest@example.org"],
}


def _invitations(campaign: Campaign) -> list[list[dict[str, Any]]]:
    return _rows(Invitation.objects.filter(campaign=campaign).order_by("pk"))


@FUZZ
@given(data=posted(INVITATION_FIELDS))
def test_creating_an_invitation(cast, data, mailoutbox):
    url = reverse("campaign:invite", args=["incursion"])
    _post_checked(cast, "gm", url, data, lambda: _invitations(cast.campaign))


@FUZZ
@given(pk=st.one_of(st.sampled_from(["abc", "²", "٣", "-1", "0", str(2**31), str(2**63)]), nasty()))
def test_withdrawing_an_invitation_by_any_id(cast, pk):
    """The id is in the path: anything but an invitation of this campaign is not found."""
    base = reverse("campaign:invite", args=["incursion"])
    with rolled_back():
        before = _invitations(cast.campaign)
        response = client_for(cast.users["gm"]).post(
            f"{base}{quote(pk, safe='')}/revoke/", {"id": pk}
        )
        assert answered(response)
        assert response.status_code == 404
        assert _invitations(cast.campaign) == before


def test_withdrawing_an_invitation_posts_its_id_in_the_path(cast):
    from campaign.setup.invitations import invitation_create

    invitation = invitation_create(campaign=cast.campaign, role="observer")
    gm = client_for(cast.users["gm"])
    url = reverse("campaign:invitation-revoke", args=["incursion", invitation.pk])
    assert gm.post(url, {"id": "abc"}).status_code == 302
    assert Invitation.objects.get(pk=invitation.pk).revoked
    big = reverse("campaign:invitation-revoke", args=["incursion", 2**63])
    assert gm.post(big).status_code == 404
