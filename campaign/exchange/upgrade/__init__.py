"""Stored data of an earlier format, brought to today's: the events and dice ledgers written
before the engine spoke in codes (export versions 1 and 2, and the database before migration
campaign 0023: English prose in reasons, outcomes, details and random-event details) are
converted once: by that data migration for the database, on import for an export. Each
converter (`ledger_v1`, `events_v1`) is frozen: it reads one old format and never changes with
the engine, and leaves data already in today's format as it is; `docs/state-format.md` says
what each format holds.

The walk is by shape, not by place: wherever a stored document holds a list of ledger entries
(under "ledger") or of events (under "events"), it is converted; so a resolution, a setup roll,
a battle's audit record, an archived line or an amendment's replaced turns all are.
"""

from __future__ import annotations

from typing import Any

from campaign.exchange.upgrade.events_v1 import upgrade_events
from campaign.exchange.upgrade.ledger_v1 import upgrade_ledger


def _ledger_like(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(e, dict) and "purpose" in e for e in v)


def _events_like(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(e, dict) and "type" in e for e in v)


def upgrade_prose(doc: Any) -> Any:
    """`doc` (any stored JSON) with every old-format ledger and event list converted; a new
    document, `doc` is not changed."""
    if isinstance(doc, list):
        return [upgrade_prose(v) for v in doc]
    if not isinstance(doc, dict):
        return doc
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key == "ledger" and value and _ledger_like(value):
            out[key] = upgrade_ledger(value)
        elif key == "events" and value and _events_like(value):
            out[key] = upgrade_events(value)
        else:
            out[key] = upgrade_prose(value)
    return out
