"""Spec §13 TV-09, TV-10 and TV-11 end to end: a real battle of the demo campaign (made by
orders and Phases 0–2, with the campaign's rows set so that the vector's situation arises),
its result entered through the result form by one player and confirmed by the other, then
Phases 4–8 run with scripted dice. The ledger shows each check per unit with every die, and
the units end with the figures the vector says.

Phases 4–8 also roll the losers' Will to Fight (R9.1.2, "lost-battle" trigger): one die, the
last one scripted. Every scripted die is used (`assert_exhausted`). A scripted run records
its dice with the resolution, and the replay check says it was not the seeded run.
"""

from __future__ import annotations

from typing import Any

import pytest

from battles.models import Battle
from campaign.exchange.replay import turn_replay
from campaign.models import Command, Force, Turn, TurnResolution, Unit
from campaign.turns.services import turn_resolve_after_battles
from rules.cli.ledger_words import entry_words
from rules.dice import ScriptedDice
from tests.battles.conftest import (
    RAIDER_UNITS,
    figures,
    form_data,
    raiders_wiped,
    result_url,
    stamped,
)

pytestmark = pytest.mark.django_db

WILL_TO_FIGHT = 4  # the raiders' Will-to-Fight die after their lost battle


def fight(cast, battle: Battle, django_capture_on_commit_callbacks, **result: Any) -> None:
    """The raiders' player enters the result through the form, the defenders' player
    confirms it; confirming the last battle queues Phases 4–8."""
    response = cast.client("side_a").post(
        result_url(battle, "enter"), stamped(battle, form_data(**result))
    )
    assert response.status_code == 302, response.content.decode()
    with django_capture_on_commit_callbacks() as callbacks:
        response = cast.client("side_b").post(result_url(battle, "confirm"), stamped(battle))
    assert response.status_code == 302
    battle.refresh_from_db()
    assert (battle.entry, battle.status) == (Battle.Entry.CONFIRMED, Battle.Status.RESOLVED)
    assert len(callbacks) == 1  # the Phases 4–8 task, queued on commit


def resolve(battle: Battle, dice: list[int]) -> list[dict]:
    """Phases 4–8 with scripted dice; every die is used. The ledger of the run."""
    scripted = ScriptedDice(dice)
    resolution = turn_resolve_after_battles(turn_id=battle.turn_id, dice=scripted)
    scripted.assert_exhausted()
    assert Turn.objects.get(pk=battle.turn_id).status == Turn.Status.RESOLVED
    stored = TurnResolution.objects.get(turn=battle.turn_id, stage=TurnResolution.Stage.AFTER)
    assert stored.inputs[TurnResolution.SCRIPTED_DICE] == dice
    return resolution.ledger


def after_checks(ledger: list[dict]) -> dict[str, dict]:
    """The wounded and deserter checks of battle t1-b1, by purpose."""
    return {r["purpose"]: r for r in ledger if r["purpose"].startswith("after:t1-b1:")}


def test_tv10_wounded_check_of_a_victorious_unit_in_enemy_territory(
    cast, make_battle, django_capture_on_commit_callbacks
):
    """TV-10 (§8.1, R8.1.5–6): 12 wolf riders win in enemy territory, 6 killed; 6D6 6, 6, 5,
    5, 4, 2: the 6s recover, the rest take −1: 4, 4, 3, 1 ⇒ 4 recovered, 2 dead."""

    def wolf_riders(campaign):
        # the Southern March fights at (4, 8), in the raiders' third: enemy territory to it
        Unit.objects.filter(campaign=campaign, key="d3u3").update(type="Wolf riders", figures=12)

    battle = make_battle(wolf_riders)
    assert battle.pack["sides"][1]["territory"] == "enemy"
    fight(
        cast,
        battle,
        django_capture_on_commit_callbacks,
        units={**raiders_wiped(cast.campaign), "d3u3": {"killed": 6}},
        outcome="b",
    )
    ledger = resolve(battle, [6, 6, 5, 5, 4, 2, WILL_TO_FIGHT])

    checks = after_checks(ledger)
    assert list(checks) == ["after:t1-b1:wounded-d3u3"]  # the losers' killed are all dead
    roll = entry_words(checks["after:t1-b1:wounded-d3u3"])
    assert roll["rule"] == "R8.1"
    assert roll["natural"] == [6, 6, 5, 5, 4, 2]
    assert roll["modifiers"] == [{"reason": "enemy territory", "value": -1}]
    assert roll["details"] == [
        "6: recovered (natural 6)",
        "6: recovered (natural 6)",
        "5→4: recovered",
        "5→4: recovered",
        "4→3: dead",
        "2→1: dead",
    ]
    assert roll["outcome"] == "4 recovered, 2 dead"
    assert [r["purpose"] for r in ledger][-1] == "will-to-fight:player-raiders"
    assert figures(cast.campaign, "d3u3") == {"d3u3": 10}  # 12 − 2 dead
    assert Force.objects.get(campaign=cast.campaign, key="d3").figures_lost == 2


