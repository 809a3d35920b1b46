"""Phase 0 — weather [NARAN] (§4). Off by default; not used in the Incursion (R3.1, A-48)."""

from __future__ import annotations

from dataclasses import replace

from rules.checks import weather_test
from rules.dice import Dice
from rules.events import Event, SnowFell, WeatherRolled, WeatherShifted
from rules.orders import has_weather_magic
from rules.types import CampaignState, Climate, Feature, Season, Weather

HEAVY = (Weather.HEAVY_RAIN, Weather.STORM)


def season_of(state: CampaignState) -> Season:
    """R4.1.2–3: Cold zones are always Winter; deserts always dry."""
    if state.options.climate is Climate.COLD:
        return Season.WINTER
    if state.options.climate is Climate.DESERT:
        return Season.DRY
    return state.options.season


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    opts = state.options
    if not opts.weather_phase or state.scenario == "incursion":
        return replace(state, weather=Weather.FINE, force_weather={}, heavy_ground_now=False), []
    season = season_of(state)
    events: list[Event] = []
    force_weather: dict[str, Weather] = {}
    if opts.weather_per_force:  # R4.2.1 option: one roll per deployed force
        worst = Weather.FINE
        for f in sorted(state.forces, key=lambda f: f.id):
            res = weather_test(dice, purpose=f"weather:force-{f.id}", season=season)
            force_weather[f.id] = res.weather
            events.append(WeatherRolled(res.weather.value, res.total, f.id))
            if _rank(res.weather) > _rank(worst):
                worst = res.weather
        weather = worst  # snow accumulation follows the worst weather seen [SR]
    else:
        res = weather_test(dice, purpose="weather:map", season=season)
        weather = res.weather
        events.append(WeatherRolled(weather.value, res.total))
    snow = state.snow
    if weather in HEAVY:
        if opts.climate is Climate.COLD or season is Season.WINTER:
            snow = replace(snow, levels=snow.levels + 1)  # R4.3.2 map-wide
            events.append(SnowFell(1, snow.levels))
        elif season is Season.AUTUMN:
            mountain = dict(snow.mountain)
            for c, feats in state.map.features.items():
                if Feature.MOUNTAIN in feats:
                    mountain[c] = mountain.get(c, 0) + 1
            snow = replace(snow, mountain=mountain)
            events.append(SnowFell(1, snow.levels, mountains_only=True))
    events += _shifts(replace(state, weather=weather, force_weather=force_weather))
    heavy_ground = (
        opts.heavy_ground and opts.climate in (Climate.TORRID, Climate.DESERT) and weather in HEAVY
    )  # R4.3.3: only in turns of result 5–6, never cumulative
    return (
        replace(
            state,
            weather=weather,
            force_weather=force_weather,
            snow=snow,
            heavy_ground_now=heavy_ground,
        ),
        events,
    )


def _rank(w: Weather) -> int:
    return list(Weather).index(w)


ROWS = tuple(Weather)  # the R4.2 table's four rows, fine to storm


def _shift_of(state: CampaignState, force_id: str) -> int:
    """The row shift a force's Wizard casts on its own movement this turn (R4.4.3)."""
    force = state.force(force_id)
    po = state.orders.get(force.owner)
    fo = po.forces.get(force_id) if po is not None else None
    if fo is None or not fo.weather_shift or not has_weather_magic(state, force):
        return 0
    return fo.weather_shift


def movement_weather(state: CampaignState, force_id: str) -> Weather:
    """The weather a force moves under: its own (or the map's), moved by its Wizard's spell
    (R4.4.3: only its own map-movement modifier, never the battle's or the snow's)."""
    weather = state.weather_for(force_id)
    shift = _shift_of(state, force_id) if state.orders else 0
    if not shift:
        return weather
    return ROWS[min(max(ROWS.index(weather) + shift, 0), len(ROWS) - 1)]


def _shifts(state: CampaignState) -> list[Event]:
    """One event per force whose Wizard changes its movement weather (R4.4.3)."""
    out: list[Event] = []
    for po in sorted(state.orders.values(), key=lambda p: p.player_id):
        for fid in sorted(po.forces):
            if po.forces[fid].weather_shift and _shift_of(state, fid):
                before, after = state.weather_for(fid), movement_weather(state, fid)
                out.append(WeatherShifted(fid, before.value, after.value))
    return out
