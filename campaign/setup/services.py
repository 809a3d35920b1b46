"""Set-up services (spec §2): a campaign built in the browser before its first turn.

A campaign starts either from a scenario (the Incursion demo: map, holdings and rosters come
from `fixtures/incursion/`, and it opens turn 1 at once) or from scratch: then it is created
with `setup_open=True` and no turn, the GM draws the map (or imports one:
`campaign.setup.map_import`), divides the territory (R2.2), places holdings (R2.3), sets the
options (`campaign.setup.options`) and invites the players (`campaign.setup.invitations`),
who write their rosters (R2.5) and place their forces (R2.6: `campaign.setup.rosters`);
`campaign_start` checks everything and opens turn 1.

Every rule is decided by the rules engine (holding placement, thirds, force organisation);
this package only gathers the rows, asks the rules and writes. Writes lock the campaign row
first (`campaign.setup.base.campaign_lock`), so that keys drawn from `Campaign.next_id` never
collide and two GMs' edits never interleave. Holdings are keyed `h<N>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import format_lazy, slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import rules as R
from campaign import adapters, fog
from campaign.errors import ServiceError
from campaign.models import Campaign, Holding, Membership, Player, Side, Square, Turn
from campaign.selectors import user_label
from campaign.setup.base import (
    campaign_lock,
    features_clean,
    holding_problem_text,
    holding_problem_texts,
    holding_problems,
    key_fresh,
    on_map_check,
    position_next,
    slug_key_fresh,
    state_of,
)
from campaign.setup.force_problems import force_problem_texts
from campaign.setup.map_import import MAP_MAX, MAP_MIN
from campaign.setup.options import options_checked
from campaign.setup.rosters import placement_problems
from campaign.text import labels
from rules import (
    RulesError,
    SetupError,
    Thirds,
    load_scenario,
    territory_thirds,
    territory_zones,
    to_data,
    validate_holding_placement,
    validate_state_references,
)

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

RESERVED_SLUGS = frozenset({"new", "join", "admin", "accounts", "i18n", "static", "media"})
SCENARIO_FIXTURES = {"incursion": Path(settings.BASE_DIR) / "fixtures" / "incursion"}
DEFAULT_COLOUR = "#888888"


# --- errors ----------------------------------------------------------------------------------


# --- helpers ---------------------------------------------------------------------------------


# --- campaigns -------------------------------------------------------------------------------


@transaction.atomic
def campaign_create(
    *,
    slug: str,
    name: str,
    state: R.CampaignState,
    description: str = "",
    colours: dict[str, str] | None = None,
    fog_of_war: bool = False,
    auto_close: bool = False,
    gm: User | None = None,
    setup: bool = False,
) -> Campaign:
    """A new campaign from a complete rules state. A scenario's options are applied (its data
    file decides them, e.g. the Incursion turns Phase 0 off, R11.4.3). Turn 1 opens at once,
    or, with `setup`, once the GM starts the campaign (players first review their rosters)."""
    if Campaign.objects.filter(slug=slug).exists():
        raise ServiceError(f"A campaign with the slug {slug!r} already exists.")
    if state.scenario:
        try:
            scenario = load_scenario(state.scenario)
        except RulesError as e:
            raise ServiceError(str(e)) from e
        state = replace(state, options=scenario.apply_options(state.options))
    campaign = Campaign.objects.create(
        slug=slug,
        name=name,
        description=description,
        scenario=state.scenario or "",
        fog_of_war=fog_of_war,
        auto_close=auto_close,
        setup_open=setup,
        width=state.map.width,
        height=state.map.height,
        options=to_data(state.options),
    )
    adapters.state_create(campaign=campaign, state=state, colours=colours or {})
    if not setup:
        fog.sightings_record(campaign=campaign, state=state)
        Turn.objects.create(
            campaign=campaign, number=state.turn, status=Turn.Status.OPEN, opened_at=timezone.now()
        )
    if gm is not None:
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    return campaign


@transaction.atomic
def campaign_delete(*, campaign: Campaign) -> None:
    """Delete a campaign with everything in it (its rows cascade)."""
    campaign.delete()


def _slug_check(slug: str) -> None:
    if not slug or slugify(slug) != slug:
        raise ServiceError(
            {"slug": [_("Use only lower-case letters, numbers, hyphens and underscores.")]}
        )
    if slug in RESERVED_SLUGS:
        raise ServiceError({"slug": [_("%(slug)r is reserved; choose another.") % {"slug": slug}]})
    if Campaign.objects.filter(slug=slug).exists():
        raise ServiceError(
            {"slug": [_("A campaign with the slug %(slug)r already exists.") % {"slug": slug}]}
        )


@transaction.atomic
def campaign_create_blank(
    *,
    gm: User,
    slug: str,
    name: str,
    width: int = 16,
    height: int = 12,
    options: R.Options | Mapping[str, Any] | None = None,
    fog_of_war: bool = False,
    auto_close: bool = False,
    scenario: str | None = None,
    description: str = "",
    setup: bool = False,
) -> Campaign:
    """A new campaign run by `gm`. From scratch: a `width`×`height` map of open neutral
    squares, in set-up and without a turn. From a scenario: the scenario's demo state (map,
    holdings, rosters) and turn 1 open at once, or with `setup` in set-up, so that players
    review their rosters first; the GM invites players into its roles."""
    _slug_check(slug)
    name = name.strip()
    if not name:
        raise ServiceError({"name": [_("Give the campaign a name.")]})
    if "\n" in name or "\r" in name:  # it heads every email of the campaign
        raise ServiceError({"name": [_("A campaign's name is one line: remove the line breaks.")]})
    if options is not None and not isinstance(options, R.Options):
        options = options_checked(options)
    if scenario:
        folder = SCENARIO_FIXTURES.get(scenario)
        if folder is None:
            known = ", ".join(sorted(SCENARIO_FIXTURES))
            raise ServiceError(
                {
                    "scenario": [
                        _("Unknown scenario %(s)r (known: %(known)s).")
                        % {"s": scenario, "known": known}
                    ]
                }
            )
        state = adapters.state_from_data(
            json.loads((folder / "state.json").read_text(encoding="utf-8"))
        )
        demo = json.loads((folder / "demo.json").read_text(encoding="utf-8"))
        return campaign_create(
            slug=slug,
            name=name,
            description=description or demo.get("campaign", {}).get("description", ""),
            state=state if options is None else replace(state, options=options),
            colours=dict(demo.get("colours", {})),
            fog_of_war=fog_of_war,
            auto_close=auto_close,
            gm=gm,
            setup=setup,
        )
    for field, value in (("width", width), ("height", height)):
        if not MAP_MIN <= value <= MAP_MAX:
            raise ServiceError(
                {field: [_("From %(lo)d to %(hi)d squares.") % {"lo": MAP_MIN, "hi": MAP_MAX}]}
            )
    campaign = Campaign.objects.create(
        slug=slug,
        name=name,
        description=description,
        options=to_data(options or R.Options()),
        fog_of_war=fog_of_war,
        auto_close=auto_close,
        setup_open=True,
        width=width,
        height=height,
    )
    Square.objects.bulk_create(
        Square(campaign=campaign, x=x, y=y) for y in range(height) for x in range(width)
    )
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    return campaign


# --- the map ---------------------------------------------------------------------------------


def _square_edit_check(locked: Campaign, x: int, y: int) -> None:
    """Holdings on (x, y) must still stand where the rules allow (R2.3.2, R2.3.4)."""
    state = state_of(locked)
    here = [h for h in state.holdings if h.square == (x, y)]
    problems = holding_problems(state, here)
    if problems:
        raise ServiceError(holding_problem_texts(state, problems))


@transaction.atomic
def square_features_set(
    *, campaign: Campaign, x: int, y: int, features: Iterable[str | R.Feature]
) -> Square:
    """Set the terrain features of one square (§6.3). A change that would leave a holding on
    terrain its owner's race may not use (R2.3.4) is refused."""
    locked = campaign_lock(campaign)
    on_map_check(locked, x, y)
    square = Square.objects.get(campaign=locked, x=x, y=y)
    square.features = features_clean(features)
    square.save(update_fields=["features"])
    _square_edit_check(locked, x, y)
    return square


