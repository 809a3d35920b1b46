"""Battle result services: every write of the battles app. Keyword-only, `<entity>_<action>`.

A tabletop result goes through these steps (spec: either player enters, the other confirms or
disputes, the GM overrides with a note):

    none ──enter──▶ entered ──confirm (other side)──▶ confirmed ─┐
                      │  ▲                                        ├─▶ every battle settled:
                      │  └──enter again (before confirmation)     │   Phases 4–8 are queued
                      └──dispute (other side, note)──▶ disputed   │
    any state ──override (GM, mandatory note)──▶ overridden ──────┘

Only a confirmed or overridden result resolves the battle (`Battle.status`), so an entered or
disputed one holds up the turn. Every action is appended to the battle's audit log. Each
service is given the campaign the request came through, and refuses a battle of another one.

`battle_result_check` is the one validation of an entry, used by the live form and by every
service that stores a result: its errors are keyed by the form's field names.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from battles.models import Battle, BattleAudit, BattlePhoto, WhatIfOdds
from battles.selectors import (
    COUNTS,
    FATES,
    SIDE_KEYS,
    BattleRights,
    Roster,
    battle_odds_hash,
    battle_odds_input,
    battle_rights_for_viewer,
    battle_roster_get,
    what_if_hash,
)
from campaign import services as campaign_services
from campaign.access import viewer_for
from campaign.models import Campaign, Turn
from campaign.services import InvalidBattleResult, ServiceError
from rules.battle import BattleResult
from rules.checks import battle_result
from rules.codec import FormatError, from_data, to_data
from rules.dice import SeededDice, derive_seed
from rules.errors import RulesError
from rules.phases.after_battle import validate_result
from rules.tactical import (
    BattleInput,
    TacticalError,
    battle_input_from_data,
    battle_input_from_state,
    resolve,
    simulate,
)

ODDS_RUNS = 1000

log = logging.getLogger(__name__)

NON_FIELD = "__all__"
OUTCOME = "outcome"
STORM = "storm"
NOTE = "note"
PHOTO = "photo"
RESOLVER = "resolver"

MAX_PHOTO_BYTES = 10 * 1024 * 1024
# the image types a photo may be, by their first bytes (no imaging library is needed)
PHOTO_SIGNATURES = (
    (b"\xff\xd8\xff", "jpg"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
)

AUTO_AT_DEADLINE_NOTE = gettext_lazy(
    "No result was entered by the battles deadline: the tactical engine fought the battle, as "
    "the game master had chosen."
)
NEGATIVE = {
    "killed": gettext_lazy("%(unit)s: the figures killed cannot be a negative number."),
    "fled": gettext_lazy("%(unit)s: the figures that fled cannot be a negative number."),
    "left_oppose": gettext_lazy(
        "%(unit)s: the figures that left under Oppose cannot be a negative number."
    ),
    "left_retreat": gettext_lazy(
        "%(unit)s: the figures that left under General Retreat cannot be a negative number."
    ),
}


class BattleRefused(ServiceError):
    """What the battle's state, or the user's part in it, does not allow; says why."""


class InvalidResultEntry(InvalidBattleResult):
    """An entry with mistakes: `errors` maps a form field name (or `NON_FIELD`) to messages."""

    def __init__(self, errors: Mapping[str, list[str]]) -> None:
        self.errors = {k: list(v) for k, v in errors.items()}
        super().__init__(" ".join(m for msgs in self.errors.values() for m in msgs))


def unit_field(uid: str, count: str | None = None) -> str:
    """The form field of one count of a unit (`count` None: the unit's row as a whole)."""
    return f"u-{uid}-{count}" if count else f"u-{uid}"


def person_field(pid: str) -> str:
    return f"p-{pid}"


def points_field(side: str) -> str:
    return f"points-{side}"


# --- checking an entry -----------------------------------------------------------------------


@dataclass(frozen=True)
class SideTotals:
    figures: int = 0
    killed: int = 0
    fled: int = 0
    left_oppose: int = 0
    left_retreat: int = 0
    people_killed: int = 0
    people_fled: int = 0

    @property
    def removed(self) -> int:
        return self.killed + self.fled + self.left_oppose + self.left_retreat

    @property
    def left(self) -> int:
        """Figures of its units still on the field at the end (R7.3): generals and characters
        leave with their troops unless killed or fled, so they are not counted."""
        return max(0, self.figures - self.removed)


@dataclass
class ResultCheck:
    errors: dict[str, list[str]] = field(default_factory=dict)
    totals: dict[str, SideTotals] = field(default_factory=dict)
    unit_left: dict[str, int] = field(default_factory=dict)  # unit id → figures left
    outcome: dict[str, str] | None = None  # what the entry gives (computed under Italian)
    expected: dict[str, str] | None = None  # what the figures left require (core method)
    threshold: float | None = None  # Italian: the points difference that is still a draw
    data: dict[str, Any] | None = None  # the result to store, when there is no error

    @property
    def ok(self) -> bool:
        return not self.errors

    def add(self, key: str, message: str) -> None:
        self.errors.setdefault(key, []).append(str(message))


def _count(value: Any) -> int | None:
    """A whole number of figures or points, or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _pair(winner: str | None) -> dict[str, str]:
    if winner is None:
        return {"a": "stalemate", "b": "stalemate"}
    return {k: "won" if k == winner else "lost" for k in SIDE_KEYS}


def battle_result_check(*, roster: Roster, data: Mapping[str, Any]) -> ResultCheck:
    """Check an entry (a `rules.battle.BattleResult` as data, without its battle id) against
    the battle as it was fought: every count a whole number, none negative, no unit losing
    more figures than it had (R7.1.1), fates killed or fled, and the outcome the rules allow:
    under the core method a side with nothing left on the field loses and a side wins only by
    driving every enemy figure off it (R7.3.1–4); under the Italian method the outcome is
    computed from the points lost (R7.3.6). Returns the totals per side and, when there is
    no error, the result to store. The rules' own validation runs last."""
    check = ResultCheck()
    name = {s.key: s.name for s in roster.sides}
    counts: dict[str, dict[str, int]] = {}
    units = data.get("units") or []
    if not isinstance(units, list | tuple):
        check.add(NON_FIELD, _("The units' losses must be a list."))
        units = []
    for entry in units:
        uid = entry.get("unit_id") if isinstance(entry, Mapping) else None
        found = roster.unit(uid)
        if found is None:
            check.add(
                NON_FIELD,
                _("Unit %(unit)s did not fight in battle %(battle)s.")
                % {"unit": uid, "battle": roster.battle.key},
            )
            continue
        _key, row = found
        if uid in counts:
            check.add(unit_field(row.id), _("%(unit)s is listed twice.") % {"unit": row.label})
            continue
        got: dict[str, int] = {}
        for what in COUNTS:
            raw = entry.get(what, 0)
            n = _count(raw if raw not in (None, "") else 0)
            if n is None:
                check.add(
                    unit_field(row.id, what),
                    _("%(unit)s: “%(value)s” is not a whole number of figures.")
                    % {"unit": row.label, "value": raw},
                )
                n = 0
            elif n < 0:
                check.add(unit_field(row.id, what), NEGATIVE[what] % {"unit": row.label})
                n = 0
            got[what] = n
        removed = sum(got.values())
        if removed > row.figures:
            check.add(
                unit_field(row.id),
                _(
                    "%(unit)s had %(had)s figures when the battle began, but %(removed)s are "
                    "entered as killed, fled or gone off the table (R7.1.1)."
                )
                % {"unit": row.label, "had": row.figures, "removed": removed},
            )
        counts[row.id] = got

    fates: dict[str, str] = {}
    people = data.get("individuals") or []
    if not isinstance(people, list | tuple):
        check.add(NON_FIELD, _("The fates of generals and characters must be a list."))
        people = []
    for entry in people:
        pid = entry.get("individual_id") if isinstance(entry, Mapping) else None
        found_p = roster.person(pid)
        if found_p is None:
            check.add(
                NON_FIELD,
                _("%(who)s is not a general or character of a force in battle %(battle)s.")
                % {"who": pid, "battle": roster.battle.key},
            )
            continue
        person = found_p[1]
        fate = entry.get("fate")
        if pid in fates:
            check.add(person_field(pid), _("%(who)s is listed twice.") % {"who": person.label})
        elif fate not in FATES:
            check.add(
                person_field(pid),
                _("%(who)s: the fate must be killed or fled.") % {"who": person.label},
            )
        else:
            fates[pid] = fate

    for side in roster.sides:
        tally = dict.fromkeys(COUNTS, 0)
        for u in side.units:
            got = counts.get(u.id, {})
            for what in COUNTS:
                tally[what] += got.get(what, 0)
            check.unit_left[u.id] = max(0, u.figures - sum(got.values()))
        check.totals[side.key] = SideTotals(
            figures=side.figures,
            **tally,
            people_killed=sum(1 for p in side.people if fates.get(p.id) == "killed"),
            people_fled=sum(1 for p in side.people if fates.get(p.id) == "fled"),
        )
    wiped = [k for k in SIDE_KEYS if check.totals[k].left == 0]

    storm = bool(data.get("ended_by_storm"))
    if storm and not roster.storm_allowed:
        check.add(
            STORM,
            _("A storm can end a battle only when the campaign's storm option is on (R4.2)."),
        )
    elif storm and len(wiped) == 1:
        check.add(
            STORM,
            _("%(side)s has no figures left on the field: the battle was not ended by a storm.")
            % {"side": name[wiped[0]]},
        )

    result: dict[str, Any] = {}
    if roster.method == "italian":
        _check_points(check, roster, data, wiped, storm, result)
    else:
        _check_outcome(check, roster, data, wiped, storm, result)

    if check.errors:
        return check
    result["units"] = [
        {"unit_id": uid, **{k: v for k, v in got.items() if v}}
        for uid, got in counts.items()
        if any(got.values())
    ]
    result["individuals"] = [{"individual_id": p, "fate": f} for p, f in fates.items()]
    if storm:
        result["ended_by_storm"] = True
    try:
        parsed = from_data(BattleResult, {**result, "battle_id": roster.battle.key})
        validate_result(roster.state, roster.pending, parsed)
    except (FormatError, RulesError) as e:
        check.add(NON_FIELD, str(e))
        return check
    stored = to_data(parsed)
    stored.pop("battle_id")
    check.data = stored
    return check


def _check_outcome(
    check: ResultCheck,
    roster: Roster,
    data: Mapping[str, Any],
    wiped: list[str],
    storm: bool,
    result: dict[str, Any],
) -> None:
    """The outcome entered (core and English methods) against the figures left."""
    name = {s.key: s.name for s in roster.sides}
    if len(wiped) == 1:
        check.expected = _pair(next(k for k in SIDE_KEYS if k not in wiped))
    elif roster.method == "core" or wiped or storm:
        check.expected = _pair(None)  # R7.3.3–4, or a storm
    outcomes = data.get("outcomes") or {}
    if not isinstance(outcomes, Mapping) or not outcomes:
        check.add(OUTCOME, _("Choose the outcome of the battle."))
        return
    pair = (outcomes.get("a"), outcomes.get("b"))
    if pair not in (("won", "lost"), ("lost", "won"), ("stalemate", "stalemate")):
        check.add(
            OUTCOME,
            _("The outcome must be one side winning and the other losing, or a stalemate."),
        )
        return
    given = {"a": pair[0], "b": pair[1]}
    check.outcome = given
    winner = next((k for k in SIDE_KEYS if given[k] == "won"), None)
    other = {"a": "b", "b": "a"}
    if storm and winner is not None:
        check.add(OUTCOME, _("A battle ended by a storm is a stalemate (R4.2, A-60)."))
    elif winner is not None and winner in wiped:
        check.add(
            OUTCOME,
            _(
                "%(side)s is entered as the winner but has no figures left on the field: a "
                "side with nothing left loses the battle (R7.3.1)."
            )
            % {"side": name[winner]},
        )
    elif len(wiped) == 2 and winner is not None:
        check.add(
            OUTCOME,
            _("Neither side has figures left on the field: the battle is a stalemate (R7.3.4)."),
        )
    elif len(wiped) == 1 and winner is None and not storm:
        check.add(
            OUTCOME,
            _(
                "%(side)s has no figures left on the field, so it lost the battle and "
                "%(other)s won it (R7.3.1–2)."
            )
            % {"side": name[wiped[0]], "other": name[other[wiped[0]]]},
        )
    elif roster.method == "core" and not wiped and winner is not None:
        loser = other[winner]
        check.add(
            OUTCOME,
            _(
                "%(winner)s cannot have won: %(loser)s still has %(left)s figures on the field. "
                "Under the core method a side wins only by driving every enemy figure off the "
                "field (R7.3.2); with figures left on both sides the battle is a stalemate "
                "(R7.3.3)."
            )
            % {"winner": name[winner], "loser": name[loser], "left": check.totals[loser].left},
        )
    result["outcomes"] = given


def _check_points(
    check: ResultCheck,
    roster: Roster,
    data: Mapping[str, Any],
    wiped: list[str],
    storm: bool,
    result: dict[str, Any],
) -> None:
    """Italian method (R7.3.6): the points each side lost decide the outcome; a side wiped off
    the table still loses."""
    raw = data.get("points_lost") or {}
    if not isinstance(raw, Mapping):
        raw = {}
    lost: dict[str, int] = {}
    for side in roster.sides:
        value = raw.get(side.key)
        n = _count(value) if value not in (None, "") else None
        if value in (None, ""):
            check.add(
                points_field(side.key),
                _("Enter the army points %(side)s lost.") % {"side": side.name},
            )
        elif n is None:
            check.add(
                points_field(side.key),
                _("“%(value)s” is not a whole number of points.") % {"value": value},
            )
        elif n < 0:
            check.add(points_field(side.key), _("The points lost cannot be a negative number."))
        elif side.points and n > side.points:
            check.add(
                points_field(side.key),
                _("%(side)s fielded %(points)s army points: it cannot have lost %(lost)s.")
                % {"side": side.name, "points": side.points, "lost": n},
            )
        else:
            lost[side.key] = n
    a, b = roster.sides
    check.threshold = min(a.points, b.points) * 20 / 100
    wiped_key = "both" if len(wiped) == 2 else (wiped[0] if wiped else None)
    if storm:
        check.outcome = _pair(None)
    elif len(lost) == 2 or wiped_key is not None:
        verdict = battle_result(
            method="italian",
            points_a=a.points,
            points_b=b.points,
            lost_a=lost.get("a", 0),
            lost_b=lost.get("b", 0),
            wiped=wiped_key,
        )
        winner = {"a-wins": "a", "b-wins": "b"}.get(verdict)
        check.outcome = _pair(winner)
    result["points_lost"] = lost
    if wiped_key is not None and not storm:
        result["wiped"] = wiped_key


# --- who is asking ---------------------------------------------------------------------------


def _rights(campaign: Campaign, battle: Battle, user) -> BattleRights:
    if battle.campaign_id != campaign.pk:
        raise BattleRefused(
            _("Battle %(battle)s belongs to another campaign: it cannot be changed from this one.")
            % {"battle": battle.key}
        )
    viewer = viewer_for(user=user, campaign=campaign)
    if viewer is None:
        raise BattleRefused(_("Only members of the campaign can act on its battles."))
    return battle_rights_for_viewer(battle=battle, viewer=viewer)


def _locked(battle: Battle) -> Battle:
    return (
        Battle.objects.select_for_update(of=("self",))
        .select_related("campaign", "turn")
        .get(pk=battle.pk)
    )


def _require_waiting(battle: Battle) -> None:
    if battle.turn.status != Turn.Status.BATTLES:
        raise BattleRefused(
            _(
                "Battle %(battle)s belongs to turn %(turn)s, which no longer waits for battle "
                "results: its result can no longer change."
            )
            % {"battle": battle.key, "turn": battle.turn.number}
        )


def _refuse_settled(battle: Battle, rights: BattleRights) -> None:
    """A player may not change a result once confirmed, disputed or settled; the GM then
    overrides it (with a note) rather than entering it again."""
    values = {"battle": battle.key}
    if battle.entry == Battle.Entry.CONFIRMED:
        if rights.is_gm:
            raise BattleRefused(
                _(
                    "Both sides have confirmed the result of battle %(battle)s: to change it, "
                    "override it with a note."
                )
                % values
            )
        raise BattleRefused(
            _(
                "Both sides have confirmed the result of battle %(battle)s: only the game "
                "master can change it now."
            )
            % values
        )
    if battle.entry == Battle.Entry.DISPUTED:
        raise BattleRefused(
            _("The result of battle %(battle)s is disputed: the game master settles it.") % values
        )
    if battle.entry == Battle.Entry.OVERRIDDEN:
        raise BattleRefused(
            _("The game master has settled the result of battle %(battle)s: only he can change it.")
            % values
        )


def _audit(
    battle: Battle, user, action: str, *, note: str = "", data: dict | None = None
) -> BattleAudit:
    return BattleAudit.objects.create(battle=battle, user=user, action=action, note=note, data=data)


def _go_on_if_settled(turn: Turn) -> bool:
    """Queue Phases 4–8 (on commit) once every battle of the turn is resolved. The turn row
    is locked first: of two last battles settled at once, the second to get the lock sees
    the first committed, so one of them queues it."""
    Turn.objects.select_for_update().filter(pk=turn.pk).first()
    if Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).exists():
        return False
    from campaign.tasks import turn_resolve_after_battles_task  # the tasks import services

    turn_id = turn.pk
    transaction.on_commit(lambda: turn_resolve_after_battles_task.delay(turn_id), robust=True)
    return True


