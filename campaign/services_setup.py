"""Set-up services (spec §2): a campaign built in the browser before its first turn.

A campaign starts either from a scenario (the Incursion demo: map, holdings and rosters come
from `fixtures/incursion/`, and it opens turn 1 at once) or from scratch: then it is created
with `setup_open=True` and no turn, the GM draws the map, divides the territory (R2.2),
places holdings (R2.3), sets the options and invites the players, who write their rosters
(R2.5) and place their forces (R2.6); `campaign_start` checks everything and opens turn 1.

Every rule is decided by `rules.setup` (holding placement, thirds, force organisation); this
module only gathers the rows, asks the rules and writes. Writes lock the campaign row first,
so that keys drawn from `Campaign.next_id` never collide and two GMs' edits never interleave.
Keys are unique per campaign and follow the state format: forces `f<N>`, their commands
`f<N>c<M>`, generals `f<N>g<M>`, units `f<N>u<M>`, individuals `f<N>i<M>`, holdings `h<N>`.

Map import formats (`map_import`):

* JSON: the map object of docs/state-format.md,
  `{"width": 16, "height": 12, "squares": [{"x": 3, "y": 0, "features": ["forest"],
  "zone": "red"}]}`, or a whole state document holding one under `"map"`. Squares that are
  left out are open, neutral ground. `zone` names a player of the campaign (his key).
* CSV: one line per map row, from the top (y = 0); one cell per square, from the left
  (x = 0). A cell lists the square's features joined with `+` (`forest+river`); an empty
  cell or `open` is open ground. `@player` at the end gives the zone (`hill@red`). Cells are
  separated by commas, or semicolons when the first line has no comma. Blank lines at the end
  and lines starting with `#` are skipped. Every row has the same number of cells.

Errors name the line and column (CSV: the line of the file and the cell's number in it,
from 1; JSON syntax: line and character) or, for JSON content, the square by its place in
`squares` and its coordinates.
"""

from __future__ import annotations

import csv
import json
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.utils import formats, timezone
from django.utils.text import format_lazy, slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaign import adapters
from campaign.models import (
    Campaign,
    Command,
    Force,
    Holding,
    Individual,
    Invitation,
    Membership,
    Player,
    Side,
    Square,
    Turn,
    Unit,
)
from campaign.services import ServiceError, campaign_create
from rules import tables as T
from rules import types as R
from rules.codec import FormatError, from_data, to_data
from rules.errors import RulesError
from rules.scenarios import load_scenario
from rules.setup import (
    ATTRITION_FORMULAS,
    SetupError,
    SetupProblem,
    Thirds,
    chebyshev,
    territory_thirds,
    territory_zones,
    validate_force_organisation,
    validate_holding_placement,
    validate_state_references,
)

MAP_MIN = 3  # R2.2.1: a map must be cut in three along either axis
MAP_MAX = 60
RESERVED_SLUGS = frozenset({"new", "join", "admin", "accounts", "i18n", "static", "media"})
SCENARIO_FIXTURES = {"incursion": Path(settings.BASE_DIR) / "fixtures" / "incursion"}
DEFAULT_COLOUR = "#888888"
FEATURE_VALUES = frozenset(f.value for f in R.Feature)
INVITATION_TOKEN_BYTES = 24


# --- errors ----------------------------------------------------------------------------------


class SetupClosed(ServiceError):
    """Set-up is over (or never was, for a scenario campaign): the map and rosters are fixed."""


class InvalidSetup(ServiceError):
    """A set-up change the rules refuse. `errors` maps a form field (None: the whole form) to
    its messages, so that a page can show each beside its field."""

    def __init__(self, errors: Mapping[str | None, list[str]] | list[str] | str) -> None:
        if isinstance(errors, str):
            errors = {None: [errors]}
        elif not isinstance(errors, Mapping):
            errors = {None: list(errors)}
        self.errors: dict[str | None, list[str]] = {k: list(v) for k, v in errors.items() if v}
        super().__init__(" ".join(m for msgs in self.errors.values() for m in msgs))

    @property
    def messages(self) -> list[str]:
        return [m for msgs in self.errors.values() for m in msgs]


@dataclass(frozen=True)
class MapProblem:
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.line is not None and self.column is not None:
            return _("Line %(line)d, column %(column)d: %(message)s") % {
                "line": self.line,
                "column": self.column,
                "message": self.message,
            }
        if self.line is not None:
            return _("Line %(line)d: %(message)s") % {"line": self.line, "message": self.message}
        return self.message


class MapFormatError(InvalidSetup):
    """An imported map that cannot be read; `problems` carry their line and column."""

    MAX_REPORTED = 20

    def __init__(self, problems: list[MapProblem]) -> None:
        self.problems = problems[: self.MAX_REPORTED]
        messages = [str(p) for p in self.problems]
        if len(problems) > self.MAX_REPORTED:
            messages.append(
                _("… and %(n)d more problem(s).") % {"n": len(problems) - self.MAX_REPORTED}
            )
        super().__init__({"data": messages})


# --- options ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """How the options page shows and checks one `rules.types.Options` field."""

    name: str
    rule: str
    help: str
    choices: tuple[tuple[str, str], ...] = ()
    minimum: int | None = None
    naran: bool = False

    @property
    def default(self) -> Any:
        value = getattr(R.Options(), self.name)
        return value.value if isinstance(value, Enum) else value


