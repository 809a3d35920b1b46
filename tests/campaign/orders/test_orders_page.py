"""The orders page and its fragments: who may use them, drawing a path by clicking, the exact
force-test chances, errors beside their fields, saved versus confirmed, refusals (someone
else's force, a closed turn) that change nothing, and fog of war in the raider's HTML."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from campaign import adapters
from campaign.models import Campaign, Force, Orders, Player, Turn
from campaign.orders.chances import force_test_chances_get
from campaign.orders.selectors import force_orders_version, orders_version, requests_version
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.turns.services import turn_close
from rules.types import Status

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
# the demo (tests/conftest.py `cast`): raiders in the west, defenders in the east
DEFENDERS = {
    "d1": ("Ashbury Garrison", "Sir Edmund Ashby"),
    "d2": ("The Northern March", "Sir Roger Hale"),
    "d3": ("The Southern March", "Lady Margaret Fenwick"),
}


def _url(campaign: Campaign, name: str, *args: str) -> str:
    return reverse(f"campaign:{name}", args=[campaign.slug, *args])


def _orders(campaign: Campaign, player: str) -> Orders | None:
    return Orders.objects.filter(turn=turn_current(campaign=campaign), player__key=player).first()


def _force_data(**changes) -> dict[str, str]:
    """A complete post of one force's form, as the browser sends it."""
    data = {
        "change_to": "",
        "path": "",
        "zoc": "stop",
        "countermarch": "never",
        "countermarch_square": "",
        "retreat_squares": "",
        "initiative": "early",
    }
    data.update(changes)
    return data


def _stamp(
    campaign: Campaign,
    force: str | None = None,
    player: str | None = None,
    requests: str | None = None,
) -> dict:
    """What a form of the orders pages drawn now carries (architecture.md, "Nothing acts on
    a stale page"): the turn's number; with `force`, the version of that force's saved
    orders (the editor's `base`); with `player`, the version of all his saved orders (the
    confirm form's); with `requests` (a player), that of his reinforcement requests (their
    remove and move forms')."""
    turn = turn_current(campaign=campaign)
    data = {"turn": str(turn.number)}
    if force is not None:
        owner = Force.objects.get(campaign=campaign, key=force).owner
        row = Orders.objects.filter(turn=turn, player=owner).first()
        data["base"] = force_orders_version(row, force)
    if player is not None:
        data["base"] = orders_version(Orders.objects.filter(turn=turn, player__key=player).first())
    if requests is not None:
        row = Orders.objects.filter(turn=turn, player__key=requests).first()
        data["base"] = requests_version(row)
    return data


def _confirm_stamp(client: Client, campaign: Campaign) -> dict[str, str]:
    """The hidden fields of the confirm button's form on the client's orders page now."""
    page = client.get(_url(campaign, "orders")).content.decode()
    form = re.search(r'<form class="confirm-form".*?</form>', page, re.S)
    assert form is not None, "no confirm button on the page"
    return dict(re.findall(r'<input type="hidden" name="(turn|base)" value="([^"]*)">', form[0]))


def _move(campaign: Campaign, key: str, square: tuple[int, int]) -> None:
    Force.objects.filter(campaign=campaign, key=key).update(x=square[0], y=square[1])


# --- who may use the page ----------------------------------------------------------------------


