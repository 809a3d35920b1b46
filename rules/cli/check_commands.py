"""The commands that apply one test or table of the rulebook (rules.checks), Phases 0–8."""

from __future__ import annotations

import argparse
from typing import Any

from rules import checks
from rules import tables as T
from rules.cli.arguments import (
    ORDERS,
    add_ambush,
    add_result,
    add_snow,
    add_status,
    add_terrain,
    add_territory,
    choices_metavar,
    cv_value,
    enum_choice,
    modifier_dicts,
    whole_number,
)
from rules.cli.ledger_words import detail_words
from rules.cli.registry import CalculatorError, command
from rules.dice import Dice
from rules.setup.italian import italian_draw_threshold
from rules.types import Outcome, Quality, Season, Status, Weather


def _force_test_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cv", required=True, type=cv_value, metavar="N", help="the leader's CV (1..6)")
    add_status(p, "the force's current status (order or reaction)")
    p.add_argument(
        "--requested",
        type=enum_choice(Status, "order", ORDERS),
        metavar=choices_metavar(ORDERS),
        help="the order requested (default: the current order; for a force under "
        "a reaction, probe)",
    )
    add_terrain(p, "the force's square (a mountain gives -3, even with a pass: A-53)")
    add_territory(p, "the force's square")
    add_snow(p, "Incursion only, -1 each: §11.5, A-13")
    p.add_argument(
        "--no-improvement",
        action="store_true",
        help="option force_test_reaction_mode = no_improvement: a reaction result "
        "never improves the current reaction (R5.2.1, A-59)",
    )


