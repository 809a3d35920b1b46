"""The converter of the English dice ledger (format 1) to codes and params
(`campaign.exchange.upgrade.ledger_v1`): every entry of a real old export converts, none of
its English is left, and re-running the engine on each stored turn gives the converted
ledger exactly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

import rules
from campaign import adapters
from campaign.exchange.upgrade.ledger_v1 import (
    detail_dict,
    outcome_code,
    reason_code,
    upgrade_entry,
    upgrade_ledger,
)
from rules import CampaignState, SeededDice, from_data, resolve_after_battles, resolve_turn

LEGACY = Path(settings.BASE_DIR) / "fixtures" / "legacy" / "incursion-2026-12-07.json"


def _ledgers(doc: Any) -> Iterator[list[dict[str, Any]]]:
    """Every list stored under a "ledger" key, wherever it is (turns, amendments' replaced
    turns, setup rolls)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "ledger" and isinstance(v, list):
                yield v
            else:
                yield from _ledgers(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _ledgers(v)


def _resolutions(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for turn in doc["turns"]:
        yield from turn["resolutions"]
    for a in doc.get("amendments", []):
        replaced = (a.get("replaced") or {}).get("data") or {}
        for turn in replaced.get("turns", []):
            yield from turn["resolutions"]


@pytest.fixture(scope="module")
def legacy() -> dict[str, Any]:
    return json.loads(LEGACY.read_text())


def _is_new(entry: dict[str, Any]) -> bool:
    """An entry only of codes: every reason, outcome and value a declared one."""
    if entry["outcome"] and entry["outcome"] not in rules.LEDGER_OUTCOMES:
        return False
    if set(entry["values"]) - set(rules.LEDGER_OUTCOMES.get(entry["outcome"], ())):
        return False
    for m in entry["modifiers"]:
        if m["reason"] not in rules.LEDGER_MODIFIERS:
            return False
        if set(m.get("params", {})) - set(rules.LEDGER_MODIFIERS[m["reason"]]):
            return False
    return all(isinstance(d, dict) and d["fate"] in rules.LEDGER_FATES for d in entry["details"])


def test_every_entry_of_the_legacy_export_converts(legacy):
    ledgers = list(_ledgers(legacy))
    entries = [e for ledger in ledgers for e in ledger]
    assert len(entries) > 300 and any(e["details"] for e in entries)
    for ledger in ledgers:
        new = upgrade_ledger(ledger)
        assert len(new) == len(ledger)
        for old, entry in zip(ledger, new, strict=True):
            assert _is_new(entry), (old, entry)
            # no English left: the codes are kebab-case words, the params numbers or words
            text = json.dumps(entry, ensure_ascii=False)
            for english in ("(s)", " → ", "natural 1", "leader CV", ' territory"', " square"):
                assert english not in text, (english, entry)
            assert upgrade_entry(entry) == entry  # converting twice changes nothing


@pytest.mark.django_db
def test_the_engine_writes_the_converted_ledger_of_every_stored_turn(legacy):
    """Replayed from its stored state, inputs and seed (as `campaign.exchange.replay` does),
    each turn's ledger is exactly its converted old one."""
    replayed = 0
    for r in _resolutions(legacy):
        state = from_data(CampaignState, r["state_before"])
        dice = SeededDice(r["seed"])
        if r["stage"] == "turn":
            orders = {
                pid: adapters.orders_from_data(pid, po, f"orders of {pid}")
                for pid, po in r["inputs"].items()
            }
            out = resolve_turn(state, orders, dice)
        else:
            results = {
                bid: adapters.result_from_data(bid, res, f"result of {bid}")
                for bid, res in r["inputs"].items()
            }
            out = resolve_after_battles(state, results, dice)
        got = json.loads(json.dumps([x.to_dict() for x in out.ledger]))
        assert got == upgrade_ledger(r["ledger"]), (r["stage"], r["seed"])
        replayed += 1
    assert replayed >= 12


# every old text of each kind the engine of `main` could write → today's data
REASONS = {
    "leader CV": ("leader-cv", {}),
    "force is unsteady": ("force-status", {"status": "unsteady"}),
    "snow (2 level(s), §11.5)": ("snow", {"n": 2}),
    "snow (1 level(s))": ("snow", {"n": 1}),
    "starts on cultivated": ("starts-on", {"feature": "cultivated"}),
    "weather: light-rain": ("weather", {"weather": "light-rain"}),
    "quality: veteran": ("quality", {"quality": "veteran"}),
    "ambush: ambushed": ("ambush", {"ambush": "ambushed"}),
    "3 battle(s) won": ("battles-won", {"n": 3}),
    "0 own holding(s) lost": ("own-holdings-lost", {"n": 0}),
    "2 talisman(s) working": ("talismans", {"n": 2}),
    "General Retreat, hour 4 (R7.9.12)": ("general-retreat", {"hour": 4}),
    "CV of f1g2": ("general-cv", {"general": "f1g2"}),
    "CV of no general": ("general-cv", {}),
    "Combat of d1u3": ("enemy-combat", {"unit": "d1u3"}),
    "Resistance of d1u3": ("enemy-resistance", {"unit": "d1u3"}),
    "opposition (saturation)": ("opposition", {"cause": "saturation"}),
    "wind: contrary": ("wind", {"wind": "contrary"}),
    "a unit has routed (§10.3)": ("unit-routed", {}),
    "in rotta (shattered)": ("shattered", {}),
}
OUTCOMES = {
    ("rolled 4", "R5.3.1", ""): ("rolled", {"n": 4}),
    ("ok → probe", "R5.2", ""): ("force-test", {"result": "ok", "status": "probe"}),
    ("confused → unsteady", "R5.2", ""): (
        "force-test",
        {"result": "confused", "status": "unsteady"},
    ),
    ("destroyed", "R5.2", ""): ("force-test", {"result": "destroyed"}),
    ("initiative -1", "R6.1.3", ""): ("initiative", {"n": -1}),
    ("tie re-roll 3", "R6.1.5", ""): ("tie-reroll", {"n": 3}),
    ("0 square(s)", "R6.2", ""): ("squares", {"n": 0}),
    ("heavy-rain", "R4.2", ""): ("weather", {"weather": "heavy-rain"}),
    ("2 recovered, 1 dead", "R8.1", ""): ("wounded", {"recovered": 2, "dead": 1}),
    ("5 returned, 4 deserted", "R8.2", ""): ("deserters", {"returned": 5, "deserted": 4}),
    ("passed", "R9.1", ""): ("passed", {}),
    ("complete disaster", "R9.1", ""): ("disaster", {}),
    ("3 token(s)", "R7.8.3", ""): ("tokens", {"n": 3}),
    ("2 token(s) (half, rounded up)", "R7.8.3", ""): ("tokens-half", {"n": 2}),
    ("4 spirit token(s)", "§11.8", ""): ("tokens", {"n": 4, "kind": "spirit"}),
    ("1 poisoned-arrows token(s)", "§9.4.2", ""): (
        "tokens",
        {"n": 1, "kind": "poisoned-arrows"},
    ),
    ("2 None token(s)", "§11.8", ""): ("tokens", {"n": 2}),
    ("0 snow level(s)", "R11.8", ""): ("snow", {"n": 0}),
    ("leader-emerges", "§9.4.1", ""): ("event", {"event": "leader-emerges"}),
    ("points", "§11.8", ""): ("event", {"event": "points"}),
    ("a square with his forces", "§9.4.3", ""): ("struck", {"target": "forces"}),
    ("nothing", "§9.4.3", ""): ("struck", {"target": "none"}),
    ("temperate", "R4.1.1", "setup:climate"): ("climate", {"climate": "temperate"}),
    ("great-rains", "R4.1.2", "setup:season:torrid"): ("season", {"season": "great-rains"}),
    ("burial-mound", "R2.4", "setup:feature:h3"): ("holding-feature", {"feature": "burial-mound"}),
    ("sacred-helm", "R2.4", "setup:relic:h3"): ("relic", {"relic": "sacred-helm"}),
    ("ok-confusion", "R10.2", ""): ("unit-order", {"result": "ok-confusion"}),
    ("army-routs", "R10.3", ""): ("command-test", {"result": "army-routs"}),
    ("calm", "§6.11 wind", ""): ("wind", {"wind": "calm"}),
    ("2 square(s) by the table", "§6.11", ""): ("naval-squares", {"n": 2}),
    ("1 figure(s) lost", "R6.10.1", ""): ("figures-lost", {"n": 1}),
    ("mine-ruins-cemetery", "§7.7.5", ""): ("scenery", {"feature": "mine-ruins-cemetery"}),
    ("3 hits on 6+, 2 critical", "§10.4 attack", ""): ("hits", {"n": 3, "on": 6, "crit": 2}),
    ("1 hit on 6+", "§10.4 critical", ""): ("hits", {"n": 1, "on": 6}),
    ("0 successes on 4+", "§10.4 morale", ""): ("successes", {"n": 0, "on": 4}),
    ("1 wound on 5+", "§10.4 wound", ""): ("wounds", {"n": 1, "on": 5}),
    ("", "R2.2", "setup:territory:a"): ("", {}),
}
DETAILS = {
    "4→5: recovered": {"die": 4, "total": 5, "fate": "recovered"},
    "2→-1: dead": {"die": 2, "total": -1, "fate": "dead"},
    "1: deserted (natural 1)": {"die": 1, "fate": "deserted", "natural": True},
    "6: returned (natural 6)": {"die": 6, "fate": "returned", "natural": True},
}


def test_each_old_text_has_its_code():
    for old, new in REASONS.items():
        assert reason_code(old) == new, old
        assert new[0] in rules.LEDGER_MODIFIERS
    for (old, rule, purpose), new in OUTCOMES.items():
        assert outcome_code(old, rule, purpose) == new, old
        assert new[0] == "" or new[0] in rules.LEDGER_OUTCOMES
    for old, new in DETAILS.items():
        assert detail_dict(old) == new, old
    assert reason_code("a reason nobody wrote") is None
    assert outcome_code("something else", "R1") is None


def test_an_entry_converts_whole():
    old = {
        "seq": 3,
        "purpose": "after:t1-b1:wounded-d3u3",
        "rule": "R8.1",
        "sides": 6,
        "natural": [6, 4],
        "modifiers": [{"reason": "enemy territory", "value": -1}],
        "total": None,
        "outcome": "1 recovered, 1 dead",
        "details": ["6: recovered (natural 6)", "4→3: dead"],
    }
    assert upgrade_entry(old) == {
        **old,
        "modifiers": [{"reason": "territory", "value": -1, "params": {"territory": "enemy"}}],
        "outcome": "wounded",
        "values": {"recovered": 1, "dead": 1},
        "details": [
            {"die": 6, "fate": "recovered", "natural": True},
            {"die": 4, "total": 3, "fate": "dead"},
        ],
    }
