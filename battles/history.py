"""The campaign's battle history and the report of each battle, as their viewers may read
them. Read-only selectors; nothing here writes. Who sees a battle: `campaign.fog`.

The report adds to the pack (`battles.packs`) the entered result, the recovery dice
(`after:<key>:wounded-…`, `after:<key>:deserters-…` in the Phases 4–8 ledger) and the
consequences of the battle (the Phases 4–8 events between its `BattleResolved` and the next
battle's, and the Will-to-Fight tests of its players). Those come through the same lens as
the turn report (`campaign.fog.lens_for`): a battle report never shows what the turn report
hides, e.g. an enemy's retreat beyond the squares the side watches, or the enemy players'
Will to Fight. Retreat choices in an entered result are shown for the viewer's own forces
only, under fog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from battles.models import Battle
from battles.packs import (
    BattleNames,
    PackSheet,
    RollView,
    SideLine,
    people_get,
    resolutions_get,
    roll_view,
    sheet_for,
)
from battles.roster import SIDE_KEYS
from campaign import adapters
from campaign.access import Viewer
from campaign.fog import (
    Lens,
    battle_sides_get,
    battle_visible,
    event_scrub,
    event_visible,
    lens_for,
    roll_scrub,
    roll_visible,
    sees_sides,
)
from campaign.models import TurnResolution
from campaign.text.labels import FATE, OUTCOME, label
from campaign.text.names import Names
from campaign.text.sentences import event_sentence

# the events Phase 4 emits for one battle, after its BattleResolved (rules.phases.after_battle)
AFTER_BATTLE_EVENTS = frozenset(
    {
        "WoundedChecked",
        "DesertersChecked",
        "IndividualLost",
        "ReactionSuffered",
        "LootLost",
        "RegroupPooled",
        "ArtefactsCaptured",
        "ForceMoved",
        "HoldingCaptured",
        "CaptureBlocked",
        "LeaderPromoted",
        "WorksLost",
        "ForceDestroyed",
    }
)


CONSEQUENCE_GROUPS: dict[str, tuple[str, ...]] = {
    "moves": ("ForceMoved",),
    "holdings": ("HoldingCaptured", "CaptureBlocked", "LootLost", "ArtefactsCaptured"),
    "reactions": ("ReactionSuffered",),
    "people": ("IndividualLost", "LeaderPromoted", "WorksLost", "ForceDestroyed", "RegroupPooled"),
}
WILL_TO_FIGHT_EVENTS = ("WillToFightTested", "PlayerSurrendered")
_CHECK = re.compile(r"^after:(?P<battle>[^:]+):(?P<kind>wounded|deserters)-(?P<subject>.+)$")


@dataclass(frozen=True)
class HistorySide:
    letter: str
    name: str
    players: list[str]
    outcome: str  # "won" / "stalemate" / "lost" / ""
    outcome_label: str
    figures: int  # at the start of the battle
    removed: int | None  # figures removed on the table (killed, fled, left), once entered


@dataclass(frozen=True)
class HistoryRow:
    battle: Battle
    turn_number: int
    square: tuple[int, int]
    sides: list[HistorySide]
    state_label: str


def _unit_sides(pack: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(u.get("unit_id")): letter
        for letter, s in zip(SIDE_KEYS, pack.get("sides", []), strict=False)
        for f in s.get("forces", [])
        for u in f.get("units", [])
    }


def _removed_by_side(battle: Battle) -> dict[str, int] | None:
    if not battle.result:
        return None
    sides = _unit_sides(battle.pack or {})
    out = dict.fromkeys(SIDE_KEYS, 0)
    for loss in battle.result.get("units", []):
        letter = sides.get(str(loss.get("unit_id")))
        if letter is not None:
            out[letter] += sum(
                int(loss.get(k, 0) or 0) for k in ("killed", "fled", "left_oppose", "left_retreat")
            )
    return out


def _decided_outcomes(battles: Sequence[Battle]) -> dict[str, dict[str, str]]:
    """Battle key → side letter → outcome: as entered, or as Phase 4 decided it (a result may
    give the data for the victory method instead of the outcomes, §7.3)."""
    out = {b.key: dict((b.result or {}).get("outcomes") or {}) for b in battles}
    undecided = {b.turn_id for b in battles if b.result and not out[b.key]}
    if undecided:
        for events in TurnResolution.objects.filter(
            turn_id__in=undecided, stage=TurnResolution.Stage.AFTER
        ).values_list("events", flat=True):
            for e in events:
                if e.get("type") == "BattleResolved" and e.get("battle_id") in out:
                    out[e["battle_id"]] = out[e["battle_id"]] or dict(e.get("outcomes") or {})
    return out


def _state_label(battle: Battle) -> str:
    if battle.status == Battle.Status.RESOLVED:
        return str(Battle.Status.RESOLVED.label)
    if battle.entry != Battle.Entry.NONE:
        return str(battle.get_entry_display())
    return str(Battle.Status.PENDING.label)


def battles_list_for_viewer(*, viewer: Viewer, turn_number: int | None = None) -> list[HistoryRow]:
    """Every battle of the campaign the viewer may see (optionally of one turn), newest turn
    first and in contact order within a turn."""
    qs = Battle.objects.filter(campaign=viewer.campaign).select_related("turn")
    if turn_number is not None:
        qs = qs.filter(turn__number=turn_number)
    battles = [
        b
        for b in qs.order_by("-turn__number", "contact_order", "key")
        if battle_visible(viewer=viewer, battle=b)
    ]
    people = people_get(viewer.campaign.pk)
    outcomes = _decided_outcomes(battles)
    rows = []
    for b in battles:
        removed = _removed_by_side(b)
        sides = []
        for letter, s in zip(SIDE_KEYS, (b.pack or {}).get("sides", []), strict=False):
            outcome = str(outcomes.get(b.key, {}).get(letter, ""))
            key = str(s.get("side", ""))
            sides.append(
                HistorySide(
                    letter=letter,
                    name=people.sides.get(key, key),
                    players=[people.players.get(p, p) for p in s.get("players", [])],
                    outcome=outcome,
                    outcome_label=label(OUTCOME, outcome) if outcome else "",
                    figures=sum(int(f.get("figures", 0)) for f in s.get("forces", [])),
                    removed=removed[letter] if removed is not None else None,
                )
            )
        rows.append(HistoryRow(b, b.turn.number, (b.x, b.y), sides, _state_label(b)))
    return rows


def battle_turns_list_for_viewer(*, viewer: Viewer) -> list[int]:
    """The turn numbers that have at least one battle the viewer may see (for the filter)."""
    rows = Battle.objects.filter(campaign=viewer.campaign).values_list(
        "turn__number", "pack__sides"
    )
    numbers = {
        number
        for number, sides in rows
        if sees_sides(viewer, [str(s.get("side")) for s in sides or ()])
    }
    return sorted(numbers, reverse=True)


@dataclass(frozen=True)
class LossLine:
    unit_id: str
    unit: str
    force: str
    side: str  # letter
    killed: int
    fled: int
    left_oppose: int
    left_retreat: int
    recovered: int | None  # wounded who recovered (R8.1), once Phases 4–8 have run
    returned: int | None  # fled or left figures who came back (R8.2)
    lost: int | None  # lost for good: dead and deserted

    @property
    def removed(self) -> int:
        return self.killed + self.fled + self.left_oppose + self.left_retreat


@dataclass(frozen=True)
class CheckLine:
    """One wounded (R8.1) or deserter (R8.2) check of the battle, with its ledger roll."""

    kind: str  # wounded / deserters
    subject_id: str
    subject: str
    force: str
    checked: int
    kept: int  # recovered / returned
    lost: int  # dead / deserted
    automatic: bool  # mercenaries of a losing side desert without a roll (R8.2.3)
    roll: RollView | None


@dataclass(frozen=True)
class ResultView:
    outcomes: list[tuple[SideLine, str, str]]  # (side, outcome, label)
    losses: list[LossLine]
    individuals: list[tuple[str, str, str]]  # (name, force, fate label)
    points_lost: list[tuple[str, int]]  # (side name, points)
    wiped: str
    ended_by_storm: bool
    retreat_choices: list[tuple[str, tuple[int, int]]]  # (force name, square)
    resolver: str


@dataclass(frozen=True)
class BattleReport:
    battle: Battle
    sheet: PackSheet
    result: ResultView | None
    after_run: bool  # Phases 4–8 have been resolved for the battle's turn
    resolving: bool  # they are being resolved now
    outcome_text: str
    checks: list[CheckLine]
    consequences: dict[str, list[str]]  # group → sentences
    will_to_fight: list[str]
    everything: bool

    @property
    def has_consequences(self) -> bool:
        return any(self.consequences.values())


def _segment(events: Sequence[Mapping[str, Any]], key: str) -> list[Mapping[str, Any]]:
    """The Phase 4 events of one battle: its BattleResolved and what follows, up to the next
    battle or the first event of a later phase."""
    out: list[Mapping[str, Any]] = []
    inside = False
    for e in events:
        kind = e.get("type")
        if kind == "BattleResolved":
            if inside:
                break
            inside = e.get("battle_id") == key
            if inside:
                out.append(e)
            continue
        if inside:
            if kind not in AFTER_BATTLE_EVENTS:
                break
            out.append(e)
    return out


def _loss_lines(
    data: Mapping[str, Any],
    battle: Battle,
    roster: BattleNames,
    checks: Sequence[CheckLine],
    after_run: bool,
    lens: Lens | None,
) -> list[LossLine]:
    """Each unit's losses as entered, with what became of its figures once Phases 4–8 have
    run (where the viewer sees the checks)."""
    unit_side = _unit_sides(battle.pack or {})
    kept: dict[tuple[str, str], int] = {}
    dead: dict[str, int] = {}
    deserted: dict[str, int] = {}
    for c in checks:
        kept[(c.kind, c.subject_id)] = kept.get((c.kind, c.subject_id), 0) + c.kept
        if c.kind == "wounded":
            dead[c.subject_id] = dead.get(c.subject_id, 0) + c.lost
        else:
            deserted[c.subject_id] = deserted.get(c.subject_id, 0) + c.lost
    losses = []
    for loss in data.get("units", []):
        uid = str(loss.get("unit_id"))
        killed = int(loss.get("killed", 0) or 0)
        recovered = returned = lost = None
        if after_run and (lens is None or lens.everything or not lens.secret(uid)):
            recovered = kept.get(("wounded", uid), 0)
            returned = kept.get(("deserters", uid), 0)
            # a loser's killed figures are all dead without a check (R8.1.1)
            lost = dead.get(uid, killed) + deserted.get(uid, 0)
        losses.append(
            LossLine(
                unit_id=uid,
                unit=roster.member_name(uid),
                force=roster.force_name(roster.force_of.get(uid, "")),
                side=unit_side.get(uid, ""),
                killed=killed,
                fled=int(loss.get("fled", 0) or 0),
                left_oppose=int(loss.get("left_oppose", 0) or 0),
                left_retreat=int(loss.get("left_retreat", 0) or 0),
                recovered=recovered,
                returned=returned,
                lost=lost,
            )
        )
    return losses


def _result_view(
    battle: Battle,
    sheet: PackSheet,
    outcomes: Mapping[str, str],
    checks: Sequence[CheckLine],
    after_run: bool,
    viewer: Viewer,
    lens: Lens | None,
) -> ResultView | None:
    data = battle.result
    if not data:
        return None
    roster = sheet.roster
    losses = _loss_lines(data, battle, roster, checks, after_run, lens)
    individuals = [
        (
            roster.member_name(str(i.get("individual_id"))),
            roster.force_name(roster.force_of.get(str(i.get("individual_id")), "")),
            label(FATE, i.get("fate")),
        )
        for i in data.get("individuals", [])
    ]
    side_by_letter = {s.letter: s for s in sheet.sides}
    points_lost = [
        (side_by_letter[k].name if k in side_by_letter else k, int(v))
        for k, v in sorted((data.get("points_lost") or {}).items())
    ]
    wiped = str(data.get("wiped") or "")
    wiped_text = ""
    if wiped == "both":
        wiped_text = _("Both sides were wiped out: no figure was left on the field.")
    elif wiped in side_by_letter:
        wiped_text = _("%(side)s was wiped out: no figure was left on the field.") % {
            "side": side_by_letter[wiped].name
        }
    own_forces = {
        f.id for s in sheet.sides if s.key == viewer.side_key for f in s.forces
    }  # under fog, a side's retreat choices are its own business
    retreats = [
        (roster.force_name(fid), (int(sq[0]), int(sq[1])))
        for fid, sq in sorted((data.get("retreat_choices") or {}).items())
        if viewer.sees_everything or fid in own_forces
    ]
    return ResultView(
        outcomes=[
            (
                s,
                outcomes.get(s.letter, ""),
                label(OUTCOME, outcomes[s.letter]) if outcomes.get(s.letter) else "",
            )
            for s in sheet.sides
        ],
        losses=losses,
        individuals=individuals,
        points_lost=points_lost,
        wiped=wiped_text,
        ended_by_storm=bool(data.get("ended_by_storm")),
        retreat_choices=retreats,
        resolver=str(Battle.Resolver(battle.resolver).label)
        if battle.resolver in Battle.Resolver.values
        else battle.resolver,
    )


def _checks(
    segment: Sequence[Mapping[str, Any]],
    ledger: Iterable[Mapping[str, Any]],
    key: str,
    lens: Lens,
    roster: BattleNames,
) -> list[CheckLine]:
    """The battle's wounded and deserter checks the lens shows, each with its ledger roll
    (paired by purpose, in order: a check of n figures is one roll of n dice)."""
    rolls: dict[tuple[str, str], list[RollView]] = {}
    for entry in ledger:
        m = _CHECK.match(str(entry.get("purpose", "")))
        if m is None or m["battle"] != key or not roll_visible(lens, entry):
            continue
        subject = m["subject"].removesuffix("-exits")
        rolls.setdefault((m["kind"], subject), []).append(roll_view(roll_scrub(lens, entry)))
    out = []
    for e in segment:
        kind = {"WoundedChecked": "wounded", "DesertersChecked": "deserters"}.get(
            str(e.get("type"))
        )
        if kind is None or not event_visible(lens, e):
            continue
        subject = e.get("unit_id")
        if not isinstance(subject, str) or lens.secret(subject):
            continue
        automatic = bool(e.get("automatic"))
        queue = rolls.get((kind, subject), [])
        roll = queue.pop(0) if queue and not automatic else None
        out.append(
            CheckLine(
                kind=kind,
                subject_id=subject,
                subject=roster.member_name(subject),
                force=roster.force_name(str(e.get("force_id", ""))),
                checked=int(e.get("checked", 0)),
                kept=int(e.get("recovered", e.get("returned", 0)) or 0),
                lost=int(e.get("dead", e.get("deserted", 0)) or 0),
                automatic=automatic,
                roll=roll,
            )
        )
    return out


def battle_report_get(*, battle: Battle, viewer: Viewer) -> BattleReport:
    """The report of one battle for `viewer` (who may see it: `battle_visible`)."""
    stages = resolutions_get(battle.turn, battle.key)  # the battle's own rolls
    after = stages.get(TurnResolution.Stage.AFTER)
    sheet = sheet_for(battle, stages)
    outcomes = dict((battle.result or {}).get("outcomes") or {})
    checks: list[CheckLine] = []
    consequences: dict[str, list[str]] = {group: [] for group in CONSEQUENCE_GROUPS}
    will: list[str] = []
    outcome_text = ""
    lens: Lens | None = None
    if after is not None:
        before = adapters.state_before(after)
        states = (before, adapters.turn_state_after_get(turn=battle.turn))
        # every battle of the campaign, so that the lens knows which ones the viewer's side
        # did not fight
        all_sides = battle_sides_get(campaign=battle.campaign)
        lens = lens_for(viewer=viewer, states=states, battle_sides=all_sides, events=after.events)
        names = Names(
            states,
            sides=sheet.people.sides,
            battle_sides={
                battle.key: {s.letter: s.name for s in sheet.sides},
            },
            everything=lens.everything,
        )
        segment = _segment(after.events, battle.key)
        for e in segment:
            if e.get("type") == "BattleResolved":
                outcomes = outcomes or dict(e.get("outcomes") or {})
                outcome_text = event_sentence(event_scrub(lens, e), names)
                continue
            if not event_visible(lens, e):
                continue
            for group, kinds in CONSEQUENCE_GROUPS.items():
                if e.get("type") in kinds:
                    consequences[group].append(event_sentence(event_scrub(lens, e), names))
        checks = _checks(segment, after.ledger, battle.key, lens, sheet.roster)
        players = {p for s in (battle.pack or {}).get("sides", []) for p in s.get("players", [])}
        for e in after.events:
            kind, player = e.get("type"), e.get("player_id")
            if kind in WILL_TO_FIGHT_EVENTS and player in players and event_visible(lens, e):
                will.append(event_sentence(event_scrub(lens, e), names))
    result = _result_view(battle, sheet, outcomes, checks, after is not None, viewer, lens)
    return BattleReport(
        battle=battle,
        sheet=sheet,
        result=result,
        after_run=after is not None,
        resolving=battle.turn.resolving_after_battles,
        outcome_text=outcome_text,
        checks=checks,
        consequences=consequences,
        will_to_fight=will,
        everything=viewer.sees_everything,
    )
