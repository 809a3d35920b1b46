"""The GM's turn controls never act on a stale page (issue 28): every control's form names the
turn it was rendered for, and a control of another turn — a second tab still showing it, the
Back button after closing it, the same form posted twice — is refused before anything is done,
with a message that names both turns."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.forms.models import model_to_dict
from django.urls import reverse

from campaign.models import Campaign, Turn
from notifications.models import Notification

pytestmark = pytest.mark.django_db

SLUG = "incursion"
LATER = {"deadline": "2099-03-01T09:30", "timezone": "UTC"}
# every control of the overview, with a form it would accept on an open turn
CONTROLS: dict[str, dict[str, str]] = {
    "deadline": LATER,
    "battles-deadline": LATER,
    "extend": {"days": "1", "hours": "0"},
    "pause": {},
    "resume": {},
    "close": {},
    "advance": {},
    "retry": {},
    "remind": {},
    "auto-close": {"auto_close": "on"},
}


def _control(action: str) -> str:
    return reverse(f"campaign:turn-{action}", args=[SLUG])


def _detail() -> str:
    return reverse("campaign:detail", args=[SLUG])


def _snapshot() -> list[Any]:
    """What a control could change: the turns, the campaign, the notices."""
    campaign = Campaign.objects.get(slug=SLUG)
    turns = [model_to_dict(t) for t in Turn.objects.filter(campaign=campaign).order_by("number")]
    return [turns, model_to_dict(campaign), Notification.objects.count()]


def _stamps(html: str) -> set[str]:
    return set(re.findall(r'<input type="hidden" name="turn" value="(\d+)">', html))


def _close_turn_one(gm, captured) -> None:
    with captured(execute=True):
        response = gm.post(_control("close"), {"turn": "1"})
    assert response.status_code == 302
    assert Turn.objects.get(campaign__slug=SLUG, number=1).status == Turn.Status.RESOLVED


def test_every_control_of_the_overview_names_its_turn(cast):
    html = cast.client("gm").get(_detail()).content.decode()
    forms = re.findall(r"<form[^>]*>.*?</form>", html, flags=re.DOTALL)
    controls = [f for f in forms if "/turn/" in f]
    assert len(controls) >= 6  # remind (each and all), auto-close, deadline, extend, pause, close
    for form in controls:
        assert _stamps(form) == {"1"}, form


def test_the_close_confirmation_names_the_turn(cast):
    html = cast.client("gm").get(_detail()).content.decode()
    assert "Close turn 1 now and resolve it?" in html


@pytest.mark.parametrize("action", sorted(CONTROLS))
def test_a_control_of_a_turn_that_moved_on_is_refused(
    cast, action, django_capture_on_commit_callbacks
):
    gm = cast.client("gm")
    page = gm.get(_detail()).content.decode()  # tab 2: the overview of turn 1
    assert _stamps(page) == {"1"}
    _close_turn_one(cast.client("gm"), django_capture_on_commit_callbacks)  # tab 1
    before = _snapshot()

    with django_capture_on_commit_callbacks(execute=True):
        response = gm.post(_control(action), {"turn": "1", **CONTROLS[action]})

    assert response.status_code == 400
    html = response.content.decode()
    assert (
        "This page was for turn 1, which is now resolved; turn 2 is current (orders open). "
        "Nothing was done: check the page as it is now."
    ) in html
    assert _snapshot() == before
    assert "Turn 2, day" in html  # the page shown again is today's
    assert _stamps(html) == {"2"}


def test_the_same_close_posted_twice_closes_once(cast, django_capture_on_commit_callbacks):
    gm = cast.client("gm")
    _close_turn_one(gm, django_capture_on_commit_callbacks)  # the first post
    before = _snapshot()

    with django_capture_on_commit_callbacks(execute=True):
        again = gm.post(_control("close"), {"turn": "1"})  # the same form, again

    assert again.status_code == 400
    assert "This page was for turn 1, which is now resolved; turn 2 is current" in (
        again.content.decode()
    )
    assert Turn.objects.get(campaign__slug=SLUG, number=2).status == Turn.Status.OPEN
    assert _snapshot() == before


def test_the_back_button_after_closing(cast, django_capture_on_commit_callbacks):
    """The Back button shows the cached page of turn 1: its close form names turn 1."""
    gm = cast.client("gm")
    _close_turn_one(gm, django_capture_on_commit_callbacks)
    before = _snapshot()
    with django_capture_on_commit_callbacks(execute=True):
        response = gm.post(_control("close"), {"turn": "1"})
    assert response.status_code == 400
    assert Turn.objects.get(campaign__slug=SLUG, number=2).status == Turn.Status.OPEN
    assert _snapshot() == before


@pytest.mark.parametrize("posted", [None, "", "two", "99"])
def test_a_form_that_names_no_turn_or_another_is_refused(cast, posted):
    before = _snapshot()
    data = {} if posted is None else {"turn": posted}
    response = cast.client("gm").post(_control("close"), data)
    assert response.status_code == 400
    html = response.content.decode()
    if posted == "99":
        assert "This page was for turn 99, which does not exist; turn 1 is current" in html
    else:
        assert "This form did not say which turn it was for, so nothing was done." in html
    assert _snapshot() == before


def test_the_refusal_is_in_italian(cast, django_capture_on_commit_callbacks):
    gm = cast.client("gm")
    _close_turn_one(gm, django_capture_on_commit_callbacks)
    gm.cookies["django_language"] = "it"
    response = gm.post(_control("pause"), {"turn": "1"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "turno 1" in html and "turno 2" in html
    assert "This page was for turn" not in html
