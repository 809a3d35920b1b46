"""[NARAN] Terrain attrition at the end of the campaign turn (§6.10, option
`terrain_attrition`): forces that crossed jungle, desert, wasteland or a mountain range."""

from __future__ import annotations

from dataclasses import replace

from rules.checks import deserter_check, wounded_check
from rules.dice import Dice
from rules.events import AttritionSuffered, Event
from rules.phases.common import remove_force
from rules.setup.terrain_attrition import terrain_attrition
from rules.types import CampaignState, Coord, Feature, Status

HARSH = frozenset({Feature.JUNGLE, Feature.DESERT, Feature.WASTELAND})


def crossed_harsh_terrain(state: CampaignState, squares: tuple[Coord, ...]) -> bool:
    """R6.10.1: any square entered this turn is jungle, desert or wasteland, or mountain
    without a pass (a pass is the way through the range) [SR]."""
    for sq in squares:
        feats = state.map.features_at(sq)
        if feats & HARSH or (Feature.MOUNTAIN in feats and Feature.PASS not in feats):
            return True
    return False


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    if not state.options.terrain_attrition or not state.moves:
        return state, []
    events: list[Event] = []
    forces = {f.id: f for f in state.forces}
    for fid in sorted(state.moves):
        force = forces.get(fid)
        if force is None or not crossed_harsh_terrain(state, state.moves[fid]):
            continue
        purpose = f"attrition:{fid}"
        territory = state.territory(force.owner, force.square)  # R6.10.2: where it ends
        shattered = (
            force.status is Status.SHATTERED
            and state.options.deserter_rout_modifier == "force_shattered"
        )
        losses = {
            a.unit_id: a
            for a in terrain_attrition(
                dice, purpose=purpose, units=force.units, formula=state.options.attrition_formula
            )
        }
        commands = []
        for cmd in force.commands:
            units = []
            for u in cmd.units:
                a = losses[u.id]
                if not a.losses:
                    units.append(u)
                    continue
                # R6.10.2: the losses count as killed and take the wounded check
                w = wounded_check(
                    dice, purpose=f"{purpose}:wounded-{u.id}", killed=a.losses, territory=territory
                )
                left = u.figures - a.losses + w.kept
                deserted = 0
                if a.deserter_check and left > 0:  # R6.10.3: more than 25 % lost
                    d = deserter_check(
                        dice,
                        purpose=f"{purpose}:deserters-{u.id}",
                        figures=left,
                        quality=u.quality,
                        shattered=shattered,
                    )
                    deserted = d.lost
                    left -= deserted
                events.append(AttritionSuffered(fid, u.id, a.losses, w.kept, deserted))
                if left > 0:
                    units.append(replace(u, figures=left))
            commands.append(replace(cmd, units=tuple(units)))
        lost = force.figures - sum(u.figures for c in commands for u in c.units)
        forces[fid] = replace(
            force, commands=tuple(commands), figures_lost=force.figures_lost + lost
        )
    state = state.with_forces([forces[f.id] for f in state.forces])
    for fid in sorted(state.moves):
        f = forces.get(fid)
        if f is not None and not f.units:  # R2.5.2: no unit left, no force
            state, ev = remove_force(state, f, reason="terrain-attrition", rule="R6.10")
            events.extend(ev)
    return state, events
