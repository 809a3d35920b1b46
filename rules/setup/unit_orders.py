"""§10 unit orders method: the unit order test (R10.2, D-23) and the command test (R10.3,
D-24)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.dice import Dice, Modifier, RollRecord
from rules.setup.problems import SetupError, non_negative


class UnitOrder(StrEnum):
    ATTACK = "attack"
    HOLD = "hold"
    OPPOSE = "oppose"
    RETREAT = "retreat"


CHAOS_ORDER = {  # R10.2 result 0: the order is misinterpreted
    UnitOrder.ATTACK: UnitOrder.HOLD,
    UnitOrder.HOLD: UnitOrder.ATTACK,
    UnitOrder.OPPOSE: UnitOrder.ATTACK,
    UnitOrder.RETREAT: UnitOrder.HOLD,
}


@dataclass(frozen=True, slots=True)
class UnitOrderResult:
    record: RollRecord
    result: str  # ok / ok-confusion / delay / delay-confusion / ignored / ignored-confused /
    # chaos / panic
    order_now: UnitOrder | None  # the order the unit now follows, when it took one
    disorganised_after: bool
    demoralised_after: bool
    routs: bool
    messenger: str  # delivered / stays / dismissed / routs
    retry_next_turn: bool

    @property
    def total(self) -> int:
        assert self.record.total is not None
        return self.record.total


def unit_order_modifiers(
    *,
    quality_mod: int,
    delivered_by: str,
    fanatic: bool = False,
    different_race: bool = False,
    unfavourable_light: bool = False,
    disorganised: bool = False,
    reactions: bool = False,
    no_leader: bool = False,
) -> list[Modifier]:
    """§10.2 modifiers; the quality modifier is FW core's (hook `fw_quality_modifier`, A-45)."""
    if delivered_by not in ("leader", "messenger"):
        raise SetupError(
            f"only the leader or a Messenger carries unit orders (R10.2.2), not {delivered_by!r}"
        )
    return [
        Modifier("unit-quality", quality_mod),
        Modifier("fanatic", +1 if fanatic else 0),
        Modifier("delivered-by-leader", +3 if delivered_by == "leader" else 0),
        Modifier("delivered-by-messenger", +1 if delivered_by == "messenger" else 0),
        Modifier("different-race", -1 if different_race else 0),
        Modifier("unfavourable-light", -1 if unfavourable_light else 0),
        Modifier("unit-disorganised", -1 if disorganised else 0),
        Modifier("reactions", -2 if reactions else 0),
        Modifier("no-unit-leader", -2 if no_leader else 0),
    ]


_UNIT_ORDER_ROWS = {  # total: (name, accepted, disorganises, messenger, retry)
    5: ("ok-confusion", True, True, "delivered", False),
    4: ("delay", False, False, "stays", True),
    3: ("delay-confusion", False, True, "stays", True),
    2: ("ignored", False, False, "dismissed", None),  # None: only a leader may retry
    1: ("ignored-confused", False, True, "dismissed", None),
    0: ("chaos", False, True, "dismissed", False),  # "confused" read as disorganised
}


def unit_order_test(
    dice: Dice,
    *,
    purpose: str,
    quality_mod: int,
    delivered_by: str,
    order: UnitOrder | None = None,
    fanatic: bool = False,
    different_race: bool = False,
    unfavourable_light: bool = False,
    disorganised: bool = False,
    demoralised: bool = False,
    reactions: bool = False,
    no_leader: bool = False,
) -> UnitOrderResult:
    """R10.2 unit order test (D-23): 1D6 + quality modifier + modifiers, read on the p. 51
    table. Panic (< 0) demoralises the unit; an already demoralised unit routs and carries
    the messenger with it."""
    mods = unit_order_modifiers(
        quality_mod=quality_mod,
        delivered_by=delivered_by,
        fanatic=fanatic,
        different_race=different_race,
        unfavourable_light=unfavourable_light,
        disorganised=disorganised,
        reactions=reactions,
        no_leader=no_leader,
    )
    rec = dice.roll(
        purpose=purpose,
        rule="R10.2",
        modifiers=mods,
        judge=lambda t, _n: ("unit-order", {"result": _unit_order_name(t)}),
    )
    assert rec.total is not None
    t = rec.total
    if t >= 6:
        return UnitOrderResult(
            rec, "ok", order, disorganised, demoralised, False, "delivered", False
        )
    if t < 0:
        routs = demoralised
        return UnitOrderResult(
            rec, "panic", None, True, True, routs, "routs" if routs else "dismissed", False
        )
    name, accepted, disorganises, messenger, retry = _UNIT_ORDER_ROWS[t]
    if retry is None:
        retry = delivered_by == "leader"
    if name == "chaos":
        order_now = CHAOS_ORDER[order] if order is not None else None
    else:
        order_now = order if accepted else None
    return UnitOrderResult(
        rec, name, order_now, disorganised or disorganises, demoralised, False, messenger, retry
    )


def _unit_order_name(total: int) -> str:
    if total >= 6:
        return "ok"
    if total < 0:
        return "panic"
    return _UNIT_ORDER_ROWS[total][0]


@dataclass(frozen=True, slots=True)
class CommandTestResult:
    record: RollRecord
    result: str  # ok / all-disorganised / all-demoralised / army-routs

    @property
    def total(self) -> int:
        assert self.record.total is not None
        return self.record.total


def unit_orders_command_test(
    dice: Dice,
    *,
    purpose: str,
    leader_cv: int,
    omens: str | None = None,
    promise: str | None = None,
    talismans: int = 0,
    unfavourable_light: bool = False,
    any_unit_routed: bool = False,
    any_unit_destroyed: bool = False,
    leader_dead_or_fled: bool = False,
    ambushed: bool = False,
) -> CommandTestResult:
    """R10.3 (D-24): 1D6 + leader CV + modifiers. 7+ OK; 6 all units disorganised; 5 all
    demoralised; 4 or less the whole army routs (≤ 3 not printed: as 4, A-46). Unfavourable
    light is judged at the leader's position [SR]; an ambushed side takes −1 (§7.10.5)."""
    if omens not in (None, "good", "bad"):
        raise SetupError(f"omens are good or bad, not {omens!r}")
    if promise not in (None, "kept", "not-kept"):
        raise SetupError(f"the leader's promise is kept or not-kept, not {promise!r}")
    non_negative("talismans", talismans)
    mods = [
        Modifier("leader-cv", leader_cv),
        Modifier("good-omens", +1 if omens == "good" else 0),
        Modifier("bad-omens", -1 if omens == "bad" else 0),
        Modifier("promise-kept", +1 if promise == "kept" else 0),
        Modifier("promise-not-kept", -1 if promise == "not-kept" else 0),
        Modifier("talismans", talismans, {"n": talismans}),
        Modifier("unfavourable-light", -1 if unfavourable_light else 0),
        Modifier("unit-routed", -1 if any_unit_routed else 0),
        Modifier("unit-destroyed", -1 if any_unit_destroyed else 0),
        Modifier("leader-lost", -3 if leader_dead_or_fled else 0),
        Modifier("ambushed", -1 if ambushed else 0),
    ]
    rec = dice.roll(
        purpose=purpose,
        rule="R10.3",
        modifiers=mods,
        judge=lambda t, _n: ("command-test", {"result": _command_result(t)}),
    )
    assert rec.total is not None
    return CommandTestResult(rec, _command_result(rec.total))


def _command_result(total: int) -> str:
    if total >= 7:
        return "ok"
    if total == 6:
        return "all-disorganised"
    if total == 5:
        return "all-demoralised"
    return "army-routs"
