"""The command line's English for turn events: one line per event (`Event.to_dict()` form),
from its codes and parameters. Ids stay ids here: the calculator's reader has the state's
JSON beside it. The web app words events itself, in the reader's language."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

E = Mapping[str, Any]

FORCE_DESTROYED = {
    "no-units-left": "no units left",
    "no-retreat-square": "no legal square to retreat to",
    "force-test-disaster": "force-test disaster",
    "player-surrendered": "player surrendered",
    "terrain-attrition": "lost to terrain attrition",
    "shattered-force-engaged": "shattered force engaged",
    "annihilated": "annihilated (all forces Shattered)",
    "epidemic": "epidemic",
    "catastrophe": "catastrophe",
}
FORCE_MOVED = {
    "movement": "movement",
    "post-battle-retreat": "post-battle retreat",
    "post-battle-stalemate": "post-battle stalemate",
    "ambush": "ambush",
    "flank-attack": "flank attack",
}
ORDER_REFUSED = {
    "sack-outside-incursion": "sacking exists only in the Incursion scenario",
    "sack-not-raiders": "only the Raiders carry off loot",
    "sack-no-captured-holding": "the force does not stand on an enemy holding it captured (L-a)",
    "sack-under-full-speed": "a force under Full Speed may not declare a sack (rule 3)",
    "loot-full-speed": "a force carrying loot may not receive Full Speed",
    "probe-composition": "only cavalry, chariots and flyers may receive Probe",
}
REINFORCEMENTS_REFUSED = {
    "empty": "the request buys nothing",
    "elite": "{units}: Elite troops cannot be sent as reinforcements, only Levy, Average or "
    "Veteran",
    "no-figures": "every unit needs at least one figure",
    "general-alone": "a general comes with at least one unit",
    "cv-out-of-range": "a general's CV is out of range",
    "negative-points": "points cannot be negative",
    "status": "a new force starts under an order, not {status}",
    "capital-lost": "your capital is not in your hands: no reinforcements can be sent",
    "bank-short": "costs {cost} points, the bank holds {bank}: kept for a later occasion",
    "too-many-individuals": "force {force_id} would have more individual characters than units",
    "new-force-needs-general": "no force of your side is in the capital, and a new force "
    "needs a general; the points stay banked",
    "new-force-needs-unit": "a new force needs at least one unit; the points stay banked",
    "new-force-too-many-individuals": "more individual characters than units; the points stay "
    "banked",
    "new-force-mercenaries": "mercenaries cannot form a force on their own; the points stay banked",
    "new-force-status": "a new force starts under an order, not {status}; the points stay banked",
}
BANK_CHANGED = {
    "event-points": "extra reinforcement points",
    "hero-rouses-people": "a hero rouses the people",
    "epidemic-capital": "epidemic in the capital",
    "epidemic": "epidemic",
    "catastrophe": "catastrophe",
}
FORCE_POINTS_LOST = {"epidemic": "epidemic", "catastrophe": "catastrophe"}
CAPTURE_BLOCKED = {"capital-needs-siege": "a capital falls only to a siege"}
EVENT_OUTCOMES = {
    "done": "",
    "none": "no particular event",
    "no-room": "{kind} × {count}: no force had room for another character (R2.5.5): lost",
    "no-leader": "no leader it can apply to",
    "nobody": "{kind} × {count}: nobody to receive them: lost",
    "no-wizard": "no wizard to receive the magic points",
    "no-force": "no force to strike",
    "no-holding": "no holding",
    "no-one-struck": "no one struck",
}
FORCE_STOPPED = {
    "enemy-zoc": "it entered an enemy zone of control",
    "illegal-step": "the next step of its path was not allowed",
    "two-hostile-sides": "forces of two hostile sides held the next square",
    "no-countermarch-square": "there was no square to countermarch to",
}
INDIVIDUAL_FATE = {"killed": "killed", "deserted": "deserted"}
CAMPAIGN_ENDED = {
    "will-to-fight": "every other side failed its will to fight",
    "all-surrendered": "every side surrendered",
    "loot-brought-home": "the Raiders brought their loot home",
    "honourable-withdrawal": "honourable withdrawal",
}
TOKEN_KINDS = {
    "spirit": "spirit tokens",
    "poisoned-arrows": "poisoned-arrows tokens",
    "magic-item": "magic items",
    "ars-arcana-points": "Ars Arcana points",
}

# the word tables of every coded field (rules.event_codes.CODED_FIELDS), for the tests
WORDS: dict[tuple[str, str], Mapping[str, str]] = {
    ("ForceDestroyed", "reason"): FORCE_DESTROYED,
    ("ForceMoved", "reason"): FORCE_MOVED,
    ("OrderRefused", "reason"): ORDER_REFUSED,
    ("ReinforcementsRefused", "reason"): REINFORCEMENTS_REFUSED,
    ("BankChanged", "reason"): BANK_CHANGED,
    ("ForcePointsLost", "reason"): FORCE_POINTS_LOST,
    ("CaptureBlocked", "reason"): CAPTURE_BLOCKED,
    ("RandomEvent", "outcome"): EVENT_OUTCOMES,
    ("SupplyConvoy", "outcome"): EVENT_OUTCOMES,
    ("ForceStopped", "reason"): FORCE_STOPPED,
    ("IndividualLost", "fate"): INDIVIDUAL_FATE,
    ("CampaignEnded", "reason"): CAMPAIGN_ENDED,
    ("TokensGained", "kind"): TOKEN_KINDS,
}


def _word(e: E, field: str) -> str:
    table = WORDS[(str(e["type"]), field)]
    code = e.get(field)
    text = table[str(code)]  # a code without words is a bug: KeyError
    params = {k: ", ".join(map(str, v)) if isinstance(v, list | tuple) else v for k, v in e.items()}
    return text.format(**params)


def _outcome(e: E) -> str:
    text = _word(e, "outcome")
    if e.get("kept"):
        text = "; ".join(t for t in (text, "he keeps this result (his choice)") if t)
    return text


def _pl(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _sq(v: Any) -> str:
    return f"({v[0]}, {v[1]})" if isinstance(v, list | tuple) and len(v) == 2 else "?"


_LINES: dict[str, Callable[[E], str]] = {
    "WeatherRolled": lambda e: (
        f"weather {e['weather']} (total {e['total']})"
        + (f" for force {e['force_id']}" if e.get("force_id") else "")
    ),
    "WeatherShifted": lambda e: (
        f"the Wizard of force {e['force_id']} turns its weather from {e['weather_from']} to "
        f"{e['weather_to']}"
    ),
    "SnowFell": lambda e: f"new snow levels: {e['levels']}, {e['total_levels']} in all",
    "ForceTested": lambda e: (
        f"force {e['force_id']} tested for {e['requested']}: total {e['total']}, "
        f"{e['outcome']} ({e['old_status']} → {e['new_status'] or 'destroyed'})"
    ),
    "ForceDestroyed": lambda e: (
        f"force {e['force_id']} of {e['owner']} removed from play ({_word(e, 'reason')})"
    ),
    "InitiativeDetermined": lambda e: (
        f"initiative {e['method'].replace('-', ' ')}: {', '.join(e['order'])}"
    ),
    "ArmyInitiativeChosen": lambda e: f"{e['player_id']} moves his forces {e['choice']}",
    "MovementRolled": lambda e: (
        f"force {e['force_id']} may move {_pl(e['allowance'], 'square')}"
        + (f" (total {e['total']})" if e.get("total") is not None else "")
    ),
    "ForceMoved": lambda e: (
        f"force {e['force_id']} moved to "
        f"{' '.join(_sq(s) for s in e['path']) or 'nowhere'} ({_word(e, 'reason')})"
    ),
    "ForceStopped": lambda e: (
        f"force {e['force_id']} stopped at {_sq(e['square'])}: {_word(e, 'reason')}"
    ),
    "ForceHeldByStorm": lambda e: f"force {e['force_id']} held by the storm",
    "ForceCountermarched": lambda e: (
        f"force {e['force_id']} countermarched from "
        f"{_sq(e['frm'])} to {_sq(e['to'])} ({e['old_status']} → {e['new_status']})"
    ),
    "ContactMade": lambda e: (
        f"force {e['force_id']} made contact with "
        f"{', '.join(e['enemy_ids'])} at {_sq(e['square'])}: battle {e['battle_id']}"
    ),
    "ShatteredForceCollapsed": lambda e: (
        f"shattered force {e['force_id']} collapsed when "
        f"{e['by_force_id']} reached {_sq(e['square'])}"
    ),
    "HoldingCaptured": lambda e: (
        f"{e['by_player']} captured holding {e['holding_id']} from "
        f"{e['from_player']}" + (" (the capital)" if e.get("capital") else "")
    ),
    "HoldingSacked": lambda e: f"force {e['force_id']} sacked holding {e['holding_id']}",
    "OrdersMissing": lambda e: f"force {e['force_id']} had no orders",
    "BattleResolved": lambda e: (
        f"battle {e['battle_id']} at {_sq(e['square'])}: "
        + ", ".join(f"side {k} {v}" for k, v in sorted(e["outcomes"].items()))
    ),
    "WoundedChecked": lambda e: (
        f"unit {e['unit_id']} of force {e['force_id']}: "
        f"{e['checked']} wounded, {e['recovered']} recovered, {e['dead']} dead"
    ),
    "DesertersChecked": lambda e: (
        f"unit {e['unit_id']} of force {e['force_id']}: "
        f"{e['checked']} checked, {e['returned']} returned, {e['deserted']} deserted"
    ),
    "IndividualLost": lambda e: f"{e['individual_id']} of force {e['force_id']} {_word(e, 'fate')}",
    "ReactionSuffered": lambda e: f"force {e['force_id']}: {e['old_status']} → {e['new_status']}",
    "LootLost": lambda e: f"force {e['force_id']} lost the loot of {e['holding_id']}",
    "LeaderPromoted": lambda e: (
        f"{e['general_id']} now leads force {e['force_id']} ({e['source']})"
    ),
    "WorksLost": lambda e: f"force {e['force_id']} lost its field works",
    "WillToFightTested": lambda e: (
        f"{e['player_id']} will to fight: total {e['total']}, "
        f"{'passed' if e['passed'] else 'failed'} ({', '.join(e['triggers'])})"
    ),
    "PlayerSurrendered": lambda e: f"{e['player_id']} surrendered",
    "DayAdvanced": lambda e: f"day {e['day']}",
    "ReinforcementsAvailable": lambda e: (
        f"{e['player_id']} receives {e['points']} reinforcement points ({e['bank']} in the bank)"
    ),
    "ReinforcementsArrived": lambda e: (
        f"reinforcements of {e['player_id']} "
        f"({e['points']} points) {'joined' if e['joined'] else 'formed'} force {e['force_id']}"
    ),
    "RandomEvent": lambda e: (
        f"{e['player_id']}: {e['table']} table, roll {e['total']}: "
        f"{e['event']}" + (f" — {_outcome(e)}" if _outcome(e) else "")
    ),
    "ShipsReceived": lambda e: (
        f"force {e['force_id']} received {e['ships']} ships ({e['total']} in all)"
    ),
    "CraftReceived": lambda e: (
        f"force {e['force_id']} built {e['boats']} boats and {e['rafts']} rafts"
    ),
    "SupplyConvoy": lambda e: (
        f"day {e['day']}: a supply convoy reaches {e['player_id']}: "
        f"{e['event']}" + (f" — {_outcome(e)}" if _outcome(e) else "")
    ),
    "CampaignEnded": lambda e: (
        f"the campaign ended: {_word(e, 'reason')}"
        + (f", {e['winner']} won" if e.get("winner") else "")
    ),
    "OrderRefused": lambda e: (
        f"an order of force {e['force_id']} was refused: {_word(e, 'reason')}"
    ),
    "RegroupSpent": lambda e: (
        f"force {e['force_id']} spent {e['points']} {e['speciality']} "
        f"points: {_pl(e['figures'], 'figure')} for {e['new_unit_id'] or e['unit_id']}"
    ),
    "RegroupPooled": lambda e: (
        f"force {e['force_id']} pooled {e['points']} "
        f"{e['speciality']} points ({e['pool']} in the pool)"
    ),
    "ArtefactsCaptured": lambda e: (
        f"{e['by_player']} captured the artefacts ({e['feature']}) of {e['holding_id']}"
    ),
    "ReinforcementsRefused": lambda e: (
        f"reinforcements of {e['player_id']} refused: {_word(e, 'reason')}"
    ),
    "BankChanged": lambda e: (
        f"bank of {e['player_id']} {e['change']:+d} → {e['bank']} ({_word(e, 'reason')})"
    ),
    "IndividualJoined": lambda e: f"{e['kind']} {e['individual_id']} joins force {e['force_id']}",
    "LeaderCvChanged": lambda e: (
        f"leader {e['general_id']} of force {e['force_id']}: "
        + (
            f"CV {e['old_cv']} → {e['new_cv']}"
            if e["old_cv"] != e["new_cv"]
            else f"CV stays {e['new_cv']}"
        )
    ),
    "TokensGained": lambda e: f"force {e['force_id']} gains {e['count']} {_word(e, 'kind')}",
    "ForcePointsLost": lambda e: (
        f"force {e['force_id']} lost {e['points']} points "
        f"({e['figures']} figures): {_word(e, 'reason')}"
    ),
    "CaptureBlocked": lambda e: (
        f"force {e['force_id']} cannot capture {e['holding_id']}: {_word(e, 'reason')}"
    ),
    "AttritionSuffered": lambda e: (
        f"unit {e['unit_id']} of force {e['force_id']}: "
        f"{e['lost']} lost, {e['recovered']} recovered, {e['deserted']} deserted to attrition"
    ),
    "MagicPointsGained": lambda e: (
        f"wizard {e['individual_id']} of force {e['force_id']}: +{e['points']} magic points"
    ),
    "EpidemicStruck": lambda e: f"epidemic in holding {e['holding_id']} of {e['player_id']}",
    "CatastropheStruck": lambda e: f"catastrophe on square {_sq(e['square'])} of {e['player_id']}",
}


def event_line(e: E) -> str:
    """One English line for an event, with its rule."""
    return f"{_LINES[str(e['type'])](e)} [{e.get('rule', '')}]"


def event_lines(events: list[dict[str, Any]]) -> list[str]:
    return [event_line(e) for e in events]
