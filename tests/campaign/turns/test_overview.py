"""The campaign overview (`campaign:detail`) and its live turn panel (`campaign:turn-status`)
for the whole cast: the state machine everyone sees, the GM's controls and who may use them,
and the htmx polling that runs while the turn is busy and stops once it has settled."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaign.models import Campaign, Orders, Turn
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.turns.services import turn_close, turn_open, turn_resolve, turn_resolve_after_battles
from tests.campaign.orders.test_orders_page import _confirm_stamp
from tests.reading import reads_in
from tests.stamp import stamped

pytestmark = pytest.mark.django_db

MEMBERS = ("gm", "side_a", "side_b", "observer")
POLL = 'hx-trigger="every 2s"'
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def turn(cast) -> Turn:
    return turn_current(campaign=cast.campaign)


def _detail() -> str:
    return reverse("campaign:detail", args=["incursion"])


def _control(action: str) -> str:
    """The URL of one of the GM's turn controls."""
    return reverse(f"campaign:turn-{action}", args=["incursion"])


def _status() -> str:
    return reverse("campaign:turn-status", args=["incursion"])


def _orders_rows(html: str) -> dict[str, tuple[str, str]]:
    """The GM's list of the players' orders: player key → (state, the row's text)."""
    found = re.findall(
        r'<li data-orders="(\w+)" data-player="([\w-]+)">(.*?)</li>', html, flags=re.DOTALL
    )
    return {
        key: (state, " ".join(re.sub(r"<[^>]+>", " ", text).split())) for state, key, text in found
    }


def _set_status(turn: Turn, status: str) -> None:
    Turn.objects.filter(pk=turn.pk).update(status=status)


# --- the page --------------------------------------------------------------------------------


@pytest.mark.parametrize("who", MEMBERS)
def test_members_see_the_turn_and_its_steps(cast, turn, who):
    turn_open(turn=turn, deadline=datetime(2099, 7, 1, 12, 0, tzinfo=UTC), timezone="Europe/Rome")
    reads_in(cast.users[who], zone="America/New_York")

    response = cast.client(who).get(_detail())

    assert response.status_code == 200
    html = response.content.decode()
    assert "Turn 1, day 0" in html
    for label in ("Orders open", "Closed", "Resolving phases 0–2", "Battles pending"):
        assert label in html
    assert '<li class="current" aria-current="step">Orders open</li>' in html
    # the deadline on the reader's clock, not the GM's (the turn's zone), the zone named
    assert "Wednesday 1 July 2099, 08:00 EDT" in html
    assert POLL not in html  # an open turn is not polled


@pytest.mark.parametrize(("who", "status"), [("outsider", 404), ("anonymous", 302)])
def test_others_do_not_see_the_page(cast, who, status):
    for url in (_detail(), _status()):
        response = cast.client(who).get(url)
        assert response.status_code == status
        if status == 302:
            assert response["Location"].startswith("/accounts/login/")


def test_only_the_gm_sees_the_controls_and_who_has_orders(cast, turn):
    raiders = cast.campaign.players.get(key="raiders")
    saved = Orders.objects.get(turn=turn, player=raiders)
    orders_submit(player=raiders, turn=turn, data=saved.data, confirm=True)

    gm = cast.client("gm").get(_detail()).content.decode()
    assert "Players' orders" in gm
    rows = _orders_rows(gm)
    assert rows["raiders"] == ("confirmed", "The Grey Fell Clans (Ulfrik of Wolfstead): confirmed")
    assert rows["defenders"][0] == "saved"
    assert rows["defenders"][1].startswith(
        "The March of Ashbury (Sir Edmund of Ashbury): saved, not confirmed"
    )
    for control in ("Set the deadline", "Extend the deadline", "Pause the turn", "Close the turn"):
        assert control in gm
    assert "csrfmiddlewaretoken" in gm
    # the GM sees whether orders exist, never what they say
    assert "retreat" not in gm and "[4, 5]" not in gm

    for who in ("side_a", "side_b", "observer"):
        html = cast.client(who).get(_detail()).content.decode()
        assert "Players' orders" not in html and "data-orders" not in html
        assert "Set the deadline" not in html and "/turn/deadline/" not in html
    assert "Your orders" in cast.client("side_a").get(_detail()).content.decode()
    assert "Confirmed." in cast.client("side_a").get(_detail()).content.decode()
    assert "Saved, not yet confirmed." in cast.client("side_b").get(_detail()).content.decode()


