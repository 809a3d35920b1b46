"""One readable sentence for each event of a turn, as stored (`rules` events' `to_dict`) and
scrubbed by the fog-of-war lens: the turn report, the battle report and the digest e-mail
all tell a turn in these words. Each renderer is registered for the event types it reads
(`@renders`); an event type without one is told generically, with its fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from campaign.text.labels import SPECIALITY, STATUS, WTF_TRIGGER, in_sentence, label
from campaign.text.names import Names

# phrases that only fit inside the sentences below (the names of the values are in labels)
WEATHER_PHRASE = {
    "fine": gettext_lazy("fine"),
    "light-rain": gettext_lazy("light rain"),
    "heavy-rain": gettext_lazy("heavy rain"),
    "storm": gettext_lazy("a storm"),
}
OUTCOME_PHRASE = {
    "won": gettext_lazy("won"),
    "stalemate": gettext_lazy("reached a stalemate"),
    "lost": gettext_lazy("lost"),
}
FORCE_TEST_OUTCOMES = {
    "ok": gettext_lazy("the order was given"),
    "defend": gettext_lazy("the force falls back to Defend"),
    "destroyed": gettext_lazy("complete disaster"),
}


def square(value: Any) -> str:
    """A square as "(x, y)"; a square the lens removed reads as unseen."""
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"({value[0]}, {value[1]})"
    return _("an unseen square")


def signed(value: int) -> str:
    """A modifier as the ledger prints it: +2, −1 (a true minus sign)."""
    return f"+{value}" if value >= 0 else f"−{abs(value)}"


EventData = Mapping[str, Any]  # an event as stored (`Event.to_dict`), maybe scrubbed
Renderer = Callable[[EventData, Names], str]
RENDERERS: dict[str, Renderer] = {}


def renders(*kinds: str) -> Callable[[Renderer], Renderer]:
    def register(fn: Renderer) -> Renderer:
        for kind in kinds:
            RENDERERS[kind] = fn
        return fn

    return register


@renders("WeatherRolled", "WeatherShifted")
def _weather(e: EventData, n: Names) -> str:
    values = {"weather": label(WEATHER_PHRASE, e.get("weather")), "total": e.get("total")}
    if "weather_to" in e:  # R4.4.3: a Wizard's spell on his own force's march
        was, now = (label(WEATHER_PHRASE, e.get(k)) for k in ("weather_from", "weather_to"))
        text = _("The Wizard of %(force)s turns its weather from %(was)s to %(now)s (R4.4.3).")
        return text % {"force": n.force(e.get("force_id")), "was": was, "now": now}
    if e.get("force_id"):
        values["force"] = n.force(e["force_id"])
        return _("The weather for %(force)s is %(weather)s (total %(total)s).") % values
    return _("The weather over the whole map is %(weather)s (total %(total)s).") % values


@renders("SnowFell")
def _snow(e: EventData, n: Names) -> str:
    values = {"levels": e.get("levels"), "total": e.get("total_levels")}
    if e.get("mountains_only"):
        return (
            ngettext(
                "Snow fell on the mountains: %(levels)s new snow level, %(total)s in all.",
                "Snow fell on the mountains: %(levels)s new snow levels, %(total)s in all.",
                int(e.get("levels") or 0),
            )
            % values
        )
    return (
        ngettext(
            "Snow fell: %(levels)s new snow level, %(total)s in all.",
            "Snow fell: %(levels)s new snow levels, %(total)s in all.",
            int(e.get("levels") or 0),
        )
        % values
    )


@renders("ForceTested")
def _force_tested(e: EventData, n: Names) -> str:
    values = {
        "force": n.force(e.get("force_id")),
        "requested": label(STATUS, e.get("requested")),
        "total": e.get("total"),
        "outcome": label({**FORCE_TEST_OUTCOMES, **STATUS}, e.get("outcome")),
        "old": label(STATUS, e.get("old_status")),
        "new": label(STATUS, e.get("new_status")),
    }
    if e.get("new_status") is None:
        return (
            _(
                "%(force)s took a force test for the %(requested)s order: total %(total)s, "
                "%(outcome)s; the force is destroyed."
            )
            % values
        )
    return (
        _(
            "%(force)s took a force test for the %(requested)s order: total %(total)s, "
            "%(outcome)s; its status goes from %(old)s to %(new)s."
        )
        % values
    )


@renders("InitiativeDetermined")
def _initiative(e: EventData, n: Names) -> str:
    values = {
        "method": _("by force") if e.get("method") == "by-force" else _("by army"),
        "order": n.forces(e.get("order") or ()),
    }
    if n.everything:
        return _(
            "Initiative was decided %(method)s; the forces moved in this order: %(order)s."
        ) % (values)
    return (
        _(
            "Initiative was decided %(method)s; your side saw these forces move in this order: "
            "%(order)s."
        )
        % values
    )


@renders("ArmyInitiativeChosen")
def _army_initiative(e: EventData, n: Names) -> str:
    values = {"player": n.player(e.get("player_id"))}
    if e.get("choice") == "last":
        return (
            _(
                "%(player)s won the initiative by army and made the others move all their "
                "forces first (R6.1.2)."
            )
            % values
        )
    return _("%(player)s won the initiative by army and moved all his forces first (R6.1.2).") % (
        values
    )


@renders("MovementRolled")
def _movement_rolled(e: EventData, n: Names) -> str:
    values = {"force": n.force(e.get("force_id")), "allowance": e.get("allowance")}
    if e.get("total") is None:
        return (
            ngettext(
                "%(force)s has a movement allowance of %(allowance)s square.",
                "%(force)s has a movement allowance of %(allowance)s squares.",
                int(e.get("allowance") or 0),
            )
            % values
        )
    values["total"] = e["total"]
    return (
        ngettext(
            "%(force)s rolled a movement total of %(total)s: it may move up to %(allowance)s "
            "square.",
            "%(force)s rolled a movement total of %(total)s: it may move up to %(allowance)s "
            "squares.",
            int(e.get("allowance") or 0),
        )
        % values
    )


@renders("ForceHeldByStorm")
def _held_by_storm(e: EventData, n: Names) -> str:
    return _("%(force)s was held in place by the storm.") % {"force": n.force(e.get("force_id"))}


@renders("ForceCountermarched")
def _countermarched(e: EventData, n: Names) -> str:
    return _(
        "%(force)s countermarched from %(frm)s to %(to)s; its status goes from %(old)s to %(new)s."
    ) % {
        "force": n.force(e.get("force_id")),
        "frm": square(e.get("frm")),
        "to": square(e.get("to")),
        "old": label(STATUS, e.get("old_status")),
        "new": label(STATUS, e.get("new_status")),
    }


@renders("ContactMade")
def _contact(e: EventData, n: Names) -> str:
    return _("%(force)s made contact with %(enemies)s at %(square)s: %(battle)s.") % {
        "force": n.force(e.get("force_id")),
        "enemies": n.forces(e.get("enemy_ids") or ()),
        "square": square(e.get("square")),
        "battle": n.battle(e.get("battle_id")),
    }


@renders("ShatteredForceCollapsed")
def _collapsed(e: EventData, n: Names) -> str:
    return _(
        "%(force)s, shattered, collapsed when %(by)s reached it at %(square)s, and was removed "
        "from play."
    ) % {
        "force": n.force(e.get("force_id")),
        "by": n.force(e.get("by_force_id")),
        "square": square(e.get("square")),
    }


@renders("HoldingCaptured")
def _captured(e: EventData, n: Names) -> str:
    values = {
        "holding": n.holding(e.get("holding_id")),
        "by": n.player(e.get("by_player")),
        "from": n.player(e.get("from_player")),
    }
    if e.get("force_id"):
        values["force"] = n.force(e["force_id"])
        if e.get("capital"):
            return (
                _("%(force)s captured the capital %(holding)s: %(by)s takes it from %(from)s.")
                % values
            )
        return _("%(force)s captured %(holding)s: %(by)s takes it from %(from)s.") % values
    if e.get("capital"):
        return _("%(by)s captured the capital %(holding)s from %(from)s.") % values
    return _("%(by)s captured %(holding)s from %(from)s.") % values


@renders("HoldingSacked")
def _sacked(e: EventData, n: Names) -> str:
    return _("%(force)s sacked %(holding)s and carries it away as loot.") % {
        "force": n.force(e.get("force_id")),
        "holding": n.holding(e.get("holding_id")),
    }


@renders("OrdersMissing")
def _orders_missing(e: EventData, n: Names) -> str:
    return _("%(force)s had no orders: it kept its status and did not move.") % {
        "force": n.force(e.get("force_id"))
    }


@renders("BattleResolved")
def _battle_resolved(e: EventData, n: Names) -> str:
    bid = e.get("battle_id")
    sides = n.battle_sides.get(bid, {}) if bid is not None else {}
    results = ", ".join(
        _("%(side)s %(outcome)s")
        % {"side": sides.get(key, key), "outcome": label(OUTCOME_PHRASE, outcome)}
        for key, outcome in sorted((e.get("outcomes") or {}).items())
    )
    return _("%(battle)s at %(square)s was fought: %(results)s.") % {
        "battle": n.battle(bid),
        "square": square(e.get("square")),
        "results": results or "—",
    }


@renders("WoundedChecked")
def _wounded(e: EventData, n: Names) -> str:
    return ngettext(
        "%(unit)s of %(force)s checked %(checked)s wounded figure: %(recovered)s recovered "
        "and %(dead)s died.",
        "%(unit)s of %(force)s checked %(checked)s wounded figures: %(recovered)s recovered "
        "and %(dead)s died.",
        int(e.get("checked") or 0),
    ) % {
        "unit": n.member(e.get("unit_id")),
        "force": n.force(e.get("force_id")),
        "checked": e.get("checked"),
        "recovered": e.get("recovered"),
        "dead": e.get("dead"),
    }


@renders("DesertersChecked")
def _deserters(e: EventData, n: Names) -> str:
    values = {
        "unit": n.member(e.get("unit_id")),
        "force": n.force(e.get("force_id")),
        "checked": e.get("checked"),
        "returned": e.get("returned"),
        "deserted": e.get("deserted"),
    }
    if e.get("automatic"):
        return (
            ngettext(
                "%(deserted)s mercenary figure of %(unit)s of %(force)s deserted: their side "
                "lost the battle.",
                "%(deserted)s mercenary figures of %(unit)s of %(force)s deserted: their side "
                "lost the battle.",
                int(e.get("deserted") or 0),
            )
            % values
        )
    return (
        ngettext(
            "%(unit)s of %(force)s checked %(checked)s figure for desertion: %(returned)s "
            "returned and %(deserted)s deserted.",
            "%(unit)s of %(force)s checked %(checked)s figures for desertion: %(returned)s "
            "returned and %(deserted)s deserted.",
            int(e.get("checked") or 0),
        )
        % values
    )


@renders("ReactionSuffered")
def _reaction(e: EventData, n: Names) -> str:
    return _("%(force)s suffered a reaction: its status goes from %(old)s to %(new)s.") % {
        "force": n.force(e.get("force_id")),
        "old": label(STATUS, e.get("old_status")),
        "new": label(STATUS, e.get("new_status")),
    }


@renders("LootLost")
def _loot_lost(e: EventData, n: Names) -> str:
    return _("%(force)s lost the loot of %(holding)s.") % {
        "force": n.force(e.get("force_id")),
        "holding": n.holding(e.get("holding_id")),
    }


@renders("LeaderPromoted")
def _promoted(e: EventData, n: Names) -> str:
    """R8.6: source "unit:<id>" (a figure of that unit), "individual:<kind>" or "ranks"."""
    values = {"general": n.member(e.get("general_id")), "force": n.force(e.get("force_id"))}
    kind, _sep, unit_id = str(e.get("source") or "").partition(":")
    if kind == "unit" and unit_id:
        values["unit"] = n.member(unit_id)
        return _("A figure of %(unit)s was promoted from the ranks to lead %(force)s.") % values
    if kind == "individual":
        return _("%(general)s was promoted to lead %(force)s.") % values
    return _("%(general)s was promoted from the ranks to lead %(force)s.") % values


@renders("WorksLost")
def _works_lost(e: EventData, n: Names) -> str:
    return _("%(force)s lost its field works.") % {"force": n.force(e.get("force_id"))}


@renders("WillToFightTested")
def _will_to_fight(e: EventData, n: Names) -> str:
    values = {
        "player": n.player(e.get("player_id")),
        "total": e.get("total"),
        "triggers": ", ".join(label(WTF_TRIGGER, t) for t in e.get("triggers") or ()) or "—",
    }
    if e.get("passed"):
        return (
            _(
                "%(player)s tested its will to fight and passed (total %(total)s; because of: "
                "%(triggers)s)."
            )
            % values
        )
    return (
        _(
            "%(player)s tested its will to fight and failed (total %(total)s; because of: "
            "%(triggers)s)."
        )
        % values
    )


@renders("PlayerSurrendered")
def _surrendered(e: EventData, n: Names) -> str:
    return _("%(player)s surrendered.") % {"player": n.player(e.get("player_id"))}


@renders("ReinforcementsAvailable")
def _reinforcements_available(e: EventData, n: Names) -> str:
    return _(
        "%(player)s received %(points)s reinforcement points; %(bank)s are now in the bank."
    ) % {"player": n.player(e.get("player_id")), "points": e.get("points"), "bank": e.get("bank")}


@renders("ReinforcementsArrived")
def _reinforcements_arrived(e: EventData, n: Names) -> str:
    what = [str(x) for x in (*(e.get("units") or ()), *(e.get("people") or ())) if x]
    values = {
        "player": n.player(e.get("player_id")),
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "what": ", ".join(what) or _("reinforcements"),
        "where": n.holding(e["capital_id"]) if e.get("capital_id") else _("the capital"),
    }
    if e.get("joined"):
        text = _(
            "%(what)s (%(points)s points) arrived for %(player)s in %(where)s and joined %(force)s."
        )
        return text % values
    return (
        _(
            "%(what)s (%(points)s points) arrived for %(player)s in %(where)s and formed a new "
            "force, %(force)s."
        )
        % values
    )


@renders("RegroupPooled")
def _regroup(e: EventData, n: Names) -> str:
    return _(
        "%(force)s pooled %(points)s points of recovered %(speciality)s figures (%(pool)s in "
        "the pool)."
    ) % {
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "speciality": in_sentence(label(SPECIALITY, e.get("speciality"))),
        "pool": e.get("pool"),
    }


@renders("AttritionSuffered")
def _attrition(e: EventData, n: Names) -> str:
    return ngettext(
        "%(unit)s of %(force)s suffered attrition: %(lost)s figure lost, %(recovered)s "
        "recovered and %(deserted)s deserted.",
        "%(unit)s of %(force)s suffered attrition: %(lost)s figures lost, %(recovered)s "
        "recovered and %(deserted)s deserted.",
        int(e.get("lost") or 0),
    ) % {
        "unit": n.member(e.get("unit_id")),
        "force": n.force(e.get("force_id")),
        "lost": e.get("lost"),
        "recovered": e.get("recovered"),
        "deserted": e.get("deserted"),
    }


def _generic(e: EventData, n: Names) -> str:
    details = "; ".join(
        f"{k.replace('_', ' ')}: {v}"
        for k, v in e.items()
        if k not in ("type", "rule") and v not in (None, "", [], {})
    )
    return _("Event %(type)s (%(details)s).") % {
        "type": e.get("type", "?"),
        "details": details or "—",
    }


def event_sentence(e: Mapping[str, Any], names: Names) -> str:
    """One readable sentence for a (scrubbed) event, starting with a capital (a name in the
    middle of a sentence, "battle 1 of turn 3", may start one)."""
    text = RENDERERS.get(str(e.get("type")), _generic)(e, names)
    return text[:1].upper() + text[1:]


# the renderers kept in their own modules register themselves in RENDERERS on import
from campaign.text import sentences_events, sentences_time  # noqa: E402, F401
