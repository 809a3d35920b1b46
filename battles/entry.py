"""Entering a battle's result: the one check of an entry (`battle_result_check`) against the
battle's roster as it was fought (`battles.roster`), used by the live result form and by
every service that stores a result.

An entry is posted as the fields named below (`unit_field`, `person_field`, `points_field`,
`OUTCOME_FIELD`, `STORM_FIELD`; the result form has the same); the check's errors are keyed
by them, so that the form shows each beside its field. A unit's row as a whole
(`unit_field(uid)`) and `NON_FIELD_ERRORS` carry what no one field is to blame for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from battles.roster import COUNTS, FATES, SIDE_KEYS, Roster
from campaign import adapters
from campaign.errors import ServiceError
from rules import (
    FormatError,
    RulesError,
    battle_result,
    validate_result,
)

OUTCOME_FIELD = "outcome"
STORM_FIELD = "storm"


def works_field(force_id: str) -> str:
    """The entry's field of the field works a force built (R7.8.4)."""
    return f"works_{force_id}"


# --- checking an entry -----------------------------------------------------------------------


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


def unit_field(uid: str, count: str | None = None) -> str:
    """The form field of one count of a unit (`count` None: the unit's row as a whole)."""
    return f"u-{uid}-{count}" if count else f"u-{uid}"


def person_field(pid: str) -> str:
    return f"p-{pid}"


def points_field(side: str) -> str:
    return f"points-{side}"


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

    def refusal(self) -> ServiceError:
        """The errors, each under the field of the entry it is about, for the form."""
        return ServiceError(self.errors)


def _count(value: Any) -> int | None:
    """A whole number of figures or points, or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    digits = value.strip().lstrip("-") if isinstance(value, str) else ""
    if digits.isascii() and digits.isdigit() and len(digits) <= 9:
        return int(value.strip())
    return None


def _pair(winner: str | None) -> dict[str, str]:
    if winner is None:
        return {"a": "stalemate", "b": "stalemate"}
    return {k: "won" if k == winner else "lost" for k in SIDE_KEYS}


def battle_result_check(*, roster: Roster, data: Mapping[str, Any]) -> ResultCheck:
    """Check an entry (a `rules.BattleResult` as data, without its battle id) against the
    battle as it was fought: every count a whole number, none negative, no unit losing more
    figures than it had (R7.1.1), fates killed or fled, and the outcome the rules allow:
    under the core method a side with nothing left on the field loses and a side wins only by
    driving every enemy figure off it (R7.3.1–4); under the Italian method the outcome is
    computed from the points lost (R7.3.6). Returns the totals per side and, when there is
    no error, the result to store. The rules' own validation runs last."""
    check = ResultCheck()
    counts = _check_units(check, roster, data.get("units") or [])
    fates = _check_people(check, roster, data.get("individuals") or [])
    _tally(check, roster, counts, fates)
    wiped = [k for k in SIDE_KEYS if check.totals[k].left == 0]
    storm = bool(data.get("ended_by_storm"))
    _check_storm(check, roster, storm, wiped)
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
    works = _check_works(check, roster, data.get("works_built") or {})
    if check.errors:
        return check
    if works:
        result["works_built"] = works
    try:
        parsed = adapters.result_from_data(roster.battle.key, result)
        validate_result(roster.state, roster.pending, parsed)
    except (FormatError, RulesError) as e:
        check.add(NON_FIELD_ERRORS, str(e))
        return check
    check.data = adapters.result_to_data(parsed)
    return check


def _check_units(check: ResultCheck, roster: Roster, units: Any) -> dict[str, dict[str, int]]:
    """Unit id → its four counts (R7.1.1), each a whole number, not negative, and together no
    more than the figures the unit had."""
    counts: dict[str, dict[str, int]] = {}
    if not isinstance(units, list | tuple):
        check.add(NON_FIELD_ERRORS, _("The units' losses must be a list."))
        return counts
    for entry in units:
        uid = entry.get("unit_id") if isinstance(entry, Mapping) else None
        found = roster.unit(uid)
        if found is None:
            check.add(
                NON_FIELD_ERRORS,
                _("Unit %(unit)s did not fight in battle %(battle)s.")
                % {"unit": uid, "battle": roster.battle.label},
            )
            continue
        row = found[1]
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
    return counts


