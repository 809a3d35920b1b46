"""A whole campaign as one JSON document: the full export, and the view of it a player or an
observer may download.

`campaign_export` writes everything the campaign holds, to rebuild it elsewhere
(`campaign.exchange.importing`): the rules state, the turns with their orders, seeds and
stored resolutions, the battles with their result entries, photos (by checksum; the files
travel in the archive, `campaign.exchange.archive`) and audit logs, the memberships, the
sightings, the invitations and the notification log (`campaign.exchange.parts`). Users are
named by username. It holds no database ids and every list is sorted, so two databases that
hold the same campaign export the same bytes (`export_json`); the moments rows were made
(created, sent, read …) are part of it, and `times=False` leaves them out, so that two runs
of a campaign from the same seeds export the same bytes too.

Not exported, as not the campaign's: the users' accounts beyond their names (passwords,
e-mail addresses, language, notification preferences), caches the engine recomputes from
the rest (a battle's odds, the what-if odds), the invitations' tokens (see
`campaign.exchange.records`) and `Campaign.updated_at` (the row's last save).

`campaign_export_for_viewer` is that export for the GM, and for anyone else the rules state,
turns and battles through the fog-of-war lens (`campaign.fog`), as the turn report shows
them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, cast

from django.contrib.auth import get_user_model

from battles.models import Battle
from campaign import adapters, stored_states
from campaign.access import Viewer
from campaign.exchange import records
from campaign.exchange.parts import PARTS, moments
from campaign.fog import (
    battle_sides_get,
    event_scrub,
    event_visible,
    ledger_for,
    lens_for,
    map_view_for,
)
from campaign.models import Campaign, Orders, Player, Turn, TurnResolution
from rules import CampaignState, to_data

FORMAT = "fwcampaign-export"
# 3: events and dice ledgers as codes and parameters; 2: everything the campaign holds, the
# events and ledgers in English prose; 1: the rules and the turns. 1 and 2 are still imported
# (their prose converted by campaign.exchange.upgrade)
VERSION = 3
VERSIONS_READ = (1, 2, 3)
PROSE_VERSIONS = (1, 2)

# Told where the writing of an export has got: a step's key and how far, in per cent (the
# export job's progress line, `campaign.exchange.jobs`). Writing nothing, it changes no byte.
Progress = Callable[[str, int], None]


def _quiet(step: str, percent: int) -> None:
    pass


def export_json(data: dict[str, Any]) -> str:
    """The one way an export is written, so that equal campaigns give equal bytes."""
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)


def plain(value: Any) -> Any:
    """JSON data as it reads back from any database (tuples as lists, enums as text)."""
    return json.loads(json.dumps(value))


# --- export ----------------------------------------------------------------------------------


def campaign_export(
    *, campaign: Campaign, times: bool = True, progress: Progress = _quiet
) -> dict[str, Any]:
    """Everything of a campaign, as deterministic JSON data (see `export_json`); with
    `times` False, without the moments its rows were made."""
    return _document(campaign, whole=True, times=times, progress=progress)


def line_export(*, campaign: Campaign) -> dict[str, Any]:
    """The campaign's line of play as the export writes it, without moments: the rules state,
    the turns (orders, seeds, stored resolutions) and the battles with their results. Two
    campaigns played from the same seeds, orders and results give the same bytes, however
    they got there (an amended campaign and one played again from scratch)."""
    data = _document(campaign, whole=False, times=False)
    return {k: data[k] for k in ("state", "turns", "battles")}


def _document(
    campaign: Campaign, *, whole: bool, times: bool, progress: Progress = _quiet
) -> dict[str, Any]:
    """The export; without `whole`, only the rules state, turns, battles and memberships
    (what the viewer's export is made from)."""
    progress("state", 2)
    players = list(campaign.players.select_related("side").order_by("position", "key"))
    turns = list(campaign.turns.order_by("number"))
    orders = list(
        Orders.objects.filter(turn__campaign=campaign)
        .select_related("turn", "player", "submitted_by")
        .order_by("turn__number", "player__key")
    )
    memberships = list(campaign.memberships.select_related("user", "player"))
    names = {m.user.get_username() for m in memberships}
    names |= {o.submitted_by.get_username() for o in orders if o.submitted_by}
    state = to_data(adapters.state_load(campaign=campaign))
    progress("turns", 10)
    turns_data = _turns(campaign, turns, orders, whole and times)
    progress("battles", 40 if whole else 30)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "slug": campaign.slug,
            "name": campaign.name,
            "description": campaign.description,
            "fog_of_war": campaign.fog_of_war,
            "auto_close": campaign.auto_close,
        },
        "sides": {s.key: s.name for s in campaign.sides.all()},
        "colours": {p.key: p.colour for p in players},
        "state": state,
        "memberships": [
            {
                "username": m.user.get_username(),
                "role": m.role,
                "player": m.player.key if m.player else None,
            }
            for m in sorted(memberships, key=lambda m: m.user.get_username())
        ],
        "turns": turns_data,
        "battles": _battles(campaign),
    }
    if whole:
        progress("records", 50)
        names |= _whole(campaign, data, players, times)
    data["users"] = _users(names)
    return cast(dict[str, Any], plain(data))  # `plain` keeps a dict a dict


