"""Nothing acts on a stale page (issue 28): every form of a player's orders pages names the
turn it was drawn for, and the force editor the version of the force's saved orders it
stands on. A form of a turn gone by (a second tab, the Back button, the same form posted
twice) is refused before anything is done, naming both turns; a save from a second tab that
would undo what another saved is refused with the other change shown, and the editor offers
to reload; two tabs on different forces, or one tab saving again and again, are never
refused."""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from campaign.models import Campaign, Orders, Player
from campaign.orders.forms import ForceOrdersForm
from campaign.orders.selectors import player_orders_get
from campaign.selectors import turn_current
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from tests.campaign.orders.test_orders_page import HTMX, _force_data, _orders, _url
from tests.campaign.orders.test_reinforcements import _key, _requests
from tests.campaign.orders.test_rulebook_choices import _by_army

pytestmark = pytest.mark.django_db

_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def _forms(html: str, marker: str) -> list[dict[str, str]]:
    """The hidden fields of every form of `html` whose opening tag holds `marker`."""
    found = []
    for match in re.finditer(r"<form\b[^>]*>", html):
        if marker in match.group(0):
            end = html.index("</form>", match.end())
            fields = _HIDDEN.findall(html[match.end() : end])
            found.append({k: htmllib.unescape(v) for k, v in fields})
    assert found, f"no form {marker!r} on the page"
    return found


def _form(html: str, marker: str, **having: str) -> dict[str, str]:
    """The hidden fields of the form `marker` that has the `having` values."""
    forms = _forms(html, marker)
    return next(f for f in forms if all(f.get(k) == v for k, v in having.items()))


def _stamp(fields: dict[str, str]) -> dict[str, str]:
    """What the stale checks read of a form: its turn, the version it stands on, and the
    orders the editor opened on ("Close without saving")."""
    return {k: fields[k] for k in ("turn", "base", "original") if k in fields}


def _rows(campaign: Campaign) -> list[dict[str, Any]]:
    return list(Orders.objects.filter(turn__campaign=campaign).order_by("pk").values())


def _move_on(campaign: Campaign) -> None:
    """Turn 1 closed and resolved: turn 2 is open."""
    turn = turn_close(turn=turn_current(campaign=campaign), seed=7)
    turn_resolve(turn_id=turn.pk)
    turn_resolve_after_battles(turn_id=turn.pk)
    assert turn_current(campaign=campaign).number == 2


@dataclass
class Post:
    who: str
    url: str
    data: dict[str, str]
    htmx: bool = False

    def send(self, client: Client):
        return client.post(self.url, self.data, headers=HTMX if self.htmx else {})


# each of the forms as a page of turn 1 draws it: (cast, htmx) → the POST


def _editor(cast, force: str = "r2") -> str:
    url = _url(cast.campaign, "orders-force", force)
    return cast.client("side_a").get(url, headers=HTMX).content.decode()


def _save(cast, htmx: bool) -> Post:
    fields = _stamp(_form(_editor(cast), 'id="orders-form-r2"'))
    data = {**_force_data(change_to="full-speed", path="3,4"), **fields}
    return Post("side_a", _url(cast.campaign, "orders-force", "r2"), data, htmx)


def _clear(cast, htmx: bool) -> Post:
    fields = _stamp(_form(_editor(cast), 'id="orders-form-r2"'))
    data = {**_force_data(), **fields, "clear": "1"}
    return Post("side_a", _url(cast.campaign, "orders-force", "r2"), data, htmx)


def _restore(cast, htmx: bool) -> Post:
    fields = _stamp(_form(_editor(cast), 'id="orders-form-r2"'))
    fields["original"] = '{"path": "2,3", "zoc": "stop", "countermarch": "never"}'
    data = {**_force_data(), **fields, "restore": "1"}
    return Post("side_a", _url(cast.campaign, "orders-force", "r2"), data, htmx)