def test_the_seed_hash_is_shown_before_resolution_and_the_seed_after(cast, turn):
    turn_close(turn=turn, seed=5)
    turn = Turn.objects.get(pk=turn.pk)
    html = cast.client("side_a").get(_detail()).content.decode()
    assert turn.seed_hash in html
    assert "kept secret until the turn is resolved" in html
    assert "5, revealed" not in html

    turn_resolve(turn_id=turn.pk)
    turn_resolve_after_battles(turn_id=turn.pk)
    html = cast.client("side_a").get(_detail()).content.decode()
    assert "Turn 2, day 1" in html
    assert f"Seed 5; its hash was {turn.seed_hash}." in html


# --- the live panel --------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["closed", "resolving", "resolving-after"])
@pytest.mark.parametrize("who", MEMBERS)
def test_the_panel_polls_while_the_turn_is_busy(cast, turn, who, status):
    _set_status(turn, status)

    page = cast.client(who).get(_detail()).content.decode()
    fragment = cast.client(who).get(_status(), **HTMX)

    assert POLL in page
    assert f'hx-get="{_status()}"' in page
    assert fragment.status_code == 200
    html = fragment.content.decode()
    assert POLL in html and 'id="turn-panel"' in html
    assert "<html" not in html  # the fragment alone


@pytest.mark.parametrize("who", MEMBERS)
def test_the_panel_stops_polling_once_the_turn_is_resolved(cast, turn, who):
    turn_close(turn=turn, seed=5)
    turn_resolve(turn_id=turn.pk)
    turn_resolve_after_battles(turn_id=turn.pk)

    fragment = cast.client(who).get(_status(), **HTMX)

    assert fragment.status_code == 286  # htmx stops polling
    html = fragment.content.decode()
    assert "hx-trigger" not in html and "hx-get" not in html
    assert "Turn 2, day 1" in html  # the panel it swaps in shows the next turn


def test_the_panel_does_not_poll_while_battles_wait_for_results(cast, turn):
    turn_close(turn=turn, seed=5)
    turn_resolve(turn_id=turn.pk)  # the demo's turn 1 has no battle…
    assert POLL in cast.client("gm").get(_detail()).content.decode()  # …so 4–8 come next

    from battles.models import Battle

    Battle.objects.create(
        campaign=cast.campaign, turn=turn, key="t1-b1", x=5, y=6, pack={"sides": []}
    )
    fragment = cast.client("gm").get(_status(), **HTMX)
    assert fragment.status_code == 286
    assert "1 battle is waiting for its result." in fragment.content.decode()


def test_the_panel_without_htmx_is_a_plain_page_fragment(cast, turn):
    response = cast.client("observer").get(_status())
    assert response.status_code == 200
    assert b'id="turn-panel"' in response.content


# --- the GM's controls -----------------------------------------------------------------------


def test_the_gm_sets_the_deadline_from_the_page(cast, turn):
    gm = cast.client("gm")
    response = gm.post(
        _control("deadline"),
        stamped("incursion", {"deadline": "2099-03-01T09:30", "timezone": "Asia/Tokyo"}),
    )

    assert response.status_code == 302 and response["Location"] == _detail()
    turn = Turn.objects.get(pk=turn.pk)
    assert turn.deadline == datetime(2099, 3, 1, 0, 30, tzinfo=UTC)
    assert turn.timezone == "Asia/Tokyo"
    page = gm.get(_detail()).content.decode()
    assert "The deadline is set." in page
    assert 'value="2099-03-01T09:30"' in page  # the form shows it back in its zone