def _whole(
    campaign: Campaign, data: dict[str, Any], players: list[Player], times: bool
) -> set[str]:
    """What the full export adds to the rules and the turns. Returns the usernames it
    names."""
    data["campaign"].update(
        {
            "setup_open": campaign.setup_open,
            "missing_orders_policy": campaign.missing_orders_policy,
            "seed_salt": campaign.seed_salt or campaign.slug,
            **moments(times, created_at=campaign.created_at),
        }
    )
    data["roster_ready"] = [p.key for p in players if p.roster_ready]
    names = records.battles_extend(campaign, data["battles"], times)
    data["sightings"] = records.sightings_write(campaign)
    data["invitations"], invited_by = records.invitations_write(campaign, times)
    names |= invited_by
    for part in PARTS.values():
        written = part.write(campaign, times)
        data[part.key] = written.rows
        names |= written.users
    return names


def _users(names: set[str]) -> list[dict[str, str]]:
    """The users named, with their display names (not their accounts: see above)."""
    User = get_user_model()
    found = User.objects.filter(**{f"{User.USERNAME_FIELD}__in": names})
    return sorted(
        (
            {
                "username": u.get_username(),
                "first_name": getattr(u, "first_name", ""),
                "last_name": getattr(u, "last_name", ""),
            }
            for u in found
        ),
        key=lambda u: u["username"],
    )


def _turns(
    campaign: Campaign, turns: list[Turn], orders: list[Orders], times: bool
) -> list[dict[str, Any]]:
    orders_by_turn: dict[int, dict[str, Any]] = {t.pk: {} for t in turns}
    for o in orders:
        orders_by_turn[o.turn_id][o.player.key] = {
            "status": o.status,
            "data": o.data,
            "submitted_by": o.submitted_by.get_username() if o.submitted_by else None,
            **moments(times, saved_at=o.saved_at, confirmed_at=o.confirmed_at),
        }
    resolutions_by_turn: dict[int, list[dict[str, Any]]] = {t.pk: [] for t in turns}
    rows = list(TurnResolution.objects.filter(turn__in=turns))
    befores = stored_states.states_data_of(rows)  # stored as deltas: exported whole
    for r in rows:
        resolutions_by_turn[r.turn_id].append(
            {
                "stage": r.stage,
                "seed": r.seed,
                "state_before": befores[r.pk],
                "inputs": r.inputs,
                "ledger": r.ledger,
                "events": r.events,
                **moments(times, created_at=r.created_at),
            }
        )
    order = TurnResolution.STAGE_ORDER
    return [
        {
            "number": t.number,
            "status": t.status,
            "deadline": _iso(t.deadline),
            "battles_deadline": _iso(t.battles_deadline),
            "timezone": t.timezone,
            "extensions": t.extensions,
            "paused": t.paused,
            "seed": t.seed,
            "seed_hash": t.seed_hash,
            "carry": clock_into_carry(t),
            "orders": orders_by_turn[t.pk],
            "resolutions": sorted(
                resolutions_by_turn[t.pk], key=lambda r: order.get(r["stage"], 9)
            ),
            **moments(
                times, opened_at=t.opened_at, closed_at=t.closed_at, resolved_at=t.resolved_at
            ),
        }
        for t in turns
    ]


def line_records(*, campaign: Campaign, from_turn: int) -> dict[str, Any]:
    """The campaign's turns from `from_turn` on and their battles, as the full export writes
    them (states whole, moments included), with the state the line left: what an amendment
    keeps of the line it replaces (`LineArchive`)."""
    turns = list(campaign.turns.filter(number__gte=from_turn).order_by("number"))
    orders = list(
        Orders.objects.filter(turn__in=turns)
        .select_related("turn", "player", "submitted_by")
        .order_by("turn__number", "player__key")
    )
    battles = [b for b in _battles(campaign) if b["turn"] >= from_turn]
    records.battles_extend(campaign, battles, True)
    return cast(
        dict[str, Any],
        plain(
            {
                "from_turn": from_turn,
                "state": to_data(adapters.state_load(campaign=campaign)),
                "turns": _turns(campaign, turns, orders, True),
                "battles": battles,
            }
        ),
    )