def _click(cast, htmx: bool) -> Post:
    fields = _stamp(_form(_editor(cast), 'id="orders-form-r2"'))
    data = {**_force_data(path=""), **fields, "x": "3", "y": "4"}
    return Post("side_a", _url(cast.campaign, "orders-path", "r2"), data, htmx)


def _confirm(cast, htmx: bool) -> Post:
    page = cast.client("side_a").get(_url(cast.campaign, "orders")).content.decode()
    data = {**_stamp(_form(page, 'class="confirm-form"')), "action": "confirm"}
    return Post("side_a", _url(cast.campaign, "orders-confirm"), data, htmx)


def _unconfirm(cast, htmx: bool) -> Post:
    client = cast.client("side_a")
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    confirm = {**_stamp(_form(page, 'class="confirm-form"')), "action": "confirm"}
    assert client.post(_url(cast.campaign, "orders-confirm"), confirm).status_code == 302
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    assert "Unconfirm to change my orders" in page
    data = {**_stamp(_form(page, 'class="confirm-form"')), "action": "unconfirm"}
    return Post("side_a", _url(cast.campaign, "orders-confirm"), data, htmx)


def _army(cast, htmx: bool) -> Post:
    _by_army(cast.campaign)  # the box of R6.1.2
    page = cast.client("side_a").get(_url(cast.campaign, "orders")).content.decode()
    url = _url(cast.campaign, "orders-army")
    return Post(
        "side_a", url, {**_stamp(_form(page, f'action="{url}"')), "army_initiative": "last"}
    )


def _reinforcements_page(cast, requests: int = 0) -> str:
    """The defenders' reinforcements page, after adding `requests` requests through it."""
    c, client = cast.campaign, cast.client("side_b")
    url = _url(c, "reinforcements")
    spear = _key(c, "defenders", "Spearmen")
    for n in range(requests):
        page = client.get(url).content.decode()
        add = _stamp(_form(page, f'action="{url}"'))
        assert client.post(url, {**add, f"figures_{spear}": str(10 + n)}).status_code == 302
    return client.get(url).content.decode()


def _add(cast, htmx: bool) -> Post:
    url = _url(cast.campaign, "reinforcements")
    fields = _stamp(_form(_reinforcements_page(cast), f'action="{url}"'))
    spear = _key(cast.campaign, "defenders", "Spearmen")
    return Post("side_b", url, {**fields, f"figures_{spear}": "12"})


def _remove(cast, htmx: bool) -> Post:
    url = _url(cast.campaign, "reinforcements-remove")
    fields = _form(_reinforcements_page(cast, 2), f'action="{url}"', index="0")
    return Post("side_b", url, {**_stamp(fields), "index": "0"})


def _reorder(cast, htmx: bool) -> Post:
    url = _url(cast.campaign, "reinforcements-move")
    fields = _form(_reinforcements_page(cast, 2), f'action="{url}"', index="1")
    return Post("side_b", url, {**_stamp(fields), "index": "1", "direction": "up"})


FORMS: dict[str, Callable[..., Post]] = {
    "save": _save,
    "clear": _clear,
    "restore": _restore,
    "path click": _click,
    "confirm": _confirm,
    "unconfirm": _unconfirm,
    "army choice": _army,
    "reinforcement add": _add,
    "reinforcement remove": _remove,
    "reinforcement move": _reorder,
}
HTMX_TOO = {"save", "clear", "restore", "path click", "confirm", "unconfirm"}
CASES = [
    pytest.param(name, htmx, id=f"{name}{' htmx' if htmx else ''}")
    for name in FORMS
    for htmx in ((False, True) if name in HTMX_TOO else (False,))
]


def _refused_for_turn_1(response, rows_before, campaign) -> list[str]:
    assert response.status_code == 409
    text = " ".join(htmllib.unescape(response.content.decode()).split())
    assert (
        "This page was for turn 1, which is now resolved; turn 2 is current (orders open). "
        "Nothing was done: check the page as it is now." in text
    )
    assert _rows(campaign) == rows_before  # nothing changed
    return re.findall(r'role="alert"[^>]*>(.*?)</', text)  # what the page says is wrong