# --- the services ----------------------------------------------------------------------------


@transaction.atomic
def battle_resolver_set(
    *, campaign: Campaign, battle: Battle, user, resolver: str, auto_at_deadline: bool = False
) -> Battle:
    """The GM chooses how the battle is resolved: on the tabletop (the result entered by
    hand) or by the tactical engine; and whether the engine fights it at the turn's battles
    deadline if no result has been entered by then (`battles_auto_resolve_due`)."""
    battle = _locked(battle)
    rights = _rights(campaign, battle, user)
    if not rights.is_gm:
        raise BattleRefused(_("Only the game master chooses how a battle is resolved."))
    _require_waiting(battle)
    if battle.entry in (Battle.Entry.CONFIRMED, Battle.Entry.OVERRIDDEN):
        raise BattleRefused(_("Battle %(battle)s already has its result.") % {"battle": battle.key})
    if resolver not in Battle.Resolver.values:
        raise InvalidResultEntry({RESOLVER: [_("Choose tabletop or auto-resolve.")]})
    battle.resolver = resolver
    battle.auto_at_deadline = auto_at_deadline
    battle.save(update_fields=["resolver", "auto_at_deadline"])
    _audit(
        battle,
        user,
        "resolver-set",
        data={"resolver": resolver, "auto_at_deadline": auto_at_deadline},
    )
    return battle