def test_the_cast_on_the_page(cast):
    url = _url(cast.campaign, "orders")

    html = cast.client("side_a").get(url).content.decode()
    for name in ("The Jarl's Host", "Hakon's Warband", "The Red Riders"):
        assert escape(name) in html
    assert "Jarl Ulfrik Greymane (command value 4)" in html
    assert "Saved — not confirmed" in html  # load_demo saves the raiders' turn-1 orders
    assert "(4, 5) → (5, 6) → (6, 6)" in html  # r1's saved path
    assert f'href="{_url(cast.campaign, "orders-force", "r1")}#orders-force-r1"' in html

    html = cast.client("side_b").get(url).content.decode()
    assert "Ashbury Garrison" in html and escape("The Jarl's Host") not in html

    response = cast.client("gm").get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "The Grey Fell Clans" in html and "The March of Ashbury" in html
    assert "Saved — not confirmed" in html
    assert "(4, 5)" not in html  # the GM's overview: who has saved or confirmed, not the orders

    response = cast.client("observer").get(url)
    assert response.status_code == 200
    assert "Only the players give orders." in response.content.decode()

    assert cast.client("outsider").get(url).status_code == 404
    response = cast.client("anonymous").get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def _fragment_requests(campaign: Campaign) -> list[tuple[str, str, dict]]:
    return [
        ("get", _url(campaign, "orders-force", "r2"), {}),
        ("post", _url(campaign, "orders-force", "r2"), {**_force_data(), **_stamp(campaign, "r2")}),
        (
            "post",
            _url(campaign, "orders-path", "r2"),
            {**_force_data(x="3", y="4"), **_stamp(campaign, "r2")},
        ),
        ("get", _url(campaign, "orders-probability", "r2"), {"change_to": "full-speed"}),
    ]


@pytest.mark.parametrize(
    ("who", "status"),
    [("gm", 403), ("observer", 403), ("side_b", 404), ("outsider", 404), ("anonymous", 302)],
)
def test_the_cast_on_the_fragments_of_a_raider_force(cast, who, status):
    before = _orders(cast.campaign, "raiders").data
    client = cast.client(who)
    for method, url, data in _fragment_requests(cast.campaign):
        response = getattr(client, method)(url, data, headers=HTMX)
        assert response.status_code == status, (who, url)
        if status == 302:
            assert response["Location"].startswith(reverse("login"))
    confirm = client.post(
        _url(cast.campaign, "orders-confirm"),
        {"action": "confirm", **_stamp(cast.campaign, player="defenders")},
    )
    assert confirm.status_code == (302 if who == "side_b" else status)
    assert _orders(cast.campaign, "raiders").data == before
    assert _orders(cast.campaign, "raiders").status == Orders.Status.SAVED


def test_the_player_uses_every_fragment(cast):
    client = cast.client("side_a")
    for n in range(len(_fragment_requests(cast.campaign))):
        # each drawn after the one before saved, as the page the player has then would be
        method, url, data = _fragment_requests(cast.campaign)[n]
        response = getattr(client, method)(url, data, headers=HTMX)
        assert response.status_code == 200, url
        assert "<html" not in response.content.decode()  # a partial, not the page
    # without htmx: the editor is a whole page, a save redirects back to it
    response = client.get(_url(cast.campaign, "orders-force", "r2"))
    assert response.status_code == 200 and "<html" in response.content.decode()
    response = client.post(
        _url(cast.campaign, "orders-path", "r2"),
        {**_force_data(square="2,3"), **_stamp(cast.campaign, "r2")},
    )
    assert response.status_code == 302
    assert response["Location"] == f"{_url(cast.campaign, 'orders-force', 'r2')}#orders-force-r2"
    response = client.get(_url(cast.campaign, "orders-probability", "r2"), {"change_to": "probe"})
    assert response.status_code == 200 and "<html" in response.content.decode()


def test_posts_need_the_csrf_token(cast):
    client = Client(enforce_csrf_checks=True)
    client.force_login(cast.users["side_a"])
    response = client.post(_url(cast.campaign, "orders-path", "r2"), _force_data(x="3", y="4"))
    assert response.status_code == 403
    html = client.get(_url(cast.campaign, "orders-force", "r2")).content.decode()
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'hx-headers=\'{"x-csrftoken": "' in html


# --- drawing a path ------------------------------------------------------------------------------


