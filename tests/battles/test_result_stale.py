"""Nothing acts on a stale result page (`battles.stale`, issue 28): every state-changing form
of a battle's result page names the version of the result it was rendered from, and a form
built on an earlier one is refused (409) with the page as it is now and what changed: who
did what, when, and the result stored now, in words. Confirming confirms the result read,
never one entered since; a form posted twice acts once; a form naming no version acts not.

The battle is the demo's t1-b1: the Red Riders (Raiders, side a, Ulfrik of Wolfstead)
against the Southern March (Defenders, side b, Sir Edmund of Ashbury)."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from battles.models import Battle, BattleAudit
from battles.services import battle_result_confirm
from battles.stale import StaleResult
from tests.battles.conftest import form_data, raiders_wiped, result_url, stamped, version
from tests.battles.test_result_entry import defenders_win, enter, refresh

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def rendered(cast, who: str, battle: Battle) -> tuple[str, int]:
    """The result page as `who` reads it now, and the version every one of its forms names."""
    response = cast.client(who).get(result_url(battle))
    assert response.status_code == 200
    html = response.content.decode()
    versions = set(re.findall(r'name="version" value="(\d+)"', html))
    assert len(versions) == 1, versions
    return html, int(versions.pop())


def other_result(cast) -> dict:
    """A second entry, unlike `defenders_win`: six of the first raider unit's figures fled."""
    units = raiders_wiped(cast.campaign, r3u1={"killed": 10, "fled": 6})
    return {"units": units, "outcome": "b"}


def refusal(response) -> str:
    """The refusal the page shows above everything (`notice-error`)."""
    m = re.search(
        r'<p class="notice notice-error" role="alert">([^<]*)</p>', response.content.decode()
    )
    assert m, "no refusal shown"
    return m.group(1).replace("&#x27;", "'")


def audit(battle: Battle) -> list[str]:
    return list(BattleAudit.objects.filter(battle=battle).values_list("action", flat=True))


RESULT_NOW = (
    "Where the result stands now: entered, awaiting confirmation. Defenders won the battle. "
    "Raiders (The Red Riders), of 56 figures: 50 killed, 6 fled, 0 left the table. "
    "Defenders (The Southern March), of 40 figures: 0 killed, 0 fled, 0 left the table."
)


# --- confirming confirms the result read --------------------------------------------------------


def test_a_stale_confirmation_is_refused_and_names_the_new_entry(cast, battle):
    """Sir Edmund reads the raiders' entry; Ulfrik enters another meanwhile; Sir Edmund's
    confirmation of the one he read is refused, with the new one shown in words."""
    enter(cast, "side_a", battle, **defenders_win(cast))
    html, read = rendered(cast, "side_b", battle)
    assert "Confirm the result" in html
    assert enter(cast, "side_a", battle, **other_result(cast)).status_code == 302
    entered = refresh(battle)

    response = cast.client("side_b").post(result_url(battle, "confirm"), {"version": read})
    assert response.status_code == 409
    message = refusal(response)
    assert message.startswith(
        "While you were reading, Ulfrik of Wolfstead entered a new result of battle 1 of turn 1 ("
    )
    assert f"): nothing was done. {RESULT_NOW} Read it below and try again." in message
    battle = refresh(battle)  # nothing changed
    assert (battle.entry, battle.status) == (Battle.Entry.ENTERED, Battle.Status.PENDING)
    assert battle.confirmed_by is None and battle.result == entered.result
    assert battle.result_version == entered.result_version
    assert audit(battle) == ["entered", "entered"]
    # the page shows the result stored now, and its forms are built on it: confirming it works
    page = response.content.decode()
    assert f'name="version" value="{entered.result_version}"' in page
    assert 'value="6"' in page  # r3u1's fled, as Ulfrik entered it the second time
    again = cast.client("side_b").post(result_url(battle, "confirm"), stamped(battle))
    assert again.status_code == 302
    assert refresh(battle).entry == Battle.Entry.CONFIRMED