@transaction.atomic
def battle_auto_resolve(*, campaign: Campaign, battle: Battle, user) -> Battle:
    """The GM has the tactical engine fight the battle now. Its dice are the turn's seed
    derived for this battle, so the same turn gives the same result. The result is checked
    like a tabletop entry and needs no confirmation: the battle is resolved, the engine's
    roll ledger goes to the audit log, and once every battle of the turn is, Phases 4–8 are
    queued."""
    battle = _locked(battle)
    rights = _rights(campaign, battle, user)
    if not rights.is_gm:
        raise BattleRefused(_("Only the game master can auto-resolve a battle."))
    _require_waiting(battle)
    return _auto_resolve(battle, user, "auto-resolve")


def _auto_resolve(battle: Battle, user, action: str, note: str = "") -> Battle:
    """Fight the (locked, waiting) battle with the tactical engine and record its result as
    settled; `action` and `note` name why in the audit log."""
    if battle.status != Battle.Status.PENDING:
        raise BattleRefused(_("Battle %(battle)s already has its result.") % {"battle": battle.key})
    state = campaign_services.campaign_state(campaign=battle.campaign)
    pending = next((b for b in state.pending_battles if b.battle_id == battle.key), None)
    if pending is None:
        raise BattleRefused(
            _("Battle %(battle)s is not waiting to be fought.") % {"battle": battle.key}
        )
    dice = SeededDice(derive_seed(battle.turn.seed or 0, "battle", battle.key))
    try:
        outcome = resolve(battle_input_from_state(state, pending), dice)
    except TacticalError as e:
        raise BattleRefused(
            _("The tactical engine cannot fight battle %(battle)s: %(why)s")
            % {"battle": battle.key, "why": e}
        ) from e
    data = to_data(outcome.result)
    data.pop("battle_id", None)
    check = battle_result_check(roster=battle_roster_get(battle=battle), data=data)
    if not check.ok:
        raise InvalidResultEntry(check.errors)
    campaign_services.battle_result_record(
        battle=battle, data=check.data or {}, resolver=Battle.Resolver.AUTO
    )
    battle.refresh_from_db()
    battle.entry = Battle.Entry.CONFIRMED
    battle.entered_by = user
    battle.entered_at = timezone.now()
    battle.confirmed_by = None
    battle.save(update_fields=["entry", "entered_by", "entered_at", "confirmed_by"])
    _audit(
        battle,
        user,
        action,
        note=note,
        data={
            "result": check.data,
            "seed": dice.seed,
            "turns": outcome.turns,
            "played": outcome.played,
            "log": list(outcome.log),
            "ledger": dice.ledger_dicts(),
        },
    )
    _go_on_if_settled(battle.turn)
    return battle