L = gettext_lazy
# Labels people read, for every value a set-up form offers (literal, so they can be translated).
LABELS: Mapping[Enum, str] = {
    R.Feature.OPEN: L("Open"),
    R.Feature.UNCULTIVATED: L("Uncultivated"),
    R.Feature.CULTIVATED: L("Cultivated"),
    R.Feature.HILL: L("Hill"),
    R.Feature.FOREST: L("Forest"),
    R.Feature.JUNGLE: L("Jungle"),
    R.Feature.MOUNTAIN: L("Mountain"),
    R.Feature.SWAMP: L("Swamp"),
    R.Feature.DESERT: L("Desert"),
    R.Feature.WASTELAND: L("Wasteland"),
    R.Feature.RIVER: L("River"),
    R.Feature.ROAD: L("Road"),
    R.Feature.TRACK: L("Track"),
    R.Feature.BRIDGE: L("Bridge"),
    R.Feature.PASS: L("Pass"),
    R.Climate.COLD: L("Cold"),
    R.Climate.TEMPERATE: L("Temperate"),
    R.Climate.TORRID: L("Torrid"),
    R.Climate.DESERT: L("Desert"),
    R.Season.SPRING: L("Spring"),
    R.Season.SUMMER: L("Summer"),
    R.Season.AUTUMN: L("Autumn"),
    R.Season.WINTER: L("Winter"),
    R.Season.GREAT_RAINS: L("Great rains"),
    R.Season.DRY: L("Dry season"),
    R.Quality.LEVY: L("Levy"),
    R.Quality.AVERAGE: L("Average"),
    R.Quality.VETERAN: L("Veteran"),
    R.Quality.ELITE: L("Elite"),
    R.Speciality.INFANTRY: L("Infantry"),
    R.Speciality.MISSILE: L("Missile troops"),
    R.Speciality.ARTILLERY: L("Artillery"),
    R.Speciality.CAVALRY: L("Cavalry"),
    R.Speciality.AIR_CAVALRY: L("Air cavalry"),
    R.Speciality.TERRIBLE_CREATURE: L("Terrible creature"),
    R.IndividualKind.HERO: L("Hero"),
    R.IndividualKind.DESTROYER: L("Destroyer"),
    R.IndividualKind.SPECIAL_FIGHTER: L("Special fighter"),
    R.IndividualKind.DRUID: L("Druid"),
    R.IndividualKind.WIZARD: L("Wizard"),
    R.IndividualKind.PRIEST: L("Priest"),
    R.IndividualKind.ENCHANTRESS: L("Enchantress"),
    R.IndividualKind.SEER: L("Seer"),
    R.IndividualKind.STANDARD_BEARER: L("Standard-bearer"),
    R.IndividualKind.HERALD: L("Herald"),
    R.IndividualKind.SCOUT: L("Scout"),
    R.IndividualKind.MESSENGER: L("Messenger"),
    R.IndividualKind.ORDER_BEARER: L("Order-bearer"),
    R.Status.FULL_SPEED: L("Full speed"),
    R.Status.PROBE: L("Probe"),
    R.Status.DEFEND: L("Defend"),
    R.Status.CONFUSED: L("Confused"),
    R.Status.UNSTEADY: L("Unsteady"),
    R.Status.SHATTERED: L("Shattered"),
}
HOLDING_FEATURE_LABELS: Mapping[str, str] = {
    "sacred-wood": L("Sacred wood"),
    "tower-of-magic": L("Tower of magic"),
    "stonehenge-temple": L("Stonehenge temple"),
    "sanctuary": L("Sanctuary"),
    "burial-mound": L("Burial mound"),
    "village": L("Village"),
    "city": L("City"),
    "mine": L("Precious-metal mine"),
}


def enum_choices(members: Iterable[Enum]) -> tuple[tuple[str, str], ...]:
    """(value, translated label) for a form's choices."""
    return tuple((m.value, LABELS[m]) for m in members)


OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "weather_phase",
        "§4",
        L("Phase 0: roll the weather at the start of every campaign turn and battle turn."),
        naran=True,
    ),
    OptionSpec(
        "weather_per_force",
        "R4.2.1",
        L("One weather roll per force instead of one roll for the whole map."),
    ),
    OptionSpec(
        "climate",
        "R4.1.1",
        L("The map's climate zone; it decides which seasons can occur."),
        choices=enum_choices(R.Climate),
        naran=True,
    ),
    OptionSpec(
        "season",
        "R4.1.2",
        L("The season for the whole campaign: the weather-test modifier and rain or snow."),
        choices=enum_choices(R.Season),
        naran=True,
    ),
    OptionSpec(
        "heavy_ground",
        "R4.3.3",
        L("In desert or tropical zones soaked ground counts as one snow level (−1 movement)."),
        naran=True,
    ),
    OptionSpec(
        "storm_ends_battle",
        "A-60",
        L("A storm ends a battle at once as a stalemate instead of interrupting it for a turn."),
    ),
    OptionSpec(
        "force_test_reaction_mode",
        "R5.2.1",
        L("Force test: a named reaction replaces the status, or never improves a worse one."),
        choices=(
            ("absolute", L("The named reaction replaces the status")),
            ("no_improvement", L("A reaction never improves a worse one")),
        ),
    ),
    OptionSpec(
        "order_delivery_model",
        "§5.4",
        L("How changed orders reach a force: at once, or carried by messengers (a hook)."),
        choices=(("immediate", L("Immediately")), ("messenger", L("By messenger"))),
        naran=True,
    ),
    OptionSpec(
        "initiative_method",
        "§6.1",
        L("Initiative per force (1D6 + leader CV each, as the source advises) or per army."),
        choices=(("by-force", L("By force")), ("by-army", L("By army"))),
    ),
    OptionSpec(
        "initiative_counter_binding",
        "R6.1.5",
        L("Initiative counters go where standing orders say, or always on the force that rolled."),
        choices=(
            ("standing-orders", L("By standing orders")),
            ("roller-force", L("On the force that rolled")),
        ),
    ),
    OptionSpec(
        "naran_terrain",
        "R2.1.2",
        L("Naran terrain (uncultivated, cultivated, hill, desert, road, bridge, pass) moves."),
        naran=True,
    ),
    OptionSpec(
        "rivers_only_at_crossings",
        "R2.1.3",
        L("Forces may cross a river only at a bridge or ford drawn on the map."),
        naran=True,
    ),
    OptionSpec(
        "terrain_attrition",
        "§6.10",
        L("Forces crossing jungle, desert, wasteland or mountains lose figures (1D6 a unit)."),
        naran=True,
    ),
    OptionSpec(
        "attrition_formula",
        "A-50",
        L("Figures a unit loses to terrain attrition."),
        choices=tuple(
            zip(
                ATTRITION_FORMULAS,
                (L("1D6 − 2, at least 0"), L("1D6 ÷ 2"), L("1D6 × 2")),
                strict=True,
            )
        ),
    ),
    OptionSpec(
        "naval_movement",
        "§6.11",
        L("Provisional Naran rules for moving by sea, lake and river."),
        naran=True,
    ),
    OptionSpec(
        "battle_result_method",
        "R7.3",
        L("Who won a battle: core rules, Italian (20 % of the army points) or English (score)."),
        choices=(("core", L("Core")), ("italian", L("Italian")), ("english", L("English"))),
    ),
    OptionSpec(
        "battle_max_turns",
        "R7.2.2",
        L("Battle turns before a battle ends; a full clock revolution is 12."),
        minimum=1,
    ),
    OptionSpec(
        "random_scenery",
        "§7.7",
        L("Roll the battlefield's scenery on the Naran random tables."),
        naran=True,
    ),
    OptionSpec(
        "every_other_reading",
        "A-28",
        L("Forest or swamp battlefields: all other features are woods/swamps, or every second."),
        choices=(("all", L("All the others")), ("alternate", L("Every second one"))),
    ),
    OptionSpec(
        "special_scenarios",
        "§7.10",
        L("Naran special battles: raid, breakthrough, chance encounter, flank attack, ambush…"),
        naran=True,
    ),
    OptionSpec(
        "naran_battle_terrain",
        "§7.11",
        L("The Naran battle-terrain annex, for battles resolved by the computer."),
        naran=True,
    ),
    OptionSpec(
        "siege_required_for_capital",
        "R2.3.6",
        L("A capital can be taken only by winning a siege."),
        naran=True,
    ),
    OptionSpec(
        "naran_regroup",
        "§8.3",
        L("Recovered figures go into a points pool to rebuild units of a useful size."),
        naran=True,
    ),
    OptionSpec(
        "naran_promotion",
        "R8.6.2",
        L("The Naran order of precedence for promoting a new leader."),
        naran=True,
    ),
    OptionSpec(
        "holding_features",
        "§2.4",
        L("Each holding rolls 2D6 at set-up for a feature: sacred wood, tower, village, mine…"),
        naran=True,
    ),
    OptionSpec(
        "deserter_rout_modifier",
        "A-09",
        L("The deserter check's −1 for a rout: a Shattered force, or each figure that fled."),
        choices=(
            ("force_shattered", L("The force is Shattered")),
            ("figure_routed", L("The figure fled in a rout")),
        ),
    ),
    OptionSpec(
        "gr_exits_deserter_checked",
        "A-58",
        L("Figures that left under General Retreat are deserter-checked after a defeat."),
    ),
    OptionSpec(
        "reinforcement_interval_days",
        "§9.3",
        L("Days between reinforcements (7 by default; 1 = every turn)."),
        minimum=1,
    ),
    OptionSpec(
        "capital_also_two_percent",
        "A-40",
        L("The capital yields 10 % + 2 % of the initial army points instead of 10 %."),
    ),
    OptionSpec(
        "random_events",
        "§9.4",
        L("Random events (3D6, tribal and catastrophe tables) on the reinforcement days."),
        naran=True,
    ),
    OptionSpec(
        "will_to_fight_as_printed",
        "A-03",
        L("Will to Fight counts +3 per battle won, as in the printed example, not +1."),
    ),
    OptionSpec(
        "unit_orders_max_points",
        "§10",
        L("Largest army that may use the unit-orders method; empty means no limit."),
        minimum=1,
    ),
    OptionSpec(
        "naran_probe_composition",
        "§2.7",
        L("A Probe force may hold only commands allowed to scout."),
        naran=True,
    ),
    OptionSpec(
        "incursion_loot_required",
        "R11.7.2",
        L("Loot the Raiders must carry home to win the Incursion."),
        minimum=1,
    ),
)
OPTIONS_BY_NAME: Mapping[str, OptionSpec] = {s.name: s for s in OPTION_SPECS}
del L


def options_from_data(data: Mapping[str, Any], base: R.Options | None = None) -> R.Options:
    """`base` (default: the defaults) with the fields in `data`, each checked: unknown names,
    values outside an option's choices or below its minimum are refused beside the field."""
    errors: dict[str | None, list[str]] = {}
    unknown = sorted(set(data) - set(OPTIONS_BY_NAME))
    if unknown:
        errors[None] = [_("Unknown option(s): %(names)s.") % {"names": ", ".join(unknown)}]
    merged = to_data(base or R.Options())
    for name, value in data.items():
        spec = OPTIONS_BY_NAME.get(name)
        if spec is None:
            continue
        if isinstance(value, Enum):
            value = value.value
        if spec.choices and value not in {v for v, _label in spec.choices}:
            allowed = ", ".join(v for v, _label in spec.choices)
            errors.setdefault(name, []).append(
                _("%(value)r is not one of %(allowed)s.") % {"value": value, "allowed": allowed}
            )
            continue
        if (
            spec.minimum is not None
            and isinstance(value, int)
            and not isinstance(value, bool)
            and value < spec.minimum
        ):
            errors.setdefault(name, []).append(
                _("It must be at least %(minimum)d.") % {"minimum": spec.minimum}
            )
            continue
        merged[name] = value
    if errors:
        raise InvalidSetup(errors)
    try:
        return from_data(R.Options, merged, "options")
    except FormatError as e:
        raise InvalidSetup(str(e)) from e


# --- helpers ---------------------------------------------------------------------------------


def _lock(campaign: Campaign, *, setup: bool = True) -> Campaign:
    """The campaign row, locked for this transaction; with `setup`, refused once set-up is
    over."""
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if setup and not locked.setup_open:
        raise SetupClosed(
            _("The set-up of %(campaign)s is closed: the campaign has started.")
            % {"campaign": locked.name}
        )
    return locked


def _take_number(locked: Campaign) -> int:
    n = locked.next_id
    locked.next_id = n + 1
    locked.save(update_fields=["next_id"])
    return n


def _fresh_key(locked: Campaign, fmt: str, taken: Callable[[str], bool]) -> str:
    """The next key `fmt.format(n=…)` from the campaign counter that no row uses yet (a
    scenario's own ids may already use low numbers)."""
    while True:
        key = fmt.format(n=_take_number(locked))
        if not taken(key):
            return key


def _fresh_slug_key(model, campaign: Campaign, name: str, fallback: str) -> str:
    base = slugify(name)[:40] or fallback
    key, i = base, 2
    while model.objects.filter(campaign=campaign, key=key).exists():
        key = f"{base}-{i}"
        i += 1
    return key


