"""The dice ledger of format 1 (English prose) read as today's (codes and params).

Until issue 29 the engine wrote a modifier's reason ("leader CV", "force is unsteady", "snow (2
level(s), §11.5)"), a roll's outcome ("3 square(s)", "2 recovered, 1 dead", "ok → probe") and
a figure check's per-die details ("4→5: recovered", "1: dead (natural 1)") as English text.
This converter maps every text that engine could write to exactly what the engine of codes
writes for the same roll (`rules.ledger_codes`; docs/state-format.md, "Dice ledger").

Frozen: it reads the old format only and never changes with the engine. Pure Python, no
import of the engine, so a data migration may use it. An entry already of the new format
(it has "values") is returned as it is; a text it does not know is kept as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Params = dict[str, Any]
Code = tuple[str, Params]

# --- modifier reasons ----------------------------------------------------------------------

_FIXED_REASONS: Mapping[str, Code] = {
    "leader CV": ("leader-cv", {}),
    "on a mountain square": ("mountain", {}),
    "enemy territory": ("territory", {"territory": "enemy"}),
    "friendly territory": ("territory", {"territory": "friendly"}),
    "neutral territory": ("territory", {"territory": "neutral"}),
    "full speed": ("full-speed", {}),
    "heavy ground": ("heavy-ground", {}),
    "in rotta (shattered)": ("shattered", {}),
    "holds the enemy capital": ("enemy-capital-held", {}),
    "own capital held by the enemy": ("own-capital-lost", {}),
    "unit quality (FW core)": ("unit-quality", {}),
    "unit is fanatic": ("fanatic", {}),
    "delivered by the leader": ("delivered-by-leader", {}),
    "delivered by a Messenger": ("delivered-by-messenger", {}),
    "different race from the deliverer": ("different-race", {}),
    "unfavourable light": ("unfavourable-light", {}),
    "unit is disorganised": ("unit-disorganised", {}),
    "unit is subject to reactions": ("reactions", {}),
    "unit has no Leader (Capo)": ("no-unit-leader", {}),
    "good omens": ("good-omens", {}),
    "bad omens": ("bad-omens", {}),
    "leader's promise kept": ("promise-kept", {}),
    "leader's promise not yet kept": ("promise-not-kept", {}),
    "a unit has routed": ("unit-routed", {}),
    "a unit has routed (§10.3)": ("unit-routed", {}),
    "a unit was destroyed": ("unit-destroyed", {}),
    "a unit was destroyed (§10.3)": ("unit-destroyed", {}),
    "leader dead or fled": ("leader-lost", {}),
    "ambushed (§7.10.5)": ("ambushed", {}),
    "mounted": ("mounted", {}),
    "CV of no general": ("general-cv", {}),
    "waterfalls or rapids (portage)": ("rapids", {}),
    "upstream": ("upstream", {}),
    "bridge on the stretch": ("bridge-ahead", {}),
    "rafts carry mounts": ("rafts-with-mounts", {}),
    "downstream": ("downstream", {}),
    "reefs, islands or atolls": ("reefs", {}),
    "no ships (minor craft only)": ("no-ships", {}),
    "charge": ("charge", {}),
    "flank attack": ("flank-attack", {}),
    "in column": ("in-column", {}),
    "field works (R7.8.4)": ("field-works", {}),
    "demoralised": ("demoralised", {}),
    "range": ("range", {}),
    "Combat": ("combat", {}),
    "Strength": ("strength", {}),
    "Shooting": ("shooting", {}),
    "weapon Strength": ("weapon-strength", {}),
    "Willpower": ("willpower", {}),
    "terrain for horse (§7.6)": ("horse-terrain", {}),
    "crossing the river (§7.6)": ("river-crossing", {}),
    "cover (§7.6)": ("cover", {}),
    "weather (R4.2)": ("battle-weather", {}),
    "stress and disorder": ("stress", {}),
    "disorganised / demoralised": ("disorder", {}),
}
_INT = frozenset({"n", "hour", "on", "crit", "recovered", "dead", "returned", "deserted"})
_WORD = r"[a-z][a-z-]*"
# (pattern, code): the pattern's named groups are the params (the _INT ones as numbers)
_REASON_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), code)
    for p, code in (
        (rf"force is (?P<status>{_WORD})", "force-status"),
        (r"snow \((?P<n>\d+) level\(s\)(?:, §11\.5)?\)", "snow"),
        (rf"starts on (?P<feature>{_WORD})", "starts-on"),
        (rf"weather: (?P<weather>{_WORD})", "weather"),
        (rf"season: (?P<season>{_WORD})", "season"),
        (rf"ambush: (?P<ambush>{_WORD})", "ambush"),
        (rf"quality: (?P<quality>{_WORD})", "quality"),
        (r"(?P<n>\d+) battle\(s\) won", "battles-won"),
        (r"(?P<n>\d+) battle\(s\) lost", "battles-lost"),
        (r"(?P<n>\d+) enemy holding\(s\) held", "enemy-holdings-held"),
        (r"(?P<n>\d+) own holding\(s\) lost", "own-holdings-lost"),
        (r"(?P<n>\d+) talisman\(s\) working", "talismans"),
        (r"General Retreat, hour (?P<hour>\d+) \(R7\.9\.12\)", "general-retreat"),
        (r"CV of (?P<general>\S+)", "general-cv"),
        (rf"wind: (?P<wind>{_WORD})", "wind"),
        (r"Combat of (?P<unit>\S+)", "enemy-combat"),
        (r"Resistance of (?P<unit>\S+)", "enemy-resistance"),
        (rf"opposition \((?P<cause>{_WORD})\)", "opposition"),
    )
)


def _groups(m: re.Match[str]) -> Params:
    return {k: (int(v) if k in _INT else v) for k, v in m.groupdict().items() if v is not None}


def reason_code(reason: str) -> Code | None:
    """An old modifier reason as (code, params); None for a text the old engine never wrote."""
    fixed = _FIXED_REASONS.get(reason)
    if fixed is not None:
        return fixed[0], dict(fixed[1])
    for pattern, code in _REASON_PATTERNS:
        m = pattern.fullmatch(reason)
        if m is not None:
            return code, _groups(m)
    return None


# --- outcomes -------------------------------------------------------------------------------

_PLURAL: Mapping[str, str] = {
    "hit": "hits",
    "hits": "hits",
    "wound": "wounds",
    "wounds": "wounds",
    "success": "successes",
    "successes": "successes",
}
_OUTCOME_PATTERNS: tuple[tuple[re.Pattern[str], Callable[[Params], Code]], ...] = tuple(
    (re.compile(p), build)
    for p, build in (
        (r"rolled (?P<n>-?\d+)", lambda g: ("rolled", g)),
        (r"initiative (?P<n>-?\d+)", lambda g: ("initiative", g)),
        (r"tie re-roll (?P<n>-?\d+)", lambda g: ("tie-reroll", g)),
        (r"(?P<n>\d+) square\(s\) by the table", lambda g: ("naval-squares", g)),
        (r"(?P<n>\d+) square\(s\)", lambda g: ("squares", g)),
        (r"(?P<recovered>\d+) recovered, (?P<dead>\d+) dead", lambda g: ("wounded", g)),
        (r"(?P<returned>\d+) returned, (?P<deserted>\d+) deserted", lambda g: ("deserters", g)),
        (r"(?P<n>\d+) token\(s\) \(half, rounded up\)", lambda g: ("tokens-half", g)),
        (r"(?P<n>\d+) (?:None )?token\(s\)", lambda g: ("tokens", g)),  # None: no kind
        (rf"(?P<n>\d+) (?P<kind>{_WORD}) token\(s\)", lambda g: ("tokens", g)),
        (r"(?P<n>\d+) snow level\(s\)", lambda g: ("snow", g)),
        (r"(?P<n>\d+) figure\(s\) lost", lambda g: ("figures-lost", g)),
        (
            r"(?P<n>\d+) (?P<noun>hit|hits|wound|wounds|success|successes) on (?P<on>\d+)\+"
            r"(?:, (?P<crit>\d+) critical)?",
            lambda g: (_PLURAL[g.pop("noun")], g),
        ),
        (rf"(?P<result>{_WORD}) → (?P<status>{_WORD})", lambda g: ("force-test", g)),
    )
)
_FIXED_OUTCOMES: Mapping[str, Code] = {
    "passed": ("passed", {}),
    "complete disaster": ("disaster", {}),
    "a square with his forces": ("struck", {"target": "forces"}),
    "a square with his holding": ("struck", {"target": "holding"}),
    "nothing": ("struck", {"target": "none"}),
}
# a bare value, read by the roll's rule (or its purpose, for R2.4's two tables)
_BY_RULE: Mapping[str, tuple[str, str]] = {
    "R5.2": ("force-test", "result"),  # "destroyed": no new status
    "R4.2": ("weather", "weather"),
    "R4.1.1": ("climate", "climate"),
    "R4.1.2": ("season", "season"),
    "§9.4.1": ("event", "event"),
    "§9.4.2": ("event", "event"),
    "§9.4.3": ("event", "event"),
    "§11.8": ("event", "event"),
    "R10.2": ("unit-order", "result"),
    "R10.3": ("command-test", "result"),
    "§6.11 wind": ("wind", "wind"),
    "§7.7.1": ("scenery", "feature"),
    "§7.7.2": ("scenery", "feature"),
    "§7.7.3": ("scenery", "feature"),
    "§7.7.4": ("scenery", "feature"),
    "§7.7.5": ("scenery", "feature"),
}
_BY_PURPOSE: Mapping[str, tuple[str, str]] = {
    "setup:feature:": ("holding-feature", "feature"),
    "setup:relic:": ("relic", "relic"),
}


def outcome_code(outcome: str, rule: str = "", purpose: str = "") -> Code | None:
    """An old outcome as (code, values); "" stays "" (a roll without one); None for a text
    the old engine never wrote."""
    if outcome == "":
        return "", {}
    fixed = _FIXED_OUTCOMES.get(outcome)
    if fixed is not None:
        return fixed[0], dict(fixed[1])
    for pattern, build in _OUTCOME_PATTERNS:
        m = pattern.fullmatch(outcome)
        if m is not None:
            return build(_groups(m))
    if re.fullmatch(_WORD, outcome):
        by = _BY_RULE.get(rule) or next(
            (v for p, v in _BY_PURPOSE.items() if purpose.startswith(p)), None
        )
        if by is not None:
            return by[0], {by[1]: outcome}
    return None


# --- per-die details ------------------------------------------------------------------------

_FATE = r"(?P<fate>recovered|dead|returned|deserted)"
_NATURAL = re.compile(rf"(?P<die>\d+): {_FATE} \(natural \d+\)")
_MODIFIED = re.compile(rf"(?P<die>\d+)→(?P<total>-?\d+): {_FATE}")
_PLAIN = re.compile(rf"(?P<die>\d+): {_FATE}")


def detail_dict(detail: str) -> dict[str, Any] | None:
    """An old per-die detail as today's dict; None for a text the old engine never wrote."""
    m = _NATURAL.fullmatch(detail)
    if m is not None:
        return {"die": int(m["die"]), "fate": m["fate"], "natural": True}
    m = _MODIFIED.fullmatch(detail)
    if m is not None:
        return {"die": int(m["die"]), "total": int(m["total"]), "fate": m["fate"]}
    m = _PLAIN.fullmatch(detail)
    if m is not None:
        return {"die": int(m["die"]), "fate": m["fate"]}
    return None


