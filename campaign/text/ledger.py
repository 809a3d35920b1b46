"""The words of the dice ledger: what a roll was for, its modifiers' reasons, its outcome and
its per-die details, in the active language, from the codes and params the rules write
(`rules.LEDGER_MODIFIERS`, `rules.LEDGER_OUTCOMES`; docs/state-format.md, "Dice ledger")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from campaign.text.labels import (
    CLIMATE,
    FEATURE,
    HOLDING_FEATURE,
    PHASE,
    QUALITY,
    RELIC,
    SEASON,
    STATUS,
    TERRITORY,
    WEATHER,
    in_sentence,
    label,
)
from campaign.text.ledger_values import (
    COMMAND_TEST,
    RANDOM_EVENT,
    SCENERY_ROW,
    STRUCK,
    TOKEN_KIND,
    UNIT_ORDER,
    WIND,
)

# what a ledger roll was for, by its purpose: "<phase>:<kind>" where the kind is the first
# words of the purpose's last part ("movement:initiative-r1": initiative)
ROLL_KIND: Mapping[str, Any] = {
    "weather:map": gettext_lazy("Weather over the map"),
    "weather:force": gettext_lazy("Weather of one force"),
    "orders:first-player": gettext_lazy("Who tests his forces first"),
    "orders:force": gettext_lazy("Force test"),
    "movement:initiative": gettext_lazy("Initiative"),
    "movement:force": gettext_lazy("Movement total"),
    "battle:scenery": gettext_lazy("Scenery"),
    "battle:ammo": gettext_lazy("Ammunition"),
    "after:wounded": gettext_lazy("Wounded who recover"),
    "after:deserters": gettext_lazy("Deserters"),
    "attrition:wounded": gettext_lazy("Wounded who recover"),
    "attrition:deserters": gettext_lazy("Deserters"),
    "will-to-fight:player": gettext_lazy("Will to fight"),
    "events:snow-day": gettext_lazy("Snow"),
    "events:day": gettext_lazy("Random event"),
    "events:general": gettext_lazy("Event for a general"),
}


def roll_kind(purpose: str) -> str:
    """What a roll was for, from its purpose ("movement:initiative-r1": "Initiative"); the
    phase's name for a purpose the table does not know."""
    phase = purpose.split(":", 1)[0]
    last = purpose.rsplit(":", 1)[-1]
    for key in sorted((k for k in ROLL_KIND if k.startswith(f"{phase}:")), key=len, reverse=True):
        kind = key.split(":", 1)[1]
        if last == kind or last.startswith(f"{kind}-"):
            return str(ROLL_KIND[key])
    return label(PHASE, phase)


# --- the rules' codes in words ----------------------------------------------------------------
# A modifier's reason, a roll's outcome and a die's fate are codes with typed params; each is
# worded here from its code. A code this module does not know (an entry never upgraded) is
# shown as it is.

Params = Mapping[str, Any]
Words = Callable[[Params], str]


def number(n: Any) -> str:
    """A number as people read it: a true minus sign."""
    return f"−{-n}" if isinstance(n, int) and n < 0 else str(n)


def _n(p: Params, key: str = "n") -> int:
    value = p.get(key, 0)
    return value if isinstance(value, int) else 0


def _fixed(text: Any) -> Words:
    return lambda _p: str(text)


def _low(table: Mapping[str, Any], value: Any) -> str:
    return in_sentence(label(table, value))