def _next_position(qs) -> int:
    top = qs.aggregate(top=Max("position"))["top"]
    return 0 if top is None else top + 1


def _on_map(campaign: Campaign, x: int, y: int) -> None:
    if not (0 <= x < campaign.width and 0 <= y < campaign.height):
        raise InvalidSetup(
            {
                "x": [
                    _("Square (%(x)d, %(y)d) is off the %(w)d×%(h)d map.")
                    % {"x": x, "y": y, "w": campaign.width, "h": campaign.height}
                ]
            }
        )


def _features(values: Iterable[str | R.Feature]) -> list[str]:
    """Stored features: known values, sorted, without `open` (the absence of any)."""
    out: set[str] = set()
    for v in values:
        try:
            out.add(R.Feature(v).value)
        except ValueError:
            known = ", ".join(f.value for f in R.Feature)
            raise InvalidSetup(
                {
                    "features": [
                        _("Unknown feature %(f)r (known: %(known)s).") % {"f": v, "known": known}
                    ]
                }
            ) from None
    out.discard(R.Feature.OPEN.value)
    return sorted(out)


def _holding_problems(
    state: R.CampaignState, holdings: Iterable[R.Holding] | None = None
) -> list[SetupProblem]:
    """R2.3.2–2.3.4 problems of the given holdings (default: all) on the state's map; the
    capital count (R2.3.5) is left to `campaign_start`, as holdings go down one by one."""
    subjects = {h.id for h in (state.holdings if holdings is None else holdings)}
    result = validate_holding_placement(
        game_map=state.map, players=state.players, holdings=state.holdings
    )
    return [p for p in result.problems if p.code != "capital-count" and p.subject in subjects]


def _state(locked: Campaign) -> R.CampaignState:
    return adapters.state_load(campaign=locked)


# --- campaigns -------------------------------------------------------------------------------


def _slug_check(slug: str) -> None:
    if not slug or slugify(slug) != slug:
        raise InvalidSetup(
            {"slug": [_("Use only lower-case letters, numbers, hyphens and underscores.")]}
        )
    if slug in RESERVED_SLUGS:
        raise InvalidSetup({"slug": [_("%(slug)r is reserved; choose another.") % {"slug": slug}]})
    if Campaign.objects.filter(slug=slug).exists():
        raise InvalidSetup(
            {"slug": [_("A campaign with the slug %(slug)r already exists.") % {"slug": slug}]}
        )


@transaction.atomic
def campaign_create_blank(
    *,
    gm,
    slug: str,
    name: str,
    width: int = 16,
    height: int = 12,
    options: R.Options | Mapping[str, Any] | None = None,
    fog_of_war: bool = False,
    scenario: str | None = None,
    description: str = "",
) -> Campaign:
    """A new campaign run by `gm`. From scratch: a `width`×`height` map of open neutral
    squares, in set-up and without a turn. From a scenario: the scenario's demo state (map,
    holdings, rosters) and turn 1 open at once; the GM then invites players into its roles."""
    _slug_check(slug)
    name = name.strip()
    if not name:
        raise InvalidSetup({"name": [_("Give the campaign a name.")]})
    if options is not None and not isinstance(options, R.Options):
        options = options_from_data(options)
    if scenario:
        folder = SCENARIO_FIXTURES.get(scenario)
        if folder is None:
            known = ", ".join(sorted(SCENARIO_FIXTURES))
            raise InvalidSetup(
                {
                    "scenario": [
                        _("Unknown scenario %(s)r (known: %(known)s).")
                        % {"s": scenario, "known": known}
                    ]
                }
            )
        state = from_data(
            R.CampaignState, json.loads((folder / "state.json").read_text(encoding="utf-8"))
        )
        demo = json.loads((folder / "demo.json").read_text(encoding="utf-8"))
        return campaign_create(
            slug=slug,
            name=name,
            description=description or demo.get("campaign", {}).get("description", ""),
            state=state if options is None else replace(state, options=options),
            colours=dict(demo.get("colours", {})),
            fog_of_war=fog_of_war,
            gm=gm,
        )
    for field, value in (("width", width), ("height", height)):
        if not MAP_MIN <= value <= MAP_MAX:
            raise InvalidSetup(
                {field: [_("From %(lo)d to %(hi)d squares.") % {"lo": MAP_MIN, "hi": MAP_MAX}]}
            )
    campaign = Campaign.objects.create(
        slug=slug,
        name=name,
        description=description,
        options=to_data(options or R.Options()),
        fog_of_war=fog_of_war,
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
    state = _state(locked)
    here = [h for h in state.holdings if h.square == (x, y)]
    problems = _holding_problems(state, here)
    if problems:
        raise InvalidSetup([p.message for p in problems])


@transaction.atomic
def square_features_set(
    *, campaign: Campaign, x: int, y: int, features: Iterable[str | R.Feature]
) -> Square:
    """Set the terrain features of one square (§6.3). A change that would leave a holding on
    terrain its owner's race may not use (R2.3.4) is refused."""
    locked = _lock(campaign)
    _on_map(locked, x, y)
    square = Square.objects.get(campaign=locked, x=x, y=y)
    square.features = _features(features)
    square.save(update_fields=["features"])
    _square_edit_check(locked, x, y)
    return square


@transaction.atomic
def square_zone_set(*, campaign: Campaign, x: int, y: int, zone: str) -> Square:
    """Make (x, y) part of a player's friendly territory, or neutral with `zone=""` (R2.2).
    Thirds are drawn with `territory_thirds_apply`; this lets the GM shape the border by hand
    and give allied players their own ground."""
    locked = _lock(campaign)
    _on_map(locked, x, y)
    if zone and not Player.objects.filter(campaign=locked, key=zone).exists():
        raise InvalidSetup(
            {"zone": [_("%(zone)r is not a player of this campaign.") % {"zone": zone}]}
        )
    square = Square.objects.get(campaign=locked, x=x, y=y)
    square.zone = zone
    square.save(update_fields=["zone"])
    _square_edit_check(locked, x, y)
    return square


@dataclass(frozen=True)
class ParsedMap:
    width: int
    height: int
    features: dict[R.Coord, list[str]]
    zones: dict[R.Coord, str]


def _size_problems(width: Any, height: Any) -> list[MapProblem]:
    out = []
    for what, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, int) or not MAP_MIN <= v <= MAP_MAX:
            out.append(
                MapProblem(
                    _("The map %(what)s must be a whole number from %(lo)d to %(hi)d, not %(v)r.")
                    % {"what": what, "lo": MAP_MIN, "hi": MAP_MAX, "v": v}
                )
            )
    return out


