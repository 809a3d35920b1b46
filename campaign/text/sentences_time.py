"""Sentences kept out of `campaign.text.sentences` (which is full): a regrouping pool spent
(R8.3.2), time, the bank and a scenario's supply convoys (R9.2, R9.3.8–9). Registered in
`campaign.text.sentences`' table, which imports this module last."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaign.text.names import Names
from campaign.text.sentences import EventData, renders, signed


@renders("SupplyConvoy")
def _convoy(e: EventData, n: Names) -> str:
    values = {"player": n.player(e.get("player_id")), "day": e.get("day")}
    if e.get("event", "none") == "none":
        return (
            _("Day %(day)s: a supply convoy reaches %(player)s (R9.3.9); it brings nothing more.")
            % values
        )
    values["detail"] = e.get("detail") or str(e.get("event", "")).replace("-", " ")
    return _("Day %(day)s: a supply convoy reaches %(player)s (R9.3.9): %(detail)s.") % values


@renders("DayAdvanced")
def _day(e: EventData, n: Names) -> str:
    return _("The calendar moved on to day %(day)s.") % {"day": e.get("day")}


@renders("BankChanged")
def _bank(e: EventData, n: Names) -> str:
    return _(
        "The reinforcement bank of %(player)s changed by %(change)s to %(bank)s points "
        "(%(reason)s)."
    ) % {
        "player": n.player(e.get("player_id")),
        "change": signed(int(e.get("change") or 0)),
        "bank": e.get("bank"),
        "reason": e.get("reason") or "—",
    }


@renders("RegroupSpent")
def _regroup_spent(e: EventData, n: Names) -> str:
    new_unit = e.get("new_unit_id")
    values = {
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "speciality": str(e.get("speciality", "")).replace("-", " "),
        "figures": e.get("figures"),
        "unit": n.member(new_unit or e.get("unit_id")),
        "pool": e.get("pool"),
    }
    if new_unit:
        return (
            _(
                "%(force)s spent %(points)s points of its %(speciality)s pool: it formed a new "
                "unit of %(figures)s figure(s), %(unit)s, its Leader included (R8.3.3); %(pool)s "
                "points are left."
            )
            % values
        )
    return (
        _(
            "%(force)s spent %(points)s points of its %(speciality)s pool: %(figures)s figure(s) "
            "joined %(unit)s (R8.3.2); %(pool)s points are left."
        )
        % values
    )


# the rules' reasons a reinforcement request was not bought (rules.phases.reinforcements), in
# the reader's language; a reason of a shape not known here is shown as the rules wrote it
REFUSED: tuple[tuple[re.Pattern[str], Any], ...] = tuple(
    (re.compile(p), text)
    for p, text in (
        (
            r"your capital is not in your hands: no reinforcements can be sent",
            gettext_lazy("your capital is not in your hands: no reinforcements can be sent"),
        ),
        (
            r"costs (?P<cost>\d+) points, the bank holds (?P<bank>\d+): kept for a later occasion",
            gettext_lazy(
                "it costs %(cost)s points and the bank holds %(bank)s: it is kept for a later "
                "occasion"
            ),
        ),
        (
            r"force (?P<force>\S+) would have more individual characters than units",
            gettext_lazy("the force would have more individual characters than units"),
        ),
        (r"the request buys nothing", gettext_lazy("the request buys nothing")),
        (
            r"(?P<units>.+): Elite troops cannot be sent as reinforcements, only Levy, Average "
            r"or Veteran",
            gettext_lazy(
                "%(units)s: Elite troops cannot be sent as reinforcements, only Levy, Average "
                "or Veteran"
            ),
        ),
        (
            r"every unit needs at least one figure",
            gettext_lazy("every unit needs at least one figure"),
        ),
        (
            r"a general comes with at least one unit",
            gettext_lazy("a general comes with at least one unit"),
        ),
        (
            r"a general's CV runs from .*",
            gettext_lazy("the general's command value is out of range"),
        ),
        (r"points cannot be negative", gettext_lazy("points cannot be negative")),
        (
            r"no force of your side is in the capital, and a new force needs a general; the points "
            r"stay banked",
            gettext_lazy(
                "no force of your side is in the capital, and a new force needs a general; the "
                "points stay banked"
            ),
        ),
        (
            r"a new force needs at least one unit; the points stay banked",
            gettext_lazy("a new force needs at least one unit; the points stay banked"),
        ),
        (
            r"more individual characters than units; the points stay banked",
            gettext_lazy("more individual characters than units; the points stay banked"),
        ),
        (
            r"mercenaries cannot form a force on their own; the points stay banked",
            gettext_lazy("mercenaries cannot form a force on their own; the points stay banked"),
        ),
        (
            r"a new force starts under an order, not .*",
            gettext_lazy("a new force starts under an order: Defend, Probe or Full Speed"),
        ),
    )
)


def refused_reason(reason: str) -> str:
    for pattern, text in REFUSED:
        m = pattern.fullmatch(reason)
        if m is not None:
            return str(text) % m.groupdict() if m.groupdict() else str(text)
    return reason


@renders("ReinforcementsRefused")
def _reinforcements_refused(e: EventData, n: Names) -> str:
    reason = refused_reason(str(e.get("reason") or ""))
    values: dict[str, Any] = {"player": n.player(e.get("player_id")), "reason": reason or "—"}
    if e.get("request") is None:
        return _("The reinforcements of %(player)s could not be delivered: %(reason)s.") % values
    values["request"] = int(e["request"]) + 1
    return (
        _("Reinforcement request %(request)s of %(player)s could not be carried out: %(reason)s.")
        % values
    )


@renders("CraftReceived")
def _craft(e: EventData, n: Names) -> str:
    return _(
        "%(force)s built %(boats)s boats and %(rafts)s rafts free at %(holding)s, in its "
        "forest by the river (R6.11.5)."
    ) % {
        "force": n.force(e.get("force_id")),
        "boats": e.get("boats"),
        "rafts": e.get("rafts"),
        "holding": n.holding(e.get("holding_id")),
    }


@renders("ShipsReceived")
def _ships(e: EventData, n: Names) -> str:
    return _(
        "%(force)s received %(ships)s free ships in its port %(holding)s (R6.11.2): %(total)s "
        "in all."
    ) % {
        "force": n.force(e.get("force_id")),
        "ships": e.get("ships"),
        "holding": n.holding(e.get("holding_id")),
        "total": e.get("total"),
    }