REASON: Mapping[str, Words] = {
    "leader-cv": _fixed(gettext_lazy("leader's command value")),
    "force-status": lambda p: (
        gettext("the force is %(status)s") % {"status": label(STATUS, p.get("status"))}
    ),
    "mountain": _fixed(gettext_lazy("on a mountain square")),
    "territory": lambda p: label(TERRITORY, p.get("territory")),
    "snow": lambda p: (
        ngettext("snow (%(n)d level, §11.5)", "snow (%(n)d levels, §11.5)", _n(p)) % {"n": _n(p)}
    ),
    "full-speed": _fixed(gettext_lazy("Full Speed order")),
    "starts-on": lambda p: (
        gettext("starts on %(feature)s") % {"feature": _low(FEATURE, p.get("feature"))}
    ),
    "weather": lambda p: (
        gettext("weather: %(weather)s") % {"weather": _low(WEATHER, p.get("weather"))}
    ),
    "heavy-ground": _fixed(gettext_lazy("heavy ground")),
    "season": lambda p: gettext("season: %(season)s") % {"season": _low(SEASON, p.get("season"))},
    "ambush": lambda p: str(
        gettext_lazy("ambushed (§7.10.5)")
        if p.get("ambush") == "ambushed"
        else gettext_lazy("laid an ambush (§7.10.5)")
    ),
    "quality": lambda p: (
        gettext("quality: %(quality)s") % {"quality": _low(QUALITY, p.get("quality"))}
    ),
    "shattered": _fixed(gettext_lazy("in rout (Shattered)")),
    "battles-won": lambda p: (
        ngettext("%(n)d battle won", "%(n)d battles won", _n(p)) % {"n": _n(p)}
    ),
    "battles-lost": lambda p: (
        ngettext("%(n)d battle lost", "%(n)d battles lost", _n(p)) % {"n": _n(p)}
    ),
    "enemy-holdings-held": lambda p: (
        ngettext("%(n)d enemy holding held", "%(n)d enemy holdings held", _n(p)) % {"n": _n(p)}
    ),
    "own-holdings-lost": lambda p: (
        ngettext("%(n)d own holding lost", "%(n)d own holdings lost", _n(p)) % {"n": _n(p)}
    ),
    "enemy-capital-held": _fixed(gettext_lazy("holds the enemy capital")),
    "own-capital-lost": _fixed(gettext_lazy("own capital held by the enemy")),
    # the unit-orders method's tests (R10.2, R10.3) and the tactical engine's (§10.3)
    "unit-quality": _fixed(gettext_lazy("the unit's quality (FW core)")),
    "fanatic": _fixed(gettext_lazy("the unit is Fanatic")),
    "delivered-by-leader": _fixed(gettext_lazy("delivered by the leader")),
    "delivered-by-messenger": _fixed(gettext_lazy("delivered by a Messenger")),
    "different-race": _fixed(gettext_lazy("of another race than the deliverer")),
    "unfavourable-light": _fixed(gettext_lazy("unfavourable light")),
    "unit-disorganised": _fixed(gettext_lazy("the unit is disorganised")),
    "reactions": _fixed(gettext_lazy("the unit is subject to reactions")),
    "no-unit-leader": _fixed(gettext_lazy("the unit has no Leader (Capo)")),
    "good-omens": _fixed(gettext_lazy("good omens")),
    "bad-omens": _fixed(gettext_lazy("bad omens")),
    "promise-kept": _fixed(gettext_lazy("the leader's promise kept")),
    "promise-not-kept": _fixed(gettext_lazy("the leader's promise not yet kept")),
    "talismans": lambda p: (
        ngettext("%(n)d talisman working", "%(n)d talismans working", _n(p)) % {"n": _n(p)}
    ),
    "unit-routed": _fixed(gettext_lazy("a unit has routed")),
    "unit-destroyed": _fixed(gettext_lazy("a unit was destroyed")),
    "leader-lost": _fixed(gettext_lazy("the leader dead or fled")),
    "ambushed": _fixed(gettext_lazy("ambushed (§7.10.5)")),
    "general-retreat": lambda p: (
        gettext("General Retreat, hour %(hour)s (R7.9.12)") % {"hour": p.get("hour")}
    ),
    "general-cv": lambda p: str(
        gettext_lazy("the general's command value")
        if p.get("general")
        else gettext_lazy("no general")
    ),
    "mounted": _fixed(gettext_lazy("mounted")),
    # naval movement (§6.11)
    "rapids": _fixed(gettext_lazy("waterfalls or rapids (portage)")),
    "upstream": _fixed(gettext_lazy("upstream")),
    "bridge-ahead": _fixed(gettext_lazy("a bridge on the stretch")),
    "rafts-with-mounts": _fixed(gettext_lazy("rafts carrying mounts")),
    "downstream": _fixed(gettext_lazy("downstream")),
    "wind": lambda p: label(WIND, p.get("wind")),
    "reefs": _fixed(gettext_lazy("reefs, islands or atolls")),
    "no-ships": _fixed(gettext_lazy("no ships (minor craft only)")),
    # the tactical engine's Action − Opposition terms (§10.4)
    "charge": _fixed(gettext_lazy("charge")),
    "flank-attack": _fixed(gettext_lazy("flank attack")),
    "in-column": _fixed(gettext_lazy("in column")),
    "field-works": _fixed(gettext_lazy("field works (R7.8.4)")),
    "demoralised": _fixed(gettext_lazy("demoralised")),
    "range": _fixed(gettext_lazy("range")),
    "combat": _fixed(pgettext_lazy("profile", "Combat")),
    "enemy-combat": _fixed(gettext_lazy("the enemy's Combat")),
    "strength": _fixed(gettext_lazy("Strength")),
    "enemy-resistance": _fixed(gettext_lazy("the enemy's Resistance")),
    "shooting": _fixed(pgettext_lazy("profile", "Shooting")),
    "weapon-strength": _fixed(gettext_lazy("the weapon's Strength")),
    "willpower": _fixed(pgettext_lazy("profile", "Willpower")),
    "horse-terrain": _fixed(gettext_lazy("terrain for horse (§7.6)")),
    "river-crossing": _fixed(gettext_lazy("crossing the river (§7.6)")),
    "cover": _fixed(gettext_lazy("cover (§7.6)")),
    "battle-weather": _fixed(gettext_lazy("weather (R4.2)")),
    "stress": _fixed(gettext_lazy("stress and disorder")),
    "disorder": _fixed(gettext_lazy("disorganised or demoralised")),
    "opposition": lambda p: str(
        gettext_lazy("opposition (the enemy's advantage)")
        if p.get("cause") == "advantage"
        else gettext_lazy("opposition (saturation)")
    ),
}