@pytest.mark.parametrize(("name", "htmx"), CASES)
def test_a_form_of_a_turn_gone_by_is_refused_naming_both_turns(cast, name, htmx):
    post = FORMS[name](cast, htmx)
    _move_on(cast.campaign)
    before = _rows(cast.campaign)
    client = cast.client(post.who)
    response = post.send(client)
    first = _refused_for_turn_1(response, before, cast.campaign)
    # the page it answers with is turn 2's
    assert 'name="turn" value="2"' in response.content.decode()
    second = _refused_for_turn_1(post.send(client), before, cast.campaign)  # posted again
    assert second == first


@pytest.mark.parametrize(("name", "htmx"), CASES)
def test_the_same_form_posted_again_after_the_turn_moved_on_is_refused(cast, name, htmx):
    """The form did its work in turn 1; sent again (Back, a double click, a second tab)
    once turn 2 is open, it does nothing to turn 2."""
    post = FORMS[name](cast, htmx)
    client = cast.client(post.who)
    done = post.send(client)
    assert done.status_code in (200, 302), done.content.decode()[:2000]
    _move_on(cast.campaign)
    before = _rows(cast.campaign)
    _refused_for_turn_1(post.send(client), before, cast.campaign)


@pytest.mark.parametrize("box", ["orders-events", "orders-regroup"])
def test_the_other_boxes_of_the_page_are_refused_for_a_turn_gone_by(cast, box):
    """The random events' and the regrouping's boxes: the same check as the army's."""
    _move_on(cast.campaign)
    before = _rows(cast.campaign)
    data = {"turn": "1", "box": box.removeprefix("orders-"), "event_reroll": "no"}
    response = cast.client("side_a").post(_url(cast.campaign, box), data)
    _refused_for_turn_1(response, before, cast.campaign)


def test_a_form_without_its_turn_is_refused(cast):
    before = _rows(cast.campaign)
    client = cast.client("side_a")
    response = client.post(_url(cast.campaign, "orders-force", "r2"), _force_data())
    assert response.status_code == 409
    assert "This form did not say which turn it was for, so nothing was done." in (
        response.content.decode()
    )
    assert _rows(cast.campaign) == before


def test_the_last_confirmation_names_the_turn_it_closes(cast):
    Campaign.objects.filter(pk=cast.campaign.pk).update(auto_close=True)
    defenders = Player.objects.get(campaign=cast.campaign, key="defenders")
    Orders.objects.filter(player=defenders).update(status=Orders.Status.CONFIRMED)
    page = cast.client("side_a").get(_url(cast.campaign, "orders")).content.decode()
    assert (
        'data-confirm="You are the last player to confirm: this closes turn 1, and it is '
        'resolved at once. Confirm your orders for turn 1?"' in htmllib.unescape(page)
    )


# --- two tabs on one force ---------------------------------------------------------------------


def _tab(cast, force: str = "r2") -> dict[str, str]:
    """A tab with the force's editor open: the fields its form carries."""
    return _stamp(_form(_editor(cast, force), f'id="orders-form-{force}"'))


def _saved(cast, force: str = "r2") -> dict[str, Any]:
    return _orders(cast.campaign, "raiders").data["forces"][force]


def _as_shown(cast, force: str = "r2", **changes: str) -> dict[str, str]:
    """The force's form as the editor shows its saved orders, with `changes` made."""
    row = _orders(cast.campaign, "raiders")
    player = Player.objects.get(campaign=cast.campaign, key="raiders")
    initial = ForceOrdersForm.initial_for(
        player_orders_get(player=player, row=row).for_force(force)
    )
    data = {k: ("on" if v is True else v) for k, v in initial.items() if v is not False}
    return {**data, **changes}