def test_the_gm_pauses_resumes_and_extends(cast, turn):
    gm = cast.client("gm")
    turn_open(turn=turn, deadline=timezone.now() + timedelta(days=2), timezone="UTC")
    deadline = Turn.objects.get(pk=turn.pk).deadline

    assert gm.post(_control("pause"), stamped("incursion")).status_code == 302
    assert Turn.objects.get(pk=turn.pk).paused
    assert "Resume the turn" in gm.get(_detail()).content.decode()
    assert gm.post(_control("resume"), stamped("incursion")).status_code == 302
    assert (
        gm.post(_control("extend"), stamped("incursion", {"days": "2", "hours": "3"})).status_code
        == 302
    )

    turn = Turn.objects.get(pk=turn.pk)
    assert not turn.paused and turn.extensions == 1
    assert turn.deadline - deadline >= timedelta(days=2, hours=3)


def test_a_refused_control_is_shown_clearly(cast, turn):
    response = cast.client("gm").post(
        _control("extend"), stamped("incursion", {"days": "1", "hours": "0"})
    )

    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html
    assert "Turn 1 has no deadline to extend: set one first." in html

    too_long = cast.client("gm").post(
        _control("extend"), stamped("incursion", {"days": "9", "hours": "0"})
    )
    assert too_long.status_code == 400
    assert "Ensure this value is less than or equal to 7." in too_long.content.decode()

    bad = cast.client("gm").post(
        _control("deadline"),
        stamped("incursion", {"deadline": "2000-01-01T00:00", "timezone": "UTC"}),
    )
    assert bad.status_code == 400
    assert "The deadline must be in the future." in bad.content.decode()


def test_the_gm_closes_the_turn_and_it_resolves(cast, turn, django_capture_on_commit_callbacks):
    gm = cast.client("gm")
    with django_capture_on_commit_callbacks(execute=True):
        response = gm.post(_control("close"), stamped("incursion"))

    assert response.status_code == 302
    turn = Turn.objects.get(pk=turn.pk)
    assert turn.status == Turn.Status.RESOLVED  # eager tasks; no battle in the demo's turn 1
    page = gm.get(_detail()).content.decode()
    assert "The turn is closed and its resolution has started." in page
    assert "Turn 2, day 1" in page


def test_advance_at_battles_pending_says_why_not(cast, turn):
    from battles.models import Battle

    turn_close(turn=turn, seed=5)
    turn_resolve(turn_id=turn.pk)
    Battle.objects.create(
        campaign=cast.campaign, turn=turn, key="t1-b1", x=5, y=6, pack={"sides": []}
    )

    response = cast.client("gm").post(_control("advance"), stamped("incursion"))

    assert response.status_code == 400
    assert "still waits for the result of 1 battle: enter it first" in response.content.decode()


@pytest.mark.parametrize(
    ("who", "status"),
    [("side_a", 403), ("side_b", 403), ("observer", 403), ("outsider", 404), ("anonymous", 302)],
)
@pytest.mark.parametrize("action", ["deadline", "pause", "extend", "close", "advance"])
def test_only_the_gm_may_use_the_controls(cast, turn, who, status, action):
    response = cast.client(who).post(
        _control(action),
        stamped("incursion", {"deadline": "2099-01-01T00:00", "timezone": "UTC", "days": "1"}),
    )

    assert response.status_code == status
    turn = Turn.objects.get(pk=turn.pk)
    assert turn.status == Turn.Status.OPEN and not turn.paused and turn.deadline is None


def test_the_controls_need_csrf(cast, turn):
    client = Client(enforce_csrf_checks=True)
    client.force_login(cast.users["gm"])
    assert client.post(_control("pause"), stamped("incursion")).status_code == 403
    assert not Turn.objects.get(pk=turn.pk).paused


def test_the_panel_refuses_posts(cast):
    assert cast.client("gm").post(_status()).status_code == 405


# --- closing when everyone has confirmed (the GM's choice) ------------------------------------


def _orders_page(client: Client) -> str:
    return client.get(reverse("campaign:orders", args=["incursion"])).content.decode()


