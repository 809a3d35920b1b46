"""Phase 0 — weather [NARAN] (§4). Off by default; not used in the Incursion (R3.1, A-48)."""

from __future__ import annotations

from dataclasses import replace

from rules.checks import weather_test
from rules.dice import Dice
from rules.events import Event, SnowFell, WeatherRolled
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