def battles_due_auto_resolve_list(*, now) -> list[Battle]:
    """The battles the engine must fight now: marked "auto-resolve at the deadline", still
    waiting with no result entered, in a turn whose battles deadline has passed."""
    return list(
        Battle.objects.filter(
            status=Battle.Status.PENDING,
            auto_at_deadline=True,
            entry=Battle.Entry.NONE,
            turn__status=Turn.Status.BATTLES,
            turn__battles_deadline__lte=now,
        )
        .select_related("turn", "campaign")
        .order_by("turn_id", "contact_order", "pk")
    )


def battles_auto_resolve_due(*, now) -> list[Battle]:
    """Have the tactical engine fight every battle due at its deadline
    (`battles_due_auto_resolve_list`), each in its own transaction. One that the engine
    cannot fight, or that was settled meanwhile, is left for the GM (it stays in his inbox)
    and logged; the others go on. Returns the battles fought."""
    fought = []
    for battle in battles_due_auto_resolve_list(now=now):
        try:
            with transaction.atomic():
                locked = _locked(battle)
                if locked.entry != Battle.Entry.NONE or not locked.auto_at_deadline:
                    continue  # a result came in meanwhile: it goes the usual way
                _require_waiting(locked)
                fought.append(
                    _auto_resolve(
                        locked,
                        None,
                        "auto-resolve-deadline",
                        note=str(AUTO_AT_DEADLINE_NOTE),
                    )
                )
        except (BattleRefused, InvalidResultEntry) as e:
            log.warning("battle %s not auto-resolved at its deadline: %s", battle.pk, e)
    return fought