@pytest.mark.parametrize("htmx", [True, False])
def test_a_second_tab_does_not_undo_the_first_ones_save(cast, htmx):
    client = cast.client("side_a")
    url = _url(cast.campaign, "orders-force", "r2")
    headers = HTMX if htmx else {}
    tab1, tab2 = _tab(cast), _tab(cast)
    shown = _as_shown(cast)  # what tab 2 shows
    retreat_before = _saved(cast)["retreat_squares"]
    path_words = " → ".join(f"({x}, {y})" for x, y in _saved(cast)["path"])
    # tab 1: Countermarch "Always", saved
    one = client.post(url, {**_as_shown(cast, countermarch="always"), **tab1}, headers=headers)
    assert one.status_code == (200 if htmx else 302)
    assert _saved(cast)["countermarch"] == "always"
    saved_at = _orders(cast.campaign, "raiders").saved_at
    # tab 2, opened before: the retreat preference changed, Countermarch as it showed it
    two = client.post(url, {**shown, "retreat_squares": "1,4", **tab2}, headers=headers)
    assert two.status_code == 409
    text = " ".join(htmllib.unescape(two.content.decode()).split())
    assert (
        "Nothing was saved: the orders of Hakon's Warband were changed in another tab or "
        "window after this editor opened." in text
    )
    assert "You saved them on " in text  # the same player, elsewhere
    changed = re.search(r'id="orders-changed-r2">(.*?)</div>\s*<form', text)
    assert changed is not None
    assert "<dt>Countermarch</dt><dd>always, after moving</dd>" in changed.group(1)
    assert f"<dt>Path</dt><dd>{path_words}</dd>" in changed.group(1)
    assert "Reload the editor with these orders" in changed.group(1)
    assert f'hx-get="{url}"' in changed.group(1)
    assert 'value="1,4"' in text  # tab 2's input, kept below to see, not saved
    # the first save kept
    assert _saved(cast)["countermarch"] == "always"
    assert _saved(cast)["retreat_squares"] == retreat_before
    assert _orders(cast.campaign, "raiders").saved_at == saved_at
    # saving tab 2's editor again is refused again: it still stands on the old orders
    again = client.post(
        url,
        {
            **shown,
            "retreat_squares": "1,4",
            **_stamp(_form(two.content.decode(), 'id="orders-form-r2"')),
        },
        headers=headers,
    )
    assert again.status_code == 409
    # reloaded, the editor stands on tab 1's orders, and saves
    reloaded = _editor(cast)
    assert re.search(r'<option value="always" selected>', reloaded)
    fields = _stamp(_form(reloaded, 'id="orders-form-r2"'))
    data = {**_as_shown(cast, retreat_squares="1,4"), **fields}
    assert client.post(url, data, headers=HTMX).status_code == 200
    assert _saved(cast)["countermarch"] == "always"
    assert _saved(cast)["retreat_squares"] == [[1, 4]]


def test_one_tab_saving_again_and_again_is_never_refused(cast):
    """Each click saves, and the editor it answers with stands on what it saved."""
    client = cast.client("side_a")
    path_url = _url(cast.campaign, "orders-path", "r2")
    before = _saved(cast)
    fields = _tab(cast)
    html = client.post(path_url, {**_as_shown(cast), **fields, "clear_path": "1"}, headers=HTMX)
    for square, path in (("3,4", ""), ("4,4", "3,4")):  # each answer's editor, clicked again
        assert html.status_code == 200
        fields = _stamp(_form(html.content.decode(), 'id="orders-form-r2"'))
        x, y = square.split(",")
        html = client.post(
            path_url, {**_as_shown(cast, path=path), **fields, "x": x, "y": y}, headers=HTMX
        )
    assert html.status_code == 200
    assert _saved(cast)["path"] == [[3, 4], [4, 4]]
    fields = _stamp(_form(html.content.decode(), 'id="orders-form-r2"'))
    # "Close without saving" puts back the orders the editor opened on
    closed = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {**_as_shown(cast), **fields, "restore": "1"},
        headers=HTMX,
    )
    assert closed.status_code == 200
    assert "Your changes are undone" in closed.content.decode()
    assert _saved(cast) == before
    # opened again: a click, then the whole form saved
    fields = _tab(cast)
    html = client.post(path_url, {**_as_shown(cast), **fields, "clear_path": "1"}, headers=HTMX)
    fields = _stamp(_form(html.content.decode(), 'id="orders-form-r2"'))
    saved = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {**_as_shown(cast, countermarch="always"), **fields},
        headers=HTMX,
    )
    assert saved.status_code == 200 and "Saved." in saved.content.decode()
    assert _saved(cast)["countermarch"] == "always" and _saved(cast)["path"] == []


