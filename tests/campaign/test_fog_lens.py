"""What a side reads of a stage's ledger and events under fog of war (campaign.fog), on a
lens built by hand: side A owns f1 and f2 (f2 an ally's), sees the enemy's f3, and does not
see the enemy's f4 (issue 12, defects 2 and 3)."""

from __future__ import annotations

from typing import Any

from campaign.fog import Lens, event_visible, ledger_for

LENS = Lens(
    everything=False,
    forces=frozenset({"f1", "f2", "f3", "f4"}),
    seen_forces=frozenset({"f1", "f2", "f3"}),
    own_forces=frozenset({"f1", "f2"}),
    member_force={"f1u1": "f1", "f3u1": "f3", "f3g1": "f3", "f4u1": "f4"},
    players=frozenset({"pa", "pa2", "pb"}),
    own_players=frozenset({"pa", "pa2"}),
    battles=frozenset({"t1-b1", "t1-b2"}),
    seen_battles=frozenset({"t1-b1"}),
)


def roll(seq: int, purpose: str, rule: str, total: int, **extra: Any) -> dict[str, Any]:
    return {"seq": seq, "purpose": purpose, "rule": rule, "total": total, **extra}


def initiative(seq: int, force: str, total: int) -> dict[str, Any]:
    return roll(
        seq,
        f"movement:initiative-{force}",
        "R6.1.3",
        total,
        modifiers=[{"reason": "leader-cv", "value": 2}],
        outcome="initiative",
        values={"n": total},
    )


def tie(seq: int, force: str, total: int) -> dict[str, Any]:
    return roll(
        seq,
        f"movement:initiative-{force}",
        "R6.1.5",
        total,
        outcome="tie-reroll",
        values={"n": total},
    )


def purposes(ledger: list[dict[str, Any]]) -> list[str]:
    return [(x["purpose"], x["rule"]) for x in ledger_for(LENS, ledger)]


def test_an_enemy_forces_initiative_is_its_own_roll_even_in_sight():
    ledger = [initiative(1, "f1", 5), initiative(2, "f3", 7), initiative(3, "f4", 4)]
    assert purposes(ledger) == [("movement:initiative-f1", "R6.1.3")]


def test_a_tie_with_a_hidden_force_shows_no_re_roll():
    """f1 and the hidden f4 both rolled 6: f1's re-roll would tell that an enemy force rolled 6."""
    ledger = [initiative(1, "f1", 6), initiative(2, "f4", 6), tie(3, "f1", 2), tie(4, "f4", 5)]
    assert purposes(ledger) == [("movement:initiative-f1", "R6.1.3")]


def test_a_tie_with_a_visible_enemy_shows_no_re_roll_either():
    ledger = [initiative(1, "f1", 6), initiative(2, "f3", 6), tie(3, "f1", 2), tie(4, "f3", 5)]
    assert purposes(ledger) == [("movement:initiative-f1", "R6.1.3")]


def test_a_tie_between_allies_shows_both_re_rolls_and_numbers_them_again():
    ledger = [
        initiative(1, "f4", 3),
        initiative(2, "f1", 6),
        initiative(3, "f2", 6),
        tie(4, "f1", 2),
        tie(5, "f2", 5),
    ]
    shown = ledger_for(LENS, ledger)
    assert [(x["purpose"], x["rule"]) for x in shown] == [
        ("movement:initiative-f1", "R6.1.3"),
        ("movement:initiative-f2", "R6.1.3"),
        ("movement:initiative-f1", "R6.1.5"),
        ("movement:initiative-f2", "R6.1.5"),
    ]
    assert [x["seq"] for x in shown] == [1, 2, 3, 4]  # no gap counts the hidden roll


def test_rolls_of_a_battle_the_side_fought_show_the_enemys_units():
    """At the table both armies are in view: the after-battle rolls of the enemy's units."""
    ledger = [
        roll(1, "after:t1-b1:wounded-f3u1", "R8.1", 4),
        roll(2, "after:t1-b2:wounded-f4u1", "R8.1", 4),
        roll(3, "forcetest:f3", "R5.2", 8),
        roll(4, "weather:map", "R4.1", 3),
    ]
    assert purposes(ledger) == [("after:t1-b1:wounded-f3u1", "R8.1"), ("weather:map", "R4.1")]


def test_what_an_enemy_force_does_in_its_camp_is_not_shown():
    tested = {"type": "ForceTested", "force_id": "f3", "requested": "march", "total": 9}
    moved = {"type": "ForceMoved", "force_id": "f3", "path": [[1, 1]]}
    cv = {"type": "LeaderCvChanged", "force_id": "f3", "general_id": "f3g1", "new_cv": 4}
    own = {"type": "ForceTested", "force_id": "f2", "requested": "march", "total": 9}
    assert not event_visible(LENS, tested)
    assert not event_visible(LENS, cv)
    assert event_visible(LENS, moved)  # seen on the map
    assert event_visible(LENS, own)  # an ally's test: the side's own
    assert event_visible(Lens(everything=True), tested)


def test_a_code_whose_params_name_something_hidden_is_hidden():
    """A battle roll of side A's f1u1 against the hidden f4's unit: the modifier that names
    f4u1 (its Combat) is shown as hidden, without its id; the others keep their params."""
    entry = roll(
        1,
        "battle:t1-b1:f1u1:t1:attack",
        "§10.4 attack",
        0,
        modifiers=[
            {"reason": "combat", "value": 3},
            {"reason": "enemy-combat", "value": -2, "params": {"unit": "f4u1"}},
            {"reason": "enemy-combat", "value": -1, "params": {"unit": "f3u1"}},
        ],
        outcome="hits",
        values={"n": 2, "on": 5},
    )
    [shown] = ledger_for(LENS, [entry])
    assert shown["modifiers"] == [
        {"reason": "combat", "value": 3},
        {"reason": "hidden", "value": -2},
        {"reason": "enemy-combat", "value": -1, "params": {"unit": "f3u1"}},
    ]
    assert (shown["outcome"], shown["values"]) == ("hits", {"n": 2, "on": 5})
