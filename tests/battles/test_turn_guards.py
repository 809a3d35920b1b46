"""The GM's irreversible buttons ask first, and one that cannot work yet says why (issue 11):
"Resolve phases 4–8" while a battle waits, and the count of waiting battles in the singular.
The dialogs themselves are clicked in tests/browser/test_guards_e2e.py."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.errors import ServiceError
from campaign.turns.services import turn_advance
from tests.battles.conftest import result_url

pytestmark = pytest.mark.django_db


def test_phases_4_to_8_wait_with_their_reason_while_a_battle_waits(battle, cast):
    html = cast.client("gm").get(reverse("campaign:detail", args=[cast.campaign.slug]))
    html = " ".join(html.content.decode().split())
    assert "Phases 4–8 wait for 1 battle result: enter it first." in html
    assert '<button type="submit" disabled aria-describedby="advance-waiting">' in html
    with pytest.raises(ServiceError) as refused:
        turn_advance(turn=battle.turn)
    assert str(refused.value.messages[0]) == (
        "Turn 1 still waits for the result of 1 battle: enter it first."
    )


def test_irreversible_buttons_ask_for_a_confirmation(battle, cast):
    html = cast.client("gm").get(result_url(battle)).content.decode()
    # the question names the battle and its turn
    assert (
        'class="auto-resolve" data-confirm="Let the tactical engine fight battle 1 of turn 1 now?'
        in html
    )
    # static/js/site.js asks (the Content-Security-Policy refuses an inline onsubmit)
    assert '<script src="/static/js/site.js" defer></script>' in html and "onsubmit" not in html
