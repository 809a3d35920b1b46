"""§6.10 terrain attrition: the dice a force pays for crossing hard terrain (R6.10, A-50)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import Dice, Judge, RollOutcome, RollRecord
from rules.setup.problems import SetupError
from rules.types import Unit

ATTRITION_FORMULAS = ("d6_minus2_min0", "d6_div2", "d6_times2")


def attrition_losses(natural: int, formula: str = "d6_minus2_min0") -> int:
    """A-50: the lost operator in "1D6 2". Halving rounds down [SR]."""
    if formula == "d6_minus2_min0":
        return max(0, natural - 2)
    if formula == "d6_div2":
        return natural // 2
    if formula == "d6_times2":
        return natural * 2
    known = ", ".join(ATTRITION_FORMULAS)
    raise SetupError(f"unknown attrition formula {formula!r}; one of {known}")


@dataclass(frozen=True, slots=True)
class UnitAttrition:
    unit_id: str
    record: RollRecord
    losses: int  # killed: they take the wounded check (R6.10.2)
    figures_before: int
    deserter_check: bool  # lost more than 25 %: the rest take the deserter check (R6.10.3)


def terrain_attrition(
    dice: Dice, *, purpose: str, units: Sequence[Unit], formula: str = "d6_minus2_min0"
) -> tuple[UnitAttrition, ...]:
    """R6.10.1 [NARAN]: one 1D6 per unit of a force that crossed jungle, desert, wasteland or
    a mountain range; losses by `Options.attrition_formula`, never more than the unit has."""
    if formula not in ATTRITION_FORMULAS:
        attrition_losses(1, formula)  # raises the precise error
    out = []
    for u in units:
        rec = dice.roll(
            purpose=f"{purpose}:{u.id}", rule="R6.10.1", judge=_attrition_judge(u, formula)
        )
        losses = min(u.figures, attrition_losses(rec.value, formula))
        out.append(UnitAttrition(u.id, rec, losses, u.figures, losses * 4 > u.figures))
    return tuple(out)


def _attrition_judge(unit: Unit, formula: str) -> Judge:
    def judge(_total: int, nat: tuple[int, ...]) -> RollOutcome:
        return "figures-lost", {"n": min(unit.figures, attrition_losses(nat[0], formula))}

    return judge