# --- entries ----------------------------------------------------------------------------------


def _modifier(m: Any) -> Any:
    if not isinstance(m, dict) or "params" in m or not isinstance(m.get("reason"), str):
        return m
    got = reason_code(m["reason"])
    if got is None:
        return m
    code, params = got
    out: dict[str, Any] = {"reason": code, "value": m.get("value")}
    if params:
        out["params"] = params
    return out


def upgrade_entry(entry: Any) -> Any:
    """One ledger entry of format 1 as today's (`rules.RollRecord.to_dict`)."""
    if not isinstance(entry, dict) or "values" in entry:
        return entry
    out = dict(entry)
    out["modifiers"] = [_modifier(m) for m in entry.get("modifiers") or []]
    outcome = entry.get("outcome", "")
    values: Params = {}
    if isinstance(outcome, str):
        got = outcome_code(outcome, str(entry.get("rule", "")), str(entry.get("purpose", "")))
        if got is not None:
            out["outcome"], values = got
    details = []
    for d in entry.get("details") or []:
        new = detail_dict(d) if isinstance(d, str) else None
        details.append(d if new is None else new)
    out["details"] = details
    out["values"] = values
    return out


def upgrade_ledger(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A dice ledger of format 1 (English prose) as the engine of codes writes it."""
    return [upgrade_entry(e) for e in entries]
