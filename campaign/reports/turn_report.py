"""The report of a turn: its narrative and dice ledger, read from the stored resolutions and
filtered by what the viewer may see (`campaign.fog`: the lens of each stage), and the replay
check as the viewer may read it. The digest e-mail tells the same narrative.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from campaign import adapters
from campaign.access import Viewer
from campaign.exchange.replay import turn_replay
from campaign.fog import Lens, battle_sides_get, event_scrub, event_visible, ledger_for, lens_for
from campaign.models import Side, Turn, TurnResolution
from campaign.state_rows import derived
from campaign.text.labels import PHASE, label
from campaign.text.ledger import roll_details, roll_entry_outcome, roll_kind, roll_modifiers
from campaign.text.names import Names
from campaign.text.sentences import event_sentence, signed


def roll_phase(purpose: str) -> str:
    return purpose.split(":", 1)[0]


@dataclass(frozen=True)
class EventLine:
    index: int  # 1-based, as the replay check counts
    type: str
    text: str
    rule: str


@dataclass(frozen=True)
class RollLine:
    stage: str
    stage_label: str
    number: int  # as shown: the viewer's own count, so that gaps do not betray hidden rolls
    seq: int  # as stored (the replay check names it)
    phase: str
    phase_label: str
    purpose: str
    what: str  # what the roll was for, in words
    subject: str
    rule: str
    dice: str
    natural: list[int]
    modifiers: list[tuple[str, str]]  # (reason, signed value)
    total: int | None
    outcome: str
    details: list[str]


@dataclass(frozen=True)
class LedgerEntry:
    """A ledger entry the viewer may see, put in words only when a page shows it: a turn of
    a large campaign has thousands, and the report shows them a page at a time."""

    stage: str
    stage_label: str
    phase: str
    entry: dict[str, Any]
    lens: Lens
    names: Names

    def line(self) -> RollLine:
        entry, purpose = self.entry, str(self.entry.get("purpose", ""))
        natural = list(entry.get("natural") or [])
        return RollLine(
            stage=self.stage,
            stage_label=self.stage_label,
            number=int(entry.get("seq", 0)),
            seq=int(entry.get("stored_seq", entry.get("seq", 0))),
            phase=self.phase,
            phase_label=label(PHASE, self.phase),
            purpose=purpose,
            what=roll_kind(purpose),
            subject=self.names.subject(self.lens, purpose),
            rule=str(entry.get("rule", "")),
            dice=f"{len(natural)}D{entry.get('sides', 6)}",
            natural=natural,
            modifiers=[(reason, signed(value)) for reason, value in roll_modifiers(entry)],
            total=entry.get("total"),
            outcome=roll_entry_outcome(entry),
            details=roll_details(entry),
        )


@dataclass(frozen=True)
class StageReport:
    stage: str
    label: str
    events: list[EventLine]
    entries: list[LedgerEntry]

    @property
    def rolls(self) -> list[RollLine]:
        return [e.line() for e in self.entries]


@dataclass(frozen=True)
class TurnReport:
    turn: Turn
    stages: list[StageReport]
    everything: bool

    @property
    def rolls(self) -> list[RollLine]:
        return [r for s in self.stages for r in s.rolls]

    @property
    def phases(self) -> list[tuple[str, str]]:
        seen: dict[str, str] = {}
        for s in self.stages:
            for e in s.entries:
                if e.phase not in seen:
                    seen[e.phase] = label(PHASE, e.phase)
        return list(seen.items())

    def entries_in(self, phase: str | None) -> list[LedgerEntry]:
        return [e for s in self.stages for e in s.entries if not phase or e.phase == phase]

    def rolls_in(
        self, phase: str | None, start: int = 0, count: int | None = None
    ) -> list[RollLine]:
        """The rolls of `phase` (all without), in words, from `start` on, `count` of them."""
        entries = self.entries_in(phase)
        stop = None if count is None else start + count
        return [e.line() for e in entries[start:stop]]


def turn_report_get(*, turn: Turn, viewer: Viewer) -> TurnReport:
    """The narrative and ledger of a turn as `viewer` may see them (see the module text)."""
    campaign = turn.campaign
    battle_sides = battle_sides_get(campaign=campaign)
    side_names = dict(Side.objects.filter(campaign=campaign).values_list("key", "name"))
    by_battle = {
        bid: {letter: side_names.get(key, key) for letter, key in zip("ab", sides, strict=False)}
        for bid, sides in battle_sides.items()
    }
    stages = []
    for view in adapters.stage_states_list(campaign=campaign, number=turn.number):
        r = view.resolution
        states = (view.before, view.after)

        def build(r: TurnResolution = r, states: tuple[Any, ...] = states) -> StageReport:
            lens = lens_for(
                viewer=viewer, states=states, battle_sides=battle_sides, events=r.events
            )
            names = Names(
                states, sides=side_names, battle_sides=by_battle, everything=lens.everything
            )
            return _stage_report(r, lens, names)

        # a stored resolution never changes: its report for one side (and language) is the
        # same for each of the side's readers while the states it is read against are
        what = (
            "stage-report",
            r.pk,
            r.created_at,
            viewer.sees_everything,
            viewer.side_key,
            get_language(),
            tuple(sorted(side_names.items())),
            tuple(sorted((b, tuple(s)) for b, s in battle_sides.items())),
        )
        parts = tuple(x for st in states for x in (st.forces, st.players, st.holdings))
        stages.append(derived(what, parts, build))
    return TurnReport(turn, stages, viewer.sees_everything)


def _stage_report(r: TurnResolution, lens: Lens, names: Names) -> StageReport:
    stage_label = str(TurnResolution.Stage(r.stage).label)
    events = [
        EventLine(
            i, str(e.get("type")), event_sentence(event_scrub(lens, e), names), e.get("rule", "")
        )
        for i, e in enumerate(r.events, start=1)
        if event_visible(lens, e)
    ]
    entries = [
        LedgerEntry(
            r.stage, stage_label, roll_phase(str(entry.get("purpose", ""))), entry, lens, names
        )
        for entry in ledger_for(lens, r.ledger)
    ]
    return StageReport(r.stage, stage_label, events, entries)


# --- the replay check, as a viewer may read it -----------------------------------------------

_LEDGER_LINE = re.compile(r"^(?P<stage>.+?): ledger #(?P<seq>\d+) \((?P<purpose>[^)]*)\)")
_EVENT_LINE = re.compile(r"^(?P<stage>.+?): event #(?P<index>\d+) \((?P<kind>[^)]*)\)")


@dataclass(frozen=True)
class ReplayCheck:
    ok: bool
    stages: list[str]
    lines: list[str]
    hidden: int  # differences in rolls or events the viewer cannot see


def turn_replay_for_viewer(*, turn: Turn, viewer: Viewer) -> ReplayCheck:
    """Replay the turn (`campaign.exchange.replay.turn_replay`). The GM (and everyone without fog)
    reads every difference as the replay states it; a player reads, for each roll or event he
    can see, that it does not match, and only a count of the others: the raw lines quote
    stored and replayed values, which may belong to hidden forces."""
    report = turn_replay(turn=turn)
    if viewer.sees_everything:
        return ReplayCheck(report.ok, report.stages, list(report.differences), 0)
    shown = turn_report_get(turn=turn, viewer=viewer)
    rolls = {(s.label, r.seq): r for s in shown.stages for r in s.rolls}
    events = {(s.label, ev.index): ev for s in shown.stages for ev in s.events}
    lines: list[str] = []
    hidden = 0
    for diff in report.differences:
        m = _LEDGER_LINE.match(diff)
        if m and (m["stage"], int(m["seq"])) in rolls:
            roll = rolls[(m["stage"], int(m["seq"]))]
            lines.append(
                _("%(stage)s: roll %(number)s (%(purpose)s) does not match the replay.")
                % {"stage": m["stage"], "number": roll.number, "purpose": roll.purpose}
            )
            continue
        m = _EVENT_LINE.match(diff)
        if m and (m["stage"], int(m["index"])) in events:
            ev = events[(m["stage"], int(m["index"]))]
            lines.append(
                _("%(stage)s: event %(index)s (“%(text)s”) does not match the replay.")
                % {"stage": m["stage"], "index": ev.index, "text": ev.text}
            )
            continue
        if diff.startswith("seed hash:") or ": seed:" in diff:
            lines.append(diff)  # seeds are public once the turn is resolved
            continue
        hidden += 1
    return ReplayCheck(report.ok, report.stages, lines, hidden)