def map_parse_json(text: str, players: Iterable[str]) -> ParsedMap:
    """The JSON map format (see the module docstring)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise MapFormatError(
            [MapProblem(_("Not valid JSON: %(msg)s.") % {"msg": e.msg}, e.lineno, e.colno)]
        ) from None
    if isinstance(doc, dict) and isinstance(doc.get("map"), dict):
        doc = doc["map"]  # a whole state document
    if not isinstance(doc, dict):
        raise MapFormatError(
            [MapProblem(_("The JSON must be an object with width, height and squares."))]
        )
    unknown = sorted(set(doc) - {"width", "height", "squares"})
    problems = (
        [MapProblem(_("Unknown field(s): %(f)s.") % {"f": ", ".join(unknown)})] if unknown else []
    )
    width, height = doc.get("width"), doc.get("height")
    problems += _size_problems(width, height)
    squares = doc.get("squares", [])
    if not isinstance(squares, list):
        problems.append(MapProblem(_("squares must be a list.")))
        squares = []
    if problems:
        raise MapFormatError(problems)
    known = set(players)
    features: dict[R.Coord, list[str]] = {}
    zones: dict[R.Coord, str] = {}
    for i, sq in enumerate(squares):
        where = _("square #%(i)d") % {"i": i + 1}
        if not isinstance(sq, dict):
            problems.append(MapProblem(_("%(where)s is not an object.") % {"where": where}))
            continue
        x, y = sq.get("x"), sq.get("y")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (x, y)):
            problems.append(
                MapProblem(_("%(where)s needs whole numbers x and y.") % {"where": where})
            )
            continue
        where = _("square #%(i)d (%(x)d, %(y)d)") % {"i": i + 1, "x": x, "y": y}
        extra = sorted(set(sq) - {"x", "y", "features", "zone"})
        if extra:
            problems.append(
                MapProblem(
                    _("%(where)s: unknown field(s) %(f)s.")
                    % {"where": where, "f": ", ".join(extra)}
                )
            )
        if not (0 <= x < width and 0 <= y < height):
            problems.append(
                MapProblem(
                    _("%(where)s lies outside the %(w)d×%(h)d map.")
                    % {"where": where, "w": width, "h": height}
                )
            )
            continue
        if (x, y) in features or (x, y) in zones:
            problems.append(MapProblem(_("%(where)s is given twice.") % {"where": where}))
        feats = sq.get("features", [])
        if not isinstance(feats, list):
            problems.append(MapProblem(_("%(where)s: features must be a list.") % {"where": where}))
            continue
        try:
            features[(x, y)] = _features(str(f) for f in feats)
        except InvalidSetup as e:
            problems.append(MapProblem(f"{where}: {' '.join(e.messages)}"))
        zone = sq.get("zone")
        if zone not in (None, ""):
            if zone not in known:
                problems.append(MapProblem(_zone_unknown(zone, known, where)))
            else:
                zones[(x, y)] = zone
    if problems:
        raise MapFormatError(problems)
    return ParsedMap(width, height, {c: f for c, f in features.items() if f}, zones)


def _zone_unknown(zone: Any, known: set[str], where: str) -> str:
    players = ", ".join(sorted(known)) or _("none yet: create the players first")
    return _("%(where)s: zone %(zone)r is not a player of this campaign (players: %(p)s).") % {
        "where": where,
        "zone": zone,
        "p": players,
    }


def map_parse_csv(text: str, players: Iterable[str]) -> ParsedMap:
    """The CSV map format (see the module docstring)."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    rows = [(n, line) for n, line in enumerate(lines, 1) if not line.lstrip().startswith("#")]
    while rows and not rows[-1][1].strip():
        rows.pop()
    if not rows:
        raise MapFormatError([MapProblem(_("The CSV file has no rows."))])
    delimiter = "," if "," in rows[0][1] or ";" not in rows[0][1] else ";"
    known = set(players)
    problems: list[MapProblem] = []
    features: dict[R.Coord, list[str]] = {}
    zones: dict[R.Coord, str] = {}
    width = None
    for y, (line_no, line) in enumerate(rows):
        cells = next(csv.reader([line], delimiter=delimiter), [])
        if width is None:
            width = len(cells)
        elif len(cells) != width:
            problems.append(
                MapProblem(
                    _(
                        "this row has %(n)d cells but the first row has %(w)d; every row needs one "
                        "cell per square."
                    )
                    % {"n": len(cells), "w": width},
                    line_no,
                )
            )
            continue
        for x, cell in enumerate(cells):
            cell = cell.strip().lower()
            terrain, _sep, zone = cell.partition("@")
            names = [t.strip() for t in terrain.split("+") if t.strip()]
            bad = [t for t in names if t not in FEATURE_VALUES]
            if bad:
                known_f = ", ".join(f.value for f in R.Feature)
                problems.append(
                    MapProblem(
                        _("unknown feature %(f)r (known: %(known)s).")
                        % {"f": bad[0], "known": known_f},
                        line_no,
                        x + 1,
                    )
                )
                continue
            feats = _features(names)
            if feats:
                features[(x, y)] = feats
            zone = zone.strip()
            if zone:
                if zone not in known:
                    problems.append(
                        MapProblem(_zone_unknown(zone, known, _("zone")), line_no, x + 1)
                    )
                else:
                    zones[(x, y)] = zone
    height = len(rows)
    problems = _size_problems(width, height) + problems
    if problems:
        raise MapFormatError(problems)
    assert width is not None
    return ParsedMap(width, height, features, zones)