@transaction.atomic
def battle_result_enter(
    *, campaign: Campaign, battle: Battle, user, data: Mapping[str, Any], report_text: str = ""
) -> Battle:
    """A player of the battle (or the GM) enters its result; it waits for a player of the
    other side (either side, if the GM entered it) to confirm or dispute it. Until then it
    may be entered again; once confirmed, disputed or settled, only the GM changes it."""
    battle = _locked(battle)
    rights = _rights(campaign, battle, user)
    if not (rights.is_gm or rights.side):
        raise BattleRefused(
            _(
                "Only the players who fought battle %(battle)s, or the game master, can enter "
                "its result."
            )
            % {"battle": battle.key}
        )
    _require_waiting(battle)
    _refuse_settled(battle, rights)
    check = battle_result_check(roster=battle_roster_get(battle=battle), data=data)
    if not check.ok:
        raise InvalidResultEntry(check.errors)
    battle.result = check.data
    battle.entry = Battle.Entry.ENTERED
    battle.entered_by = user
    battle.entered_at = timezone.now()
    battle.confirmed_by = None
    battle.report_text = report_text.strip()
    battle.save(
        update_fields=["result", "entry", "entered_by", "entered_at", "confirmed_by", "report_text"]
    )
    side = None if rights.is_gm else rights.side
    _audit(battle, user, "entered", data={"side": side, "result": check.data})
    return battle