def test_the_same_confirmation_posted_twice_acts_once(cast, battle):
    enter(cast, "side_a", battle, **defenders_win(cast))
    _html, read = rendered(cast, "side_b", battle)
    url = result_url(battle, "confirm")
    assert cast.client("side_b").post(url, {"version": read}).status_code == 302
    confirmed = refresh(battle)
    response = cast.client("side_b").post(url, {"version": read})
    assert response.status_code == 409  # not "you cannot confirm": what changed, and who
    assert refusal(response).startswith(
        "While you were reading, Sir Edmund of Ashbury confirmed the result of battle 1 of turn 1 ("
    )
    assert "Where the result stands now: confirmed by both sides." in refusal(response)
    battle = refresh(battle)
    assert battle.result_version == confirmed.result_version
    assert audit(battle) == ["entered", "confirmed"]


def test_the_service_checks_the_version_under_its_lock(cast, battle):
    """A view's check and the service's lock are apart: the service refuses on its own."""
    enter(cast, "side_a", battle, **defenders_win(cast))
    read = version(battle)
    enter(cast, "side_a", battle, **other_result(cast))
    with pytest.raises(StaleResult, match="Ulfrik of Wolfstead entered a new result"):
        battle_result_confirm(
            campaign=cast.campaign, battle=battle, user=cast.users["side_b"], version=read
        )
    assert refresh(battle).entry == Battle.Entry.ENTERED


def test_an_htmx_confirmation_is_refused_the_same_way(cast, battle):
    enter(cast, "side_a", battle, **defenders_win(cast))
    _html, read = rendered(cast, "side_b", battle)
    enter(cast, "side_a", battle, **other_result(cast))
    response = cast.client("side_b").post(result_url(battle, "confirm"), {"version": read}, **HTMX)
    assert response.status_code == 409
    assert "Ulfrik of Wolfstead entered a new result" in refusal(response)
    assert refresh(battle).entry == Battle.Entry.ENTERED


# --- disputing, settling, entering --------------------------------------------------------------


def test_a_stale_dispute_is_refused_and_its_note_not_kept(cast, battle):
    enter(cast, "side_a", battle, **defenders_win(cast))
    _html, read = rendered(cast, "side_b", battle)
    enter(cast, "side_a", battle, **other_result(cast))
    response = cast.client("side_b").post(
        result_url(battle, "dispute"), {"version": read, "note": "They had no sixth unit."}
    )
    assert response.status_code == 409
    assert "Ulfrik of Wolfstead entered a new result" in refusal(response)
    assert RESULT_NOW in refusal(response)
    battle = refresh(battle)
    assert (battle.entry, battle.dispute_note) == (Battle.Entry.ENTERED, "")
    assert audit(battle) == ["entered", "entered"]
    # a stale form with no note is refused as stale, not for the missing note
    response = cast.client("side_b").post(result_url(battle, "dispute"), {"version": read})
    assert response.status_code == 409


def test_a_stale_override_is_refused(cast, battle):
    """The GM reads the page with no result, a player enters one, the GM's settlement of
    what he typed is refused: the page shows the entered result."""
    _html, read = rendered(cast, "gm", battle)
    enter(cast, "side_a", battle, **defenders_win(cast))
    entered = refresh(battle)
    data = form_data(units={}, outcome="stalemate", note="As I saw it.", version=read)
    response = cast.client("gm").post(result_url(battle, "override"), data)
    assert response.status_code == 409
    assert "Ulfrik of Wolfstead entered a new result of battle 1 of turn 1" in refusal(response)
    battle = refresh(battle)
    assert (battle.entry, battle.result) == (Battle.Entry.ENTERED, entered.result)
    assert audit(battle) == ["entered"]
    page = response.content.decode()
    assert f'name="version" value="{entered.result_version}"' in page


def test_a_stale_entry_does_not_replace_a_newer_one(cast, battle):
    _html, read = rendered(cast, "side_a", battle)
    assert (
        cast.client("side_b")
        .post(result_url(battle, "enter"), stamped(battle, form_data(**defenders_win(cast))))
        .status_code
        == 302
    )
    newer = refresh(battle)
    response = cast.client("side_a").post(
        result_url(battle, "enter"), form_data(**other_result(cast), version=read)
    )
    assert response.status_code == 409
    message = refusal(response)
    assert message.startswith(
        "While you were reading, Sir Edmund of Ashbury entered a new result of battle 1 of turn 1"
    )
    assert "Raiders (The Red Riders), of 56 figures: 56 killed, 0 fled" in message
    battle = refresh(battle)
    assert (battle.result, battle.entered_by) == (newer.result, cast.users["side_b"])
    assert battle.result_version == newer.result_version


