"""The exact chances of a force's Phase 1 force test (R5.2), as the orders page shows them
beside the order asked for: every modifier Phase 1 will apply, and the outcomes in sixths."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TypedDict

from django.utils.translation import gettext as _

from campaign.text.labels import STATUS, label
from campaign.text.ledger import roll_reason
from rules import (
    CampaignState,
    Coord,
    Feature,
    Force,
    ForceOrders,
    Modifier,
    PlayerOrders,
    Status,
    Territory,
    force_test_modifiers,
    force_test_pass_probability,
    validate_orders,
)


def snow_modifier(state: CampaignState, square: Coord) -> int:
    # the force-test snow modifier exists in the Incursion only (§11.5, R5.2)
    return state.snow_at(square) if state.scenario == "incursion" else 0


# --- the force test (R5.2) -------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    key: str  # ok / defend / confused / unsteady / shattered / destroyed
    chance: Fraction
    label: str = ""

    @property
    def percent(self) -> float:
        return float(self.chance * 100)

    @property
    def sixths(self) -> int:
        return int(self.chance * 6)


def _outcome_label(key: str, status: Status) -> str:
    if key == "ok":
        return _("the requested order")
    if key == "destroyed":
        return _("Destroyed (complete disaster)")
    named = Status(key)
    if named is Status.CONFUSED and status is Status.CONFUSED:
        # p. 9: a Confused force suffering a further reaction becomes Unsteady (R5.2.1)
        return _("Unsteady (a Confused force that scores 3)")
    return label(STATUS, named)


def _modifier_label(m: Modifier, status: Status) -> str:
    """A force test's modifier (its reason code, `rules.LEDGER_MODIFIERS`) as the orders page
    names it; a code of another test in the ledger's words."""
    params = m.params or {}
    if m.reason == "force-status":
        return _("the force is %(status)s") % {"status": label(STATUS, status)}
    if m.reason == "territory" and params.get("territory") == "enemy":
        return _("in enemy territory")
    if m.reason == "territory" and params.get("territory") == "friendly":
        return _("in friendly territory")
    if m.reason == "snow":
        return _("snow (§11.5)")
    return roll_reason(m.reason, params)


@dataclass(frozen=True)
class ForceTestChances:
    """The exact distribution of a force test with the force's current modifiers."""

    requested: Status
    status: Status  # the force's status now
    modifiers: tuple[Modifier, ...]
    outcomes: tuple[Outcome, ...]  # most favourable first, zero chances left out
    refused: tuple[str, ...] = ()  # why the order would be refused without a test

    @property
    def total_modifier(self) -> int:
        return sum(m.value for m in self.modifiers)

    @property
    def ok(self) -> Fraction:
        if self.refused:
            return Fraction(0)
        return next((o.chance for o in self.outcomes if o.key == "ok"), Fraction(0))

    @property
    def ok_percent(self) -> float:
        return float(self.ok * 100)

    @property
    def ok_sixths(self) -> int:
        return int(self.ok * 6)

    @property
    def others(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.key != "ok")

    def _as_ordered(self, o: Outcome) -> bool:
        """Whether the outcome leaves the force under the order asked for: the test passed
        (6+), or the 4–5 result gave Defend when Defend was asked for."""
        return o.key == "ok" or (o.key == "defend" and self.requested is Status.DEFEND)

    @property
    def as_ordered(self) -> Outcome:
        """The chance that the force ends the test under the requested order (R5.2)."""
        chance = sum((o.chance for o in self.outcomes if self._as_ordered(o)), Fraction(0))
        return Outcome("ok", Fraction(0) if self.refused else chance, self.requested_label)

    @property
    def if_failed(self) -> tuple[Outcome, ...]:
        """What the force becomes otherwise, each with its chance."""
        return tuple(o for o in self.outcomes if not self._as_ordered(o))

    @property
    def requested_label(self) -> str:
        return label(STATUS, self.requested)

    @property
    def modifier_rows(self) -> list[tuple[str, int]]:
        return [(_modifier_label(m, self.status), m.value) for m in self.modifiers]


OUTCOME_ORDER = ("ok", "defend", "confused", "unsteady", "shattered", "destroyed")


class _ForceTestInputs(TypedDict):
    """What R5.2 reads of a force and its square (`rules.force_test_modifiers`)."""

    cv: int
    status: Status
    features: frozenset[Feature]
    territory: Territory
    snow: int


def force_test_chances_get(
    *, state: CampaignState, force: Force, requested: Status
) -> ForceTestChances:
    """R5.2 for `force` asking for `requested` now: leader CV, its status, a mountain square,
    the territory and (Incursion) snow, exactly as Phase 1 will apply them. The distribution
    is in sixths, so each chance is turned back into an exact fraction."""
    kwargs: _ForceTestInputs = {
        "cv": force.cv,
        "status": force.status,
        "features": state.map.features_at(force.square),
        "territory": state.territory(force.owner, force.square),
        "snow": snow_modifier(state, force.square),
    }
    dist = force_test_pass_probability(**kwargs)
    outcomes = tuple(
        Outcome(
            key,
            Fraction(dist[key]).limit_denominator(6),
            _outcome_label(key, force.status),
        )
        for key in OUTCOME_ORDER
        if dist.get(key)
    )
    # an order the rules refuse without a test (loot and Full Speed, Probe composition)
    probe = PlayerOrders(force.owner, {force.id: ForceOrders(force.id, change_to=requested)})
    refused = tuple(
        e.code
        for e in validate_orders(state, force.owner, probe)
        if e.force_id == force.id and e.field == "change_to"
    )
    return ForceTestChances(
        requested=requested,
        status=force.status,
        modifiers=tuple(force_test_modifiers(**kwargs)),
        outcomes=outcomes,
        refused=refused,
    )