def _require_other_side(battle: Battle, rights: BattleRights) -> None:
    """Confirming and disputing: a player of the battle, of the side that did not enter it."""
    values = {"battle": battle.key}
    if battle.entry != Battle.Entry.ENTERED:
        if battle.entry == Battle.Entry.NONE:
            raise BattleRefused(_("No result of battle %(battle)s has been entered yet.") % values)
        _refuse_settled(battle, rights)
    if rights.side is None:
        if rights.is_gm:
            raise BattleRefused(
                _(
                    "The players of the battle confirm or dispute its result; as game master "
                    "you settle it with an override."
                )
            )
        raise BattleRefused(
            _("Only a player who fought battle %(battle)s confirms or disputes its result.")
            % values
        )
    if rights.side == rights.entered_side:
        raise BattleRefused(
            _("Your side entered this result: a player of the other side confirms or disputes it.")
        )


@transaction.atomic
def battle_result_confirm(*, campaign: Campaign, battle: Battle, user) -> Battle:
    """A player of the other side confirms the entered result: the battle is resolved, and
    once every battle of the turn is, Phases 4–8 are queued."""
    battle = _locked(battle)
    rights = _rights(campaign, battle, user)
    _require_waiting(battle)
    _require_other_side(battle, rights)
    campaign_services.battle_result_record(
        battle=battle, data=battle.result or {}, resolver=Battle.Resolver.TABLETOP
    )
    battle.refresh_from_db()
    battle.entry = Battle.Entry.CONFIRMED
    battle.confirmed_by = user
    battle.save(update_fields=["entry", "confirmed_by"])
    _audit(battle, user, "confirmed", data={"side": rights.side})
    _go_on_if_settled(battle.turn)
    return battle