def test_the_gm_s_stale_resolver_and_auto_resolve_are_refused(cast, battle):
    """Two tabs of the GM: the second's resolver form would undo the first's choice, and an
    auto-resolve after a player entered a result would throw it away."""
    _html, read = rendered(cast, "gm", battle)
    url = result_url(battle, "resolver")
    data = {"resolver": "tabletop", "auto_at_deadline": "on", "version": read}
    assert cast.client("gm").post(url, data).status_code == 302
    response = cast.client("gm").post(url, {"resolver": "tabletop", "version": read})
    assert response.status_code == 409
    assert "The Game Master changed how battle 1 of turn 1 is resolved" in refusal(response)
    assert refresh(battle).auto_at_deadline is True

    _html, read = rendered(cast, "gm", battle)
    enter(cast, "side_a", battle, **defenders_win(cast))
    response = cast.client("gm").post(result_url(battle, "auto"), {"version": read})
    assert response.status_code == 409
    assert "Ulfrik of Wolfstead entered a new result" in refusal(response)
    battle = refresh(battle)
    assert (battle.status, battle.entry) == (Battle.Status.PENDING, Battle.Entry.ENTERED)


# --- a form that names no version ---------------------------------------------------------------


@pytest.mark.parametrize("action", ["enter", "confirm", "dispute", "override", "resolver", "auto"])
def test_a_form_without_a_version_is_refused(cast, battle, action):
    enter(cast, "side_a", battle, **defenders_win(cast))
    before = refresh(battle)
    who = {"confirm": "side_b", "dispute": "side_b", "enter": "side_a"}.get(action, "gm")
    data = form_data(**other_result(cast), note="Because.", resolver="auto")
    data["version"] = "" if action == "auto" else "x"
    if action != "confirm":
        del data["version"]  # no field at all
    response = cast.client(who).post(result_url(battle, action), data)
    assert response.status_code == 409
    assert refusal(response) == (
        "This form did not say which version of the result of battle 1 of turn 1 it was for, "
        "so nothing was done. Read the result as it is now, below, and try again."
    )
    after = refresh(battle)
    assert (after.entry, after.result, after.result_version, after.resolver) == (
        before.entry,
        before.result,
        before.result_version,
        before.resolver,
    )


# --- the page ------------------------------------------------------------------------------------


def test_every_change_raises_the_version_and_every_form_names_it(cast, battle, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    html, v0 = rendered(cast, "gm", battle)
    assert v0 == 0
    assert html.count('name="version"') == 3  # the resolver, auto-resolve, the result form
    assert "Let the tactical engine fight battle 1 of turn 1 now?" in html  # the confirm dialog
    steps = [
        lambda: cast.client("gm").post(
            result_url(battle, "resolver"), stamped(battle, {"resolver": "tabletop"})
        ),
        lambda: enter(cast, "side_a", battle, **defenders_win(cast)),
        lambda: cast.client("side_b").post(
            result_url(battle, "dispute"), stamped(battle, {"note": "No."})
        ),
        lambda: cast.client("gm").post(
            result_url(battle, "override"),
            stamped(battle, form_data(**defenders_win(cast), note="Seen.")),
        ),
    ]
    seen = [v0]
    for step in steps:
        assert step().status_code == 302
        seen.append(version(battle))
    assert seen == sorted(set(seen)), seen  # every step raised it
    # a photo leaves the result as it was: it needs no version and raises none
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    photo = SimpleUploadedFile("ford.png", png, content_type="image/png")
    assert (
        cast.client("side_a").post(result_url(battle, "photo"), {"photo": photo}).status_code == 302
    )
    assert version(battle) == seen[-1]


def test_the_live_check_says_the_result_changed_and_offers_to_reload(cast, battle):
    _html, read = rendered(cast, "side_a", battle)
    enter(cast, "side_b", battle, **defenders_win(cast))
    data = form_data(**other_result(cast), version=read)
    response = cast.client("side_a").post(result_url(battle, "preview"), data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Since this page was opened, Sir Edmund of Ashbury entered a new result" in html
    assert "a result typed here would be refused" in html
    assert f'<a href="{result_url(battle)}">Reload the page</a>' in html
    # in step: no warning
    data["version"] = version(battle)
    html = cast.client("side_a").post(result_url(battle, "preview"), data, **HTMX).content.decode()
    assert "Since this page was opened" not in html
