"""The dice ledger in plain English for the command line.

The engine writes codes and params (`rules.ledger_codes`); the web app words them in the
reader's language (`campaign.text.ledger`); this is the command line's own wording, English
only, so that `./run rules …` prints readable entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Words = Callable[[Mapping[str, Any]], str]


def _plural(n: object, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _fixed(text: str) -> Words:
    return lambda _p: text


MODIFIER_WORDS: Mapping[str, Words] = {
    "leader-cv": _fixed("leader CV"),
    "force-status": lambda p: f"force is {p.get('status')}",
    "mountain": _fixed("on a mountain square"),
    "territory": lambda p: f"{p.get('territory')} territory",
    "snow": lambda p: f"snow ({_plural(p.get('n'), 'level', 'levels')}, §11.5)",
    "full-speed": _fixed("full speed"),
    "starts-on": lambda p: f"starts on {p.get('feature')}",
    "weather": lambda p: f"weather: {p.get('weather')}",
    "heavy-ground": _fixed("heavy ground"),
    "season": lambda p: f"season: {p.get('season')}",
    "ambush": lambda p: f"ambush: {p.get('ambush')}",
    "quality": lambda p: f"quality: {p.get('quality')}",
    "shattered": _fixed("in rotta (shattered)"),
    "battles-won": lambda p: f"{_plural(p.get('n'), 'battle', 'battles')} won",
    "battles-lost": lambda p: f"{_plural(p.get('n'), 'battle', 'battles')} lost",
    "enemy-holdings-held": lambda p: (
        f"{_plural(p.get('n'), 'enemy holding', 'enemy holdings')} held"
    ),
    "own-holdings-lost": lambda p: f"{_plural(p.get('n'), 'own holding', 'own holdings')} lost",
    "enemy-capital-held": _fixed("holds the enemy capital"),
    "own-capital-lost": _fixed("own capital held by the enemy"),
    "unit-quality": _fixed("unit quality (FW core)"),
    "fanatic": _fixed("unit is fanatic"),
    "delivered-by-leader": _fixed("delivered by the leader"),
    "delivered-by-messenger": _fixed("delivered by a Messenger"),
    "different-race": _fixed("different race from the deliverer"),
    "unfavourable-light": _fixed("unfavourable light"),
    "unit-disorganised": _fixed("unit is disorganised"),
    "reactions": _fixed("unit is subject to reactions"),
    "no-unit-leader": _fixed("unit has no Leader (Capo)"),
    "good-omens": _fixed("good omens"),
    "bad-omens": _fixed("bad omens"),
    "promise-kept": _fixed("leader's promise kept"),
    "promise-not-kept": _fixed("leader's promise not yet kept"),
    "talismans": lambda p: f"{_plural(p.get('n'), 'talisman', 'talismans')} working",
    "unit-routed": _fixed("a unit has routed"),
    "unit-destroyed": _fixed("a unit was destroyed"),
    "leader-lost": _fixed("leader dead or fled"),
    "ambushed": _fixed("ambushed (§7.10.5)"),
    "general-retreat": lambda p: f"General Retreat, hour {p.get('hour')} (R7.9.12)",
    "general-cv": lambda p: f"CV of {p.get('general') or 'no general'}",
    "mounted": _fixed("mounted"),
    "rapids": _fixed("waterfalls or rapids (portage)"),
    "upstream": _fixed("upstream"),
    "bridge-ahead": _fixed("bridge on the stretch"),
    "rafts-with-mounts": _fixed("rafts carry mounts"),
    "downstream": _fixed("downstream"),
    "wind": lambda p: f"wind: {p.get('wind')}",
    "reefs": _fixed("reefs, islands or atolls"),
    "no-ships": _fixed("no ships (minor craft only)"),
    "charge": _fixed("charge"),
    "flank-attack": _fixed("flank attack"),
    "in-column": _fixed("in column"),
    "field-works": _fixed("field works (R7.8.4)"),
    "demoralised": _fixed("demoralised"),
    "range": _fixed("range"),
    "combat": _fixed("Combat"),
    "enemy-combat": lambda p: f"Combat of {p.get('unit')}",
    "strength": _fixed("Strength"),
    "enemy-resistance": lambda p: f"Resistance of {p.get('unit')}",
    "shooting": _fixed("Shooting"),
    "weapon-strength": _fixed("weapon Strength"),
    "willpower": _fixed("Willpower"),
    "horse-terrain": _fixed("terrain for horse (§7.6)"),
    "river-crossing": _fixed("crossing the river (§7.6)"),
    "cover": _fixed("cover (§7.6)"),
    "battle-weather": _fixed("weather (R4.2)"),
    "stress": _fixed("stress and disorder"),
    "disorder": _fixed("disorganised / demoralised"),
    "opposition": lambda p: f"opposition ({p.get('cause')})",
}


def _force_test(v: Mapping[str, Any]) -> str:
    status = v.get("status")
    return f"{v.get('result')} → {status}" if status else str(v.get("result"))


def _hits(one: str, many: str) -> Words:
    def words(v: Mapping[str, Any]) -> str:
        text = f"{_plural(v.get('n'), one, many)} on {v.get('on')}+"
        return f"{text}, {v['crit']} critical" if v.get("crit") else text

    return words


def _tokens(v: Mapping[str, Any]) -> str:
    kind = f"{v['kind']} " if v.get("kind") else ""
    return _plural(v.get("n"), f"{kind}token", f"{kind}tokens")


OUTCOME_WORDS: Mapping[str, Words] = {
    "rolled": lambda v: f"rolled {v.get('n')}",
    "force-test": _force_test,
    "initiative": lambda v: f"initiative {v.get('n')}",
    "tie-reroll": lambda v: f"tie re-roll {v.get('n')}",
    "squares": lambda v: _plural(v.get("n"), "square", "squares"),
    "weather": lambda v: str(v.get("weather")),
    "wounded": lambda v: f"{v.get('recovered')} recovered, {v.get('dead')} dead",
    "deserters": lambda v: f"{v.get('returned')} returned, {v.get('deserted')} deserted",
    "passed": _fixed("passed"),
    "disaster": _fixed("complete disaster"),
    "tokens": _tokens,
    "tokens-half": lambda v: f"{_plural(v.get('n'), 'token', 'tokens')} (half, rounded up)",
    "snow": lambda v: f"{_plural(v.get('n'), 'snow level', 'snow levels')}",
    "event": lambda v: str(v.get("event")),
    "struck": lambda v: {
        "forces": "a square with his forces",
        "holding": "a square with his holding",
    }.get(str(v.get("target")), "nothing"),
    "climate": lambda v: str(v.get("climate")),
    "season": lambda v: str(v.get("season")),
    "holding-feature": lambda v: str(v.get("feature")),
    "relic": lambda v: str(v.get("relic")),
    "unit-order": lambda v: str(v.get("result")),
    "command-test": lambda v: str(v.get("result")),
    "wind": lambda v: str(v.get("wind")),
    "naval-squares": lambda v: f"{_plural(v.get('n'), 'square', 'squares')} by the table",
    "figures-lost": lambda v: f"{_plural(v.get('n'), 'figure', 'figures')} lost",
    "scenery": lambda v: str(v.get("feature")),
    "hits": _hits("hit", "hits"),
    "wounds": _hits("wound", "wounds"),
    "successes": _hits("success", "successes"),
}


def modifier_words(reason: str, params: Mapping[str, Any] | None = None) -> str:
    words = MODIFIER_WORDS.get(reason)
    return words(params or {}) if words else reason


def outcome_words(outcome: str, values: Mapping[str, Any] | None = None) -> str:
    words = OUTCOME_WORDS.get(outcome)
    return words(values or {}) if words else outcome


def detail_words(detail: Mapping[str, Any]) -> str:
    """ "4→5: recovered", "1: dead (natural 1)"."""
    die, fate = detail.get("die"), detail.get("fate")
    if detail.get("natural"):
        return f"{die}: {fate} (natural {die})"
    if "total" in detail:
        return f"{die}→{detail['total']}: {fate}"
    return f"{die}: {fate}"


def modifier_dict_words(m: Mapping[str, Any]) -> dict[str, Any]:
    """A modifier's dict (`Modifier.to_dict`) with its reason in words."""
    return {"reason": modifier_words(str(m.get("reason")), m.get("params")), "value": m["value"]}


def entry_words(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A ledger entry's dict (`RollRecord.to_dict`) in words: reasons, outcome and details
    as English text (the codes and params read into them)."""
    out = {k: v for k, v in entry.items() if k != "values"}  # read into the outcome
    out["modifiers"] = [modifier_dict_words(m) for m in entry.get("modifiers", [])]
    out["outcome"] = outcome_words(str(entry.get("outcome", "")), entry.get("values"))
    out["details"] = [detail_words(d) for d in entry.get("details", [])]
    return out
