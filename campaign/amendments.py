"""An amendment's consequences as people read them: the changes of a branch
(`campaign.turns.branch_diff`, JSON data) filtered for one side under fog of war, and told
in sentences, for the amendment's page and the players' notices; and the sentences telling
the GM who will read what he corrects and why (`campaign.fog.amendment_readers` decides it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from campaign.models import Amendment, Campaign, Side
from campaign.text import labels


def diff_for_side(
    diff: Sequence[dict[str, Any]], *, players: set[str], side: str
) -> list[dict[str, Any]]:
    """The changes a side's player may read under fog of war: his side's forces and
    holdings, and the battles his side fought in either line."""

    def ours(pair: dict[str, Any]) -> bool:
        return any(v is not None and v.get("owner") in players for v in (pair["old"], pair["new"]))

    def fought(pair: dict[str, Any]) -> bool:
        return any(v is not None and side in v.get("sides", []) for v in (pair["old"], pair["new"]))

    return [
        {
            **t,
            "forces": [p for p in t["forces"] if ours(p)],
            "holdings": [p for p in t["holdings"] if ours(p)],
            "battles": [p for p in t["battles"] if fought(p)],
        }
        for t in diff
    ]


def diff_empty(diff: Sequence[dict[str, Any]]) -> bool:
    return not any(t["forces"] or t["holdings"] or t["battles"] or t["ending"] for t in diff)


def _square(v: Sequence[int]) -> str:
    return f"({v[0]}, {v[1]})" if len(v) == 2 else "?"


def _force_state(v: Mapping[str, Any]) -> str:
    return _("at %(square)s, %(status)s, %(figures)s figures") % {
        "square": _square(v["square"]),
        "status": labels.label(labels.STATUS, v["status"]),
        "figures": v["figures"],
    }


def _holding_state(v: Mapping[str, Any], players: Mapping[str, str]) -> str:
    parts = [_("held by %(player)s") % {"player": players.get(v["owner"], v["owner"])}]
    if v.get("sacked"):
        parts.append(_("sacked"))
    if v.get("destroyed"):
        parts.append(_("destroyed"))
    return ", ".join(parts)


def _outcome(v: Mapping[str, Any], players: Mapping[str, str]) -> str:
    outcome = v.get("outcome") or {}
    for i, key in enumerate(("a", "b")):
        if outcome.get(key) == "won":
            names = (v.get("players") or [[], []])[i] if i < len(v.get("players") or []) else []
            who = ", ".join(players.get(p, p) for p in names) or key
            return _("won by %(who)s") % {"who": who}
    return _("a stalemate") if outcome else _("fought")


def _battle_line(pair: Mapping[str, Any], players: Mapping[str, str]) -> str:
    name = labels.battle_number(pair["battle"])
    old, new = pair["old"], pair["new"]
    if old is None:
        line = _("Battle %(battle)s is now fought at %(square)s: %(outcome)s.") % {
            "battle": name,
            "square": _square(new["square"]),
            "outcome": _outcome(new, players),
        }
    elif new is None:
        line = _("Battle %(battle)s at %(square)s is no longer fought.") % {
            "battle": name,
            "square": _square(old["square"]),
        }
    elif new.get("how") == "amended" and _outcome(new, players) == _outcome(old, players):
        line = _("Battle %(battle)s: its result is corrected; the outcome stays %(outcome)s.") % {
            "battle": name,
            "outcome": _outcome(new, players),
        }
    elif new.get("how") == "amended":
        line = _("Battle %(battle)s: its result is corrected: %(new)s instead of %(old)s.") % {
            "battle": name,
            "new": _outcome(new, players),
            "old": _outcome(old, players),
        }
    else:
        line = _("Battle %(battle)s: %(new)s instead of %(old)s.") % {
            "battle": name,
            "new": _outcome(new, players),
            "old": _outcome(old, players),
        }
    if new is not None and new.get("how") == "engine":
        line += " " + _("Its result is the tactical engine's (no result fits it any more).")
    return line


def diff_lines(
    diff: Sequence[dict[str, Any]], players: Mapping[str, str]
) -> list[tuple[int, list[str]]]:
    """Each turn with changes and its sentences. `players`: player key → name."""
    out = []
    for t in diff:
        lines = [_battle_line(p, players) for p in t["battles"]]
        for p in t["forces"]:
            old, new = p["old"], p["new"]
            name = (new or old)["name"]
            if new is None:
                lines.append(_("%(force)s is no longer in play.") % {"force": name})
            elif old is None:
                lines.append(
                    _("%(force)s is now in play, %(state)s.")
                    % {"force": name, "state": _force_state(new)}
                )
            else:
                lines.append(
                    _("%(force)s: now %(new)s; it was %(old)s.")
                    % {"force": name, "new": _force_state(new), "old": _force_state(old)}
                )
        for p in t["holdings"]:
            old, new = p["old"], p["new"]
            name = (new or old)["name"]
            lines.append(
                _("%(holding)s: now %(new)s; it was %(old)s.")
                % {
                    "holding": name,
                    "new": _holding_state(new, players) if new else "—",
                    "old": _holding_state(old, players) if old else "—",
                }
            )
        if t["ending"]:
            ended, winner = t["ending"]["new"]
            lines.append(
                _("The campaign now ends: %(how)s.") % {"how": ended}
                if ended
                else _("The campaign no longer ends on this turn.")
            )
            if winner:
                lines.append(_("Winner: %(who)s.") % {"who": players.get(winner, winner)})
        if lines:
            out.append((t["turn"], lines))
    return out


def amendment_title(a: Amendment, players: Mapping[str, str] | None = None) -> str:
    """What the amendment corrects, in a few words (`players`: key → name)."""
    if a.kind == Amendment.Kind.RESULT:
        return _("The result of battle %(battle)s") % {"battle": labels.battle_number(a.target)}
    if a.kind == Amendment.Kind.ORDERS:
        return _("The orders of %(player)s for turn %(turn)s") % {
            "player": (players or {}).get(a.target, a.target),
            "turn": a.turn_number,
        }
    if a.kind == Amendment.Kind.OPTIONS:
        return _("The campaign options in force on turn %(turn)s") % {"turn": a.turn_number}
    return _("Back to the start of turn %(turn)s") % {"turn": a.turn_number}


def _and(items: Sequence[str]) -> str:
    return get_text_list(list(items), _("and"))


def _side_players(campaign: Campaign, sides: Sequence[str] | None, pattern: str) -> list[str]:
    """Each of `sides` (None: every side) named with its players by `pattern` (%(side)s,
    %(players)s), in the sides' order; a side with no player by its name alone."""
    out = []
    for side in Side.objects.filter(campaign=campaign).prefetch_related("players"):
        if sides is None or side.key in sides:
            players = _and([p.name for p in side.players.all()])
            out.append(pattern % {"side": side.name, "players": players} if players else side.name)
    return out


