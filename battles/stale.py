"""Nothing acts on a stale result page (docs/architecture.md, "Nothing acts on a stale page").

Every state-changing form of a battle's result page carries the battle's `result_version` it
was rendered from (`VERSION_FIELD`); every change of the result or of its entry raises it
(`Battle.result_changed`). A service given another version refuses with `StaleResult`,
saying what changed (who did what, when: the battle's audit log) and the result stored now,
in words: nothing is done on a page its reader no longer sees. A form without the version is
refused too: it cannot say what it was built on.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from battles.entry import battle_result_check
from battles.models import Battle, BattleAudit
from battles.rights import CLOCK_ACTIONS
from battles.roster import Roster, battle_roster_get
from campaign.errors import ServiceError
from campaign.moments import moment
from campaign.selectors import user_label

VERSION_FIELD = "version"  # the hidden field of every state-changing form of the result page

# audit actions that leave the result and its entry as they were (the version stays)
UNVERSIONED = ("photo-added",)


class StaleResult(ServiceError):
    """The form was built on another version of the battle's result than the stored one (a
    second tab, the other side's entry meanwhile, a form posted twice): nothing was done."""


def result_version_posted(posted: object) -> int | None:
    """The version a form names (its `version` field), or None when it names none."""
    try:
        number = int(str(posted))
    except ValueError:
        return None
    return number if number >= 0 else None


def result_expected(*, battle: Battle, posted: object) -> None:
    """Refuse (`StaleResult`) unless `posted`, a form's `version` field, is the version of
    the result `battle` holds (read under the service's lock)."""
    number = result_version_posted(posted)
    if number is None:
        raise StaleResult(
            _(
                "This form did not say which version of the result of battle %(battle)s it was "
                "for, so nothing was done. Read the result as it is now, below, and try again."
            )
            % {"battle": battle.label}
        )
    if number != battle.result_version:
        raise StaleResult(result_moved_message(battle=battle))


def result_moved_message(*, battle: Battle) -> str:
    """Why a form built on an earlier version of the result was refused: the last change (who
    did what, when) and the result stored now."""
    return _(
        "While you were reading, %(change)s: nothing was done. %(stored)s Read it below and "
        "try again."
    ) % {"change": _change(battle, _last_change(battle)), "stored": result_words(battle=battle)}


def _last_change(battle: Battle) -> BattleAudit | None:
    """The audit log's last entry that changed the result or its entry."""
    return (
        BattleAudit.objects.filter(battle=battle)
        .exclude(action__in=UNVERSIONED)
        .select_related("user")
        .order_by("-created_at", "-pk")
        .first()
    )


def _change(battle: Battle, last: BattleAudit | None) -> str:
    if last is None:  # changed where no log is kept (the admin)
        return _("the result of battle %(battle)s was changed") % {"battle": battle.label}
    values = {
        "who": _("the campaign clock") if last.action in CLOCK_ACTIONS else user_label(last.user),
        "when": moment(last.created_at),
        "battle": battle.label,
    }
    did = {
        "entered": _("%(who)s entered a new result of battle %(battle)s (%(when)s)"),
        "confirmed": _("%(who)s confirmed the result of battle %(battle)s (%(when)s)"),
        "disputed": _("%(who)s disputed the result of battle %(battle)s (%(when)s)"),
        "overridden": _(
            "the game master, %(who)s, settled the result of battle %(battle)s (%(when)s)"
        ),
        "auto-resolve": _("%(who)s had the tactical engine fight battle %(battle)s (%(when)s)"),
        "auto-resolve-deadline": _(
            "the tactical engine fought battle %(battle)s at the battles deadline (%(when)s)"
        ),
        "resolver-set": _("%(who)s changed how battle %(battle)s is resolved (%(when)s)"),
        "amended": _("%(who)s amended the result of battle %(battle)s (%(when)s)"),
        "amended-engine": _("%(who)s amended the result of battle %(battle)s (%(when)s)"),
    }.get(last.action, _("%(who)s changed the result of battle %(battle)s (%(when)s)"))
    return did % values


def result_words(*, battle: Battle, roster: Roster | None = None) -> str:
    """The result the battle holds, in words: where its entry stands, the outcome, and per
    side (named, with its forces) the figures it lost."""
    state = _("Where the result stands now: %(entry)s.") % {
        "entry": battle.get_entry_display().lower()
    }
    if not battle.result:
        return state
    roster = roster or battle_roster_get(battle=battle)
    check = battle_result_check(roster=roster, data=battle.result)
    parts = [state]
    outcome = check.outcome or battle.result.get("outcomes")
    if outcome:
        winner = next((s for s in roster.sides if outcome.get(s.key) == "won"), None)
        parts.append(
            _("%(side)s won the battle.") % {"side": winner.name}
            if winner
            else _("Stalemate: neither side won.")
        )
    points = battle.result.get("points_lost") or {}
    for side in roster.sides:
        t = check.totals.get(side.key)
        if t is None:
            continue
        values = {
            "side": side.name,
            "forces": ", ".join(f.name for f in side.forces),
            "figures": t.figures,
            "killed": t.killed,
            "fled": t.fled,
            "off": t.left_oppose + t.left_retreat,
            "points": points.get(side.key, 0),
        }
        line = ngettext(
            "%(side)s (%(forces)s), of %(figures)s figure: %(killed)s killed, %(fled)s fled, "
            "%(off)s left the table.",
            "%(side)s (%(forces)s), of %(figures)s figures: %(killed)s killed, %(fled)s fled, "
            "%(off)s left the table.",
            t.figures,
        )
        parts.append(line % values)
        if side.key in points:
            parts.append(_("%(side)s lost %(points)s army points.") % values)
    return " ".join(parts)


def result_moved_notice(*, battle: Battle) -> str:
    """The live check's warning, while a result is being typed on a page built on an earlier
    version: what changed since."""
    return _(
        "Since this page was opened, %(change)s: a result typed here would be refused. Reload "
        "the page to read the result as it is now."
    ) % {"change": _change(battle, _last_change(battle))}
