"""The battle pack as its viewers may read it: everything a table needs to fight one battle
(square and terrain, scenery, scenario, the sides with their forces, units, start states and
ammunition, the weather's effects, the General Retreat modifiers), with names and labels, and
the pack's own dice. Read-only selectors; nothing here writes.

**Who sees a battle**: `campaign.fog.battle_visible` (every battles view asks it, through
`battle_get_for_viewer`); for anyone else the battle does not exist and its pages answer 404.
**What such a viewer sees**: the whole pack, both sides included. That is how the tabletop
reveals the enemy's strength once the battle exists (before that, the map's fog of war hides
it). The pack's own dice (scenery, ammunition: purposes `battle:<key>:…` in the Phases 0–2
ledger) are shown in full to the same viewers, since they only decide what the pack says.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connections
from django.db.models import Case, F, JSONField, When
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from battles.features import FeatureLine, feature_line
from battles.models import Battle
from battles.roster import SIDE_KEYS
from battles.setup_rule import setup_rule_text
from battles.terrain_annex import annex_lines
from campaign import adapters
from campaign.access import Viewer
from campaign.bulk import JsonPath
from campaign.fog import battle_visible
from campaign.models import Player, Side, Turn, TurnResolution
from campaign.records import ledger_expand
from campaign.state_rows import derived
from campaign.text.labels import (
    BATTLE_ROLE,
    FEATURE,
    INDIVIDUAL_KIND,
    QUALITY,
    SCENARIO,
    SCENERY,
    SCOUTING,
    SPECIALITY,
    STATUS,
    TERRITORY,
    label,
)
from campaign.text.ledger import roll_details, roll_entry_outcome, roll_kind, roll_modifiers
from campaign.text.ledger_values import SCENERY_ROW
from campaign.text.names import force_label, member_labels
from campaign.text.sentences import WEATHER_PHRASE, signed
from campaign.text.units import unit_kind
from rules import CampaignState, Force, Unit


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
class People:
    sides: Mapping[str, str]  # side key → name
    players: Mapping[str, str]  # player key → name
    colours: Mapping[str, str]  # player key → colour


def people_get(campaign_id: int) -> People:
    sides = dict(Side.objects.filter(campaign_id=campaign_id).values_list("key", "name"))
    players, colours = {}, {}
    for key, name, colour in Player.objects.filter(campaign_id=campaign_id).values_list(
        "key", "name", "colour"
    ):
        players[key], colours[key] = name or key, colour
    return People(sides, players, colours)


def resolutions_get(turn: Turn, battle: str | None = None) -> dict[str, TurnResolution]:
    """The turn's stored resolutions, without the columns no battle page reads (its state,
    fetched when it is not decoded already: `adapters.state_before`). With `battle`, each
    one's `ledger` holds that battle's rolls alone (`battle:<key>:…` in Phases 0–2,
    `after:<key>:…` in Phases 4–8), and the Phases 0–2 row comes without its events (no
    battle page reads them): on PostgreSQL the database picks them out, so that one
    battle's page does not read every roll and move of the turn."""
    rows = TurnResolution.objects.filter(turn=turn).defer(
        "state_before", "inputs", "squares_before"
    )
    if battle is None:
        return {r.stage: r for r in rows}
    prefixes = (f"battle:{battle}:", f"after:{battle}:")
    after = TurnResolution.Stage.AFTER
    if connections[rows.db].vendor == "postgresql":
        tests = [
            f"@{at} starts with {json.dumps(p)}" for p in prefixes for at in ("[1]", ".purpose")
        ]  # [1]: a compact entry's purpose (campaign.records.ledger_compact); .purpose: a dict's
        # strict: lax mode would unwrap each compact entry and test its values one by one
        path = "strict $[*] ? (" + " || ".join(tests) + ")"
        picked = rows.defer("ledger", "events").annotate(
            battle_rolls=JsonPath("ledger", path),
            after_events=Case(When(stage=after, then=F("events")), output_field=JSONField()),
        )
        out: dict[str, TurnResolution] = {}
        for row in picked:
            row.ledger = ledger_expand(row.battle_rolls)
            row.events = row.after_events or []
            out[row.stage] = row
        return out
    out = {r.stage: r for r in rows}
    for r in out.values():  # elsewhere the same, read here
        r.ledger = [e for e in r.ledger if str(e.get("purpose", "")).startswith(prefixes)]
        if r.stage != after:
            r.events = []
    return out


def _battle_names(
    state: CampaignState,
) -> tuple[dict[str, Force], dict[str, Unit], dict[str, str], dict[str, str]]:
    """Forces and units by id, and each member's name and force, of every force of `state`
    (worked out once for the same decoded state: `state_rows.derived`)."""
    forces = {f.id: f for f in state.forces}
    units = {u.id: u for f in state.forces for c in f.commands for u in c.units}
    members: dict[str, str] = {}
    force_of: dict[str, str] = {}
    for f in state.forces:
        for mid, name in member_labels(f):
            members[mid] = name
            force_of[mid] = f.id
    return forces, units, members, force_of


