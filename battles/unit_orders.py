"""The unit-orders method (§10, p. 49–52) at the table: who may use it in a battle, and the
two calculators of the battle pack. The dice are rolled at the table; the player types the
die he rolled and what applies, and the calculator gives the rules' total and result,
through the rules' own tests (R10.2 unit order test, R10.3 command test) on that die.

Who may use it (R10.1.2): a side whose army has a single leader and his single command, no
other general or command; with the option `unit_orders_max_points` (§10, p. 49 fn 35), an
army of at most that many points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import rules as R
from battles.packs import PackSheet, RollView, SideLine, roll_view

COMMAND_RESULT = {
    "ok": gettext_lazy("The army is OK."),
    "all-disorganised": gettext_lazy("All units become disorganised."),
    "all-demoralised": gettext_lazy("All units become demoralised (and so disorganised)."),
    "army-routs": gettext_lazy(
        "The whole army routs, the leader and every individual character with it."
    ),
}
UNIT_RESULT = {
    "ok": gettext_lazy("OK: the unit understands and accepts the new order."),
    "ok-confusion": gettext_lazy(
        "OK, with confusion: the order is accepted, the unit becomes disorganised."
    ),
    "delay": gettext_lazy("Delay: the messenger stays with the unit and may try again next turn."),
    "delay-confusion": gettext_lazy(
        "Delay and confusion: not accepted, the unit becomes disorganised; the messenger stays "
        "and may try again next turn."
    ),
    "ignored": gettext_lazy(
        "Ignored: the messenger is dismissed (a leader may try again next turn)."
    ),
    "ignored-confused": gettext_lazy(
        "Ignored and confused: the unit becomes disorganised; the messenger is dismissed (a "
        "leader may try again next turn)."
    ),
    "chaos": gettext_lazy(
        "Chaos: the order is misinterpreted, the messenger dismissed, the unit disorganised."
    ),
    "panic": gettext_lazy(
        "Panic: the order is ignored and the unit becomes demoralised; if it already was, it "
        "routs and carries the messenger with it."
    ),
}
ORDER = {
    R.UnitOrder.ATTACK: gettext_lazy("Attack"),
    R.UnitOrder.HOLD: gettext_lazy("Hold"),
    R.UnitOrder.OPPOSE: gettext_lazy("Oppose"),
    R.UnitOrder.RETREAT: gettext_lazy("Retreat"),
}


@dataclass(frozen=True)
class Eligibility:
    """Whether one side may fight under the unit-orders method, and why (in words)."""

    side: SideLine
    allowed: bool
    reason: str
    leader: str = ""
    leader_cv: int = 0


def eligibility(side: SideLine, max_points: int | None) -> Eligibility:
    """R10.1.2: only the leader and his single command; §10 option: the points limit."""
    leaders = [pair for f in side.forces for pair in f.leaders]
    commands = sum(f.commands for f in side.forces)
    if len(leaders) != 1 or commands != 1:
        return Eligibility(
            side,
            False,
            _(
                "Not this army: the method needs a single leader with his single command "
                "(R10.1.2); it has %(g)d generals and %(c)d commands."
            )
            % {"g": len(leaders), "c": commands},
        )
    if max_points is not None and side.points > max_points:
        return Eligibility(
            side,
            False,
            _(
                "Not this army: %(p)d points, above the %(max)d points the campaign allows the "
                "method (§10)."
            )
            % {"p": side.points, "max": max_points},
        )
    name, cv = leaders[0]
    return Eligibility(
        side,
        True,
        _("%(leader)s commands every unit himself (R10.1.2).") % {"leader": name},
        name,
        cv,
    )


def eligibilities(sheet: PackSheet, options: R.Options) -> list[Eligibility]:
    return [eligibility(s, options.unit_orders_max_points) for s in sheet.sides]


DIE = {"min_value": 1, "max_value": 6, "label": gettext_lazy("Die rolled at the table (1D6)")}


class CommandTestForm(forms.Form):
    """R10.3: 1D6 + leader CV + modifiers."""

    side = forms.ChoiceField(choices=[("a", "A"), ("b", "B")], widget=forms.HiddenInput)
    die = forms.IntegerField(**DIE)  # type: ignore[arg-type]
    leader_cv = forms.IntegerField(
        label=gettext_lazy("Leader's command value"), min_value=0, max_value=10
    )
    omens = forms.ChoiceField(
        label=gettext_lazy("Omens"),
        required=False,
        choices=[
            ("", gettext_lazy("none")),
            ("good", gettext_lazy("good (+1)")),
            ("bad", gettext_lazy("bad (−1)")),
        ],
    )
    promise = forms.ChoiceField(
        label=gettext_lazy("The leader's promise"),
        required=False,
        choices=[
            ("", gettext_lazy("no promise made")),
            ("kept", gettext_lazy("kept (+1)")),
            ("not-kept", gettext_lazy("not yet kept (−1)")),
        ],
    )
    talismans = forms.IntegerField(
        label=gettext_lazy("Talismans still working (+1 each)"),
        min_value=0,
        max_value=10,
        initial=0,
    )
    unfavourable_light = forms.BooleanField(
        label=gettext_lazy("The leader stands in unfavourable light (−1)"), required=False
    )
    any_unit_routed = forms.BooleanField(
        label=gettext_lazy("A unit has routed (−1)"), required=False
    )
    any_unit_destroyed = forms.BooleanField(
        label=gettext_lazy("A unit was completely destroyed (−1)"), required=False
    )
    leader_dead_or_fled = forms.BooleanField(
        label=gettext_lazy("The leader is dead or has fled (−3)"), required=False
    )
    ambushed = forms.BooleanField(
        label=gettext_lazy("This side was ambushed (−1, §7.10.5)"), required=False
    )


class UnitOrderTestForm(forms.Form):
    """R10.2: 1D6 + the unit's FW quality modifier + modifiers."""

    side = forms.ChoiceField(choices=[("a", "A"), ("b", "B")], widget=forms.HiddenInput)
    die = forms.IntegerField(**DIE)  # type: ignore[arg-type]
    quality_mod = forms.IntegerField(
        label=gettext_lazy("The unit's quality modifier (FW core)"),
        min_value=-5,
        max_value=5,
        initial=0,
    )
    order = forms.ChoiceField(
        label=gettext_lazy("The new order"),
        choices=[(o.value, ORDER[o]) for o in R.UnitOrder],
    )
    delivered_by = forms.ChoiceField(
        label=gettext_lazy("Delivered by"),
        choices=[
            ("leader", gettext_lazy("the leader in person (+3)")),
            ("messenger", gettext_lazy("a Messenger (+1)")),
        ],
    )
    fanatic = forms.BooleanField(label=gettext_lazy("The unit is Fanatic (+1)"), required=False)
    different_race = forms.BooleanField(
        label=gettext_lazy("The unit is of another race than the deliverer (−1)"),
        required=False,
    )
    unfavourable_light = forms.BooleanField(
        label=gettext_lazy("The unit stands in unfavourable light (−1)"), required=False
    )
    disorganised = forms.BooleanField(
        label=gettext_lazy("The unit is disorganised (−1)"), required=False
    )
    demoralised = forms.BooleanField(
        label=gettext_lazy("The unit is demoralised (a panic makes it rout)"), required=False
    )
    reactions = forms.BooleanField(
        label=gettext_lazy("The unit is subject to reactions (−2)"), required=False
    )
    no_leader = forms.BooleanField(
        label=gettext_lazy("The unit has no Leader (Capo) (−2)"), required=False
    )