def test_a_player_draws_a_path_by_clicking_and_sees_it(cast):
    client = cast.client("side_a")
    url = _url(cast.campaign, "orders-path", "r2")  # Hakon's Warband, Probe, at (2, 4)

    stamp = _stamp(cast.campaign, "r2")
    html = client.post(url, {**_force_data(clear_path="1"), **stamp}, headers=HTMX).content.decode()
    assert "No path: the force does not move." in html
    assert _orders(cast.campaign, "raiders").data["forces"]["r2"]["path"] == []

    stamp = _stamp(cast.campaign, "r2")  # the base each answer's editor carries
    html = client.post(url, {**_force_data(x="3", y="4"), **stamp}, headers=HTMX).content.decode()
    assert 'name="path" value="3,4"' in html
    stamp = _stamp(cast.campaign, "r2")
    data = {**_force_data(path="3,4", x="4", y="4"), **stamp}
    html = client.post(url, data, headers=HTMX).content.decode()
    assert 'name="path" value="3,4; 4,4"' in html
    assert "Saved. Confirm your orders" in html
    assert 'id="orders-status" class="orders-status is-saved"' in html  # the status, out of band
    assert 'hx-swap-oob="true"' in html
    # the map: the path and the legal squares highlighted, every square clickable
    assert 'class="hl hl-path"' in html and 'class="hl hl-legal"' in html
    assert 'hx-vals=\'{"x": 4, "y": 4}\'' in html
    assert f'hx-post="{url}"' in html

    saved = _orders(cast.campaign, "raiders").data["forces"]["r2"]
    assert saved["path"] == [[3, 4], [4, 4]]
    assert saved["zoc"] == "stop"  # the other choices of the form were saved with it
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    assert "(3, 4) → (4, 4)" in page

    # a click on a step removes it and the steps after it
    stamp = _stamp(cast.campaign, "r2")
    html = client.post(url, {**_force_data(path="3,4; 4,4", x="3", y="4"), **stamp}, headers=HTMX)
    assert _orders(cast.campaign, "raiders").data["forces"]["r2"]["path"] == []


def test_a_refused_step_is_taken_out_of_the_path_with_its_reason(cast):
    """Issue 11: a refused step stayed in the path. The click's step is dropped again, the
    path stays as it was saved, and the reason is beside it."""
    client = cast.client("side_a")
    before = _orders(cast.campaign, "raiders").data
    response = client.post(
        _url(cast.campaign, "orders-path", "r2"),
        {
            **_force_data(path="3,4", x="6", y="6", retreat_squares="2,5"),
            **_stamp(cast.campaign, "r2"),
        },
        headers=HTMX,
    )
    assert response.status_code == 200
    html = response.content.decode()
    fieldset = re.search(
        r'<fieldset class="field path-field has-error">(.*?)</fieldset>', html, re.S
    )
    assert fieldset is not None, "the path field is marked"
    assert (
        "Step 2 (6, 6) is not next to (3, 4) (R6.4.2): each step goes to one of the 8 squares "
        "around the last one. It is not added to the path." in fieldset.group(1)
    )
    assert 'class="hl hl-refused"' not in html
    # the path without the refused step, the player's other input kept, nothing saved
    assert 'name="path" value="3,4"' in html
    assert "(6, 6) — " not in html
    assert 'value="2,5"' in html
    assert _orders(cast.campaign, "raiders").data == before


def test_form_errors_appear_beside_their_fields(cast):
    client = cast.client("side_a")
    before = _orders(cast.campaign, "raiders").data
    html = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {**_force_data(retreat_squares="north please", ambush="on"), **_stamp(cast.campaign, "r2")},
        headers=HTMX,
    ).content.decode()
    assert "Write squares as x,y separated by semicolons" in html
    assert 'value="north please"' in html
    assert _orders(cast.campaign, "raiders").data == before
    # fixed the text: now the rules speak, beside the ambush box
    html = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {**_force_data(retreat_squares="2,5", ambush="on"), **_stamp(cast.campaign, "r2")},
        headers=HTMX,
    ).content.decode()
    assert re.search(
        r'id="id_r2_ambush".*?<div class="field-errors">.*?Only a force on Defend can lay an '
        r"ambush",
        html,
        re.S,
    )
    assert _orders(cast.campaign, "raiders").data == before