@transaction.atomic
def square_zone_set(*, campaign: Campaign, x: int, y: int, zone: str) -> Square:
    """Make (x, y) part of a player's friendly territory, or neutral with `zone=""` (R2.2).
    Thirds are drawn with `territory_thirds_apply`; this lets the GM shape the border by hand
    and give allied players their own ground."""
    locked = campaign_lock(campaign)
    on_map_check(locked, x, y)
    if zone and not Player.objects.filter(campaign=locked, key=zone).exists():
        raise ServiceError(
            {"zone": [_("%(zone)r is not a player of this campaign.") % {"zone": zone}]}
        )
    square = Square.objects.get(campaign=locked, x=x, y=y)
    square.zone = zone
    square.save(update_fields=["zone"])
    _square_edit_check(locked, x, y)
    return square


@transaction.atomic
def territory_thirds_apply(
    *, campaign: Campaign, axis: str, west_player: Player, east_player: Player
) -> None:
    """R2.2: cut the map in three along `axis` ("x": columns, west to east; "y": rows, north
    to south); `west_player` takes the low outer third, `east_player` the high one, the centre
    is neutral. Replaces every zone drawn before."""
    locked = campaign_lock(campaign)
    for field, p in (("west_player", west_player), ("east_player", east_player)):
        if p.campaign_id != locked.pk:
            raise ServiceError({field: [_("That player belongs to another campaign.")]})
    if west_player.pk == east_player.pk:
        raise ServiceError({"east_player": [_("Each outer third goes to a different player.")]})
    if west_player.side_id == east_player.side_id:
        raise ServiceError(
            {"east_player": [_("The outer thirds go to opponents (R2.2.4), not to allies.")]}
        )
    try:
        zones = territory_zones(
            locked.width, locked.height, axis, low=west_player.key, high=east_player.key
        )
    except SetupError as e:
        raise ServiceError({"axis": [str(e)]}) from e
    squares = list(Square.objects.filter(campaign=locked))
    for sq in squares:
        sq.zone = zones.get((sq.x, sq.y), "")
    Square.objects.bulk_update(squares, ["zone"])
    state = state_of(locked)
    problems = holding_problems(state)
    if problems:
        raise ServiceError(holding_problem_texts(state, problems))