@dataclass(frozen=True)
class Answer:
    """What a calculator gives back: the roll as the ledger would show it, and the result."""

    roll: RollView
    result: str
    notes: list[str]


def command_answer(data: dict[str, Any]) -> Answer:
    dice = R.ScriptedDice([data["die"]])
    res = R.unit_orders_command_test(
        dice,
        purpose="table:unit-orders-command",
        leader_cv=data["leader_cv"],
        omens=data["omens"] or None,
        promise=data["promise"] or None,
        talismans=data["talismans"] or 0,
        unfavourable_light=data["unfavourable_light"],
        any_unit_routed=data["any_unit_routed"],
        any_unit_destroyed=data["any_unit_destroyed"],
        leader_dead_or_fled=data["leader_dead_or_fled"],
        ambushed=data["ambushed"],
    )
    return Answer(
        roll_view(res.record.to_dict()),
        str(COMMAND_RESULT[res.result]),
        [_("A total of 3 or less is not in the book's table: read as 4, the army routs (A-46).")]
        if res.total <= 3
        else [],
    )


def unit_order_answer(data: dict[str, Any]) -> Answer:
    dice = R.ScriptedDice([data["die"]])
    order = R.UnitOrder(data["order"])
    res = R.unit_order_test(
        dice,
        purpose="table:unit-order",
        quality_mod=data["quality_mod"] or 0,
        delivered_by=data["delivered_by"],
        order=order,
        fanatic=data["fanatic"],
        different_race=data["different_race"],
        unfavourable_light=data["unfavourable_light"],
        disorganised=data["disorganised"],
        demoralised=data["demoralised"],
        reactions=data["reactions"],
        no_leader=data["no_leader"],
    )
    notes = []
    if res.result == "chaos" and res.order_now is not None:
        notes.append(
            _("The unit now follows the order %(now)s instead of %(given)s (R10.2 result 0).")
            % {"now": ORDER[res.order_now], "given": ORDER[order]}
        )
    return Answer(roll_view(res.record.to_dict()), str(UNIT_RESULT[res.result]), notes)
