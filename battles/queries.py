"""Battle records as their viewers may read them: the pack, the campaign's battle history and
the report of each battle. Read-only selectors; nothing here writes.

**Who sees a battle** (every battles view asks `battle_get_for_viewer` / `battle_visible`):

- the GM always, and everyone when fog of war is off or the campaign has ended
  (`Viewer.sees_everything`);
- under fog of war, the players of the two sides that fight it. A side is one army at the
  table, so an ally whose own forces are not in the battle sees it too;
- an observer who follows a player sees what that player's side sees; an observer who follows
  no one sees no battle under fog, as he sees no force on the map;
- for anyone else the battle does not exist: it is left out of the history and its pages
  answer 404.

**What such a viewer sees.** The whole pack, both sides included: their forces, units,
strength, start states and ammunition. That is how the tabletop reveals the enemy's strength,
once the battle exists (before that, the map's fog of war hides it). The pack's own dice
(scenery, ammunition: purposes `battle:<key>:…` in the Phases 0–2 ledger) are shown in full to
the same viewers, since they only decide what the pack says.

The report adds the entered result, the recovery dice (`after:<key>:wounded-…`,
`after:<key>:deserters-…` in the Phases 4–8 ledger) and the consequences of the battle (the
Phases 4–8 events between its `BattleResolved` and the next battle's, and the Will-to-Fight
tests of its players). Those come through the same lens as the turn report
(`campaign.report.lens_for`): a battle report never shows what the turn report hides, e.g. an
enemy's retreat beyond the squares the side watches, or the enemy players' Will to Fight.
Retreat choices in an entered result are shown for the viewer's own forces only, under fog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from battles.models import Battle
from campaign import services
from campaign.access import Viewer
from campaign.mapview import feature_label
from campaign.models import Player, Side, Turn, TurnResolution
from campaign.report import (
    STATUS_LABELS,
    WEATHER_LABELS,
    Lens,
    Names,
    event_scrub,
    event_sentence,
    event_visible,
    lens_for,
    roll_scrub,
    roll_visible,
)
from rules.codec import from_data
from rules.types import CampaignState, Feature, General, Individual, Unit

SIDE_LETTERS = ("a", "b")  # pack.sides[0] is "a", the side that made the contact

SCOUTING_LABELS = {
    "doubled": gettext_lazy("doubled scouting"),
    "full": gettext_lazy("full scouting"),
    "partial": gettext_lazy("partial scouting"),
    "none": gettext_lazy("no scouting"),
}
TERRITORY_LABELS = {
    "friendly": gettext_lazy("friendly territory"),
    "neutral": gettext_lazy("neutral territory"),
    "enemy": gettext_lazy("enemy territory"),
}
ROLE_LABELS = {
    "attacker": gettext_lazy("attacker"),
    "defender": gettext_lazy("defender"),
    "ambusher": gettext_lazy("ambusher"),
    "ambushed": gettext_lazy("ambushed"),
}
SCENARIO_LABELS = {
    "raid": gettext_lazy("Raid (§7.10.1)"),
    "breakthrough": gettext_lazy("Breakthrough (§7.10.2)"),
    "chance-encounter": gettext_lazy("Chance Encounter (§7.10.3)"),
    "flank-attack": gettext_lazy("Flank Attack (§7.10.4)"),
    "ambush": gettext_lazy("Ambush (§7.10.5)"),
    "final-massacre": gettext_lazy("Final Massacre (§7.10.6)"),
}
SCENERY_LABELS = {
    "geography": gettext_lazy("Geography (§7.7.1)"),
    "vegetation": gettext_lazy("Vegetation (§7.7.2)"),
    "hydrography": gettext_lazy("Hydrography (§7.7.3)"),
    "special-feature": gettext_lazy("Special feature (§7.7.4)"),
    "artificial-works": gettext_lazy("Artificial works (§7.7.5)"),
}
SPECIALITY_LABELS = {
    "infantry": gettext_lazy("infantry"),
    "missile": gettext_lazy("missile troops"),
    "artillery": gettext_lazy("artillery"),
    "cavalry": gettext_lazy("cavalry"),
    "air-cavalry": gettext_lazy("air cavalry"),
    "terrible-creature": gettext_lazy("terrible creature"),
}
QUALITY_LABELS = {
    "levy": gettext_lazy("levy"),
    "average": gettext_lazy("average"),
    "veteran": gettext_lazy("veteran"),
    "elite": gettext_lazy("elite"),
}
OUTCOME_LABELS = {
    "won": gettext_lazy("Won"),
    "stalemate": gettext_lazy("Stalemate"),
    "lost": gettext_lazy("Lost"),
}
FATE_LABELS = {"killed": gettext_lazy("killed"), "fled": gettext_lazy("fled")}

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


# --- who sees a battle --------------------------------------------------------------------------


def battle_sides(battle: Battle) -> tuple[str, ...]:
    """The alliances (side keys) that fight `battle`, side "a" first."""
    return tuple(str(s.get("side")) for s in (battle.pack or {}).get("sides", []))


def battle_visible(*, viewer: Viewer, battle: Battle) -> bool:
    """Whether `viewer` may see this battle at all (see the module text)."""
    if battle.campaign_id != viewer.campaign.pk:
        return False
    return _sees_sides(viewer, battle_sides(battle))


def _sees_sides(viewer: Viewer, sides: Iterable[str]) -> bool:
    if viewer.sees_everything:
        return True
    return viewer.side_key is not None and viewer.side_key in sides


def battle_get_for_viewer(*, viewer: Viewer, key: str) -> Battle | None:
    """The battle `key` of the viewer's campaign, or None when it does not exist for him."""
    battle = (
        Battle.objects.filter(campaign=viewer.campaign, key=key)
        .select_related("campaign", "turn", "entered_by", "confirmed_by")
        .first()
    )
    if battle is None or not battle_visible(viewer=viewer, battle=battle):
        return None
    return battle


