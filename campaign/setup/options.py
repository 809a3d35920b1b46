"""The campaign options (every field of `rules.Options`, each with its rule id, explanation,
choices and default) as the set-up options page shows and checks them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

import rules as R
from campaign import adapters
from campaign.errors import ServiceError
from campaign.models import Campaign
from campaign.setup.base import campaign_lock
from campaign.text import labels
from rules import ATTRITION_FORMULAS, FormatError, to_data

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class OptionSpec:
    """How the options page shows and checks one `rules.types.Options` field."""

    name: str
    rule: str
    help: StrOrPromise
    choices: Sequence[tuple[str, StrOrPromise]] = ()
    minimum: int | None = None
    naran: bool = False

    @property
    def default(self) -> Any:
        value = getattr(R.Options(), self.name)
        return value.value if isinstance(value, Enum) else value


# Options the engine keeps (old campaigns and exports carry them) but nobody is offered, since
# choosing them would change nothing: the messenger model of order delivery (§5.4) is a hook
# the rulebook never defines.
NOT_OFFERED = ("order_delivery_model",)

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "weather_phase",
        "§4",
        gettext_lazy(
            "Phase 0: roll the weather at the start of every campaign turn and battle turn."
        ),
        naran=True,
    ),
    OptionSpec(
        "weather_per_force",
        "R4.2.1",
        gettext_lazy("One weather roll per force instead of one roll for the whole map."),
    ),
    OptionSpec(
        "climate",
        "R4.1.1",
        gettext_lazy("The map's climate zone; it decides which seasons can occur."),
        choices=labels.choices(labels.CLIMATE),
        naran=True,
    ),
    OptionSpec(
        "season",
        "R4.1.2",
        gettext_lazy(
            "The season for the whole campaign: the weather-test modifier and rain or snow."
        ),
        choices=labels.choices(labels.SEASON),
        naran=True,
    ),
    OptionSpec(
        "heavy_ground",
        "R4.3.3",
        gettext_lazy(
            "In desert or tropical zones soaked ground counts as one snow level (−1 movement)."
        ),
        naran=True,
    ),
    OptionSpec(
        "storm_ends_battle",
        "A-60",
        gettext_lazy(
            "A storm ends a battle at once as a stalemate instead of interrupting it for a turn."
        ),
    ),
    OptionSpec(
        "force_test_reaction_mode",
        "R5.2.1",
        gettext_lazy(
            "Force test: a named reaction replaces the status, or never improves a worse one."
        ),
        choices=(
            ("absolute", gettext_lazy("The named reaction replaces the status")),
            ("no_improvement", gettext_lazy("A reaction never improves a worse one")),
        ),
    ),
    OptionSpec(
        "initiative_method",
        "§6.1",
        gettext_lazy(
            "Initiative per force (1D6 + leader CV each, as the source advises) or per army."
        ),
        choices=(("by-force", gettext_lazy("By force")), ("by-army", gettext_lazy("By army"))),
    ),
    OptionSpec(
        "initiative_counter_binding",
        "R6.1.5",
        gettext_lazy(
            "Initiative counters go where standing orders say, or always on the force that rolled."
        ),
        choices=(
            ("standing-orders", gettext_lazy("By standing orders")),
            ("roller-force", gettext_lazy("On the force that rolled")),
        ),
    ),
    OptionSpec(
        "naran_terrain",
        "R2.1.2",
        gettext_lazy(
            "Naran terrain (uncultivated, cultivated, hill, desert, road, bridge, pass) moves."
        ),
        naran=True,
    ),
    OptionSpec(
        "rivers_only_at_crossings",
        "R2.1.3",
        gettext_lazy("Forces may cross a river only at a bridge or ford drawn on the map."),
        naran=True,
    ),
    OptionSpec(
        "terrain_attrition",
        "§6.10",
        gettext_lazy(
            "Forces crossing jungle, desert, wasteland or mountains lose figures (1D6 a unit)."
        ),
        naran=True,
    ),
    OptionSpec(
        "attrition_formula",
        "A-50",
        gettext_lazy("Figures a unit loses to terrain attrition."),
        choices=tuple(
            zip(
                ATTRITION_FORMULAS,
                (
                    gettext_lazy("1D6 − 2, at least 0"),
                    gettext_lazy("1D6 ÷ 2"),
                    gettext_lazy("1D6 × 2"),
                ),
                strict=True,
            )
        ),
    ),
    OptionSpec(
        "naval_movement",
        "§6.11",
        gettext_lazy(
            "Provisional Naran rules for moving by sea and lake: ships from the ports, the wind "
            "test and the naval table."
        ),
        naran=True,
    ),
    OptionSpec(
        "battle_result_method",
        "R7.3",
        gettext_lazy(
            "Who won a battle: core rules, Italian (20 % of the army points) or English (score)."
        ),
        choices=(
            ("core", gettext_lazy("Core")),
            ("italian", gettext_lazy("Italian")),
            ("english", gettext_lazy("English")),
        ),
    ),
    OptionSpec(
        "battle_max_turns",
        "R7.2.2",
        gettext_lazy("Battle turns before a battle ends; a full clock revolution is 12."),
        minimum=1,
    ),
    OptionSpec(
        "random_scenery",
        "§7.7",
        gettext_lazy("Roll the battlefield's scenery on the Naran random tables."),
        naran=True,
    ),
    OptionSpec(
        "every_other_reading",
        "A-28",
        gettext_lazy(
            "Forest or swamp battlefields: all other features are woods/swamps, or every second."
        ),
        choices=(
            ("all", gettext_lazy("All the others")),
            ("alternate", gettext_lazy("Every second one")),
        ),
    ),
    OptionSpec(
        "special_scenarios",
        "§7.10",
        gettext_lazy(
            "Naran special battles: raid, breakthrough, chance encounter, flank attack, ambush…"
        ),
        naran=True,
    ),
    OptionSpec(
        "naran_battle_terrain",
        "§7.11",
        gettext_lazy(
            "The Naran battle-terrain annex in the battle pack: its rules for the square's "
            "woods, jungle, hills, mountains, desert or swamp."
        ),
        naran=True,
    ),
    OptionSpec(
        "siege_required_for_capital",
        "R2.3.6",
        gettext_lazy("A capital can be taken only by winning a siege."),
        naran=True,
    ),
    OptionSpec(
        "naran_regroup",
        "§8.3",
        gettext_lazy("Recovered figures go into a points pool to rebuild units of a useful size."),
        naran=True,
    ),
    OptionSpec(
        "naran_promotion",
        "R8.6.2",
        gettext_lazy("The Naran order of precedence for promoting a new leader."),
        naran=True,
    ),
    OptionSpec(
        "holding_features",
        "§2.4",
        gettext_lazy(
            "Each holding rolls 2D6 at set-up for a feature: sacred wood, tower, village, mine…"
        ),
        naran=True,
    ),
    OptionSpec(
        "deserter_rout_modifier",
        "A-09",
        gettext_lazy(
            "The deserter check's −1 for a rout: a Shattered force, or each figure that fled."
        ),
        choices=(
            ("force_shattered", gettext_lazy("The force is Shattered")),
            ("figure_routed", gettext_lazy("The figure fled in a rout")),
        ),
    ),
    OptionSpec(
        "gr_exits_deserter_checked",
        "A-58",
        gettext_lazy(
            "Figures that left under General Retreat are deserter-checked after a defeat."
        ),
    ),
    OptionSpec(
        "reinforcement_interval_days",
        "§9.3",
        gettext_lazy("Days between reinforcements (7 by default; 1 = every turn)."),
        minimum=1,
    ),
    OptionSpec(
        "capital_also_two_percent",
        "A-40",
        gettext_lazy("The capital yields 10 % + 2 % of the initial army points instead of 10 %."),
    ),
    OptionSpec(
        "supply_convoys",
        "R9.3.9",
        gettext_lazy(
            "A supply convoy reaches each army every seven days, told in the turn report. The "
            "rules give it no effect: only a scenario that schedules its own convoys gives "
            "them one."
        ),
    ),
    OptionSpec(
        "random_events",
        "§9.4",
        gettext_lazy(
            "Random events (3D6, tribal and catastrophe tables) on the reinforcement days."
        ),
        naran=True,
    ),
    OptionSpec(
        "will_to_fight_as_printed",
        "A-03",
        gettext_lazy("Will to Fight counts +3 per battle won, as in the printed example, not +1."),
    ),
    OptionSpec(
        "unit_orders_max_points",
        "§10",
        gettext_lazy("Largest army that may use the unit-orders method; empty means no limit."),
        minimum=1,
    ),
    OptionSpec(
        "naran_probe_composition",
        "§2.7",
        gettext_lazy("A Probe force may hold only commands allowed to scout."),
        naran=True,
    ),
    OptionSpec(
        "incursion_loot_required",
        "R11.7.2",
        gettext_lazy("Loot the Raiders must carry home to win the Incursion."),
        minimum=1,
    ),
)
OPTIONS_BY_NAME: Mapping[str, OptionSpec] = {s.name: s for s in OPTION_SPECS}


def options_checked(data: Mapping[str, Any], base: R.Options | None = None) -> R.Options:
    """`base` (default: the defaults) with the fields in `data`, each checked: unknown names,
    values outside an option's choices or below its minimum are refused beside the field."""
    errors: dict[str | None, list[str]] = {}
    unknown = sorted(set(data) - set(OPTIONS_BY_NAME))
    if unknown:
        errors[None] = [
            ngettext("Unknown option: %(names)s.", "Unknown options: %(names)s.", len(unknown))
            % {"names": ", ".join(unknown)}
        ]
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
        raise ServiceError(errors)
    try:
        return adapters.options_from_data(merged)
    except FormatError as e:
        raise ServiceError(str(e)) from e


@transaction.atomic
def options_update(*, campaign: Campaign, data: Mapping[str, Any]) -> R.Options:
    """Set campaign options (every field of `rules.types.Options`; those left out keep their
    value). Values are checked against each option's choices and minimum."""
    locked = campaign_lock(campaign)
    options = options_checked(data, adapters.options_of(locked))
    locked.options = adapters.options_to_data(options)
    locked.save(update_fields=["options"])
    campaign.options = locked.options
    return options