def test_tv11_deserter_check_of_a_routed_average_unit_of_the_loser(
    cast, battle, django_capture_on_commit_callbacks
):
    """TV-11 (§8.2, R8.2.5–6): a losing side's Average unit with 9 fled; 9D6 6, 4, 4, 3, 3,
    1, 1, 1, 1: the 6 returns, the 1s desert, the rest +1: 5, 5, 4, 4 ⇒ 5 returned,
    4 deserters. The force becomes Confused, not Shattered: no −1 (A-09)."""
    assert figures(cast.campaign, "r3u1") == {"r3u1": 16}  # Horse raiders, Average
    fight(
        cast,
        battle,
        django_capture_on_commit_callbacks,
        units=raiders_wiped(cast.campaign, r3u1={"killed": 7, "fled": 9}),
        outcome="b",
    )
    ledger = resolve(battle, [6, 4, 4, 3, 3, 1, 1, 1, 1, WILL_TO_FIGHT])

    checks = after_checks(ledger)
    assert list(checks) == ["after:t1-b1:deserters-r3u1"]
    roll = entry_words(checks["after:t1-b1:deserters-r3u1"])
    assert roll["rule"] == "R8.2"
    assert roll["natural"] == [6, 4, 4, 3, 3, 1, 1, 1, 1]
    assert roll["modifiers"] == [{"reason": "quality: average", "value": 1}]
    assert roll["details"] == [
        "6: returned (natural 6)",
        "4→5: returned",
        "4→5: returned",
        "3→4: returned",
        "3→4: returned",
        *["1: deserted (natural 1)"] * 4,
    ]
    assert roll["outcome"] == "5 returned, 4 deserted"
    r3 = Force.objects.get(campaign=cast.campaign, key="r3")
    assert r3.status == "confused"  # R8.5: it lost from an order
    assert figures(cast.campaign, *RAIDER_UNITS) == {"r3u1": 5}  # 16 − 7 killed − 4 deserted
    assert (r3.x, r3.y) != (4, 8)  # the loser retreated one square (R8.4.2)


def test_tv09_general_retreat_exits_are_not_deserter_checked(
    cast, make_battle, django_capture_on_commit_callbacks
):
    """TV-09 (§7.9, R8.2.2, R8.2.2a): the losing force had three commands; two left the
    table under General Retreat, the third under Oppose. Only the Oppose command's units are
    deserter-checked, and the loser has no wounded check: its killed are dead (R8.1.1)."""

    def third_command(campaign):
        force = Force.objects.get(campaign=campaign, key="r3")
        command = Command.objects.create(
            campaign=campaign,
            force=force,
            key="r3c3",
            position=2,
            general_key="r3g3",
            general_name="Sigrid",
            general_cv=2,
        )
        Unit.objects.create(
            campaign=campaign,
            command=command,
            key="r3u5",
            position=0,
            type="Wolf riders",
            speciality="cavalry",
            quality="veteran",
            figures=8,
            points_per_figure=20,
            mounted=True,
        )

    battle = make_battle(third_command)
    assert len(battle.pack["sides"][0]["forces"][0]["units"]) == 5
    units = {
        # commands r3c1 and r3c2: General Retreat
        "r3u1": {"killed": 2, "left_retreat": 14},
        "r3u2": {"left_retreat": 10},
        "r3u3": {"left_retreat": 10},
        "r3u4": {"left_retreat": 20},
        # command r3c3 covered the retreat and left under Oppose
        "r3u5": {"killed": 2, "left_oppose": 6},
    }
    fight(cast, battle, django_capture_on_commit_callbacks, units=units, outcome="b")
    ledger = resolve(battle, [6, 5, 4, 3, 2, 1, WILL_TO_FIGHT])

    checks = after_checks(ledger)
    assert list(checks) == ["after:t1-b1:deserters-r3u5"]  # no wounded, no GR check
    roll = entry_words(checks["after:t1-b1:deserters-r3u5"])
    assert roll["natural"] == [6, 5, 4, 3, 2, 1]
    assert roll["modifiers"] == [{"reason": "quality: veteran", "value": 2}]
    assert roll["details"] == [
        "6: returned (natural 6)",
        "5→7: returned",
        "4→6: returned",
        "3→5: returned",
        "2→4: returned",
        "1: deserted (natural 1)",
    ]
    assert roll["outcome"] == "5 returned, 1 deserted"
    assert figures(cast.campaign, *RAIDER_UNITS, "r3u5") == {
        "r3u1": 14,  # 2 killed, dead without a check; 14 back from General Retreat
        "r3u2": 10,
        "r3u3": 10,
        "r3u4": 20,
        "r3u5": 5,  # 2 killed, 1 deserter
    }
    assert Force.objects.get(campaign=cast.campaign, key="r3").figures_lost == 5


def test_a_scripted_run_is_flagged_by_the_replay_check(
    cast, battle, django_capture_on_commit_callbacks
):
    """A scripted run is not the turn's seeded run: its seed stays the derived one, its dice
    are stored, and the replay re-uses them (the rules still check) but says so."""
    fight(
        cast,
        battle,
        django_capture_on_commit_callbacks,
        units=raiders_wiped(cast.campaign, r3u1={"killed": 7, "fled": 9}),
        outcome="b",
    )
    resolve(battle, [6, 4, 4, 3, 3, 1, 1, 1, 1, WILL_TO_FIGHT])
    report = turn_replay(turn=Turn.objects.get(pk=battle.turn_id))
    assert not report.ok
    assert report.differences == [
        "Phases 4–8: resolved with scripted dice, not with the turn's seed: the replay re-uses "
        "the stored dice and cannot check the seed"
    ]