def battles_pending_list_for_viewer(*, viewer: Viewer) -> list[Battle]:
    """The pending battles of the campaign's latest turn that the viewer may see, in contact
    order: what the print page puts on paper."""
    turn = viewer.campaign.turns.order_by("-number").first()
    if turn is None:
        return []
    battles = Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).select_related(
        "campaign", "turn"
    )
    return [
        b
        for b in battles.order_by("contact_order", "key")
        if battle_visible(viewer=viewer, battle=b)
    ]


# --- names: sides and players from the campaign rows, forces from the battle-time state ---------


@dataclass(frozen=True)
class _People:
    sides: Mapping[str, str]  # side key → name
    players: Mapping[str, str]  # player key → name
    colours: Mapping[str, str]  # player key → colour


def _people(campaign_id: int) -> _People:
    sides = dict(Side.objects.filter(campaign_id=campaign_id).values_list("key", "name"))
    players, colours = {}, {}
    for key, name, colour in Player.objects.filter(campaign_id=campaign_id).values_list(
        "key", "name", "colour"
    ):
        players[key], colours[key] = name or key, colour
    return _People(sides, players, colours)


def _resolutions(turn: Turn) -> dict[str, TurnResolution]:
    return {r.stage: r for r in TurnResolution.objects.filter(turn=turn)}


def _battle_time_state(battle: Battle, after: TurnResolution | None) -> CampaignState:
    """The state the battle was fought from: the one Phases 4–8 started from once they have
    run, the campaign rows while the turn waits for its battles."""
    if after is not None:
        return from_data(CampaignState, after.state_before, "state_before")
    return services.campaign_state(campaign=battle.campaign)


class _Roster:
    """Forces and their members by id, in one state."""

    def __init__(self, state: CampaignState) -> None:
        self.forces = {f.id: f for f in state.forces}
        self.units: dict[str, Unit] = {}
        self.generals: dict[str, General] = {}
        self.individuals: dict[str, Individual] = {}
        self.force_of: dict[str, str] = {}
        for f in state.forces:
            for c in f.commands:
                if c.general is not None:
                    self.generals[c.general.id] = c.general
                    self.force_of[c.general.id] = f.id
                for u in c.units:
                    self.units[u.id] = u
                    self.force_of[u.id] = f.id
            for i in f.individuals:
                self.individuals[i.id] = i
                self.force_of[i.id] = f.id

    def force_name(self, fid: str) -> str:
        f = self.forces.get(fid)
        return (f.name if f is not None and f.name else "") or _("force %(id)s") % {"id": fid}

    def member_name(self, mid: str) -> str:
        if mid in self.units:
            return self.units[mid].type or mid
        if mid in self.generals:
            g = self.generals[mid]
            return g.name or _("the general %(id)s") % {"id": mid}
        if mid in self.individuals:
            i = self.individuals[mid]
            return i.name or i.kind.value.replace("-", " ")
        return mid


