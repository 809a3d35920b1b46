"""Sentences kept out of `campaign.text.sentences` (which is full): a regrouping pool spent
(R8.3.2), time, the bank and a scenario's supply convoys (R9.2, R9.3.8–9). Registered in
`campaign.text.sentences`' table, which imports this module last."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaign.text.labels import SPECIALITY, in_sentence, label
from campaign.text.names import Names
from campaign.text.sentences import EventData, renders


@renders("DayAdvanced")
def _day(e: EventData, n: Names) -> str:
    return _("The calendar moved on to day %(day)s.") % {"day": e.get("day")}


@renders("RegroupSpent")
def _regroup_spent(e: EventData, n: Names) -> str:
    new_unit = e.get("new_unit_id")
    values = {
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "speciality": in_sentence(label(SPECIALITY, e.get("speciality"))),
        "figures": e.get("figures"),
        "unit": n.member(new_unit or e.get("unit_id")),
        "pool": e.get("pool"),
    }
    if new_unit:
        return (
            ngettext(
                "%(force)s spent %(points)s points of its %(speciality)s pool: it formed a new "
                "unit of %(figures)s figure, %(unit)s, its Leader included (R8.3.3); %(pool)s "
                "points are left.",
                "%(force)s spent %(points)s points of its %(speciality)s pool: it formed a new "
                "unit of %(figures)s figures, %(unit)s, its Leader included (R8.3.3); %(pool)s "
                "points are left.",
                int(e.get("figures") or 0),
            )
            % values
        )
    return (
        ngettext(
            "%(force)s spent %(points)s points of its %(speciality)s pool: %(figures)s figure "
            "joined %(unit)s (R8.3.2); %(pool)s points are left.",
            "%(force)s spent %(points)s points of its %(speciality)s pool: %(figures)s figures "
            "joined %(unit)s (R8.3.2); %(pool)s points are left.",
            int(e.get("figures") or 0),
        )
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