def _battles(campaign: Campaign) -> list[dict[str, Any]]:
    return [
        {
            "key": b.key,
            "turn": b.turn.number,
            "square": [b.x, b.y],
            "contact_order": b.contact_order,
            "pack": b.pack,
            "status": b.status,
            "resolver": b.resolver,
            "auto_at_deadline": b.auto_at_deadline,
            "result": b.result,
        }
        for b in Battle.objects.filter(campaign=campaign)
        .select_related("turn")
        .order_by("turn__number", "contact_order", "key")
    ]


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat() if moment else None


# The export keeps the moment a pause began where version 1 has always had it, in the turn's
# carry: `carry["clock"]["paused_at"]` (the database has a column for it, `Turn.paused_at`).


def clock_into_carry(turn: Turn) -> dict[str, Any]:
    carry = dict(turn.carry or {})
    if turn.paused_at is not None:
        carry["clock"] = {"paused_at": turn.paused_at.isoformat()}
    return carry


def clock_from_carry(
    carry: dict[str, Any], paused: bool, now: datetime
) -> tuple[dict[str, Any], datetime | None]:
    """An exported carry without its clock, and when the pause began (`now` for a paused
    turn that does not say)."""
    carry = dict(carry)
    moment = (carry.pop("clock", None) or {}).get("paused_at")
    if not paused:
        return carry, None
    return carry, datetime.fromisoformat(moment) if moment else now


# --- the export a viewer may download --------------------------------------------------------

VIEW_FORMAT = "fwcampaign-view"
HIDDEN_LOOT = "hidden"  # `carried_by` of a holding carried off by a force the side cannot see


def campaign_export_for_viewer(
    *, campaign: Campaign, viewer: Viewer, progress: Progress = _quiet
) -> dict[str, Any]:
    """The GM gets the whole export (`campaign_export`). Anyone else gets a
    view of it (format `fwcampaign-view`, not importable): the states with only the forces his
    side may see (and the ghosts of the others), his own orders only, the resolutions' ledger
    and events filtered as in the report, the battles his side fought, no carried turn data,
    and no seed of a turn that is not resolved."""
    if viewer.is_gm:
        return campaign_export(campaign=campaign, progress=progress)
    full = _document(campaign, whole=False, times=False, progress=progress)
    progress("fog", 40)
    side = viewer.side_key
    own_key = viewer.player.key if viewer.is_player and viewer.player is not None else None
    battle_sides = battle_sides_get(campaign=campaign)
    current = adapters.state_from_data(full["state"], "state")
    current_view = map_view_for(viewer=viewer, state=current)
    state = _state_filtered(
        current,
        seen={f.id for f in current_view.forces},
        side=side,
        own_key=own_key,
        battle_sides=battle_sides,
        everything=viewer.sees_everything,
    )
    turns = _turns_filtered(campaign, full["turns"], viewer, own_key, battle_sides, progress)
    seen_battles = (
        set(battle_sides)
        if viewer.sees_everything
        else {b for b, sides in battle_sides.items() if side is not None and side in sides}
    )
    seen_now = {f.id for f in current_view.forces}
    return {
        "format": VIEW_FORMAT,
        "version": full["version"],
        "viewer": {
            "role": viewer.role,
            "player": own_key,
            "side": side,
            "everything": viewer.sees_everything,
        },
        "campaign": full["campaign"],
        "sides": full["sides"],
        "colours": full["colours"],
        "state": to_data(state),
        "sighted": _sighted(current, seen_now, side, everything=viewer.sees_everything),
        "ghosts": [
            {
                "force_key": g.force_key,
                "square": list(g.square),
                "turn_number": g.turn_number,
                "status": g.status,
                "figures": g.figures,
            }
            for g in current_view.ghosts
        ],
        "turns": turns,
        "battles": [b for b in full["battles"] if b["key"] in seen_battles],
    }