# --- the pack -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RollView:
    """One ledger entry, as the battle pages print it."""

    seq: int
    purpose: str
    rule: str
    dice: str  # "2D6"
    natural: list[int]
    modifiers: list[tuple[str, str]]  # (reason, signed value)
    total: int | None
    outcome: str
    details: list[str]

    @property
    def natural_text(self) -> str:
        return ", ".join(str(n) for n in self.natural)


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{abs(value)}"


def _roll_view(entry: Mapping[str, Any]) -> RollView:
    natural = [int(n) for n in entry.get("natural") or ()]
    return RollView(
        seq=int(entry.get("stored_seq", entry.get("seq", 0)) or 0),
        purpose=str(entry.get("purpose", "")),
        rule=str(entry.get("rule", "")),
        dice=f"{len(natural)}D{entry.get('sides', 6)}",
        natural=natural,
        modifiers=[
            (str(m.get("reason", "")), _signed(int(m.get("value", 0))))
            for m in entry.get("modifiers") or ()
        ],
        total=entry.get("total"),
        outcome=str(entry.get("outcome", "")),
        details=[str(d) for d in entry.get("details") or ()],
    )


def battle_ledger_list(*, battle: Battle, stage: str) -> list[dict[str, Any]]:
    """The stored ledger entries of `battle` in one stage of its turn, unfiltered: the pack's
    dice (`battle:<key>:…`, Phases 0–2) or the recovery dice (`after:<key>:…`, Phases 4–8)."""
    prefix = ("battle:" if stage == TurnResolution.Stage.TURN else "after:") + f"{battle.key}:"
    r = TurnResolution.objects.filter(turn_id=battle.turn_id, stage=stage).first()
    if r is None:
        return []
    return [dict(e) for e in r.ledger if str(e.get("purpose", "")).startswith(prefix)]


@dataclass(frozen=True)
class UnitLine:
    id: str
    name: str
    speciality: str
    quality: str
    figures: int | None
    mounted: bool
    mercenary: bool
    disorganised: bool
    demoralised: bool
    ammo: int | None
    ammo_roll: RollView | None


@dataclass(frozen=True)
class PersonLine:
    id: str
    name: str
    detail: str


@dataclass(frozen=True)
class ForceLine:
    id: str
    name: str
    owner: str
    owner_name: str
    colour: str
    status: str
    status_label: str
    figures: int
    points: int
    entered_from: tuple[int, int] | None
    works_quota: int
    units: list[UnitLine]
    people: list[PersonLine]


@dataclass(frozen=True)
class SideLine:
    letter: str
    key: str
    name: str
    role: str
    role_label: str
    players: list[str]
    territory_label: str
    scouting: str
    scouting_label: str
    scouting_modifier: str
    forces: list[ForceLine]
    figures: int
    points: int


@dataclass(frozen=True)
class SceneryLine:
    name: str
    label: str
    outcome: str
    roll: RollView | None


@dataclass(frozen=True)
class PackSheet:
    """Everything a table needs to fight one battle (the pack), with names and labels."""

    battle: Battle
    key: str
    turn_number: int
    square: tuple[int, int]
    contact_order: int
    contact_force: str  # the name of the force that made the contact (side a's first)
    features: list[str]
    setup_rule: str
    scenery: list[SceneryLine]
    scenario: str | None
    scenario_label: str
    scenario_rules: str
    sides: list[SideLine]
    weather_label: str
    weather_effects: list[str]
    gr_modifiers: list[tuple[int, str]]  # (hour, signed modifier)
    max_turns: int
    rolls: list[RollView]  # every die of the pack: scenery, then ammunition
    people: _People = field(repr=False)
    roster: _Roster = field(repr=False)

    def side(self, letter: str) -> SideLine | None:
        return next((s for s in self.sides if s.letter == letter), None)

    def side_of_unit(self, unit_id: str) -> str | None:
        for s in self.sides:
            for f in s.forces:
                if any(u.id == unit_id for u in f.units):
                    return s.letter
        return None