@command(
    "force-test",
    summary="Phase 1 force test to change orders or reconfigure (R5.2)",
    description=(
        "Force test (R5.2): 1D6 + leader CV + modifiers (Shattered -3, Unsteady -2, Confused "
        "-1, mountain -3, enemy territory -1, friendly +2, snow -1 per level in the "
        "Incursion). 6+ the requested order; 4-5 Defend; 3 Confused (a Confused force "
        "becomes Unsteady, A-59); 2 Unsteady; 1 Shattered; 0 or less the force is destroyed "
        "and its owner takes a Will-to-Fight test this turn (R9.1.4). The result replaces "
        "the current status (R5.2.1). `modifiers` lists everything but the CV."
    ),
    examples=(
        "force-test --cv 3 --status probe --requested full-speed --territory enemy --dice 4",
        "force-test --cv 2 --status unsteady --territory friendly --seed 7",
    ),
    arguments=_force_test_args,
)
def _force_test(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    status: Status = args.status
    # Without a request the force asks for its current order; a reacting force has none and
    # asks for Probe, the most flexible order (§1.2) and the one D-01/D-25 request.
    requested: Status = args.requested or (status if status.is_order else Status.PROBE)
    res = checks.force_test(
        dice,
        purpose="calculator:force-test",
        cv=args.cv,
        status=status,
        requested=requested,
        features=args.terrain,
        territory=args.territory,
        snow=args.snow,
        mode="no_improvement" if args.no_improvement else "absolute",
    )
    return {
        "rule": "R5.2",
        "requested": requested.value,
        "natural": res.record.value,
        "cv": args.cv,
        "modifiers": modifier_dicts(res.record, skip="leader-cv"),
        "total": res.total,
        "outcome": res.outcome,
        "new_status": res.new_status.value if res.new_status else None,
        "will_to_fight_required": res.new_status is None,
    }


def _movement_args(p: argparse.ArgumentParser) -> None:
    add_status(p, "the force's status")
    add_terrain(p, "the starting square (bridge cancels river, pass cancels mountain)")
    add_territory(p, "the starting square")
    p.add_argument(
        "--weather",
        type=enum_choice(Weather, "weather"),
        default=Weather.FINE,
        metavar=choices_metavar(list(Weather)),
        help="Phase 0 weather: light-rain -1, heavy-rain -2, storm no movement",
    )
    add_snow(p, "-1 each: R4.3.1, §11.5")
    p.add_argument(
        "--heavy-ground",
        action="store_true",
        help="[NARAN] soaked ground counts as one more snow level (R4.3.3)",
    )


@command(
    "movement",
    summary="Phase 2 movement roll and allowance (R6.2, R6.4)",
    description=(
        "Movement roll (R6.2): 1D6 + modifiers of the starting square and the force. Result "
        "(allowance): 2 or less 0 squares, 3-5 one, 6-8 two, 9+ three. Full Speed must "
        "move at least one square when it can (R6.4.5); Probe and reacting forces move 0 "
        "to the allowance (R6.4.3, R6.4.6). Defend never moves and a storm holds every "
        "force still: no roll is made and `total` is null (R6.4.4, R4.2)."
    ),
    examples=(
        "movement --status full-speed --terrain river,swamp --territory enemy --dice 4",
        "movement --status unsteady --terrain forest --territory friendly "
        "--weather light-rain --snow 1 --seed 3",
    ),
    arguments=_movement_args,
)
def _movement(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    status: Status = args.status
    res = checks.movement_roll(
        dice,
        purpose="calculator:movement",
        status=status,
        features=args.terrain,
        territory=args.territory,
        weather=args.weather,
        snow=args.snow,
        heavy_ground=args.heavy_ground,
    )
    storm = args.weather is Weather.STORM
    allowed, _ = checks.countermarch(status)
    out: dict[str, Any] = {
        "rule": "R6.2",
        "natural": res.record.value if res.record else None,
        "modifiers": modifier_dicts(res.record),
        "total": res.total,
        "allowance": res.allowance,
        "must_move": res.must_move,
        "may_countermarch": allowed and not storm,
    }
    if res.record is None:
        out["note"] = (
            "a storm holds every force not in combat still (R4.2)"
            if storm
            else "a force on Defend never moves (R6.4.4)"
        )
    return out


def _weather_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--season",
        required=True,
        type=enum_choice(Season, "season"),
        metavar=choices_metavar(list(Season)),
        help="the campaign season (cold zones: winter; deserts: dry; R4.1.2-3)",
    )


@command(
    "weather",
    summary="[NARAN] Phase 0 weather test (R4.2)",
    description=(
        "Weather test (R4.2): 1D6 + season modifier (spring +1, summer 0, autumn +1 (A-14b), "
        "winter +2, great rains +2, dry 0), counted as 1..6 (R4.2.3). 1-3 fine, 4 light "
        "rain (-1 movement), 5 heavy rain / light snow / desert wind (-2), 6 storm: forces "
        "not in combat stay still."
    ),
    examples=("weather --season autumn --dice 3", "weather --season winter --seed 11"),
    arguments=_weather_args,
)
def _weather(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    res = checks.weather_test(dice, purpose="calculator:weather", season=args.season)
    return {
        "rule": "R4.2",
        "natural": res.record.value,
        "season_modifier": T.SEASON_MOD[args.season],
        "raw_total": res.record.total,
        "total": res.total,
        "weather": res.weather.value,
        "movement_modifier": T.MOVE_WEATHER[res.weather],
        "may_move": res.weather is not Weather.STORM,
        "battle_effects": T.WEATHER_BATTLE_EFFECTS[res.weather],
    }


def _wounded_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--killed",
        required=True,
        type=whole_number,
        metavar="N",
        help="figures killed (one die each; also each individual, general, leader)",
    )
    add_result(p, "the checking side (a side that lost checks nothing: R8.1.1)")
    add_territory(p, "the battle square for the checking side")
    add_ambush(p)


@command(
    "wounded",
    summary="Phase 4 wounded check for killed figures (R8.1)",
    description=(
        "Wounded check (R8.1): only a side that won or stalemated checks; a side that lost "
        "gets none and all its killed are dead (R8.1.1, no dice). One 1D6 per killed figure: "
        "natural 1 dead, natural 6 recovered; otherwise +1 in friendly / -1 in enemy "
        "territory (ambush +1/-1), 4+ recovered, 1-3 dead."
    ),
    examples=(
        "wounded --killed 6 --result won --territory enemy --dice 6,6,5,5,4,2",
        "wounded --killed 5 --result lost",
    ),
    arguments=_wounded_args,
)
def _wounded(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    if args.result is Outcome.LOST:
        return {"rule": "R8.1.1", "checked": 0, "recovered": 0, "dead": args.killed, "details": []}
    res = checks.wounded_check(
        dice,
        purpose="calculator:wounded",
        killed=args.killed,
        territory=args.territory,
        ambush=args.ambush,
    )
    return _figure_check_output(res, rule="R8.1", kept="recovered", lost="dead")


def _figure_check_output(
    res: checks.FigureCheck, *, rule: str, kept: str, lost: str
) -> dict[str, Any]:
    """The JSON of a per-figure check (wounded, deserters), under the command's own words."""
    return {
        "rule": rule,
        "checked": res.checked,
        kept: res.kept,
        lost: res.lost,
        "modifiers": modifier_dicts(res.record),
        "details": [detail_words(d) for d in res.record.details] if res.record else [],
    }


def _deserters_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--figures",
        required=True,
        type=whole_number,
        metavar="N",
        help="figures to check: routed ones, plus (lost battle) those that left "
        "under other orders but not General Retreat (R8.2.1-2a)",
    )
    p.add_argument(
        "--quality",
        required=True,
        type=enum_choice(Quality, "quality"),
        metavar=choices_metavar(list(Quality)),
        help="unit quality: levy +0, average +1, veteran +2, elite +3",
    )
    add_result(p, "the unit's side")
    p.add_argument(
        "--shattered",
        action="store_true",
        help='the force is Shattered now ("in rotta"), including a Shattered '
        "reaction from this battle: -1 (R8.2.6, A-09)",
    )
    p.add_argument(
        "--mercenary",
        action="store_true",
        help="a mercenary unit: after a lost battle all its figures desert (R8.2.3)",
    )
    add_ambush(p)


@command(
    "deserters",
    summary="Phase 4 deserter check for figures that left the table (R8.2)",
    description=(
        "Deserter check (R8.2): one 1D6 per figure: natural 1 deserts, natural 6 returns; "
        "otherwise add the quality modifier, -1 when the force is Shattered (A-09) and the "
        "ambush modifier; 4+ returns, 1-3 deserts. A mercenary unit of a side that lost "
        "deserts entirely, with no dice (R8.2.3)."
    ),
    examples=(
        "deserters --figures 9 --quality average --result lost --dice 6,4,4,3,3,1,1,1,1",
        "deserters --figures 7 --quality veteran --result lost --mercenary",
    ),
    arguments=_deserters_args,
)
def _deserters(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    if args.mercenary and args.result is Outcome.LOST:
        return {
            "rule": "R8.2.3",
            "checked": 0,
            "returned": 0,
            "deserted": args.figures,
            "details": [],
        }
    res = checks.deserter_check(
        dice,
        purpose="calculator:deserters",
        figures=args.figures,
        quality=args.quality,
        shattered=args.shattered,
        ambush=args.ambush,
    )
    return _figure_check_output(res, rule="R8.2", kept="returned", lost="deserted")


def _will_to_fight_args(p: argparse.ArgumentParser) -> None:
    counts = (
        ("--won", "battles won in the whole campaign (+1 each)"),
        ("--lost", "battles lost in the whole campaign (-1 each)"),
        (
            "--held",
            "enemy holdings you took and still hold, other than the enemy capital (+1 each)",
        ),
        (
            "--holdings-lost",
            "your holdings the enemy took and still holds, other than your capital (-1 each)",
        ),
    )
    for flag, text in counts:
        p.add_argument(flag, type=whole_number, default=0, metavar="N", help=text)
    p.add_argument(
        "--enemy-capital", action="store_true", help="you took and hold the enemy capital (+3)"
    )
    p.add_argument(
        "--capital-lost", action="store_true", help="the enemy took and holds your capital (-3)"
    )
    add_snow(p, "Incursion only, -1 each: §11.5")
    p.add_argument(
        "--as-printed",
        action="store_true",
        help="use the p. 38 example's +3 per battle won instead of the table's +1 (A-03)",
    )


@command(
    "will-to-fight",
    summary="Phase 5 Will-to-Fight test (R9.1)",
    description=(
        "Will to Fight (R9.1): 1D6 + campaign-long counts: +1 per battle won, -1 per battle "
        "lost, +1 per enemy holding held, -1 per own holding lost, +3 holding the enemy "
        "capital, -3 own capital lost (a capital counts only for the 3, A-39), -1 per snow "
        "level in the Incursion. 0 or more passes; less than 0 is complete disaster (A-04)."
    ),
    examples=(
        "will-to-fight --won 3 --lost 1 --holdings-lost 1 --dice 3",
        "will-to-fight --lost 3 --holdings-lost 1 --capital-lost --seed 5",
    ),
    arguments=_will_to_fight_args,
)
def _will_to_fight(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    inputs = checks.WillToFightInputs(
        won=args.won,
        lost=args.lost,
        held=args.held,
        holdings_lost=args.holdings_lost,
        enemy_capital=args.enemy_capital,
        capital_lost=args.capital_lost,
        snow=args.snow,
    )
    rec, passed = checks.will_to_fight(
        dice, purpose="calculator:will-to-fight", inputs=inputs, as_printed=args.as_printed
    )
    return {
        "rule": "R9.1",
        "natural": rec.value,
        "modifiers": modifier_dicts(rec),
        "total": rec.total,
        "passed": passed,
    }


def _reinforcements_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--initial-points",
        required=True,
        type=whole_number,
        metavar="P",
        help="the army's initial points",
    )
    p.add_argument(
        "--holdings",
        required=True,
        type=whole_number,
        metavar="N",
        help="holdings you control other than your own capital, captured ones "
        "(even an enemy capital) included: 2%% each",
    )
    p.add_argument("--capital", action="store_true", help="you hold your own capital: 10%%")
    p.add_argument(
        "--capital-also-2pct",
        action="store_true",
        help="alternative reading: the capital yields 10%% + 2%% (A-40, D-16)",
    )


@command(
    "reinforcements",
    summary="Phase 7 reinforcement points (R9.3.10-11)",
    description=(
        "Reinforcement points (R9.3.10-11, A-40): 2% of the initial army points for each "
        "holding you control other than your own capital, and 10% for your own capital. "
        "Reinforcements are sent only from the capital: without it none arrive (R9.3.1). "
        "No dice."
    ),
    examples=(
        "reinforcements --initial-points 2000 --holdings 3 --capital",
        "reinforcements --initial-points 2000 --holdings 3 --capital --capital-also-2pct",
    ),
    arguments=_reinforcements_args,
)
def _reinforcements(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    points = checks.reinforcement_points(
        initial_points=args.initial_points,
        holdings=args.holdings,
        capital=args.capital,
        capital_also_two_percent=args.capital_also_2pct,
    )
    out: dict[str, Any] = {"rule": "R9.3.10-11", "points": points}
    if not args.capital:
        out["note"] = "without its capital a player receives no reinforcements (R9.3.1)"
    return out


@command(
    "event",
    summary="[NARAN] Phase 8 general random event, 3D6 (§9.4.1)",
    description=(
        "General random event (§9.4.1, alignment reconstructed, A-05): roll 3D6. 3-4 none; "
        "5/6/7 +50/+100/+150 reinforcement points; 8 +100 and roll again (apply both); 9 a "
        "Hero arrives; 10 a hero rouses the people (+100); 11 a leader under stress (CV "
        "min(CV, 2)); 12 scouts; 13 a leader emerges (+1 CV, max 6); 14 an individual "
        "emerges; 15 magic item; 16 200 Ars Arcana points; 17 25 magic points; 18 a Wizard "
        "joins."
    ),
    examples=("event --dice 2,3,3", "event --seed 42"),
    arguments=lambda p: None,
)
def _event(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    rec, event = checks.event_roll(dice, purpose="calculator:event")
    return {
        "rule": "§9.4.1",
        "total": rec.total,
        "event": event,
        "reinforcement_points": T.EVENT_POINTS.get(event, 0),
        "roll_again": event == "reinforcements-100-reroll",
    }


@command(
    "countermarch",
    summary="Phase 2 countermarch: allowed? and the reaction it costs (R6.5)",
    description=(
        "Countermarch (R6.5): one square in any direction ignoring terrain, after moving or "
        "not. Not allowed on Defend or Shattered (R6.5.2). Full Speed/Probe become Confused, "
        "Confused becomes Unsteady, Unsteady becomes Shattered (R6.5.4). No dice."
    ),
    examples=("countermarch --status probe",),
    arguments=lambda p: add_status(p, "the force's status before countermarching"),
)
def _countermarch(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    allowed, new = checks.countermarch(args.status)
    return {"rule": "R6.5", "allowed": allowed, "new_status": new.value if new else None}


@command(
    "post-battle-reaction",
    summary="Phase 4 reaction of a force that lost a battle (R8.5)",
    description=(
        "Loser's reaction (R8.5): any order becomes Confused, Confused becomes Unsteady, "
        "Unsteady becomes Shattered (third row inferred, A-08). Winners and stalemated "
        "forces keep their status. No dice."
    ),
    examples=("post-battle-reaction --status defend",),
    arguments=lambda p: add_status(p, "the force's status at the start of the battle"),
)
def _post_battle_reaction(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    return {"rule": "R8.5", "new_status": checks.post_battle_reaction(args.status).value}


@command(
    "ammo",
    summary="Phase 3 missile ammunition tokens per missile unit (R7.8.3)",
    description=(
        "Ammunition tokens per missile unit (R7.8.3): 6 under any order (no dice); Confused "
        "1D6; Unsteady half a 1D6 rounded up. Roll once per missile unit. A Shattered force "
        "never fights: engaged, it collapses (§1.3, R6.7.8)."
    ),
    examples=("ammo --status unsteady --dice 5", "ammo --status probe"),
    arguments=lambda p: add_status(p, "the force's status at the start of the battle"),
)
def _ammo(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    if args.status is Status.SHATTERED:
        raise CalculatorError(
            "a Shattered force fights no battle: engaged, it collapses and is removed "
            "(§1.3, R6.7.8)"
        )
    tokens, _ = checks.ammo_tokens(dice, purpose="calculator:ammo", status=args.status)
    return {"rule": "R7.8.3", "tokens": tokens}


def _battle_result_args(p: argparse.ArgumentParser) -> None:
    for flag, text in (
        ("--points-a", "army points of side a, Ars Arcana excluded"),
        ("--points-b", "army points of side b, Ars Arcana excluded"),
        ("--lost-a", "points side a lost in the battle"),
        ("--lost-b", "points side b lost in the battle"),
    ):
        p.add_argument(flag, required=True, type=whole_number, metavar="P", help=text)
    p.add_argument(
        "--method",
        required=True,
        choices=["core", "italian"],
        help="core (R7.3.1-4) or [NARAN] italian (R7.3.6); the English method "
        "needs the FW victory score (A-27)",
    )
    p.add_argument(
        "--wiped",
        choices=["a", "b", "both"],
        help="the side(s) left with no figures on the field before the end (R7.3.1)",
    )


@command(
    "battle-result",
    summary="Phase 3 battle outcome: win or stalemate (R7.3)",
    description=(
        "Battle result (R7.3). Core: a side with no figures left on the field loses, both "
        "wiped out together is a stalemate (R7.3.4), otherwise stalemate. Italian (R7.3.6, "
        "A-26): a side wiped out still loses; otherwise a stalemate when the points lost "
        "differ by at most 20% of the smaller army, else the side that lost fewer points "
        "wins. No dice."
    ),
    examples=(
        "battle-result --points-a 2000 --points-b 2000 --lost-a 900 --lost-b 600 --method italian",
        "battle-result --points-a 1500 --points-b 1800 --lost-a 0 --lost-b 0 --method core "
        "--wiped b",
    ),
    arguments=_battle_result_args,
)
def _battle_result(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    for side in ("a", "b"):
        lost, points = getattr(args, f"lost_{side}"), getattr(args, f"points_{side}")
        if lost > points:
            raise CalculatorError(f"side {side} cannot lose {lost} points of an army of {points}")
    result = checks.battle_result(
        method=args.method,
        points_a=args.points_a,
        points_b=args.points_b,
        lost_a=args.lost_a,
        lost_b=args.lost_b,
        wiped=args.wiped,
    )
    out: dict[str, Any] = {"rule": "R7.3", "result": result}
    if args.method == "italian":
        threshold = italian_draw_threshold(args.points_a, args.points_b)
        out["threshold"] = int(threshold) if threshold.denominator == 1 else float(threshold)
        out["difference"] = abs(args.lost_a - args.lost_b)
    return out
