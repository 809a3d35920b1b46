"""Rosters (R2.5) and their placement (R2.6) during set-up: a player's forces, their
commands (a general and his units), units and characters, each checked against the force
organisation rules (`rules.validate_force_organisation`) and the placement rules.

Keys follow the state format: forces `f<N>`, their commands `f<N>c<M>`, generals `f<N>g<M>`,
units `f<N>u<M>`, individuals `f<N>i<M>`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

import rules as R
from campaign.errors import ServiceError
from campaign.models import Campaign, Command, Force, Individual, Player, Unit
from campaign.setup.base import campaign_lock, key_fresh, on_map_check, position_next, state_of
from campaign.setup.force_problems import force_problem_texts, force_problems_by_code
from rules import RulesError, chebyshev, load_scenario

GENERAL_FIELDS = ("general_name", "general_cv", "general_points", "general_mounted")


UNIT_FIELDS = (
    "type",
    "speciality",
    "quality",
    "figures",
    "points_per_figure",
    "mercenary",
    "missile",
    "mounted",
    "min_figures",
    "leader_points",
)
INDIVIDUAL_FIELDS = ("kind", "name", "points", "mounted", "magic_points")


# The form field each R2.5 problem belongs beside (others go above the form).
PROBLEM_FIELDS = {
    "cv-out-of-range": "general_cv",
    "leader-not-highest-cv": "leader",
    "allies-alone": "mercenary",
    "too-many-individuals": "kind",
}


def _fields(data: Mapping[str, Any], allowed: tuple[str, ...], what: str) -> dict[str, Any]:
    unknown = set(data) - set(allowed)
    if unknown:
        raise ServiceError(
            _("Unknown %(what)s field(s): %(f)s.") % {"what": what, "f": ", ".join(sorted(unknown))}
        )
    out = dict(data)
    for name in ("min_figures", "leader_points"):  # optional: blank is none
        if name in out and out[name] is None:
            out[name] = 0
    for name, enum in (
        ("speciality", R.Speciality),
        ("quality", R.Quality),
        ("kind", R.IndividualKind),
    ):
        if name in out:
            try:
                out[name] = enum(out[name]).value
            except ValueError:
                raise ServiceError({name: [_("Unknown value %(v)r.") % {"v": out[name]}]}) from None
    for name in ("figures",):
        if name in out and out[name] < 1:
            raise ServiceError({name: [_("A unit has at least one figure.")]})
    for name in (
        "general_cv",
        "general_points",
        "points_per_figure",
        "points",
        "magic_points",
        "min_figures",
        "leader_points",
    ):
        if name in out and out[name] is not None and out[name] < 0:
            raise ServiceError({name: [_("It cannot be negative.")]})
    for name in ("type",):
        if name in out:
            out[name] = str(out[name]).strip()
            if not out[name]:
                raise ServiceError({name: [_("Say what troops the unit is.")]})
    return out


def _editable_force(force: Force) -> Campaign:
    return campaign_lock(force.campaign)


def _force_check(locked: Campaign, force: Force) -> None:
    """R2.5 on the force as now written (the write rolls back with the refusal)."""
    state = state_of(locked)
    errors: dict[str | None, list[str]] = {}
    for code, text in force_problems_by_code(state.force(force.key)):
        errors.setdefault(PROBLEM_FIELDS.get(code), []).append(text)
    if errors:
        raise ServiceError(errors)


def placement_problems(state: R.CampaignState, force: R.Force) -> list[str]:
    """R2.6: a force starts under an order (R2.6.1), the scenario's if it imposes one, on or
    next to a holding of its side (R2.6.2, [SR] adjacent = one king move, `chebyshev`)."""
    out = []
    if not force.status.is_order:
        out.append(
            _("Force %(f)s must start under an order, not %(s)s (R2.6.1).")
            % {"f": force.name or force.id, "s": force.status.value}
        )
    start = _scenario_start_status(state, force.owner)
    if start is not None and force.status is not start:
        out.append(_("The scenario starts every force of this army on %(s)s.") % {"s": start.value})
    side = state.side_of(force.owner)
    friendly = [
        h
        for h in state.holdings
        if not h.destroyed and h.carried_by is None and state.side_of(h.owner) == side
    ]
    if not state.map.on_map(force.square):
        out.append(_("Square %(sq)s is off the map.") % {"sq": force.square})
    elif not any(chebyshev(force.square, h.square) <= 1 for h in friendly):
        near = ", ".join(f"{h.name or h.id} ({h.square[0]}, {h.square[1]})" for h in friendly)
        out.append(
            _(
                "Force %(f)s at (%(x)d, %(y)d) is not on or next to a holding of its side "
                "(R2.6.2). Holdings: %(near)s."
            )
            % {
                "f": force.name or force.id,
                "x": force.square[0],
                "y": force.square[1],
                "near": near or _("none placed yet"),
            }
        )
    return out


def _scenario_start_status(state: R.CampaignState, owner: str) -> R.Status | None:
    if not state.scenario:
        return None
    role = state.player(owner).role
    if not role:
        return None
    try:
        return load_scenario(state.scenario).role(role).start_status
    except RulesError:
        return None


def _placement_check(locked: Campaign, force: Force) -> None:
    state = state_of(locked)
    problems = placement_problems(state, state.force(force.key))
    if problems:
        raise ServiceError({"x": problems})


def _status(value: str) -> str:
    try:
        status = R.Status(value)
    except ValueError:
        status = None
    if status is None or not status.is_order:
        orders = ", ".join(s.value for s in R.Status if s.is_order)
        raise ServiceError(
            {
                "status": [
                    _("A force starts under an order: %(orders)s (R2.6.1).") % {"orders": orders}
                ]
            }
        )
    return status.value


def _general_key_taken(locked: Campaign) -> Callable[[str], bool]:
    return lambda k: (
        Command.objects.filter(campaign=locked, general_key=k).exists()
        or Individual.objects.filter(campaign=locked, key=k).exists()
    )


def _command_add(
    locked: Campaign, force: Force, general: Mapping[str, Any], unit: Mapping[str, Any]
) -> Command:
    general = _fields(general, GENERAL_FIELDS, _("general"))
    unit = _fields(unit, UNIT_FIELDS, _("unit"))
    key = key_fresh(
        locked,
        f"{force.key}c{{n}}",
        lambda k: Command.objects.filter(campaign=locked, key=k).exists(),
    )
    gkey = key_fresh(locked, f"{force.key}g{{n}}", _general_key_taken(locked))
    command = Command.objects.create(
        campaign=locked,
        force=force,
        key=key,
        position=position_next(force.commands.all()),
        general_key=gkey,
        general_name=str(general.get("general_name", "")).strip(),
        general_cv=general.get("general_cv"),
        general_points=general.get("general_points") or 0,
        general_mounted=bool(general.get("general_mounted", False)),
    )
    _unit_add(locked, command, unit)
    return command


def _unit_add(locked: Campaign, command: Command, unit: Mapping[str, Any]) -> Unit:
    key = key_fresh(
        locked,
        f"{command.force.key}u{{n}}",
        lambda k: Unit.objects.filter(campaign=locked, key=k).exists(),
    )
    return Unit.objects.create(
        campaign=locked,
        command=command,
        key=key,
        position=position_next(command.units.all()),
        **unit,
    )


@transaction.atomic
def force_create(
    *,
    player: Player,
    name: str,
    x: int,
    y: int,
    status: str,
    general: Mapping[str, Any],
    unit: Mapping[str, Any],
) -> Force:
    """A new force of `player` with its first command: a general and one unit, so that it is
    a force from the start (R2.5.2). It starts under an order (R2.6.1) on or next to a
    holding of its side (R2.6.2)."""
    locked = campaign_lock(player.campaign)
    on_map_check(locked, x, y)
    key = key_fresh(locked, "f{n}", lambda k: Force.objects.filter(campaign=locked, key=k).exists())
    force = Force.objects.create(
        campaign=locked,
        key=key,
        position=position_next(Force.objects.filter(campaign=locked)),
        owner=player,
        name=name.strip(),
        x=x,
        y=y,
        status=_status(status),
    )
    _command_add(locked, force, general, unit)
    _placement_check(locked, force)
    _force_check(locked, force)
    return force


@transaction.atomic
def force_update(
    *,
    force: Force,
    name: str,
    x: int,
    y: int,
    status: str,
    leader_key: str = "",
    ships: int | None = None,
    sea_folk: bool | None = None,
    boats: int | None = None,
    rafts: int | None = None,
) -> Force:
    """Rename, move (R2.6.2) or re-order (R2.6.1) a force; `leader_key` picks among generals
    tied for the highest CV (R2.5.4); `ships` (§6.11), when given, are its ships, and
    `sea_folk` whether it is a pirate force (R6.11.6), `boats` and `rafts` its minor craft
    (R6.11.4)."""
    locked = _editable_force(force)
    on_map_check(locked, x, y)
    force.name = name.strip()
    force.x, force.y = x, y
    force.status = _status(status)
    force.leader_key = leader_key
    if ships is not None:
        force.ships = ships
    if sea_folk is not None:
        force.sea_folk = sea_folk
    if boats is not None:
        force.boats = boats
    if rafts is not None:
        force.rafts = rafts
    force.save(
        update_fields=[
            "name",
            "x",
            "y",
            "status",
            "leader_key",
            "ships",
            "sea_folk",
            "boats",
            "rafts",
        ]
    )
    _placement_check(locked, force)
    _force_check(locked, force)
    return force


@transaction.atomic
def force_delete(*, force: Force) -> None:
    _editable_force(force)
    force.delete()


@transaction.atomic
def command_create(*, force: Force, general: Mapping[str, Any], unit: Mapping[str, Any]) -> Command:
    """A new command in `force`: a general with his first unit (§1.1)."""
    locked = _editable_force(force)
    command = _command_add(locked, force, general, unit)
    _force_check(locked, force)
    return command


@transaction.atomic
def command_update(*, command: Command, **general: Any) -> Command:
    locked = _editable_force(command.force)
    values = _fields(general, GENERAL_FIELDS, _("general"))
    for k, v in values.items():
        setattr(command, k, v if k != "general_name" else str(v).strip())
    command.save()
    _force_check(locked, command.force)
    return command


@transaction.atomic
def command_delete(*, command: Command) -> None:
    """Remove a command and its units; the force must remain a force (delete it instead)."""
    locked = _editable_force(command.force)
    force = command.force
    if force.leader_key == command.general_key:
        force.leader_key = ""
        force.save(update_fields=["leader_key"])
    command.delete()
    _force_check(locked, force)


@transaction.atomic
def unit_create(*, command: Command, **unit: Any) -> Unit:
    locked = _editable_force(command.force)
    created = _unit_add(locked, command, _fields(unit, UNIT_FIELDS, _("unit")))
    _force_check(locked, command.force)
    return created


@transaction.atomic
def unit_update(*, unit: Unit, **changes: Any) -> Unit:
    locked = _editable_force(unit.command.force)
    for k, v in _fields(changes, UNIT_FIELDS, _("unit")).items():
        setattr(unit, k, v)
    unit.save()
    _force_check(locked, unit.command.force)
    return unit


@transaction.atomic
def unit_delete(*, unit: Unit) -> None:
    locked = _editable_force(unit.command.force)
    force = unit.command.force
    unit.delete()
    _force_check(locked, force)


@transaction.atomic
def individual_create(*, force: Force, **data: Any) -> Individual:
    """An individual character (§1.1); no more individuals than units (R2.5.5)."""
    locked = _editable_force(force)
    values = _fields(data, INDIVIDUAL_FIELDS, _("individual"))
    values["name"] = str(values.get("name", "")).strip()
    key = key_fresh(
        locked,
        f"{force.key}i{{n}}",
        lambda k: (
            _general_key_taken(locked)(k)
            or Individual.objects.filter(campaign=locked, key=k).exists()
        ),
    )
    individual = Individual.objects.create(
        campaign=locked,
        force=force,
        key=key,
        position=position_next(force.individuals.all()),
        **values,
    )
    _force_check(locked, force)
    return individual


@transaction.atomic
def individual_update(*, individual: Individual, **changes: Any) -> Individual:
    locked = _editable_force(individual.force)
    for k, v in _fields(changes, INDIVIDUAL_FIELDS, _("individual")).items():
        setattr(individual, k, v.strip() if k == "name" else v)
    individual.save()
    _force_check(locked, individual.force)
    return individual


@transaction.atomic
def individual_delete(*, individual: Individual) -> None:
    locked = _editable_force(individual.force)
    force = individual.force
    individual.delete()
    _force_check(locked, force)


# --- the player says his roster is done ------------------------------------------------------


@transaction.atomic
def roster_ready_set(*, player: Player, ready: bool) -> Player:
    """Mark the army's roster ready (or not) during set-up. Ready means it can start: at
    least one force (R2.5.2), each organised by R2.5 and placed by R2.6."""
    locked = campaign_lock(player.campaign)
    if not locked.setup_open:
        raise ServiceError(_("The campaign has started: rosters are no longer edited."))
    if ready:
        state = state_of(locked)
        forces = [f for f in state.forces if f.owner == player.key]
        problems = [] if forces else [_("Your army has no force yet; it needs at least one.")]
        for f in forces:
            problems += force_problem_texts(f)
            problems += placement_problems(state, f)
        if problems:
            raise ServiceError(problems)
    Player.objects.filter(pk=player.pk).update(roster_ready=ready)
    player.roster_ready = ready
    return player
