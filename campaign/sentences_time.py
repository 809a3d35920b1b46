"""Sentences kept out of `campaign.sentences` (which is full): a regrouping pool spent
(R8.3.2), time, the bank and a scenario's supply convoys (R9.2, R9.3.8–9). Registered in
`campaign.sentences`' table, which imports this module last."""

from __future__ import annotations

from django.utils.translation import gettext as _

from campaign.names import Names
from campaign.sentences import EventData, renders, signed


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
    return _(
        "%(force)s spent %(points)s points of its %(speciality)s pool: %(figures)s figure(s) "
        "joined %(unit)s (R8.3.2); %(pool)s points are left."
    ) % {
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "speciality": str(e.get("speciality", "")).replace("-", " "),
        "figures": e.get("figures"),
        "unit": n.member(e.get("unit_id")),
        "pool": e.get("pool"),
    }