def _weather_effects(effects: Mapping[str, Any]) -> list[str]:
    """R4.2 battle effects of the weather, one sentence each (A-60 for the storm option)."""
    out = []
    for key, value in effects.items():
        if key == "missile_to_hit":
            out.append(_("Missile fire: %(value)s to hit.") % {"value": _signed(int(value))})
        elif key == "melee_to_hit":
            out.append(_("Melee: %(value)s to hit.") % {"value": _signed(int(value))})
        elif key == "unit_move":
            out.append(_("Unit movement reduced by %(value)s.") % {"value": str(value).lstrip("-")})
        elif key == "command_zone_cm":
            out.append(_("Command zones: %(value)s cm.") % {"value": _signed(int(value))})
        elif key == "change_orders_test":
            out.append(_("Change-orders tests: %(value)s.") % {"value": _signed(int(value))})
        elif key == "light_signals" and not value:
            out.append(_("Light signals cannot be used."))
        elif key == "battle_interrupted" and value:
            out.append(_("The storm interrupts the battle for one turn (R4.2)."))
        elif key == "battle_ends_as_stalemate" and value:
            out.append(_("The storm ends the battle at once as a stalemate (A-60)."))
        else:
            out.append(
                _("%(effect)s: %(value)s.") % {"effect": key.replace("_", " "), "value": value}
            )
    return out


def _feature_labels(features: Iterable[str]) -> list[str]:
    out = []
    for f in features:
        try:
            out.append(str(feature_label(Feature(f))))
        except ValueError:
            out.append(f)
    return out


def _sheet(
    battle: Battle, roster: _Roster, people: _People, rolls: Sequence[Mapping[str, Any]]
) -> PackSheet:
    pack = battle.pack or {}
    by_purpose = {str(e.get("purpose")): _roll_view(e) for e in rolls}
    prefix = f"battle:{battle.key}:"
    sides: list[SideLine] = []
    for letter, s in zip(SIDE_LETTERS, pack.get("sides", []), strict=False):
        forces = []
        for bf in s.get("forces", []):
            fid = str(bf.get("force_id"))
            force = roster.forces.get(fid)
            units = []
            for us in bf.get("units", []):
                uid = str(us.get("unit_id"))
                u = roster.units.get(uid)
                units.append(
                    UnitLine(
                        id=uid,
                        name=roster.member_name(uid),
                        speciality=str(SPECIALITY_LABELS.get(u.speciality.value, ""))
                        if u is not None
                        else "",
                        quality=str(QUALITY_LABELS.get(u.quality.value, "")) if u else "",
                        figures=u.figures if u is not None else None,
                        mounted=bool(u and u.mounted),
                        mercenary=bool(u and u.mercenary),
                        disorganised=bool(us.get("disorganised")),
                        demoralised=bool(us.get("demoralised")),
                        ammo=us.get("ammo"),
                        ammo_roll=by_purpose.get(f"{prefix}ammo-{uid}"),
                    )
                )
            persons = []
            if force is not None:
                for c in force.commands:
                    if c.general is not None:
                        persons.append(
                            PersonLine(
                                c.general.id,
                                roster.member_name(c.general.id),
                                _("general, command value %(cv)s") % {"cv": c.general.cv},
                            )
                        )
                for i in force.individuals:
                    persons.append(
                        PersonLine(i.id, roster.member_name(i.id), i.kind.value.replace("-", " "))
                    )
            owner = str(bf.get("owner", ""))
            came = bf.get("entered_from")
            status = str(bf.get("status", ""))
            forces.append(
                ForceLine(
                    id=fid,
                    name=roster.force_name(fid),
                    owner=owner,
                    owner_name=people.players.get(owner, owner),
                    colour=people.colours.get(owner, "#888888"),
                    status=status,
                    status_label=str(STATUS_LABELS.get(status, status)),
                    figures=int(bf.get("figures", 0)),
                    points=int(bf.get("points", 0)),
                    entered_from=(int(came[0]), int(came[1])) if came else None,
                    works_quota=int(bf.get("works_quota", 0)),
                    units=units,
                    people=persons,
                )
            )
        key = str(s.get("side", ""))
        role = str(s.get("role", ""))
        scouting = str(s.get("scouting", "none"))
        sides.append(
            SideLine(
                letter=letter,
                key=key,
                name=people.sides.get(key, key),
                role=role,
                role_label=str(ROLE_LABELS.get(role, role)),
                players=[people.players.get(p, p) for p in s.get("players", [])],
                territory_label=str(TERRITORY_LABELS.get(s.get("territory", ""), "")),
                scouting=scouting,
                scouting_label=str(SCOUTING_LABELS.get(scouting, scouting)),
                scouting_modifier=_signed(int(s.get("scouting_modifier", 0))),
                forces=forces,
                figures=sum(f.figures for f in forces),
                points=sum(f.points for f in forces),
            )
        )
    scenery = [
        SceneryLine(
            name,
            str(SCENERY_LABELS.get(name, name)),
            str(outcome).replace("-", " "),
            by_purpose.get(f"{prefix}scenery-{name}"),
        )
        for name, outcome in (pack.get("scenery") or {}).items()
    ]
    scenario = pack.get("scenario") or None
    weather = str(pack.get("weather", "fine"))
    first = sides[0].forces[0].name if sides and sides[0].forces else "—"
    return PackSheet(
        battle=battle,
        key=battle.key,
        turn_number=int(pack.get("turn", battle.turn.number)),
        square=(battle.x, battle.y),
        contact_order=int(pack.get("contact_order", battle.contact_order)),
        contact_force=first,
        features=_feature_labels(pack.get("features", [])),
        setup_rule=str(pack.get("setup_rule", "")),
        scenery=scenery,
        scenario=scenario,
        scenario_label=str(SCENARIO_LABELS.get(scenario, scenario or "")),
        scenario_rules=str(pack.get("scenario_rules", "")),
        sides=sides,
        weather_label=str(WEATHER_LABELS.get(weather, weather)).capitalize(),
        weather_effects=_weather_effects(pack.get("weather_effects") or {}),
        gr_modifiers=sorted(
            (int(h), _signed(int(m))) for h, m in (pack.get("gr_modifiers") or {}).items()
        ),
        max_turns=int(pack.get("max_turns", 12)),
        rolls=[_roll_view(e) for e in sorted(rolls, key=lambda e: int(e.get("seq", 0)))],
        people=people,
        roster=roster,
    )