def test_two_tabs_on_different_forces_both_save(cast):
    client = cast.client("side_a")
    tab1, tab2 = _tab(cast, "r1"), _tab(cast, "r2")
    one = client.post(
        _url(cast.campaign, "orders-force", "r1"),
        {**_force_data(path="4,5", countermarch="always"), **tab1},
        headers=HTMX,
    )
    two = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {**_force_data(path="2,3", retreat_squares="1,4"), **tab2},
        headers=HTMX,
    )
    assert (one.status_code, two.status_code) == (200, 200)
    assert _saved(cast, "r1")["countermarch"] == "always"
    assert _saved(cast, "r2")["retreat_squares"] == [[1, 4]]


@pytest.mark.parametrize("button", ["clear", "restore", "click"])
def test_clearing_closing_or_clicking_in_a_second_tab_is_refused_too(cast, button):
    client = cast.client("side_a")
    tab1, tab2 = _tab(cast), _tab(cast)
    url = _url(cast.campaign, "orders-force", "r2")
    client.post(url, {**_force_data(path="2,3", countermarch="always"), **tab1}, headers=HTMX)
    after_tab1 = _rows(cast.campaign)
    if button == "click":
        url, data = _url(cast.campaign, "orders-path", "r2"), {"x": "3", "y": "3"}
    else:
        data = {button: "1"}
    response = client.post(url, {**_force_data(path="2,3"), **tab2, **data}, headers=HTMX)
    assert response.status_code == 409
    assert "always, after moving" in response.content.decode()
    assert _rows(cast.campaign) == after_tab1


def test_confirming_orders_saved_since_in_another_tab_is_refused(cast):
    client = cast.client("side_a")
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    confirm = {**_stamp(_form(page, 'class="confirm-form"')), "action": "confirm"}
    tab2 = _tab(cast)
    client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {**_force_data(path="2,3", countermarch="always"), **tab2},
        headers=HTMX,
    )
    response = client.post(_url(cast.campaign, "orders-confirm"), confirm, headers=HTMX)
    assert response.status_code == 409
    text = htmllib.unescape(response.content.decode())
    assert "Nothing was confirmed: your orders were saved again" in text
    assert "always, after moving" in text  # the forces as they stand, out of band
    assert _orders(cast.campaign, "raiders").status == Orders.Status.SAVED
    # the answer's confirm button stands on the orders it shows: it confirms them
    fresh = {**_stamp(_form(text, 'class="confirm-form"')), "action": "confirm"}
    client.post(_url(cast.campaign, "orders-confirm"), fresh, headers=HTMX)
    assert _orders(cast.campaign, "raiders").status == Orders.Status.CONFIRMED


def test_removing_a_request_moved_since_in_another_tab_is_refused(cast):
    client = cast.client("side_b")
    page = _reinforcements_page(cast, 2)
    remove_url = _url(cast.campaign, "reinforcements-remove")
    move_url = _url(cast.campaign, "reinforcements-move")
    remove = {**_stamp(_form(page, f'action="{remove_url}"', index="0")), "index": "0"}
    move = {**_stamp(_form(page, f'action="{move_url}"', index="1")), "index": "1"}
    assert client.post(move_url, {**move, "direction": "up"}).status_code == 302
    order = [q["units"][0]["figures"] for q in _requests(cast.campaign, "defenders")]
    assert order == [11, 10]
    response = client.post(remove_url, remove)
    assert response.status_code == 409
    assert "your requests were changed in another tab or window" in response.content.decode()
    assert [q["units"][0]["figures"] for q in _requests(cast.campaign, "defenders")] == order
