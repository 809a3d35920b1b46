"""Sentences for the events that carry codes (`rules.event_codes`): forces removed or moved
for a reason, orders and reinforcements refused, the bank, random events and convoys and
what followed them (characters, command values, tokens, magic points, epidemics and
catastrophes). Registered in `campaign.text.sentences`' table, which imports this module
last. Every code is worded through `campaign.text.event_words`."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaign.text import event_words as W
from campaign.text.labels import HOLDING_FEATURE, INDIVIDUAL_KIND, STATUS, label
from campaign.text.names import Names, unnamed_general
from campaign.text.sentences import EventData, renders, signed, square


@renders("ForceDestroyed")
def _force_destroyed(e: EventData, n: Names) -> str:
    return _("%(force)s of %(player)s was removed from play: %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "player": n.player(e.get("owner")),
        "reason": W.word(W.FORCE_DESTROYED, e.get("reason")),
    }


@renders("ForceMoved")
def _force_moved(e: EventData, n: Names) -> str:
    path = e.get("path") or []
    values = {"force": n.force(e.get("force_id"))}
    if not path:
        return _("%(force)s moved out of sight.") % values
    values["to"] = square(path[-1])
    values["path"] = ", ".join(square(sq) for sq in path)
    reason = e.get("reason") or "movement"
    if reason != "movement":
        values["reason"] = W.word(W.FORCE_MOVED, reason)
        return _("%(force)s moved to %(to)s (%(reason)s).") % values
    if len(path) == 1:
        return _("%(force)s moved to %(to)s.") % values
    return _("%(force)s moved to %(to)s, by way of %(path)s.") % values


@renders("ForceStopped")
def _force_stopped(e: EventData, n: Names) -> str:
    return _("%(force)s stopped at %(square)s: %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "square": square(e.get("square")),
        "reason": W.word(W.FORCE_STOPPED, e.get("reason")),
    }


@renders("OrderRefused")
def _order_refused(e: EventData, n: Names) -> str:
    return _("An order of %(force)s was refused (%(rule)s): %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "rule": e.get("rule") or "—",
        "reason": W.word(W.ORDER_REFUSED, e.get("reason")),
    }


@renders("ReinforcementsRefused")
def _reinforcements_refused(e: EventData, n: Names) -> str:
    reason = W.word(W.REINFORCEMENTS_REFUSED, e.get("reason")) % {
        "force": n.force(e.get("force_id")),
        "cost": e.get("cost"),
        "bank": e.get("bank"),
        "units": ", ".join(str(u) for u in e.get("units") or ()),
        "status": label(STATUS, e.get("status") or None),
    }
    values: dict[str, Any] = {"player": n.player(e.get("player_id")), "reason": reason}
    if e.get("request") is None:
        return _("The reinforcements of %(player)s could not be delivered: %(reason)s.") % values
    values["request"] = int(e["request"]) + 1
    return (
        _("Reinforcement request %(request)s of %(player)s could not be carried out: %(reason)s.")
        % values
    )


@renders("BankChanged")
def _bank(e: EventData, n: Names) -> str:
    change = int(e.get("change") or 0)
    values = {
        "player": n.player(e.get("player_id")),
        "change": signed(change),
        "bank": e.get("bank"),
        "reason": W.word(W.BANK_CHANGED, e.get("reason")),
    }
    if change == 0:
        return _("The reinforcement bank of %(player)s, empty, lost nothing (%(reason)s).") % values
    return (
        _(
            "The reinforcement bank of %(player)s changed by %(change)s to %(bank)s points "
            "(%(reason)s)."
        )
        % values
    )


@renders("ForcePointsLost")
def _points_lost(e: EventData, n: Names) -> str:
    figures = int(e.get("figures") or 0)
    text = ngettext(
        "%(force)s lost %(points)s points (%(figures)s figure) to %(reason)s.",
        "%(force)s lost %(points)s points (%(figures)s figures) to %(reason)s.",
        figures,
    )
    return text % {
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "figures": figures,
        "reason": W.word(W.FORCE_POINTS_LOST, e.get("reason")),
    }


@renders("CaptureBlocked")
def _capture_blocked(e: EventData, n: Names) -> str:
    return _("%(force)s could not capture %(holding)s: %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "holding": n.holding(e.get("holding_id")),
        "reason": W.word(W.CAPTURE_BLOCKED, e.get("reason")),
    }


@renders("IndividualLost")
def _individual_lost(e: EventData, n: Names) -> str:
    values = {"individual": n.member(e.get("individual_id")), "force": n.force(e.get("force_id"))}
    if e.get("fate") == "deserted":
        return _("%(individual)s of %(force)s deserted.") % values
    return _("%(individual)s of %(force)s was killed.") % values


@renders("CampaignEnded")
def _ended(e: EventData, n: Names) -> str:
    values = {"reason": W.word(W.CAMPAIGN_ENDED, e.get("reason"))}
    if e.get("winner"):
        values["winner"] = n.sides.get(e["winner"], n.player(e["winner"]))
        return _("The campaign has ended (%(reason)s): %(winner)s won.") % values
    return _("The campaign has ended (%(reason)s).") % values


@renders("ArtefactsCaptured")
def _artefacts(e: EventData, n: Names) -> str:
    return _("%(by)s captured the artefacts (%(feature)s) of %(holding)s from %(from)s.") % {
        "by": n.player(e.get("by_player")),
        "feature": label(HOLDING_FEATURE, e.get("feature")),
        "holding": n.holding(e.get("holding_id")),
        "from": n.player(e.get("from_player")),
    }


def _table(e: EventData) -> str:
    if e.get("day") is not None and e.get("role"):
        return _("the events table of %(role)s for day %(day)s") % {
            "role": W.word(W.ROLES, e.get("role")),
            "day": e.get("day"),
        }
    return W.word(W.EVENT_TABLES, e.get("table"))


def outcome_clause(e: EventData) -> str:
    """What kept a random event (or a convoy's effect) from happening, if anything, and the
    player's choice to keep a "roll again" result."""
    outcome, count = e.get("outcome") or "done", int(e.get("count") or 0)
    if outcome == "no-room":
        text = ngettext(
            "no force had room for another character (%(kind)s, R2.5.5): %(count)s lost",
            "no force had room for more characters (%(kind)s, R2.5.5): %(count)s lost",
            count,
        )
        parts = [text % {"kind": label(INDIVIDUAL_KIND, e.get("kind")), "count": count}]
    elif outcome == "nobody":
        what = W.tokens(e.get("kind"), count)
        parts = [_("nobody could receive %(what)s: lost") % {"what": what}]
    else:
        parts = [W.word(W.EVENT_OUTCOMES, outcome)]
    if e.get("kept"):
        parts.append(_("he keeps this result and does not roll again (his choice)"))
    return "; ".join(p for p in parts if p)


@renders("RandomEvent")
def _random_event(e: EventData, n: Names) -> str:
    values = {
        "player": n.player(e.get("player_id")),
        "table": _table(e),
        "event": W.word(W.RANDOM_EVENTS, e.get("event")),
        "total": e.get("total"),
        "outcome": outcome_clause(e),
    }
    if values["outcome"]:
        return (
            _("Random event for %(player)s, %(table)s, roll %(total)s: %(event)s — %(outcome)s.")
            % values
        )
    return _("Random event for %(player)s, %(table)s, roll %(total)s: %(event)s.") % values


@renders("SupplyConvoy")
def _convoy(e: EventData, n: Names) -> str:
    values = {"player": n.player(e.get("player_id")), "day": e.get("day")}
    if e.get("event", "none") == "none":
        return (
            _("Day %(day)s: a supply convoy reaches %(player)s (R9.3.9); it brings nothing more.")
            % values
        )
    values["event"] = W.word(W.RANDOM_EVENTS, e.get("event"))
    values["outcome"] = outcome_clause(e)
    if values["outcome"]:
        return (
            _("Day %(day)s: a supply convoy reaches %(player)s (R9.3.9): %(event)s — %(outcome)s.")
            % values
        )
    return _("Day %(day)s: a supply convoy reaches %(player)s (R9.3.9): %(event)s.") % values


@renders("IndividualJoined")
def _individual_joined(e: EventData, n: Names) -> str:
    values = {
        "individual": n.member(e.get("individual_id")),
        "kind": label(INDIVIDUAL_KIND, e.get("kind")),
        "force": n.force(e.get("force_id")),
        "points": e.get("magic_points"),
    }
    if values["individual"] == values["kind"]:  # no name of his own (an event's gift)
        if e.get("magic_points"):
            text = _(
                "%(force)s was joined by a new character, %(kind)s, with %(points)s magic points."
            )
            return text % values
        return _("%(force)s was joined by a new character, %(kind)s.") % values
    if e.get("magic_points"):
        return (
            _("%(individual)s (%(kind)s) joined %(force)s, with %(points)s magic points.") % values
        )
    return _("%(individual)s (%(kind)s) joined %(force)s.") % values


@renders("LeaderCvChanged")
def _cv_changed(e: EventData, n: Names) -> str:
    general, force = n.member(e.get("general_id")), n.force(e.get("force_id"))
    values = {"general": general, "force": force, "old": e.get("old_cv"), "new": e.get("new_cv")}
    if general == unnamed_general(force):  # "the general of <force>": said once
        if e.get("old_cv") == e.get("new_cv"):
            return _("%(general)s keeps command value %(new)s.") % values
        return _("%(general)s now has command value %(new)s (it was %(old)s).") % values
    if e.get("old_cv") == e.get("new_cv"):
        return _("The command value of %(general)s, of %(force)s, stays at %(new)s.") % values
    return (
        _("The command value of %(general)s, of %(force)s, changed from %(old)s to %(new)s.")
        % values
    )


@renders("TokensGained")
def _tokens_gained(e: EventData, n: Names) -> str:
    return _("%(force)s gained %(what)s.") % {
        "force": n.force(e.get("force_id")),
        "what": W.tokens(e.get("kind"), int(e.get("count") or 0)),
    }


@renders("MagicPointsGained")
def _magic_points(e: EventData, n: Names) -> str:
    return _("%(wizard)s, of %(force)s, received %(points)s magic points.") % {
        "wizard": n.member(e.get("individual_id")),
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
    }


@renders("EpidemicStruck")
def _epidemic(e: EventData, n: Names) -> str:
    return _("An epidemic struck %(holding)s, a holding of %(player)s.") % {
        "holding": n.holding(e.get("holding_id")),
        "player": n.player(e.get("player_id")),
    }


@renders("CatastropheStruck")
def _catastrophe(e: EventData, n: Names) -> str:
    return _(
        "A catastrophe struck square %(square)s, where %(player)s had forces or a holding."
    ) % {
        "square": square(e.get("square")),
        "player": n.player(e.get("player_id")),
    }
