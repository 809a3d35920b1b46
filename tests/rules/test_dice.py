"""The injected dice and their ledger (rules.dice)."""

from __future__ import annotations

import random

import pytest

from rules.dice import DiceError, Modifier, ScriptedDice, SeededDice, derive_seed


def test_seeded_dice_repeat_for_the_same_seed():
    a, b = SeededDice(1234), SeededDice(1234)
    assert a.naturals(50) == b.naturals(50)
    assert all(1 <= v <= 6 for v in SeededDice(1).naturals(200))


def test_seeded_dice_ledgers_are_identical_for_the_same_seed_and_inputs():
    def run(seed: int) -> list[dict]:
        dice = SeededDice(seed)
        dice.roll(purpose="orders:force-1", rule="R5.2", modifiers=[Modifier("leader CV", 3)])
        dice.roll(purpose="event:red", rule="§9.4.1", count=3)
        return dice.ledger_dicts()

    assert run(7) == run(7)
    assert [run(s)[1]["natural"] for s in range(20)] != [run(0)[1]["natural"]] * 20


def test_seeded_dice_leave_the_module_random_alone():
    state = random.getstate()
    SeededDice(99).naturals(10)
    assert random.getstate() == state


def test_scripted_dice_give_their_values_in_order_and_report_use():
    dice = ScriptedDice([4, 6, 1])
    assert dice.naturals(2) == (4, 6)
    assert (dice.used, dice.remaining) == ([4, 6], [1])
    assert dice.naturals(1) == (1,)
    dice.assert_exhausted()


def test_scripted_dice_fail_when_exhausted():
    dice = ScriptedDice([3])
    dice.naturals(1)
    with pytest.raises(DiceError, match="exhausted after 1 value"):
        dice.naturals(1)


def test_scripted_dice_fail_when_values_are_left_over():
    dice = ScriptedDice([3, 5])
    dice.naturals(1)
    with pytest.raises(DiceError, match=r"1 scripted value\(s\) left unused: \[5\]"):
        dice.assert_exhausted()


@pytest.mark.parametrize(("value", "sides"), [(7, 6), (0, 6), (-1, 6), (4, 3)])
def test_scripted_dice_reject_a_value_that_is_not_a_face(value, sides):
    with pytest.raises(DiceError, match=f"{value} .* not a D{sides} face"):
        ScriptedDice([value]).naturals(1, sides)


def test_dice_errors_are_value_errors():
    assert issubclass(DiceError, ValueError)


def test_a_ledger_entry_records_purpose_rule_dice_modifiers_total_and_outcome():
    dice = ScriptedDice([4, 2])
    rec = dice.roll(
        purpose="movement:force-7",
        rule="R6.2",
        modifiers=[Modifier("territory", -1, {"territory": "enemy"}), Modifier("nothing", 0)],
        judge=lambda total, nat: f"total {total} from {nat}",
    )
    assert (rec.seq, rec.purpose, rec.rule, rec.sides) == (1, "movement:force-7", "R6.2", 6)
    assert (rec.natural, rec.value, rec.total) == ((4,), 4, 3)
    assert rec.modifiers == (
        Modifier("territory", -1, {"territory": "enemy"}),
    )  # zero modifiers dropped
    assert rec.outcome == "total 3 from (4,)"
    second = dice.roll(purpose="x", rule="R1", judge=lambda t, n: ("two", {"n": 2}, [{"die": 1}]))
    assert (second.seq, second.outcome, second.values, second.details) == (
        2,
        "two",
        {"n": 2},
        ({"die": 1},),
    )
    assert dice.ledger == [rec, second]
    assert rec.to_dict() == {
        "seq": 1,
        "purpose": "movement:force-7",
        "rule": "R6.2",
        "sides": 6,
        "natural": [4],
        "modifiers": [{"reason": "territory", "value": -1, "params": {"territory": "enemy"}}],
        "total": 3,
        "outcome": "total 3 from (4,)",
        "details": [],
        "values": {},
    }


def test_per_figure_rolls_have_no_total():
    dice = ScriptedDice([1, 6, 3])
    rec = dice.roll(purpose="after:wounded", rule="R8.1", count=3, summed=False)
    assert (rec.natural, rec.total, rec.outcome) == ((1, 6, 3), None, "")


def test_derive_seed_is_stable_and_separates_streams():
    assert derive_seed(42, "battle", 1) == derive_seed(42, "battle", 1)
    seeds = {derive_seed(42, "battle", i) for i in range(100)} | {derive_seed(43, "battle", 1)}
    assert len(seeds) == 101
    # pinned: replays of stored campaigns depend on it (FNV-1a, not the salted hash())
    assert derive_seed(42, "battle", 1) == 1013241264260383674
    assert derive_seed(0) == 0x44BD5BD473CD4929


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 3, 2**62 + 11])
def test_seeded_dice_are_the_faces_of_randint(seed):
    """SeededDice reads its faces from buffered generator words; they must be exactly
    `random.Random(seed).randint(1, sides)`, die after die, whatever the mix of die sizes and
    of single dice and bulk `faces`/`naturals` reads, across buffer refills. (Replays of
    stored turns depend on it: a Python that changed `getrandbits` or `randint` fails here.)"""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    pattern = [(1, 6), (3, 10), (1, 2), (700, 10), (5, 6), (1, 3), (2, 100), (1, 255)]
    pattern += [(1, 256), (2, 1000), (1, 10**30), (1, 1), (1500, 10), (4, 7)]
    for round_ in range(6):
        for i, (count, sides) in enumerate(pattern):
            expected = tuple(rng.randint(1, sides) for _ in range(count))
            if sides < 256 and (i + round_) % 3 == 0:
                got = tuple(dice.faces(count, sides))
            elif (i + round_) % 3 == 1:
                got = dice.naturals(count, sides)
            else:
                got = tuple(dice._next(sides) for _ in range(count))
            assert got == expected, (round_, count, sides)


def test_a_die_needs_a_face():
    with pytest.raises(DiceError):
        SeededDice(1)._next(0)


@pytest.mark.parametrize("make", [lambda: SeededDice(11), lambda: ScriptedDice([4, 1, 6, 2])])
def test_a_roll_with_its_outcomes_written_out_is_the_judged_roll(make):
    """`roll_texts` (the initiative, tie and movement rolls) records what `roll` with a
    judge records: the same entry, the same dice drawn."""
    from rules.dice import Outcomes

    texts = Outcomes(lambda t: ("total", {"n": t}))
    plain, judged = make(), make()
    for mods in [(), (Modifier("leader-cv", 2),), (Modifier("a", -1), Modifier("b", 3)), ()]:
        got = plain.roll_texts("p", "R6.1.3", texts, mods)
        want = judged.roll(
            purpose="p", rule="R6.1.3", modifiers=mods, judge=lambda t, _n: ("total", {"n": t})
        )
        assert got == want and type(got) is type(want)
    assert plain.ledger_dicts() == judged.ledger_dicts()