FIGURE_FATE_ONE: Mapping[str, Any] = {  # one die of a wounded (R8.1) or deserter (R8.2) check
    "recovered": pgettext_lazy("one figure", "recovered"),
    "dead": pgettext_lazy("one figure", "dead"),
    "returned": pgettext_lazy("one figure", "returned"),
    "deserted": pgettext_lazy("one figure", "deserted"),
}
FORCE_TEST_RESULT: Mapping[str, Any] = {  # R5.2, as the ledger's outcome names it
    "ok": gettext_lazy("order received"),
    "defend": gettext_lazy("Defend"),
    "destroyed": gettext_lazy("complete disaster: the force is destroyed"),
}


def _force_test(v: Params) -> str:
    result = label({**FORCE_TEST_RESULT, **STATUS}, v.get("result"))
    if not v.get("status"):
        return result
    return gettext("%(result)s: now %(status)s") % {
        "result": result,
        "status": label(STATUS, v.get("status")),
    }


def _figures(kept: str, lost: str) -> Words:
    def words(v: Params) -> str:
        return ", ".join((FIGURES[kept](_n(v, kept)), FIGURES[lost](_n(v, lost))))

    return words


FIGURES: Mapping[str, Callable[[int], str]] = {  # figures of a check, by their fate
    "recovered": lambda n: ngettext("%(n)d recovered", "%(n)d recovered", n) % {"n": n},
    "dead": lambda n: ngettext("%(n)d dead", "%(n)d dead", n) % {"n": n},
    "returned": lambda n: ngettext("%(n)d returned", "%(n)d returned", n) % {"n": n},
    "deserted": lambda n: ngettext("%(n)d deserted", "%(n)d deserted", n) % {"n": n},
}


def _tokens(v: Params) -> str:
    n = _n(v)
    if not v.get("kind"):
        return ngettext("%(n)d token", "%(n)d tokens", n) % {"n": n}
    return ngettext("%(n)d %(kind)s token", "%(n)d %(kind)s tokens", n) % {
        "n": n,
        "kind": label(TOKEN_KIND, v.get("kind")),
    }


def _successes(one: str, many: str) -> Words:
    def words(v: Params) -> str:
        n, on, crit = _n(v), _n(v, "on"), _n(v, "crit")
        text = ngettext(one, many, n) % {"n": n, "on": on}
        if not crit:
            return text
        more = ngettext("%(n)d critical", "%(n)d criticals", crit) % {"n": crit}
        return f"{text}, {more}"

    return words