@transaction.atomic
def battle_result_dispute(*, campaign: Campaign, battle: Battle, user, note: str) -> Battle:
    """A player of the other side disputes the entered result, saying why: the turn waits
    until the GM settles it (it shows in his inbox)."""
    battle = _locked(battle)
    rights = _rights(campaign, battle, user)
    _require_waiting(battle)
    _require_other_side(battle, rights)
    note = (note or "").strip()
    if not note:
        raise InvalidResultEntry(
            {NOTE: [_("Say what is wrong with the result: the game master reads it.")]}
        )
    battle.entry = Battle.Entry.DISPUTED
    battle.dispute_note = note
    battle.save(update_fields=["entry", "dispute_note"])
    _audit(battle, user, "disputed", note=note, data={"side": rights.side})
    return battle


@transaction.atomic
def battle_result_override(
    *,
    campaign: Campaign,
    battle: Battle,
    user,
    note: str,
    data: Mapping[str, Any] | None = None,
    report_text: str | None = None,
) -> Battle:
    """The GM settles the result, whatever its state, with a note that the audit log keeps:
    the given result, or the entered one when none is given. The battle is resolved, and once
    every battle of the turn is, Phases 4–8 are queued."""
    battle = _locked(battle)
    rights = _rights(campaign, battle, user)
    if not rights.is_gm:
        raise BattleRefused(_("Only the game master can override a battle's result."))
    _require_waiting(battle)
    note = (note or "").strip()
    if not note:
        raise InvalidResultEntry(
            {NOTE: [_("An override needs a note saying why: the audit log keeps it.")]}
        )
    if data is None:
        if battle.result is None:
            raise BattleRefused(
                _("No result of battle %(battle)s has been entered: give the result to settle.")
                % {"battle": battle.key}
            )
        data = battle.result
    check = battle_result_check(roster=battle_roster_get(battle=battle), data=data)
    if not check.ok:
        raise InvalidResultEntry(check.errors)
    previous = {"entry": battle.entry, "result": battle.result}
    campaign_services.battle_result_record(
        battle=battle, data=check.data or {}, resolver=Battle.Resolver.TABLETOP
    )
    battle.refresh_from_db()
    battle.entry = Battle.Entry.OVERRIDDEN
    fields = ["entry"]
    if report_text is not None:
        battle.report_text = report_text.strip()
        fields.append("report_text")
    battle.save(update_fields=fields)
    _audit(battle, user, "overridden", note=note, data={"result": check.data, "previous": previous})
    _go_on_if_settled(battle.turn)
    return battle