# --- the force test ------------------------------------------------------------------------------


def test_the_chances_of_tv04_are_exact(cast):
    """TV-04 (R5.2): leader CV 3, a Probe force in enemy territory asks for Full Speed. One
    die + 3 − 1: faces 4–6 score 6+ (the order, 3 in 6), 2–3 score 4–5 (Defend, 2 in 6),
    face 1 scores 3 (Confused, 1 in 6)."""
    _move(cast.campaign, "r2", (12, 5))  # cultivated land in the defenders' territory
    state = adapters.state_load(campaign=cast.campaign)
    chances = force_test_chances_get(
        state=state, force=state.force("r2"), requested=Status.FULL_SPEED
    )
    assert chances.ok == Fraction(1, 2)
    assert {o.key: o.chance for o in chances.outcomes} == {
        "ok": Fraction(3, 6),
        "defend": Fraction(2, 6),
        "confused": Fraction(1, 6),
    }
    assert [m.value for m in chances.modifiers] == [3, -1]

    html = (
        cast.client("side_a")
        .get(
            _url(cast.campaign, "orders-probability", "r2"),
            {"change_to": "full-speed"},
            headers=HTMX,
        )
        .content.decode()
    )
    assert (
        "Chance the force acts as ordered (Full Speed): <strong>50.0 %</strong> (3 in 6)." in html
    )
    assert "If the test fails:" in html and "Otherwise" not in html
    assert "Defend 33.3 % (2 in 6); Confused 16.7 % (1 in 6)." in html
    assert escape("leader's command value +3") in html and "in enemy territory -1" in html


def test_the_chances_count_incursion_snow_and_reactions(cast):
    """Snow 2 (§11.5) and a Confused force: CV 3 − 1 (Confused) − 2 (snow) + 2 (friendly) = 2,
    so faces 4–6 give the order (3 in 6), 2–3 Defend, 1 scores 3: Unsteady for a Confused
    force (p. 9)."""
    Campaign.objects.filter(pk=cast.campaign.pk).update(snow={"levels": 2})
    Force.objects.filter(campaign=cast.campaign, key="r2").update(status="confused")
    html = (
        cast.client("side_a")
        .get(_url(cast.campaign, "orders-probability", "r2"), {"change_to": "defend"})
        .content.decode()
    )
    # asking for Defend, the 4–5 result (Defend) is the order asked for too: 3 + 2 in 6
    assert "Chance the force acts as ordered (Defend): <strong>83.3 %</strong> (5 in 6)." in html
    assert "If the test fails: Unsteady (a Confused force that scores 3) 16.7 % (1 in 6)." in (
        " ".join(html.split())
    )
    assert "snow (§11.5) -2" in html


def test_a_force_carrying_loot_is_told_full_speed_is_refused(cast):
    Force.objects.filter(campaign=cast.campaign, key="r2").update(loot=["thornbury"])
    html = (
        cast.client("side_a")
        .get(
            _url(cast.campaign, "orders-probability", "r2"),
            {"change_to": "full-speed"},
            headers=HTMX,
        )
        .content.decode()
    )
    assert "the order would be refused without a test" in html


# --- refusals ------------------------------------------------------------------------------------


def test_an_order_for_someone_elses_force_is_refused(cast):
    raiders, defenders = (_orders(cast.campaign, k).data for k in ("raiders", "defenders"))
    side_a = cast.client("side_a")
    for name in ("orders-force", "orders-path"):
        response = side_a.post(
            _url(cast.campaign, name, "d1"),
            {**_force_data(x="12", y="6", path="12,6"), **_stamp(cast.campaign, "d1")},
        )
        assert response.status_code == 404
    response = cast.client("side_b").post(
        _url(cast.campaign, "orders-force", "r1"),
        {**_force_data(change_to="defend"), **_stamp(cast.campaign, "r1")},
    )
    assert response.status_code == 404
    assert _orders(cast.campaign, "raiders").data == raiders
    assert _orders(cast.campaign, "defenders").data == defenders


