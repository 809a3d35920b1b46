"""The frozen converter of format-1 turn events (English prose) to format 2 (codes):
`campaign.exchange.upgrade.events_v1.upgrade_events`.

`events_v1_pairs.json` holds, for 76 turns' phases chosen to cover every kind of detail and
reason the random-event phase, the Incursion key days and the convoys wrote, the events the
engine of 2026-12-07 (git main at 8bdf61b) wrote and those the format-2 engine writes for the
same state and seed: the upgrade of the first must be the second. Of 5 040 such cases tried
when the converter was written, every one matched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campaign.exchange.upgrade.events_v1 import UpgradeError, upgrade_events
from rules import event_codes

HERE = Path(__file__).parent
LEGACY = HERE.parents[2] / "fixtures" / "legacy" / "incursion-2026-12-07.json"
PAIRS = json.loads((HERE / "events_v1_pairs.json").read_text())
NOT_PROSE = ("rule", "units", "people")  # a rule id, and unit types and names as entered


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p["case"])
def test_old_events_upgrade_to_what_the_new_engine_writes(pair: dict[str, Any]) -> None:
    upgraded = upgrade_events(pair["old"])
    assert upgraded == pair["new"]
    assert upgrade_events(upgraded) == upgraded  # twice changes nothing


def _legacy_event_lists() -> list[list[dict[str, Any]]]:
    data = json.loads(LEGACY.read_text())
    turns = list(data["turns"])
    for amendment in data["amendments"]:
        turns += amendment["replaced"]["data"]["turns"]
    return [r["events"] for t in turns for r in t["resolutions"]]


def assert_no_prose(event: dict[str, Any]) -> None:
    assert "detail" not in event, event
    for (kind, field), codes in event_codes.CODED_FIELDS.items():
        if event["type"] == kind:
            assert event[field] in codes, event
    for key, value in event.items():
        if isinstance(value, str) and key not in NOT_PROSE:
            assert " " not in value, (key, event)


def test_every_event_of_the_legacy_export_converts_and_no_prose_is_left() -> None:
    lists = _legacy_event_lists()
    assert sum(map(len, lists)) > 300
    for events in lists:
        upgraded = upgrade_events(events)
        assert [e["type"] for e in upgraded] == [e["type"] for e in events]
        for event in upgraded:
            assert_no_prose(event)
    for pair in PAIRS:
        for event in upgrade_events(pair["old"]):
            assert_no_prose(event)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            {"type": "ForceDestroyed", "force_id": "f1", "owner": "p", "reason": "no units left"},
            {"reason": "no-units-left"},
        ),
        (
            {
                "type": "ForceDestroyed",
                "force_id": "f1",
                "owner": "p",
                "reason": "player surrendered",
            },
            {"reason": "player-surrendered"},
        ),
        (
            {
                "type": "ForceMoved",
                "force_id": "f1",
                "path": [[1, 1]],
                "reason": "post-battle retreat",
            },
            {"reason": "post-battle-retreat"},
        ),
        (
            {"type": "OrderRefused", "force_id": "f1", "reason": "only the Raiders carry off loot"},
            {"reason": "sack-not-raiders"},
        ),
        (
            {
                "type": "CaptureBlocked",
                "holding_id": "h1",
                "force_id": "f1",
                "reason": "a capital falls only to a siege",
            },
            {"reason": "capital-needs-siege"},
        ),
        (
            {
                "type": "ReinforcementsRefused",
                "player_id": "p",
                "request": 0,
                "rule": "R9.3.8",
                "reason": "costs 120 points, the bank holds 80: kept for a later occasion",
            },
            {"reason": "bank-short", "cost": 120, "bank": 80},
        ),
        (
            {
                "type": "ReinforcementsRefused",
                "player_id": "p",
                "request": 1,
                "rule": "R9.3.5",
                "reason": "force f3 would have more individual characters than units",
            },
            {"reason": "too-many-individuals", "force_id": "f3"},
        ),
        (
            {
                "type": "ReinforcementsRefused",
                "player_id": "p",
                "request": 1,
                "rule": "R9.3.2",
                "reason": "Knights, Guard: Elite troops cannot be sent as reinforcements, "
                "only Levy, Average or Veteran",
            },
            {"reason": "elite", "units": ["Knights", "Guard"]},
        ),
        (
            {
                "type": "ReinforcementsRefused",
                "player_id": "p",
                "request": 1,
                "rule": "R9.3.4",
                "reason": "a new force starts under an order, not confused; the points stay banked",
            },
            {"reason": "new-force-status", "status": "confused"},
        ),
        (
            {
                "type": "ReinforcementsRefused",
                "player_id": "p",
                "request": 1,
                "rule": "R9.3.4",
                "reason": "a new force starts under an order, not unsteady",
            },
            {"reason": "status", "status": "unsteady"},
        ),
        (
            {
                "type": "ReinforcementsRefused",
                "player_id": "p",
                "request": None,
                "rule": "R9.3.1",
                "reason": "your capital is not in your hands: no reinforcements can be sent",
            },
            {"reason": "capital-lost"},
        ),
        (
            {
                "type": "ReinforcementsRefused",
                "player_id": "p",
                "request": 0,
                "rule": "§1.1",
                "reason": "a general's CV runs from 1 to 6",
            },
            {"reason": "cv-out-of-range"},
        ),
    ],
)
def test_reasons_become_codes_with_their_parameters(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    (upgraded,) = upgrade_events([{**old, "rule": old.get("rule", "R1")}])
    for key, value in new.items():
        assert upgraded[key] == value
    assert_no_prose(upgraded)


def test_a_string_the_converter_does_not_know_is_refused() -> None:
    with pytest.raises(UpgradeError):
        upgrade_events(
            [
                {
                    "type": "ForceDestroyed",
                    "force_id": "f",
                    "owner": "p",
                    "reason": "eaten",
                    "rule": "R1",
                }
            ]
        )
    with pytest.raises(UpgradeError):
        upgrade_events(
            [
                {
                    "type": "RandomEvent",
                    "player_id": "p",
                    "table": "general",
                    "event": "none",
                    "total": 3,
                    "detail": "a dragon",
                    "rule": "§9.4.1",
                }
            ]
        )