def _turns_filtered(
    campaign: Campaign,
    turns: list[dict[str, Any]],
    viewer: Viewer,
    own_key: str | None,
    battle_sides: Mapping[str, Sequence[str]],
    progress: Progress,
) -> list[dict[str, Any]]:
    """The exported turns as the viewer may read them: his own orders only, the stored
    resolutions through his lens, no carried data, no seed before the turn is resolved."""
    views = {
        (v.resolution.turn.number, v.resolution.stage): v
        for v in adapters.stage_states_list(campaign=campaign)
    }
    out = []
    for done, t in enumerate(turns):
        progress("fog", 40 + 45 * done // len(turns))
        resolved = t["status"] == Turn.Status.RESOLVED
        resolutions = [
            _resolution_filtered(r, view, viewer, own_key, battle_sides, resolved)
            for r in t["resolutions"]
            if (view := views.get((t["number"], r["stage"]))) is not None
        ]
        out.append(
            {
                "number": t["number"],
                "status": t["status"],
                "deadline": t["deadline"],
                "timezone": t["timezone"],
                "extensions": t["extensions"],
                "paused": t["paused"],
                "seed": t["seed"] if resolved else None,
                "seed_hash": t["seed_hash"],
                "orders": {k: v for k, v in t["orders"].items() if k == own_key},
                "resolutions": resolutions,
            }
        )
    return out


def _state_filtered(
    state: CampaignState,
    *,
    seen: set[str],
    side: str | None,
    own_key: str | None,
    battle_sides: Mapping[str, Sequence[str]],
    everything: bool = False,
) -> CampaignState:
    """A state holding only what the side may know: its own side's forces (the enemy forces
    it sees are listed apart, by `_sighted`, as the map shows them: no roster), its own
    players' bank, orders (of `own_key` only) and Will-to-Fight triggers, its battles, the
    features of its own holdings (R2.4: the owner's benefit; holdings themselves are public,
    R2.3.1, R6.8.1)."""
    own_players = {p.id for p in state.players if side is not None and p.side == side}
    kept = {f.id for f in state.forces if f.id in seen and (everything or f.owner in own_players)}
    return replace(
        state,
        forces=tuple(f for f in state.forces if f.id in kept),
        holdings=tuple(
            replace(
                h,
                carried_by=(
                    h.carried_by if h.carried_by is None or h.carried_by in seen else HIDDEN_LOOT
                ),
                feature=h.feature if everything or h.owner in own_players else None,
            )
            for h in state.holdings
        ),
        force_weather={k: v for k, v in state.force_weather.items() if k in seen},
        bank={k: v for k, v in state.bank.items() if k in own_players},
        orders={k: v for k, v in state.orders.items() if k == own_key},
        pending_battles=tuple(
            b
            for b in state.pending_battles
            if everything or (side is not None and side in battle_sides.get(b.battle_id, ()))
        ),
        moves={k: v for k, v in state.moves.items() if k in seen},
        wtf_triggers={k: v for k, v in state.wtf_triggers.items() if k in own_players},
    )


def _sighted(
    state: CampaignState, seen: set[str], side: str | None, *, everything: bool
) -> list[dict[str, Any]]:
    """The enemy forces the side sees, as its map shows them: name, owner, square, status and
    figures, never their roster (generals, CV, units, characters)."""
    if everything:
        return []
    return [
        {
            "id": f.id,
            "name": f.name,
            "owner": f.owner,
            "square": list(f.square),
            "status": f.status.value,
            "figures": f.figures,
        }
        for f in state.forces
        if f.id in seen and state.side_of(f.owner) != side
    ]


def _resolution_filtered(
    r: Mapping[str, Any],
    view: adapters.StageStates,
    viewer: Viewer,
    own_key: str | None,
    battle_sides: Mapping[str, Sequence[str]],
    resolved: bool,
) -> dict[str, Any]:
    resolution = view.resolution
    states = (view.before, view.after)
    lens = lens_for(viewer=viewer, states=states, battle_sides=battle_sides, events=r["events"])
    # the state a stage started from shows what the side saw at that moment, not later
    at_start = lens_for(
        viewer=viewer,
        states=(view.before,),
        battle_sides=battle_sides,
        events=(),
    )
    before = _state_filtered(
        view.before,
        seen=set(at_start.seen_forces),
        side=viewer.side_key,
        own_key=own_key,
        battle_sides=battle_sides,
        everything=lens.everything,
    )
    if resolution.stage == TurnResolution.Stage.TURN:
        inputs = {k: v for k, v in r["inputs"].items() if k == own_key}
    else:
        inputs = {k: v for k, v in r["inputs"].items() if k in lens.seen_battles or lens.everything}
    return {
        "stage": r["stage"],
        "seed": r["seed"] if resolved else None,
        "state_before": to_data(before),
        "sighted_before": _sighted(
            view.before, set(at_start.seen_forces), viewer.side_key, everything=lens.everything
        ),
        "inputs": inputs,
        "ledger": [
            {k: v for k, v in x.items() if k != "stored_seq"} for x in ledger_for(lens, r["ledger"])
        ],
        "events": [event_scrub(lens, e) for e in r["events"] if event_visible(lens, e)],
    }