OUTCOME: Mapping[str, Words] = {
    "rolled": lambda v: gettext("rolled %(n)s") % {"n": number(v.get("n"))},
    "force-test": _force_test,
    "initiative": lambda v: gettext("initiative %(n)s") % {"n": number(v.get("n"))},
    "tie-reroll": lambda v: gettext("tie, rolled again: %(n)s") % {"n": number(v.get("n"))},
    "squares": lambda v: ngettext("%(n)d square", "%(n)d squares", _n(v)) % {"n": _n(v)},
    "weather": lambda v: label(WEATHER, v.get("weather")),
    "wounded": _figures("recovered", "dead"),
    "deserters": _figures("returned", "deserted"),
    "passed": _fixed(gettext_lazy("passed")),
    "disaster": _fixed(gettext_lazy("complete disaster")),
    "tokens": _tokens,
    "tokens-half": lambda v: (
        ngettext("%(n)d token (half, rounded up)", "%(n)d tokens (half, rounded up)", _n(v))
        % {"n": _n(v)}
    ),
    "snow": lambda v: ngettext("%(n)d snow level", "%(n)d snow levels", _n(v)) % {"n": _n(v)},
    "event": lambda v: label(RANDOM_EVENT, v.get("event")),
    "struck": lambda v: label(STRUCK, v.get("target")),
    "climate": lambda v: label(CLIMATE, v.get("climate")),
    "season": lambda v: label(SEASON, v.get("season")),
    "holding-feature": lambda v: label(HOLDING_FEATURE, v.get("feature")),
    "relic": lambda v: label(RELIC, v.get("relic")),
    "unit-order": lambda v: label(UNIT_ORDER, v.get("result")),
    "command-test": lambda v: label(COMMAND_TEST, v.get("result")),
    "wind": lambda v: label(WIND, v.get("wind")),
    "naval-squares": lambda v: (
        ngettext("%(n)d square by the table", "%(n)d squares by the table", _n(v)) % {"n": _n(v)}
    ),
    "figures-lost": lambda v: (
        ngettext("%(n)d figure lost", "%(n)d figures lost", _n(v)) % {"n": _n(v)}
    ),
    "scenery": lambda v: label(SCENERY_ROW, v.get("feature")),
    "hits": _successes("%(n)d hit on %(on)d+", "%(n)d hits on %(on)d+"),
    "wounds": _successes("%(n)d wound on %(on)d+", "%(n)d wounds on %(on)d+"),
    "successes": _successes("%(n)d success on %(on)d+", "%(n)d successes on %(on)d+"),
}
HIDDEN = "hidden"  # a reason or outcome the reader's fog of war hides (campaign.fog.lens)


def roll_reason(reason: str, params: Params | None = None) -> str:
    """A modifier's reason (its code and params) in the active language."""
    if reason == HIDDEN:
        return gettext("(hidden)")
    words = REASON.get(reason)
    return words(params or {}) if words is not None else reason


def roll_outcome(outcome: str, values: Params | None = None) -> str:
    """A roll's outcome (its code and values) in the active language; "" for none."""
    if outcome == HIDDEN:
        return gettext("(hidden)")
    words = OUTCOME.get(outcome)
    return words(values or {}) if words is not None else outcome


def roll_detail(detail: Any) -> str:
    """One die of a figure check ({"die": 4, "total": 5, "fate": "recovered"}) in words."""
    if not isinstance(detail, Mapping):
        return str(detail)
    die = number(detail.get("die"))
    word = label(FIGURE_FATE_ONE, detail.get("fate"))
    if detail.get("natural"):
        return gettext("%(die)s: %(fate)s (a natural %(die)s)") % {"die": die, "fate": word}
    if "total" in detail:
        return gettext("%(die)s, modified %(total)s: %(fate)s") % {
            "die": die,
            "total": number(detail["total"]),
            "fate": word,
        }
    return gettext("%(die)s: %(fate)s") % {"die": die, "fate": word}


def roll_modifiers(entry: Mapping[str, Any]) -> list[tuple[str, int]]:
    """A ledger entry's modifiers: (reason in words, value)."""
    return [
        (roll_reason(str(m.get("reason", "")), m.get("params")), int(m.get("value", 0)))
        for m in entry.get("modifiers") or ()
    ]


def roll_entry_outcome(entry: Mapping[str, Any]) -> str:
    return roll_outcome(str(entry.get("outcome", "")), entry.get("values"))


def roll_details(entry: Mapping[str, Any]) -> list[str]:
    return [roll_detail(d) for d in entry.get("details") or ()]