def _confirm(client: Client):
    campaign = Campaign.objects.get(slug="incursion")
    return client.post(
        reverse("campaign:orders-confirm", args=["incursion"]),
        {"action": "confirm", **_confirm_stamp(client, campaign)},
    )


def test_the_gm_switches_closing_on_every_confirmation(cast, turn):
    gm = cast.client("gm")
    assert "Close automatically when everyone has confirmed" in gm.get(_detail()).content.decode()

    assert (
        gm.post(_control("auto-close"), stamped("incursion", {"auto_close": "on"})).status_code
        == 302
    )
    cast.campaign.refresh_from_db()
    assert cast.campaign.auto_close
    assert "Let me close the turn myself" in gm.get(_detail()).content.decode()

    assert (
        gm.post(_control("auto-close"), stamped("incursion", {"auto_close": "off"})).status_code
        == 302
    )
    cast.campaign.refresh_from_db()
    assert not cast.campaign.auto_close


@pytest.mark.parametrize("who", ["side_a", "side_b", "observer"])
def test_only_the_gm_switches_closing(cast, who):
    assert (
        cast.client(who)
        .post(_control("auto-close"), stamped("incursion", {"auto_close": "on"}))
        .status_code
        == 403
    )
    cast.campaign.refresh_from_db()
    assert not cast.campaign.auto_close


def test_players_read_who_closes_the_turn_before_confirming(cast, turn):
    page = _orders_page(cast.client("side_a"))
    assert "Until the game master closes the turn (or its deadline passes)" in page
    assert "You are the last player to confirm" not in page

    cast.campaign.auto_close = True
    cast.campaign.save(update_fields=["auto_close"])
    page = _orders_page(cast.client("side_a"))
    assert "When every player has confirmed, the turn closes and is resolved at once" in page
    assert "You are the last player to confirm" not in page  # the defenders have not


def test_the_last_confirmer_is_warned_and_told_the_turn_closed(
    cast, turn, django_capture_on_commit_callbacks
):
    cast.campaign.auto_close = True
    cast.campaign.save(update_fields=["auto_close"])
    assert _confirm(cast.client("side_a")).status_code == 302

    defender = cast.client("side_b")
    page = _orders_page(defender)
    assert "You are the last player to confirm." in page
    assert "data-confirm=" in page  # the browser asks once more

    with django_capture_on_commit_callbacks(execute=True):
        response = defender.post(
            reverse("campaign:orders-confirm", args=["incursion"]),
            {"action": "confirm", **_confirm_stamp(defender, cast.campaign)},
            headers={"HX-Request": "true"},
        )
    html = response.content.decode()
    assert "Every player has confirmed, so the turn closes now and is resolved." in html
    assert "You can still change them" not in html
    assert Turn.objects.get(pk=turn.pk).status != Turn.Status.OPEN


def test_without_auto_close_the_last_confirmation_leaves_the_turn_open(cast, turn):
    _confirm(cast.client("side_a"))
    _confirm(cast.client("side_b"))
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.OPEN


def test_a_viewer_counts_only_the_battles_fog_of_war_shows_him(cast, turn):
    """Issue 12, defect 4: a side (here an observer who follows no army) that fights no
    battle is not told how many there are."""
    from battles.models import Battle

    _set_status(turn, Turn.Status.BATTLES)
    Battle.objects.create(
        campaign=cast.campaign,
        turn=turn,
        key="t1-b1",
        x=4,
        y=8,
        pack={"sides": [{"side": "raiders"}, {"side": "defenders"}]},
    )
    gm = cast.client("gm").get(_detail()).content.decode()
    assert "1 battle is waiting for its result." in gm and "0 of 1" not in gm
    observer = cast.client("observer").get(_detail()).content.decode()
    assert "battle is waiting" not in observer and "of 1 still without a result" not in observer
    assert "Battles elsewhere are waiting for their results" in observer
    raider = cast.client("side_a").get(_detail()).content.decode()
    assert "1 battle is waiting for its result." in raider
