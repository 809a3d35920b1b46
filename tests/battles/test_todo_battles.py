""" "Your move" while a turn waits for its battles: who enters a result, who confirms it,
who settles a dispute; each item links the battle's result page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from battles.models import Battle, BattleAudit

pytestmark = pytest.mark.django_db


def _home(cast, who: str) -> str:
    return cast.client(who).get("/").content.decode()


def test_both_sides_and_the_gm_are_asked_for_the_result(cast, battle):
    url = reverse("battles:result", args=["incursion", battle.key])
    for who in ("side_a", "side_b", "gm"):
        html = _home(cast, who)
        assert f'<a href="{url}">Enter the result of the battle at (4, 8), ' in html, who
    assert "Enter the result" not in _home(cast, "observer")


def test_once_entered_the_other_side_confirms_and_the_enterer_waits(cast, battle):
    Battle.objects.filter(pk=battle.pk).update(entry=Battle.Entry.ENTERED)
    BattleAudit.objects.create(battle=battle, action="entered", data={"side": "a"})
    assert "Confirm or dispute the result of the battle at (4, 8)" in _home(cast, "side_b")
    html = _home(cast, "side_a")
    assert "Confirm or dispute" not in html and "Enter the result" not in html


def test_the_gm_settles_a_dispute(cast, battle):
    Battle.objects.filter(pk=battle.pk).update(entry=Battle.Entry.DISPUTED)
    assert "Settle the disputed result of the battle at (4, 8)" in _home(cast, "gm")
    assert "Settle the disputed" not in _home(cast, "side_a")