def pack_sheets_list(*, battles: Sequence[Battle]) -> list[PackSheet]:
    """The packs of `battles` (the caller has checked the viewer may see them). Battles of
    one turn share one read of its resolutions, one state and one read of the names."""
    parts: dict[int, tuple[_Roster, _People, list[Mapping[str, Any]]]] = {}
    out: list[PackSheet] = []
    for b in battles:
        if b.turn_id not in parts:
            parts[b.turn_id] = _turn_parts(b, _resolutions(b.turn))
        roster, people, ledger = parts[b.turn_id]
        out.append(_sheet(b, roster, people, _pack_rolls(b, ledger)))
    return out


def _turn_parts(
    battle: Battle, stages: Mapping[str, TurnResolution]
) -> tuple[_Roster, _People, list[Mapping[str, Any]]]:
    """What the packs of one turn share: the battle-time roster, the names of sides and
    players, and the Phases 0–2 ledger."""
    roster = _Roster(_battle_time_state(battle, stages.get(TurnResolution.Stage.AFTER)))
    turn_stage = stages.get(TurnResolution.Stage.TURN)
    ledger = list(turn_stage.ledger) if turn_stage is not None else []
    return roster, _people(battle.campaign_id), ledger


def _pack_rolls(battle: Battle, ledger: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    prefix = f"battle:{battle.key}:"
    return [e for e in ledger if str(e.get("purpose", "")).startswith(prefix)]


def pack_sheet_get(*, battle: Battle) -> PackSheet:
    return pack_sheets_list(battles=[battle])[0]


# --- the history ------------------------------------------------------------------------------


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
        for letter, s in zip(SIDE_LETTERS, pack.get("sides", []), strict=False)
        for f in s.get("forces", [])
        for u in f.get("units", [])
    }