def _check_people(check: ResultCheck, roster: Roster, people: Any) -> dict[str, str]:
    """General or character id → its fate, killed or fled (R7.1.1)."""
    fates: dict[str, str] = {}
    if not isinstance(people, list | tuple):
        check.add(NON_FIELD_ERRORS, _("The fates of generals and characters must be a list."))
        return fates
    for entry in people:
        pid = entry.get("individual_id") if isinstance(entry, Mapping) else None
        found = roster.person(pid)
        if found is None:
            check.add(
                NON_FIELD_ERRORS,
                _("%(who)s is not a general or character of a force in battle %(battle)s.")
                % {"who": pid, "battle": roster.battle.label},
            )
            continue
        person = found[1]
        pid = person.id  # the id it was found by
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
    return fates


def _tally(
    check: ResultCheck, roster: Roster, counts: dict[str, dict[str, int]], fates: dict[str, str]
) -> None:
    """Each side's totals, and the figures each unit has left."""
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


def _check_works(check: ResultCheck, roster: Roster, works: Any) -> dict[str, int]:
    """Force id → points of field works built for the battle: only a force on Defend, within
    what is left of its quota (R7.8.4, R7.8.6)."""
    left = {f.id: (f.name, f.works_left) for s in roster.sides for f in s.forces}
    out: dict[str, int] = {}
    if not isinstance(works, Mapping):
        check.add(NON_FIELD_ERRORS, _("The field works must be given as points for each force."))
        return out
    for fid, raw in works.items():
        points = _count(raw)
        name, most = left.get(str(fid), ("", 0))
        if points is None or points < 0:
            check.add(works_field(str(fid)), _("Enter a whole number of points."))
        elif points > most:
            check.add(
                works_field(str(fid)),
                _("%(force)s may build at most %(left)s points of field works here (R7.8.6).")
                % {"force": name or fid, "left": most},
            )
        elif points:
            out[str(fid)] = points
    return out


def _check_storm(check: ResultCheck, roster: Roster, storm: bool, wiped: list[str]) -> None:
    """A storm may end a battle only under the storm option (R4.2, A-60), and not one a side
    lost by having nothing left on the field."""
    if storm and not roster.storm_allowed:
        check.add(
            STORM_FIELD,
            _("A storm can end a battle only when the campaign's storm option is on (R4.2)."),
        )
    elif storm and len(wiped) == 1:
        name = {s.key: s.name for s in roster.sides}
        check.add(
            STORM_FIELD,
            _("%(side)s has no figures left on the field: the battle was not ended by a storm.")
            % {"side": name[wiped[0]]},
        )


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
        check.add(OUTCOME_FIELD, _("Choose the outcome of the battle."))
        return
    pair = (outcomes.get("a"), outcomes.get("b"))
    if pair not in (("won", "lost"), ("lost", "won"), ("stalemate", "stalemate")):
        check.add(
            OUTCOME_FIELD,
            _("The outcome must be one side winning and the other losing, or a stalemate."),
        )
        return
    given = {"a": pair[0], "b": pair[1]}
    check.outcome = given
    winner = next((k for k in SIDE_KEYS if given[k] == "won"), None)
    other = {"a": "b", "b": "a"}
    if storm and winner is not None:
        check.add(OUTCOME_FIELD, _("A battle ended by a storm is a stalemate (R4.2, A-60)."))
    elif winner is not None and winner in wiped:
        check.add(
            OUTCOME_FIELD,
            _(
                "%(side)s is entered as the winner but has no figures left on the field: a "
                "side with nothing left loses the battle (R7.3.1)."
            )
            % {"side": name[winner]},
        )
    elif len(wiped) == 2 and winner is not None:
        check.add(
            OUTCOME_FIELD,
            _("Neither side has figures left on the field: the battle is a stalemate (R7.3.4)."),
        )
    elif len(wiped) == 1 and winner is None and not storm:
        check.add(
            OUTCOME_FIELD,
            _(
                "%(side)s has no figures left on the field, so it lost the battle and "
                "%(other)s won it (R7.3.1–2)."
            )
            % {"side": name[wiped[0]], "other": name[other[wiped[0]]]},
        )
    elif roster.method == "core" and not wiped and winner is not None:
        loser = other[winner]
        check.add(
            OUTCOME_FIELD,
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