@transaction.atomic
def map_import(*, campaign: Campaign, data: str, format: str | None = None) -> ParsedMap:
    """Replace the whole map (size, features, zones) with an imported one. `format` is
    "json" or "csv"; None guesses JSON when the text starts with `{`. Holdings must still
    stand where the rules allow and forces on the map, or nothing changes."""
    locked = _lock(campaign)
    if format is None:
        format = "json" if data.lstrip().startswith(("{", "[")) else "csv"
    players = list(Player.objects.filter(campaign=locked).values_list("key", flat=True))
    if format == "json":
        parsed = map_parse_json(data, players)
    elif format == "csv":
        parsed = map_parse_csv(data, players)
    else:
        raise InvalidSetup({"format": [_("The format is json or csv.")]})
    locked.width, locked.height = parsed.width, parsed.height
    locked.save(update_fields=["width", "height"])
    Square.objects.filter(campaign=locked).delete()
    Square.objects.bulk_create(
        Square(
            campaign=locked,
            x=x,
            y=y,
            features=parsed.features.get((x, y), []),
            zone=parsed.zones.get((x, y), ""),
        )
        for y in range(parsed.height)
        for x in range(parsed.width)
    )
    campaign.width, campaign.height = parsed.width, parsed.height
    state = _state(locked)
    problems = [p.message for p in validate_state_references(state)]
    problems += [p.message for p in _holding_problems(state)]
    if problems:
        raise InvalidSetup(
            {"data": [_("The imported map does not fit what is already placed:"), *problems]}
        )
    return parsed


@transaction.atomic
def territory_thirds_apply(
    *, campaign: Campaign, axis: str, west_player: Player, east_player: Player
) -> None:
    """R2.2: cut the map in three along `axis` ("x": columns, west to east; "y": rows, north
    to south); `west_player` takes the low outer third, `east_player` the high one, the centre
    is neutral. Replaces every zone drawn before."""
    locked = _lock(campaign)
    for field, p in (("west_player", west_player), ("east_player", east_player)):
        if p.campaign_id != locked.pk:
            raise InvalidSetup({field: [_("That player belongs to another campaign.")]})
    if west_player.pk == east_player.pk:
        raise InvalidSetup({"east_player": [_("Each outer third goes to a different player.")]})
    if west_player.side_id == east_player.side_id:
        raise InvalidSetup(
            {"east_player": [_("The outer thirds go to opponents (R2.2.4), not to allies.")]}
        )
    try:
        zones = territory_zones(
            locked.width, locked.height, axis, low=west_player.key, high=east_player.key
        )
    except SetupError as e:
        raise InvalidSetup({"axis": [str(e)]}) from e
    squares = list(Square.objects.filter(campaign=locked))
    for sq in squares:
        sq.zone = zones.get((sq.x, sq.y), "")
    Square.objects.bulk_update(squares, ["zone"])
    problems = _holding_problems(_state(locked))
    if problems:
        raise InvalidSetup([p.message for p in problems])


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
    locked = _lock(campaign)
    name = name.strip()
    if not name:
        raise InvalidSetup({"name": [_("Give the side a name.")]})
    key = _fresh_slug_key(Side, locked, name, "side")
    return Side.objects.create(campaign=locked, key=key, name=name)


@transaction.atomic
def side_delete(*, side: Side) -> None:
    _lock(side.campaign)
    if side.players.exists():
        raise InvalidSetup(_("Move or delete the side's players first."))
    side.delete()


