"""The digest of a resolved turn for one member: the events of the turn's resolutions as the
turn report tells them to him (`campaign.reports.turn_report.turn_report_get`), so that the
e-mail and the report page make the same fog-of-war decisions: a viewer who does not see
everything reads only of his side's forces and the enemy forces his side sees
(`campaign.fog`), and a hidden enemy force is never named."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from campaign.access import Viewer
from campaign.models import Turn, TurnResolution
from campaign.reports.turn_report import turn_report_get


@dataclass(frozen=True)
class Digest:
    turn: Turn
    everything: bool  # the viewer sees everything (GM, no fog, campaign over)
    movement: list[str]  # Phases 0–2, one sentence an event, with its rule
    aftermath: list[str]  # Phases 4–8


def digest_for(*, turn: Turn, viewer: Viewer) -> Digest:
    report = turn_report_get(turn=turn, viewer=viewer)
    lines = {
        stage.stage: [f"{e.text} ({e.rule})" if e.rule else e.text for e in stage.events]
        for stage in report.stages
    }
    return Digest(
        turn=turn,
        everything=report.everything,
        movement=lines.get(TurnResolution.Stage.TURN, []),
        aftermath=lines.get(TurnResolution.Stage.AFTER, []),
    )


def force_names(states: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Force id → name in rules states given as data (`TurnResolution.state_before`); the
    first state that names a force wins."""
    names: dict[str, str] = {}
    for state in states:
        for f in state.get("forces", ()):
            names.setdefault(f["id"], f.get("name") or f["id"])
    return names


def player_names(states: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    names: dict[str, str] = {}
    for state in states:
        for p in state.get("players", ()):
            names.setdefault(p["id"], p.get("name") or p["id"])
    return names