@transaction.atomic
def battle_photo_add(
    *, campaign: Campaign, battle: Battle, user, file, caption: str = ""
) -> BattlePhoto:
    """A player of the battle or the GM adds a photo of it (JPEG, PNG or GIF, at most
    10 MB). It is stored under a new name; the uploaded name is not kept."""
    battle = _locked(battle)
    rights = _rights(campaign, battle, user)
    if not rights.can_add_photo:
        raise BattleRefused(
            _("Only the players who fought battle %(battle)s, or the game master, add photos.")
            % {"battle": battle.key}
        )
    size = getattr(file, "size", None) or 0
    if size > MAX_PHOTO_BYTES:
        raise InvalidResultEntry({PHOTO: [_("A photo can be at most 10 MB.")]})
    head = file.read(16)
    file.seek(0)
    ext = next((e for sig, e in PHOTO_SIGNATURES if head.startswith(sig)), None)
    if ext is None and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        ext = "webp"
    if ext is None or not size:
        raise InvalidResultEntry({PHOTO: [_("The photo must be a JPEG, PNG, GIF or WebP image.")]})
    photo = BattlePhoto(battle=battle, caption=caption.strip()[:200], uploaded_by=user)
    photo.file.save(f"{uuid.uuid4().hex}.{ext}", ContentFile(file.read()), save=False)
    photo.save()
    _audit(battle, user, "photo-added", data={"photo": photo.pk, "caption": photo.caption})
    return photo


@transaction.atomic
def battle_odds_compute(*, battle: Battle) -> dict:
    """The tactical engine's odds for the battle (ODDS_RUNS simulated fights, seeded from the
    turn), cached on the battle for this version of its pack and rosters. Computing again for
    the same version returns the cached odds."""
    battle = _locked(battle)
    inp = battle_odds_input(battle=battle)
    version = battle_odds_hash(battle=battle, inp=inp)
    if battle.odds and battle.odds_pack_hash == version:
        return battle.odds
    seed = derive_seed(battle.turn.seed or 0, "odds", battle.key)
    odds = simulate(inp, runs=ODDS_RUNS, seed=seed).to_dict()
    battle.odds = odds
    battle.odds_pack_hash = version
    battle.save(update_fields=["odds", "odds_pack_hash"])
    return odds


@transaction.atomic
def what_if_odds_compute(*, campaign: Campaign, turn: Turn, input_hash: str, data: dict) -> dict:
    """The odds of a what-if battle (`battles.selectors.what_if_input_get`; `data` is its
    engine input as JSON, `input_hash` the key the asking page looks for), cached for the
    campaign. Computing again for the same input returns the cached odds; odds asked for in
    earlier turns are dropped, since the forces have changed since."""
    cached = WhatIfOdds.objects.filter(campaign=campaign, input_hash=input_hash).first()
    if cached is not None:
        return cached.odds
    inp: BattleInput = battle_input_from_data(data)
    if what_if_hash(inp=inp) != input_hash:
        raise ServiceError(_("The what-if battle does not match the odds asked for."))
    seed = derive_seed(0, "what-if", input_hash)
    odds = simulate(inp, runs=ODDS_RUNS, seed=seed).to_dict()
    row, _created = WhatIfOdds.objects.get_or_create(
        campaign=campaign, input_hash=input_hash, defaults={"turn": turn, "odds": odds}
    )
    WhatIfOdds.objects.filter(campaign=campaign, turn__number__lt=turn.number).delete()
    return row.odds