def test_orders_after_the_turn_closed_are_refused_and_saved_orders_kept(cast):
    before = _orders(cast.campaign, "raiders")
    turn_close(turn=turn_current(campaign=cast.campaign), seed=7)
    client = cast.client("side_a")
    message = (
        "Turn 1 is closed: orders can no longer be changed. Your saved orders are kept as they "
        "were."
    )

    response = client.post(
        _url(cast.campaign, "orders-force", "r1"),
        {**_force_data(change_to="defend"), **_stamp(cast.campaign, "r1")},
    )
    assert response.status_code == 409
    assert message in response.content.decode()
    response = client.post(
        _url(cast.campaign, "orders-path", "r1"),
        {**_force_data(path="4,5", x="4", y="6"), **_stamp(cast.campaign, "r1")},
        headers=HTMX,
    )
    assert response.status_code == 409  # static/js/site.js swaps it in: the message shows
    assert message in response.content.decode()
    response = client.post(
        _url(cast.campaign, "orders-force", "r1"),
        {"clear": "1", **_stamp(cast.campaign, "r1")},
        headers=HTMX,
    )
    assert message in response.content.decode()
    response = client.post(
        _url(cast.campaign, "orders-confirm"),
        {"action": "confirm", **_stamp(cast.campaign, player="raiders")},
    )
    assert response.status_code == 409 and message in response.content.decode()

    after = _orders(cast.campaign, "raiders")
    assert (after.data, after.status, after.saved_at) == (
        before.data,
        before.status,
        before.saved_at,
    )
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    assert "Turn closed: orders are final" in page
    assert "Edit the orders of" not in page
    assert "Confirm my orders" not in page


# --- saved and confirmed -------------------------------------------------------------------------


def test_saved_and_confirmed_are_separate(cast):
    client = cast.client("side_a")
    confirm = _url(cast.campaign, "orders-confirm")

    stamp = _stamp(cast.campaign, player="raiders")
    html = client.post(confirm, {"action": "confirm", **stamp}, headers=HTMX).content.decode()
    assert "Your orders for turn 1 are confirmed." in html
    assert "✔ Confirmed" in html and "Unconfirm to change my orders" in html
    row = _orders(cast.campaign, "raiders")
    assert row.status == Orders.Status.CONFIRMED and row.confirmed_at is not None

    # an edit drops confirmed orders back to saved, and says so
    html = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {**_force_data(change_to="full-speed", path="3,4"), **_stamp(cast.campaign, "r2")},
        headers=HTMX,
    ).content.decode()
    assert "Your orders were confirmed: this change set them back to saved." in html
    assert "Saved — not confirmed" in html  # the status bar, out of band
    row = _orders(cast.campaign, "raiders")
    assert row.status == Orders.Status.SAVED and row.confirmed_at is None
    assert row.data["forces"]["r2"]["change_to"] == "full-speed"

    client.post(confirm, {"action": "confirm", **_stamp(cast.campaign, player="raiders")})
    assert _orders(cast.campaign, "raiders").status == Orders.Status.CONFIRMED
    response = client.post(confirm, {"action": "unconfirm", **_stamp(cast.campaign)})
    assert response.status_code == 302
    row = _orders(cast.campaign, "raiders")
    assert row.status == Orders.Status.SAVED
    assert row.data["forces"]["r2"]["path"] == [[3, 4]]  # withdrawing keeps the orders
    assert (
        "Confirm my orders for turn 1 as final"
        in client.get(_url(cast.campaign, "orders")).content.decode()
    )


