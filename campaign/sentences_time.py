"""Sentences of Phase 7 beyond the reinforcements: a scenario's supply convoys (R9.3.9).
Registered in `campaign.sentences`' table, which imports this module last."""

from __future__ import annotations

from django.utils.translation import gettext as _

from campaign.names import Names
from campaign.sentences import EventData, renders


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