def _removed_by_side(battle: Battle) -> dict[str, int] | None:
    if not battle.result:
        return None
    sides = _unit_sides(battle.pack or {})
    out = dict.fromkeys(SIDE_LETTERS, 0)
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
    people = _people(viewer.campaign.pk)
    outcomes = _decided_outcomes(battles)
    rows = []
    for b in battles:
        removed = _removed_by_side(b)
        sides = []
        for letter, s in zip(SIDE_LETTERS, (b.pack or {}).get("sides", []), strict=False):
            outcome = str(outcomes.get(b.key, {}).get(letter, ""))
            key = str(s.get("side", ""))
            sides.append(
                HistorySide(
                    letter=letter,
                    name=people.sides.get(key, key),
                    players=[people.players.get(p, p) for p in s.get("players", [])],
                    outcome=outcome,
                    outcome_label=str(OUTCOME_LABELS.get(outcome, "")),
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
        if _sees_sides(viewer, [str(s.get("side")) for s in sides or ()])
    }
    return sorted(numbers, reverse=True)


# --- the report -------------------------------------------------------------------------------


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


def _state_after(turn: Turn, campaign) -> CampaignState:
    """The state Phases 4–8 of `turn` left: the next turn's starting state, or the current."""
    nxt = (
        TurnResolution.objects.filter(
            turn__campaign=campaign,
            turn__number=turn.number + 1,
            stage=TurnResolution.Stage.TURN,
        )
        .only("state_before")
        .first()
    )
    if nxt is not None:
        return from_data(CampaignState, nxt.state_before, "state_before")
    return services.campaign_state(campaign=campaign)


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
        fled = int(loss.get("fled", 0) or 0)
        oppose = int(loss.get("left_oppose", 0) or 0)
        retreat = int(loss.get("left_retreat", 0) or 0)
        recovered = returned = lost = None
        # what happened to the figures is known only where the viewer sees the checks
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
                fled=fled,
                left_oppose=oppose,
                left_retreat=retreat,
                recovered=recovered,
                returned=returned,
                lost=lost,
            )
        )
    individuals = [
        (
            roster.member_name(str(i.get("individual_id"))),
            roster.force_name(roster.force_of.get(str(i.get("individual_id")), "")),
            str(FATE_LABELS.get(str(i.get("fate")), i.get("fate"))),
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
            (s, outcomes.get(s.letter, ""), str(OUTCOME_LABELS.get(outcomes.get(s.letter, ""), "")))
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
    roster: _Roster,
) -> list[CheckLine]:
    """The battle's wounded and deserter checks the lens shows, each with its ledger roll
    (paired by purpose, in order: a check of n figures is one roll of n dice)."""
    rolls: dict[tuple[str, str], list[RollView]] = {}
    for entry in ledger:
        m = _CHECK.match(str(entry.get("purpose", "")))
        if m is None or m["battle"] != key or not roll_visible(lens, entry):
            continue
        subject = m["subject"].removesuffix("-exits")
        rolls.setdefault((m["kind"], subject), []).append(_roll_view(roll_scrub(lens, entry)))
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
    stages = _resolutions(battle.turn)
    after = stages.get(TurnResolution.Stage.AFTER)
    sheet = _sheet_for(battle, stages)
    outcomes = dict((battle.result or {}).get("outcomes") or {})
    checks: list[CheckLine] = []
    consequences: dict[str, list[str]] = {group: [] for group in CONSEQUENCE_GROUPS}
    will: list[str] = []
    outcome_text = ""
    lens: Lens | None = None
    if after is not None:
        before = from_data(CampaignState, after.state_before, "state_before")
        states = (before, _state_after(battle.turn, battle.campaign))
        # every battle of the campaign, so that the lens knows which ones the viewer's side
        # did not fight
        all_sides = {
            k: tuple(str(s.get("side")) for s in sides or ())
            for k, sides in Battle.objects.filter(campaign=battle.campaign).values_list(
                "key", "pack__sides"
            )
        }
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
        resolving=battle.turn.status == Turn.Status.RESOLVING_AFTER,
        outcome_text=outcome_text,
        checks=checks,
        consequences=consequences,
        will_to_fight=will,
        everything=viewer.sees_everything,
    )


def _sheet_for(battle: Battle, stages: Mapping[str, TurnResolution]) -> PackSheet:
    roster, people, ledger = _turn_parts(battle, stages)
    return _sheet(battle, roster, people, _pack_rolls(battle, ledger))