def thirds_describe(campaign: Campaign, axis: str) -> Thirds | None:
    """The thirds R2.2.1 would cut along `axis`, or None if the map is too small for it."""
    try:
        return territory_thirds(campaign.width, campaign.height, axis)
    except SetupError:
        return None


# --- sides and players -----------------------------------------------------------------------


@transaction.atomic
def side_create(*, campaign: Campaign, name: str) -> Side:
    """A side (alliance): its players share squares and never fight (R6.6.2, R6.7.6)."""
    locked = campaign_lock(campaign)
    name = name.strip()
    if not name:
        raise ServiceError({"name": [_("Give the side a name.")]})
    key = slug_key_fresh(Side, locked, name, "side")
    return Side.objects.create(campaign=locked, key=key, name=name)


@transaction.atomic
def side_delete(*, side: Side) -> None:
    campaign_lock(side.campaign)
    if side.players.exists():
        raise ServiceError(_("Move or delete the side's players first."))
    side.delete()


def _player_fields(campaign: Campaign, fields: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(fields)
    if "name" in out:
        out["name"] = str(out["name"]).strip()
        if not out["name"]:
            raise ServiceError({"name": [_("Give the army a name.")]})
    colour = out.get("colour")
    if colour is not None:
        c = str(colour).lower()
        if len(c) != 7 or c[0] != "#" or any(ch not in "0123456789abcdef" for ch in c[1:]):
            raise ServiceError({"colour": [_("A colour is written #rrggbb.")]})
        out["colour"] = c
    side = out.get("side")
    if side is not None and side.campaign_id != campaign.pk:
        raise ServiceError({"side": [_("That side belongs to another campaign.")]})
    points = out.get("initial_points")
    if points is not None and points < 0:
        raise ServiceError({"initial_points": [_("Points cannot be negative.")]})
    return out


@transaction.atomic
def player_create(
    *,
    campaign: Campaign,
    side: Side,
    name: str,
    race: str = "",
    colour: str = DEFAULT_COLOUR,
    initial_points: int = 0,
    tribal: bool = False,
    light: bool = True,
) -> Player:
    """An army on `side` (§1.1): its race decides where its holdings may stand (R2.3.4),
    `initial_points` is the agreed army value, `tribal` picks the §9.4.2 table and `light`
    the side of the holding features (R2.4)."""
    locked = campaign_lock(campaign)
    values = _player_fields(
        locked,
        {
            "side": side,
            "name": name,
            "race": race.strip(),
            "colour": colour,
            "initial_points": initial_points,
            "tribal": tribal,
            "light": light,
        },
    )
    key = slug_key_fresh(Player, locked, values["name"], "army")
    return Player.objects.create(
        campaign=locked,
        key=key,
        position=position_next(Player.objects.filter(campaign=locked)),
        **values,
    )


PLAYER_FIELDS = ("side", "name", "race", "colour", "initial_points", "tribal", "light")


@transaction.atomic
def player_update(*, player: Player, **changes: Any) -> Player:
    """Change an army's name, side, race, colour, points or flags. A new race must still
    allow its holdings' terrain (R2.3.4)."""
    locked = campaign_lock(player.campaign)
    unknown = set(changes) - set(PLAYER_FIELDS)
    if unknown:
        raise ServiceError(
            ngettext("Unknown field: %(f)s.", "Unknown fields: %(f)s.", len(unknown))
            % {"f": ", ".join(sorted(unknown))}
        )
    values = _player_fields(locked, changes)
    for k, v in values.items():
        setattr(player, k, v.strip() if k == "race" else v)
    player.save()
    state = state_of(locked)
    problems = holding_problems(state)
    if problems:
        raise ServiceError({"race": holding_problem_texts(state, problems)})
    return player


@transaction.atomic
def player_delete(*, player: Player) -> None:
    """Remove an army with its holdings and forces, unless someone plays it."""
    locked = campaign_lock(player.campaign)
    users = [
        user_label(m.user)
        for m in Membership.objects.filter(
            player=player, role=Membership.Role.PLAYER
        ).select_related("user")
    ]
    if users:
        raise ServiceError(
            _("%(army)s is played by %(users)s; it cannot be deleted.")
            % {"army": player.name, "users": ", ".join(users)}
        )
    Holding.objects.filter(Q(owner=player) | Q(original_owner=player), campaign=locked).delete()
    Square.objects.filter(campaign=locked, zone=player.key).update(zone="")
    player.delete()


# --- holdings (R2.3, R2.4) -------------------------------------------------------------------


def _holding_feature_choices() -> tuple[tuple[str, StrOrPromise], ...]:
    """The §2.4 table as choices, labelled with their 2D6 results ("3–4: tower of magic")."""
    rolls: dict[str, list[int]] = {}
    for roll, feature in sorted(R.HOLDING_FEATURES.items()):
        rolls.setdefault(feature, []).append(roll)
    return tuple(
        (
            f,
            format_lazy(
                "{}: {}", f"{r[0]}{'' if len(r) == 1 else f'–{r[-1]}'}", labels.HOLDING_FEATURE[f]
            ),
        )
        for f, r in rolls.items()
    )


HOLDING_FEATURE_CHOICES = _holding_feature_choices()


@transaction.atomic
def holding_place(
    *,
    campaign: Campaign,
    player: Player,
    x: int,
    y: int,
    name: str = "",
    capital: bool = False,
    feature: str = "",
    port: bool = False,
) -> Holding:
    """Place a holding of `player` at (x, y), if the rules allow it there: in his friendly
    third (R2.3.2), at least three squares from his other holdings (R2.3.3), not on a
    mountain, forest or swamp unless his race may (R2.3.4), and one capital (R2.3.5).
    `feature` is the §2.4 table result, when that option is on."""
    locked = campaign_lock(campaign)
    if player.campaign_id != locked.pk:
        raise ServiceError({"player": [_("That player belongs to another campaign.")]})
    on_map_check(locked, x, y)
    options = adapters.options_of(locked)
    if feature:
        if not options.holding_features:
            raise ServiceError({"feature": [_("Holding features (§2.4) are not in use.")]})
        if feature not in R.HOLDING_FEATURES.values():
            raise ServiceError({"feature": [_("Unknown holding feature %(f)r.") % {"f": feature}]})
    if Holding.objects.filter(campaign=locked, x=x, y=y).exists():
        raise ServiceError(
            {"x": [_("There is a holding at (%(x)d, %(y)d) already.") % {"x": x, "y": y}]}
        )
    key = key_fresh(
        locked, "h{n}", lambda k: Holding.objects.filter(campaign=locked, key=k).exists()
    )
    state = state_of(locked)
    new = R.Holding(
        id=key,
        square=(x, y),
        owner=player.key,
        original_owner=player.key,
        capital=capital,
        name=name.strip(),
        feature=feature or None,
    )
    own = [h for h in state.holdings if h.owner == player.key]
    army = [state.player(player.key)]
    result = validate_holding_placement(game_map=state.map, players=army, holdings=[*own, new])
    errors: dict[str | None, list[str]] = {}
    for p in result.problems:
        if p.subject == key:  # where the new holding stands: R2.3.2-2.3.4
            text = holding_problem_text(p, players=army, holdings=[*own, new])
            errors.setdefault("x", []).append(text)
        elif p.code == "capital-count" and capital and any(h.capital for h in own):
            # holdings go down one at a time: only a second capital is wrong yet (R2.3.5)
            errors.setdefault("capital", []).append(
                _("%(army)s has a capital already (R2.3.5).") % {"army": player.name}
            )
    if errors:
        raise ServiceError(errors)
    return Holding.objects.create(
        campaign=locked,
        key=key,
        position=position_next(Holding.objects.filter(campaign=locked)),
        name=new.name,
        x=x,
        y=y,
        owner=player,
        original_owner=player,
        capital=capital,
        feature=feature,
        port=port,
    )


@transaction.atomic
def holding_remove(*, holding: Holding) -> None:
    campaign_lock(holding.campaign)
    holding.delete()


# --- options ---------------------------------------------------------------------------------


# --- invitations -----------------------------------------------------------------------------


# --- rosters (R2.5) and placement (R2.6) -----------------------------------------------------


# --- the start -------------------------------------------------------------------------------


def campaign_setup_problems(*, campaign: Campaign) -> list[str]:
    """Everything that stops the campaign from starting, for people: two sides at least,
    each army with exactly one capital and its holdings where R2.3 allows, at least one force
    organised by R2.5 and every force placed by R2.6."""
    state = adapters.state_load(campaign=Campaign.objects.get(pk=campaign.pk))
    out: list[str] = []
    sides = {p.side for p in state.players}
    if len(sides) < 2:
        out.append(_("A campaign needs armies on at least two sides (§1.1)."))
    out += [p.message for p in validate_state_references(state)]
    out += holding_problem_texts(
        state,
        validate_holding_placement(
            game_map=state.map, players=state.players, holdings=state.holdings
        ).problems,
    )
    for player in state.players:
        forces = [f for f in state.forces if f.owner == player.id]
        if not forces:
            out.append(
                _("%(army)s has no force; every army needs at least one (R2.5.2).")
                % {"army": player.name or player.id}
            )
        for f in forces:
            out += force_problem_texts(f)
            out += placement_problems(state, f)
    return out


@transaction.atomic
def campaign_start(*, campaign: Campaign) -> Turn:
    """Close set-up and open turn 1, if nothing stops it (`campaign_setup_problems`)."""
    locked = campaign_lock(campaign)
    problems = campaign_setup_problems(campaign=locked)
    if problems:
        raise ServiceError(problems)
    locked.setup_open = False
    locked.save(update_fields=["setup_open"])
    campaign.setup_open = False
    fog.sightings_record(campaign=locked, state=adapters.state_load(campaign=locked))
    return Turn.objects.create(
        campaign=locked,
        number=locked.turn_number,
        status=Turn.Status.OPEN,
        opened_at=timezone.now(),
    )