def _player_fields(campaign: Campaign, fields: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(fields)
    if "name" in out:
        out["name"] = str(out["name"]).strip()
        if not out["name"]:
            raise InvalidSetup({"name": [_("Give the army a name.")]})
    colour = out.get("colour")
    if colour is not None:
        c = str(colour).lower()
        if len(c) != 7 or c[0] != "#" or any(ch not in "0123456789abcdef" for ch in c[1:]):
            raise InvalidSetup({"colour": [_("A colour is written #rrggbb.")]})
        out["colour"] = c
    side = out.get("side")
    if side is not None and side.campaign_id != campaign.pk:
        raise InvalidSetup({"side": [_("That side belongs to another campaign.")]})
    points = out.get("initial_points")
    if points is not None and points < 0:
        raise InvalidSetup({"initial_points": [_("Points cannot be negative.")]})
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
    locked = _lock(campaign)
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
    key = _fresh_slug_key(Player, locked, values["name"], "army")
    return Player.objects.create(
        campaign=locked,
        key=key,
        position=_next_position(Player.objects.filter(campaign=locked)),
        **values,
    )


PLAYER_FIELDS = ("side", "name", "race", "colour", "initial_points", "tribal", "light")


@transaction.atomic
def player_update(*, player: Player, **changes: Any) -> Player:
    """Change an army's name, side, race, colour, points or flags. A new race must still
    allow its holdings' terrain (R2.3.4)."""
    locked = _lock(player.campaign)
    unknown = set(changes) - set(PLAYER_FIELDS)
    if unknown:
        raise InvalidSetup(_("Unknown field(s): %(f)s.") % {"f": ", ".join(sorted(unknown))})
    values = _player_fields(locked, changes)
    for k, v in values.items():
        setattr(player, k, v.strip() if k == "race" else v)
    player.save()
    problems = _holding_problems(_state(locked))
    if problems:
        raise InvalidSetup({"race": [p.message for p in problems]})
    return player


@transaction.atomic
def player_delete(*, player: Player) -> None:
    """Remove an army with its holdings and forces, unless someone plays it."""
    locked = _lock(player.campaign)
    users = list(
        Membership.objects.filter(player=player, role=Membership.Role.PLAYER).values_list(
            "user__username", flat=True
        )
    )
    if users:
        raise InvalidSetup(
            _("%(army)s is played by %(users)s; it cannot be deleted.")
            % {"army": player.name, "users": ", ".join(users)}
        )
    Holding.objects.filter(Q(owner=player) | Q(original_owner=player), campaign=locked).delete()
    Square.objects.filter(campaign=locked, zone=player.key).update(zone="")
    player.delete()


# --- holdings (R2.3, R2.4) -------------------------------------------------------------------


def _holding_feature_choices() -> tuple[tuple[str, str], ...]:
    """The §2.4 table as choices, labelled with their 2D6 results ("3–4: tower of magic")."""
    rolls: dict[str, list[int]] = {}
    for roll, feature in sorted(T.HOLDING_FEATURES.items()):
        rolls.setdefault(feature, []).append(roll)
    return tuple(
        (
            f,
            format_lazy(
                "{}: {}", f"{r[0]}{'' if len(r) == 1 else f'–{r[-1]}'}", HOLDING_FEATURE_LABELS[f]
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
) -> Holding:
    """Place a holding of `player` at (x, y), if the rules allow it there: in his friendly
    third (R2.3.2), at least three squares from his other holdings (R2.3.3), not on a
    mountain, forest or swamp unless his race may (R2.3.4), and one capital (R2.3.5).
    `feature` is the §2.4 table result, when that option is on."""
    locked = _lock(campaign)
    if player.campaign_id != locked.pk:
        raise InvalidSetup({"player": [_("That player belongs to another campaign.")]})
    _on_map(locked, x, y)
    options = from_data(R.Options, locked.options)
    if feature:
        if not options.holding_features:
            raise InvalidSetup({"feature": [_("Holding features (§2.4) are not in use.")]})
        if feature not in T.HOLDING_FEATURES.values():
            raise InvalidSetup({"feature": [_("Unknown holding feature %(f)r.") % {"f": feature}]})
    if Holding.objects.filter(campaign=locked, x=x, y=y).exists():
        raise InvalidSetup(
            {"x": [_("There is a holding at (%(x)d, %(y)d) already.") % {"x": x, "y": y}]}
        )
    key = _fresh_key(
        locked, "h{n}", lambda k: Holding.objects.filter(campaign=locked, key=k).exists()
    )
    state = _state(locked)
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
    result = validate_holding_placement(
        game_map=state.map, players=[state.player(player.key)], holdings=[*own, new]
    )
    errors: dict[str | None, list[str]] = {}
    for p in result.problems:
        if p.subject == key:  # where the new holding stands: R2.3.2-2.3.4
            errors.setdefault("x", []).append(p.message)
        elif p.code == "capital-count" and capital and any(h.capital for h in own):
            # holdings go down one at a time: only a second capital is wrong yet (R2.3.5)
            errors.setdefault("capital", []).append(
                _("%(army)s has a capital already (R2.3.5).") % {"army": player.name}
            )
    if errors:
        raise InvalidSetup(errors)
    return Holding.objects.create(
        campaign=locked,
        key=key,
        position=_next_position(Holding.objects.filter(campaign=locked)),
        name=new.name,
        x=x,
        y=y,
        owner=player,
        original_owner=player,
        capital=capital,
        feature=feature,
    )


@transaction.atomic
def holding_remove(*, holding: Holding) -> None:
    _lock(holding.campaign)
    holding.delete()


# --- options ---------------------------------------------------------------------------------


@transaction.atomic
def options_update(*, campaign: Campaign, data: Mapping[str, Any]) -> R.Options:
    """Set campaign options (every field of `rules.types.Options`; those left out keep their
    value). Values are checked against each option's choices and minimum."""
    locked = _lock(campaign)
    options = options_from_data(data, from_data(R.Options, locked.options))
    locked.options = to_data(options)
    locked.save(update_fields=["options"])
    campaign.options = locked.options
    return options


# --- invitations -----------------------------------------------------------------------------


@transaction.atomic
def invitation_create(
    *,
    campaign: Campaign,
    role: str,
    player: Player | None = None,
    side: Side | None = None,
    max_uses: int = 1,
    expires: datetime | None = None,
    created_by=None,
) -> Invitation:
    """A link that makes whoever follows it a member. A player invitation names the army
    (`player`), or a `side` whose new army the guest will command (set-up only); an observer
    may follow an army; a GM invitation adds a co-GM."""
    if role not in Membership.Role.values:
        raise InvalidSetup({"role": [_("Unknown role %(r)r.") % {"r": role}]})
    for field, obj in (("player", player), ("side", side)):
        if obj is not None and obj.campaign_id != campaign.pk:
            raise InvalidSetup({field: [_("That belongs to another campaign.")]})
    if role == Membership.Role.PLAYER and (player is None) == (side is None):
        raise InvalidSetup({"target": [_("A player invitation names one army or one side.")]})
    if role == Membership.Role.OBSERVER and side is not None:
        raise InvalidSetup({"target": [_("An observer may follow an army, not a side.")]})
    if role == Membership.Role.GM and (player is not None or side is not None):
        raise InvalidSetup({"target": [_("A game master invitation names no army or side.")]})
    if side is not None and not Campaign.objects.get(pk=campaign.pk).setup_open:
        raise InvalidSetup(
            {"target": [_("New armies can join only during set-up; invite to an army instead.")]}
        )
    if max_uses < 1:
        raise InvalidSetup({"max_uses": [_("An invitation can be used at least once.")]})
    if expires is not None and expires <= timezone.now():
        raise InvalidSetup({"expires": [_("The expiry must be in the future.")]})
    return Invitation.objects.create(
        campaign=campaign,
        token=secrets.token_urlsafe(INVITATION_TOKEN_BYTES),
        role=role,
        player=player,
        side=side,
        max_uses=max_uses,
        expires_at=expires,
        created_by=created_by,
    )


@transaction.atomic
def invitation_revoke(*, invitation: Invitation) -> Invitation:
    invitation.revoked = True
    invitation.save(update_fields=["revoked"])
    return invitation


def invitation_refusal(*, invitation: Invitation, user) -> str | None:
    """Why `user` cannot accept `invitation` now, for people; None when he can."""
    campaign = invitation.campaign
    if invitation.revoked:
        return _("This invitation has been withdrawn by the game master.")
    if invitation.expires_at is not None and invitation.expires_at <= timezone.now():
        when = formats.date_format(timezone.localtime(invitation.expires_at), "DATETIME_FORMAT")
        return _("This invitation expired on %(when)s.") % {"when": when}
    if invitation.uses >= invitation.max_uses:
        return _("This invitation has already been used as many times as it allows (%(n)d).") % {
            "n": invitation.max_uses
        }
    member = Membership.objects.filter(campaign=campaign, user=user).first()
    if member is not None:
        return _("You are already a member of %(campaign)s, as %(role)s.") % {
            "campaign": campaign.name,
            "role": member.get_role_display().lower(),
        }
    if invitation.side_id is not None and not campaign.setup_open:
        return _(
            "%(campaign)s has started: new armies can no longer join. Ask the game master "
            "for an invitation to an existing army."
        ) % {"campaign": campaign.name}
    return None


@transaction.atomic
def invitation_accept(*, token: str, user) -> Membership:
    """Join the campaign by an invitation: take its army, command a new army of its side,
    observe, or co-run the campaign. Expired, withdrawn or used-up invitations are refused,
    and so is a user who is a member already."""
    invitation = Invitation.objects.select_for_update(of=("self",)).filter(token=token).first()
    if invitation is None:
        raise InvalidSetup(_("This invitation link is not valid."))
    # the campaign row is locked so that joins and the start of the campaign never interleave
    campaign = invitation.campaign = _lock(invitation.campaign, setup=False)
    refusal = invitation_refusal(invitation=invitation, user=user)
    if refusal:
        raise InvalidSetup(refusal)
    player = invitation.player
    if invitation.side is not None:
        name = (user.get_full_name() or user.get_username()).strip()
        player = player_create(campaign=campaign, side=invitation.side, name=name)
    membership = Membership.objects.create(
        campaign=campaign, user=user, role=invitation.role, player=player
    )
    invitation.uses += 1
    invitation.save(update_fields=["uses"])
    return membership


# --- rosters (R2.5) and placement (R2.6) -----------------------------------------------------

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
        raise InvalidSetup(
            _("Unknown %(what)s field(s): %(f)s.") % {"what": what, "f": ", ".join(sorted(unknown))}
        )
    out = dict(data)
    for name, enum in (
        ("speciality", R.Speciality),
        ("quality", R.Quality),
        ("kind", R.IndividualKind),
    ):
        if name in out:
            try:
                out[name] = enum(out[name]).value
            except ValueError:
                raise InvalidSetup({name: [_("Unknown value %(v)r.") % {"v": out[name]}]}) from None
    for name in ("figures",):
        if name in out and out[name] < 1:
            raise InvalidSetup({name: [_("A unit has at least one figure.")]})
    for name in ("general_cv", "general_points", "points_per_figure", "points", "magic_points"):
        if name in out and out[name] is not None and out[name] < 0:
            raise InvalidSetup({name: [_("It cannot be negative.")]})
    for name in ("type",):
        if name in out:
            out[name] = str(out[name]).strip()
            if not out[name]:
                raise InvalidSetup({name: [_("Say what troops the unit is.")]})
    return out


def _editable_force(force: Force) -> Campaign:
    return _lock(force.campaign)


def _force_check(locked: Campaign, force: Force) -> None:
    """R2.5 on the force as now written (the write rolls back with the refusal)."""
    state = _state(locked)
    result = validate_force_organisation(state.force(force.key))
    if result.problems:
        errors: dict[str | None, list[str]] = {}
        for p in result.problems:
            errors.setdefault(PROBLEM_FIELDS.get(p.code), []).append(p.message)
        raise InvalidSetup(errors)


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
    state = _state(locked)
    problems = placement_problems(state, state.force(force.key))
    if problems:
        raise InvalidSetup({"x": problems})


def _status(value: str) -> str:
    try:
        status = R.Status(value)
    except ValueError:
        status = None
    if status is None or not status.is_order:
        orders = ", ".join(s.value for s in R.Status if s.is_order)
        raise InvalidSetup(
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
    key = _fresh_key(
        locked,
        f"{force.key}c{{n}}",
        lambda k: Command.objects.filter(campaign=locked, key=k).exists(),
    )
    gkey = _fresh_key(locked, f"{force.key}g{{n}}", _general_key_taken(locked))
    command = Command.objects.create(
        campaign=locked,
        force=force,
        key=key,
        position=_next_position(force.commands.all()),
        general_key=gkey,
        general_name=str(general.get("general_name", "")).strip(),
        general_cv=general.get("general_cv"),
        general_points=general.get("general_points") or 0,
        general_mounted=bool(general.get("general_mounted", False)),
    )
    _unit_add(locked, command, unit)
    return command


def _unit_add(locked: Campaign, command: Command, unit: Mapping[str, Any]) -> Unit:
    key = _fresh_key(
        locked,
        f"{command.force.key}u{{n}}",
        lambda k: Unit.objects.filter(campaign=locked, key=k).exists(),
    )
    return Unit.objects.create(
        campaign=locked,
        command=command,
        key=key,
        position=_next_position(command.units.all()),
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
    locked = _lock(player.campaign)
    _on_map(locked, x, y)
    key = _fresh_key(
        locked, "f{n}", lambda k: Force.objects.filter(campaign=locked, key=k).exists()
    )
    force = Force.objects.create(
        campaign=locked,
        key=key,
        position=_next_position(Force.objects.filter(campaign=locked)),
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
    *, force: Force, name: str, x: int, y: int, status: str, leader_key: str = ""
) -> Force:
    """Rename, move (R2.6.2) or re-order (R2.6.1) a force; `leader_key` picks among generals
    tied for the highest CV (R2.5.4)."""
    locked = _editable_force(force)
    _on_map(locked, x, y)
    force.name = name.strip()
    force.x, force.y = x, y
    force.status = _status(status)
    force.leader_key = leader_key
    force.save(update_fields=["name", "x", "y", "status", "leader_key"])
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
    key = _fresh_key(
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
        position=_next_position(force.individuals.all()),
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
    out += [
        p.message
        for p in validate_holding_placement(
            game_map=state.map, players=state.players, holdings=state.holdings
        ).problems
    ]
    for player in state.players:
        forces = [f for f in state.forces if f.owner == player.id]
        if not forces:
            out.append(
                _("%(army)s has no force; every army needs at least one (R2.5.2).")
                % {"army": player.name or player.id}
            )
        for f in forces:
            out += [p.message for p in validate_force_organisation(f).problems]
            out += placement_problems(state, f)
    return out


@transaction.atomic
def campaign_start(*, campaign: Campaign) -> Turn:
    """Close set-up and open turn 1, if nothing stops it (`campaign_setup_problems`)."""
    locked = _lock(campaign)
    problems = campaign_setup_problems(campaign=locked)
    if problems:
        raise InvalidSetup(problems)
    locked.setup_open = False
    locked.save(update_fields=["setup_open"])
    campaign.setup_open = False
    return Turn.objects.create(
        campaign=locked,
        number=locked.turn_number,
        status=Turn.Status.OPEN,
        opened_at=timezone.now(),
    )