class BattleNames:
    """Forces and their members by id, in one state."""

    def __init__(self, state: CampaignState) -> None:
        self.forces, self.units, self.members, self.force_of = derived(
            ("battle-names", get_language()), (state.forces,), lambda: _battle_names(state)
        )

    def force_name(self, fid: str) -> str:
        f = self.forces.get(fid)
        return force_label(f) if f is not None else _("force %(id)s") % {"id": fid}

    def member_name(self, mid: str) -> str:
        return self.members.get(mid, mid)


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

    @property
    def what(self) -> str:
        """What the roll was for, in words (its purpose is a key, not for people)."""
        return roll_kind(self.purpose)


def roll_view(entry: Mapping[str, Any]) -> RollView:
    natural = [int(n) for n in entry.get("natural") or ()]
    return RollView(
        seq=int(entry.get("stored_seq", entry.get("seq", 0)) or 0),
        purpose=str(entry.get("purpose", "")),
        rule=str(entry.get("rule", "")),
        dice=f"{len(natural)}D{entry.get('sides', 6)}",
        natural=natural,
        modifiers=[(reason, signed(value)) for reason, value in roll_modifiers(entry)],
        total=entry.get("total"),
        outcome=roll_entry_outcome(entry),
        details=roll_details(entry),
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

    @property
    def kind(self) -> str:
        """ "Veteran infantry", "Fanteria veterana"."""
        return unit_kind(self.quality, self.speciality)


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
    works_built: int
    units: list[UnitLine]
    people: list[PersonLine]
    leaders: tuple[tuple[str, int], ...] = ()  # (name, CV) of each general, for §10
    commands: int = 0


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
    people: People = field(repr=False)
    roster: BattleNames = field(repr=False)
    holding_feature: FeatureLine | None = None  # R2.4: the feature of the holding fought over
    terrain_annex: list[str] = field(default_factory=list)  # §7.11 [NARAN], in words

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
            out.append(_("Missile fire: %(value)s to hit.") % {"value": signed(int(value))})
        elif key == "melee_to_hit":
            out.append(_("Melee: %(value)s to hit.") % {"value": signed(int(value))})
        elif key == "unit_move":
            out.append(_("Unit movement reduced by %(value)s.") % {"value": str(value).lstrip("-")})
        elif key == "command_zone_cm":
            out.append(_("Command zones: %(value)s cm.") % {"value": signed(int(value))})
        elif key == "change_orders_test":
            out.append(_("Change-orders tests: %(value)s.") % {"value": signed(int(value))})
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


def _sheet(
    battle: Battle, roster: BattleNames, people: People, rolls: Sequence[Mapping[str, Any]]
) -> PackSheet:
    pack = battle.pack or {}
    by_purpose = {str(e.get("purpose")): roll_view(e) for e in rolls}
    prefix = f"battle:{battle.key}:"
    sides = [
        _side_line(letter, s, roster, people, by_purpose, prefix)
        for letter, s in zip(SIDE_KEYS, pack.get("sides", []), strict=False)
    ]
    scenery = [
        SceneryLine(
            name,
            label(SCENERY, name),
            label(SCENERY_ROW, outcome),
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
        features=[label(FEATURE, f) for f in pack.get("features", [])],
        setup_rule=setup_rule_text(pack.get("features", []), adapters.options_of(battle.campaign)),
        scenery=scenery,
        scenario=scenario,
        scenario_label=label(SCENARIO, scenario) if scenario else "",
        scenario_rules=str(pack.get("scenario_rules", "")),
        sides=sides,
        weather_label=label(WEATHER_PHRASE, weather).capitalize(),
        weather_effects=_weather_effects(pack.get("weather_effects") or {}),
        gr_modifiers=sorted(
            (int(h), signed(int(m))) for h, m in (pack.get("gr_modifiers") or {}).items()
        ),
        max_turns=int(pack.get("max_turns", 12)),
        rolls=[roll_view(e) for e in sorted(rolls, key=lambda e: int(e.get("seq", 0)))],
        people=people,
        roster=roster,
        holding_feature=feature_line(
            battle.campaign_id, pack.get("holding_feature") or {}, people.players
        ),
        terrain_annex=annex_lines(pack.get("terrain_annex") or ()),
    )


def _side_line(
    letter: str,
    s: Mapping[str, Any],
    roster: BattleNames,
    people: People,
    by_purpose: Mapping[str, RollView],
    prefix: str,
) -> SideLine:
    """One side of the pack: its alliance, role, territory, scouting and forces."""
    forces = [_force_line(bf, roster, people, by_purpose, prefix) for bf in s.get("forces", [])]
    key = str(s.get("side", ""))
    role = str(s.get("role", ""))
    scouting = str(s.get("scouting", "none"))
    return SideLine(
        letter=letter,
        key=key,
        name=people.sides.get(key, key),
        role=role,
        role_label=label(BATTLE_ROLE, role),
        players=[people.players.get(p, p) for p in s.get("players", [])],
        territory_label=label(TERRITORY, s.get("territory", "")),
        scouting=scouting,
        scouting_label=label(SCOUTING, scouting),
        scouting_modifier=signed(int(s.get("scouting_modifier", 0))),
        forces=forces,
        figures=sum(f.figures for f in forces),
        points=sum(f.points for f in forces),
    )


def _force_line(
    bf: Mapping[str, Any],
    roster: BattleNames,
    people: People,
    by_purpose: Mapping[str, RollView],
    prefix: str,
) -> ForceLine:
    """One force of a side as the pack has it, with its units (start states, ammunition and
    its roll) and its generals and characters."""
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
                speciality=label(SPECIALITY, u.speciality) if u is not None else "",
                quality=label(QUALITY, u.quality) if u is not None else "",
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
                # one without a name is named by his kind: no need to say it twice
                PersonLine(
                    i.id, roster.member_name(i.id), label(INDIVIDUAL_KIND, i.kind) if i.name else ""
                )
            )
    owner = str(bf.get("owner", ""))
    came = bf.get("entered_from")
    status = str(bf.get("status", ""))
    return ForceLine(
        id=fid,
        name=roster.force_name(fid),
        owner=owner,
        owner_name=people.players.get(owner, owner),
        colour=people.colours.get(owner, "#888888"),
        status=status,
        status_label=label(STATUS, status),
        figures=int(bf.get("figures", 0)),
        points=int(bf.get("points", 0)),
        entered_from=(int(came[0]), int(came[1])) if came else None,
        works_quota=int(bf.get("works_quota", 0)),
        works_built=int(bf.get("works_built", 0)),
        units=units,
        people=persons,
        leaders=tuple(
            (roster.member_name(c.general.id), c.general.cv)
            for c in (force.commands if force is not None else ())
            if c.general is not None
        ),
        commands=len(force.commands) if force is not None else 0,
    )


def pack_sheets_list(
    *, battles: Sequence[Battle], state: CampaignState | None = None
) -> list[PackSheet]:
    """The packs of `battles` (the caller has checked the viewer may see them). Battles of
    one turn share one read of its resolutions, one state and one read of the names.
    `state`: the battle-time state (`adapters.battle_state_get`) of their one turn, when the
    caller has read it already."""
    parts: dict[int, tuple[BattleNames, People, list[Mapping[str, Any]]]] = {}
    out: list[PackSheet] = []
    for b in battles:
        if b.turn_id not in parts:
            one = b.key if len(battles) == 1 else None  # a battle's own page: its rolls alone
            parts[b.turn_id] = _turn_parts(b, resolutions_get(b.turn, one), state)
        roster, people, ledger = parts[b.turn_id]
        out.append(_sheet(b, roster, people, _pack_rolls(b, ledger)))
    return out


def _turn_parts(
    battle: Battle, stages: Mapping[str, TurnResolution], state: CampaignState | None = None
) -> tuple[BattleNames, People, list[Mapping[str, Any]]]:
    """What the packs of one turn share: the battle-time roster, the names of sides and
    players, and the Phases 0–2 ledger."""
    after = stages.get(TurnResolution.Stage.AFTER)
    # the state the battle was fought from: the one Phases 4–8 started from once they have
    # run, the campaign rows while the turn waits for its battles
    if state is None:
        state = (
            adapters.state_before(after)
            if after is not None
            else adapters.battle_state_get(battle=battle)
        )
    roster = BattleNames(state)
    turn_stage = stages.get(TurnResolution.Stage.TURN)
    ledger = list(turn_stage.ledger) if turn_stage is not None else []
    return roster, people_get(battle.campaign_id), ledger


def _pack_rolls(battle: Battle, ledger: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    prefix = f"battle:{battle.key}:"
    return [e for e in ledger if str(e.get("purpose", "")).startswith(prefix)]


def pack_sheet_get(*, battle: Battle, state: CampaignState | None = None) -> PackSheet:
    return pack_sheets_list(battles=[battle], state=state)[0]


def sheet_for(battle: Battle, stages: Mapping[str, TurnResolution]) -> PackSheet:
    """The battle's sheet from its turn's resolutions (`resolutions_get`, with or without
    `battle`: its own rolls are picked out here too)."""
    roster, people, ledger = _turn_parts(battle, stages)
    return _sheet(battle, roster, people, _pack_rolls(battle, ledger))