def _open_to_all(campaign: Campaign) -> str:
    if campaign.ended:
        return _(
            "The campaign has ended: every player and observer reads what you correct and why."
        )
    if not campaign.fog_of_war:
        return _("Fog of war is off: every player and observer reads what you correct and why.")
    return ""


def readers_of_result(campaign: Campaign, sides: Sequence[str]) -> str:
    """For the GM amending a battle's result: who will read what he corrects and why."""
    if everyone := _open_to_all(campaign):
        return everyone
    who = _and(_side_players(campaign, sides, _("%(side)s (%(players)s)")))
    return _(
        "The players who saw this battle, %(who)s, read what you correct and why, and so do "
        "the observers who follow them; the other players and observers read only that the "
        "game master amended an earlier turn."
    ) % {"who": who}


def readers_of_turn(campaign: Campaign) -> str:
    """For the GM amending a turn: who will read what he corrects and why, for each kind."""
    if everyone := _open_to_all(campaign):
        return everyone
    sides = "; ".join(_side_players(campaign, None, _("%(side)s: %(players)s")))
    return _(
        "Who reads what you correct and why: for a rollback or the options in force, every "
        "player and observer. For a player's orders, only the players of his side and the "
        "observers who follow them (%(sides)s); the others read only that the game master "
        "amended an earlier turn."
    ) % {"sides": sides}