def test_confirming_with_nothing_saved_confirms_that_every_force_holds(cast):
    Orders.objects.filter(player__key="defenders").delete()
    client = cast.client("side_b")
    assert "Nothing saved yet" in client.get(_url(cast.campaign, "orders")).content.decode()
    client.post(
        _url(cast.campaign, "orders-confirm"),
        {"action": "confirm", **_stamp(cast.campaign, player="defenders")},
    )
    row = _orders(cast.campaign, "defenders")
    assert row.status == Orders.Status.CONFIRMED and row.data["forces"] == {}


def test_removing_a_force_orders(cast):
    client = cast.client("side_a")
    response = client.post(
        _url(cast.campaign, "orders-force", "r3"), {"clear": "1", **_stamp(cast.campaign, "r3")}
    )
    assert response.status_code == 302
    forces = _orders(cast.campaign, "raiders").data["forces"]
    assert "r3" not in forces and {"r1", "r2"} <= set(forces)


# --- fog of war ----------------------------------------------------------------------------------


def _raider_pages(cast) -> list[str]:
    client = cast.client("side_a")
    return [
        client.get(_url(cast.campaign, "orders")).content.decode(),
        client.get(_url(cast.campaign, "orders-force", "r1")).content.decode(),
        client.post(
            _url(cast.campaign, "orders-path", "r1"),
            {**_force_data(x="4", y="5"), **_stamp(cast.campaign, "r1")},
            headers=HTMX,
        ).content.decode(),
        client.get(
            _url(cast.campaign, "orders-probability", "r1"), {"change_to": "probe"}
        ).content.decode(),
    ]


def test_no_defender_orders_or_hidden_forces_in_the_raiders_html(cast):
    defenders = Player.objects.get(campaign=cast.campaign, key="defenders")
    orders_submit(
        player=defenders,
        turn=turn_current(campaign=cast.campaign),
        data={"forces": {"d1": {"change_to": "probe", "retreat_squares": [[14, 7]]}}},
    )
    for html in _raider_pages(cast):
        for key, (name, general) in DEFENDERS.items():
            assert name not in html and general not in html
            assert re.search(rf"\b{key}\b", html) is None, key
        assert "14,7" not in html  # the defenders' retreat order, as a form would show it
        assert "hl-enemy-zoc" not in html  # no visible enemy, no zone to show


def test_a_visible_enemy_shows_its_zone_of_control_and_hidden_ones_stay_hidden(cast):
    _move(cast.campaign, "d3", (4, 4))  # next to the Jarl's Host (3, 5): in its watch
    html = (
        cast.client("side_a")
        .get(_url(cast.campaign, "orders-force", "r1"), headers=HTMX)
        .content.decode()
    )
    assert 'class="hl hl-enemy-zoc"' in html
    assert "The Southern March" in html  # visible: on the map
    for key in ("d1", "d2"):
        name, general = DEFENDERS[key]
        assert name not in html and re.search(rf"\b{key}\b", html) is None
    # Hakon's Warband (2, 4), its path cleared: the next steps into the zone are marked
    html = (
        cast.client("side_a")
        .post(
            _url(cast.campaign, "orders-path", "r2"),
            {**_force_data(clear_path="1"), **_stamp(cast.campaign, "r2")},
            headers=HTMX,
        )
        .content.decode()
    )
    assert "(3, 4), uncultivated land, friendly territory, enemy zone of control" in html
    assert "(2, 3), uncultivated land, friendly territory</button>" in html


def test_the_page_is_read_only_for_a_surrendered_player(cast):
    Player.objects.filter(campaign=cast.campaign, key="raiders").update(surrendered=True)
    html = cast.client("side_a").get(_url(cast.campaign, "orders")).content.decode()
    assert "Edit the orders of" not in html


def test_turn_status_other_than_open_is_named(cast):
    Turn.objects.filter(campaign=cast.campaign).update(status=Turn.Status.BATTLES)
    html = cast.client("side_a").get(_url(cast.campaign, "orders")).content.decode()
    assert "Turn 1 is no longer open (Battles pending)" in html
