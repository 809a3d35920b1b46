"""Auto-resolve: the GM has the tactical engine fight a pending battle (battles.services.
battle_auto_resolve, the `auto` action of the result page). Its result is stored like a
settled tabletop entry, so the turn goes on to Phases 4–8 exactly as after a confirmation."""

from __future__ import annotations

import pytest
from django.urls import reverse

from battles.entry import battle_result_check
from battles.models import Battle, BattleAudit
from battles.roster import battle_roster_get
from battles.services import BattleRefused, battle_auto_resolve
from campaign.models import Turn, TurnResolution
from rules.dice import SeededDice, derive_seed
from rules.tactical import battle_input_from_state, fight
from tests.battles.conftest import result_url, stamped, version


def refresh(battle: Battle) -> Battle:
    return Battle.objects.select_related("turn").get(pk=battle.pk)


def test_the_auto_result_completes_the_turn_like_a_manual_entry(
    cast, battle, django_capture_on_commit_callbacks
):
    html = cast.client("gm").get(result_url(battle)).content.decode()
    assert "Auto-resolve this battle" in html
    assert "not part of this version yet" not in html
    with django_capture_on_commit_callbacks(execute=True):  # Celery runs eagerly in tests
        response = cast.client("gm").post(result_url(battle, "auto"), stamped(battle))
    assert response.status_code == 302
    battle = refresh(battle)
    assert battle.status == Battle.Status.RESOLVED
    assert (battle.resolver, battle.entry) == (Battle.Resolver.AUTO, Battle.Entry.CONFIRMED)
    assert battle.result and battle.result.get("units")
    audit = BattleAudit.objects.get(battle=battle, action="auto-resolve")
    assert audit.user == cast.users["gm"]
    assert audit.data["result"] == battle.result and audit.data["ledger"]
    turn = Turn.objects.get(pk=battle.turn_id)
    assert turn.status == Turn.Status.RESOLVED
    assert TurnResolution.objects.filter(turn=turn, stage="after-battles").exists()
    assert cast.campaign.turns.filter(number=2, status=Turn.Status.OPEN).exists()
    report = cast.client("gm").get(reverse("battles:detail", args=[cast.campaign.slug, battle.key]))
    assert "Fought: Auto-resolve." in report.content.decode()


def test_the_same_seed_gives_the_same_stored_result(cast, battle):
    # the engine's own result for the turn's derived seed, computed before the service runs
    from campaign.adapters import state_current as campaign_state

    state = campaign_state(campaign=cast.campaign)
    pending = next(b for b in state.pending_battles if b.battle_id == battle.key)
    seed = derive_seed(battle.turn.seed or 0, "battle", battle.key)
    first = fight(battle_input_from_state(state, pending), SeededDice(seed))
    again = fight(battle_input_from_state(state, pending), SeededDice(seed))
    assert first == again
    battle_auto_resolve(
        campaign=cast.campaign, battle=battle, version=version(battle), user=cast.users["gm"]
    )
    battle = refresh(battle)
    expected = battle_result_check(roster=battle_roster_get(battle=battle), data=_data(first)).data
    assert battle.result == expected
    assert BattleAudit.objects.get(battle=battle, action="auto-resolve").data["seed"] == seed


def _data(result) -> dict:
    from rules.codec import to_data

    data = to_data(result)
    data.pop("battle_id", None)
    return data


@pytest.mark.parametrize("who", ["side_a", "side_b"])
def test_players_cannot_auto_resolve(cast, battle, who):
    response = cast.client(who).post(result_url(battle, "auto"), stamped(battle))
    assert response.status_code == 403
    with pytest.raises(BattleRefused):
        battle_auto_resolve(
            campaign=cast.campaign, battle=battle, version=version(battle), user=cast.users[who]
        )
    battle = refresh(battle)
    assert (battle.status, battle.entry) == (Battle.Status.PENDING, Battle.Entry.NONE)
    assert (
        "Auto-resolve this battle" not in cast.client(who).get(result_url(battle)).content.decode()
    )


def test_outsiders_get_404_and_a_resolved_battle_is_refused(cast, battle):
    for who in ("outsider", "observer"):  # the observer does not see the battle under fog
        assert cast.client(who).post(result_url(battle, "auto"), stamped(battle)).status_code == 404
    with pytest.raises(BattleRefused):
        battle_auto_resolve(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["observer"],
        )
    battle_auto_resolve(
        campaign=cast.campaign, battle=battle, version=version(battle), user=cast.users["gm"]
    )
    with pytest.raises(BattleRefused):
        battle_auto_resolve(
            campaign=cast.campaign, battle=battle, version=version(battle), user=cast.users["gm"]
        )
