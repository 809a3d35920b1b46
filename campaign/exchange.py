"""Campaign exchange: a whole campaign as one JSON document, and turn replay.

`campaign_export` writes everything needed to rebuild a campaign elsewhere: the rules state,
the turns with their orders, seeds and stored resolutions, the battles and the memberships.
It holds no database ids and no timestamps, and every list is sorted, so two databases that
hold the same campaign export the same bytes (`export_json`). `campaign_import` rebuilds it.

`turn_replay` re-runs the stored resolutions of a turn from their `state_before`, inputs and
seed and compares the ledger and the events, entry by entry, with what was stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.utils import timezone

from battles.models import Battle
from campaign import adapters
from campaign.models import Campaign, Membership, Orders, Side, Turn, TurnResolution
from campaign.services import SCRIPTED_DICE, ServiceError, seed_hash
from rules.battle import BattleResult
from rules.codec import FormatError, from_data, to_data
from rules.dice import Dice, ScriptedDice, SeededDice, derive_seed
from rules.errors import RulesError
from rules.orders import PlayerOrders
from rules.turn import resolve_after_battles, resolve_turn
from rules.types import CampaignState

FORMAT = "fwcampaign-export"
VERSION = 1
# Phases 0–2 run before Phases 4–8: the order stages are exported and replayed in
STAGE_ORDER = {TurnResolution.Stage.TURN: 0, TurnResolution.Stage.AFTER: 1}


def export_json(data: dict[str, Any]) -> str:
    """The one way an export is written, so that equal campaigns give equal bytes."""
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)


def _plain(value: Any) -> Any:
    """JSON data as it reads back from any database (tuples as lists, enums as text)."""
    return json.loads(json.dumps(value))


# --- export ----------------------------------------------------------------------------------


def campaign_export(*, campaign: Campaign) -> dict[str, Any]:
    """Everything of a campaign, as deterministic JSON data (see `export_json`)."""
    players = list(campaign.players.select_related("side").order_by("position", "key"))
    turns = list(campaign.turns.order_by("number"))
    orders = (
        Orders.objects.filter(turn__campaign=campaign)
        .select_related("turn", "player", "submitted_by")
        .order_by("turn__number", "player__key")
    )
    orders_by_turn: dict[int, dict[str, Any]] = {t.pk: {} for t in turns}
    for o in orders:
        orders_by_turn[o.turn_id][o.player.key] = {
            "status": o.status,
            "data": o.data,
            "submitted_by": o.submitted_by.get_username() if o.submitted_by else None,
        }
    resolutions_by_turn: dict[int, list[dict[str, Any]]] = {t.pk: [] for t in turns}
    for r in TurnResolution.objects.filter(turn__campaign=campaign):
        resolutions_by_turn[r.turn_id].append(
            {
                "stage": r.stage,
                "seed": r.seed,
                "state_before": r.state_before,
                "inputs": r.inputs,
                "ledger": r.ledger,
                "events": r.events,
            }
        )
    memberships = campaign.memberships.select_related("user", "player")
    users = {m.user for m in memberships} | {o.submitted_by for o in orders if o.submitted_by}
    data = {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "slug": campaign.slug,
            "name": campaign.name,
            "description": campaign.description,
            "fog_of_war": campaign.fog_of_war,
        },
        "sides": {s.key: s.name for s in campaign.sides.all()},
        "colours": {p.key: p.colour for p in players},
        "state": to_data(adapters.state_load(campaign=campaign)),
        "users": sorted(
            (
                {
                    "username": u.get_username(),
                    "first_name": getattr(u, "first_name", ""),
                    "last_name": getattr(u, "last_name", ""),
                }
                for u in users
            ),
            key=lambda u: u["username"],
        ),
        "memberships": sorted(
            (
                {
                    "username": m.user.get_username(),
                    "role": m.role,
                    "player": m.player.key if m.player else None,
                }
                for m in memberships
            ),
            key=lambda m: m["username"],
        ),
        "turns": [
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
                "carry": t.carry,
                "orders": orders_by_turn[t.pk],
                "resolutions": sorted(
                    resolutions_by_turn[t.pk], key=lambda r: STAGE_ORDER.get(r["stage"], 9)
                ),
            }
            for t in turns
        ],
        "battles": [
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
        ],
    }
    return _plain(data)


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).isoformat() if moment else None


# --- import ----------------------------------------------------------------------------------


def campaign_import(*, data: Any) -> Campaign:
    """Rebuild an exported campaign, all in one transaction. Refuses a slug already in use and
    a malformed document, saying what is wrong; users it names are created if missing, with
    an unusable password."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ServiceError(f"This is not a campaign export (expected format {FORMAT!r}).")
    if data.get("version") != VERSION:
        raise ServiceError(
            f"Unsupported export version {data.get('version')!r} (this version reads {VERSION})."
        )
    try:
        with transaction.atomic():
            return _import(data)
    except ServiceError:
        raise
    except FormatError as e:
        raise ServiceError(f"Malformed export: {e}") from e
    except (KeyError, IndexError) as e:
        raise ServiceError(f"Malformed export: missing {e}") from e
    except (TypeError, ValueError, AttributeError, RulesError) as e:
        raise ServiceError(f"Malformed export: {e}") from e
    except IntegrityError as e:
        raise ServiceError(f"Inconsistent export: {e}") from e


def _import(data: dict[str, Any]) -> Campaign:
    info = data["campaign"]
    slug = info["slug"]
    try:
        validate_slug(slug)
    except ValidationError:
        raise ServiceError(f"Malformed export: {slug!r} is not a valid slug.") from None
    if Campaign.objects.filter(slug=slug).exists():
        raise ServiceError(f"A campaign with the slug {slug!r} already exists.")
    if not data["turns"]:
        raise ServiceError("Malformed export: the campaign has no turn.")
    state = from_data(CampaignState, data["state"], "state")
    campaign = Campaign.objects.create(
        slug=slug,
        name=info["name"],
        description=info.get("description", ""),
        fog_of_war=bool(info.get("fog_of_war", False)),
        scenario=state.scenario or "",
        width=state.map.width,
        height=state.map.height,
        options=to_data(state.options),
    )
    # not campaign_create: the state already has its scenario's options (and any GM changes)
    adapters.state_create(campaign=campaign, state=state, colours=dict(data.get("colours", {})))
    sides = data.get("sides", {})
    renamed = [s for s in Side.objects.filter(campaign=campaign) if s.key in sides]
    for side in renamed:
        side.name = sides[side.key]
    Side.objects.bulk_update(renamed, ["name"])
    players = {p.key: p for p in campaign.players.all()}
    users = _users_ensure(data)
    Membership.objects.bulk_create(
        Membership(
            campaign=campaign,
            user=users[m["username"]],
            role=_choice(Membership.Role, m["role"], "membership role"),
            player=_player(players, m.get("player")),
        )
        for m in data.get("memberships", [])
    )
    now = timezone.now()
    turns: dict[int, Turn] = {}
    for t in data["turns"]:
        status = _choice(Turn.Status, t["status"], "turn status")
        done = status != Turn.Status.OPEN
        deadline, battles_deadline = t.get("deadline"), t.get("battles_deadline")
        turns[t["number"]] = Turn.objects.create(
            campaign=campaign,
            number=t["number"],
            status=status,
            deadline=datetime.fromisoformat(deadline) if deadline else None,
            battles_deadline=datetime.fromisoformat(battles_deadline) if battles_deadline else None,
            timezone=t.get("timezone", "UTC"),
            extensions=t.get("extensions", 0),
            paused=t.get("paused", False),
            seed=t.get("seed"),
            seed_hash=t.get("seed_hash", ""),
            carry=t.get("carry", {}),
            opened_at=now,
            closed_at=now if done else None,
            resolved_at=now if status == Turn.Status.RESOLVED else None,
        )
    Orders.objects.bulk_create(
        Orders(
            turn=turns[t["number"]],
            player=_player(players, key, required=True),
            data=o["data"],
            status=_choice(Orders.Status, o["status"], "orders status"),
            submitted_by=users[o["submitted_by"]] if o.get("submitted_by") else None,
            confirmed_at=now if o["status"] == Orders.Status.CONFIRMED else None,
        )
        for t in data["turns"]
        for key, o in t.get("orders", {}).items()
    )
    TurnResolution.objects.bulk_create(
        TurnResolution(
            turn=turns[t["number"]],
            stage=_choice(TurnResolution.Stage, r["stage"], "resolution stage"),
            seed=r["seed"],
            state_before=r["state_before"],
            inputs=r["inputs"],
            ledger=r["ledger"],
            events=r["events"],
        )
        for t in data["turns"]
        for r in t.get("resolutions", [])
    )
    for b in data.get("battles", []):
        if b["turn"] not in turns:
            raise ServiceError(
                f"Malformed export: battle {b['key']} belongs to turn {b['turn']}, which the "
                "export does not have."
            )
    Battle.objects.bulk_create(
        Battle(
            campaign=campaign,
            turn=turns[b["turn"]],
            key=b["key"],
            x=b["square"][0],
            y=b["square"][1],
            contact_order=b["contact_order"],
            pack=b["pack"],
            status=_choice(Battle.Status, b["status"], "battle status"),
            resolver=_choice(Battle.Resolver, b["resolver"], "battle resolver"),
            auto_at_deadline=bool(b.get("auto_at_deadline", False)),
            result=b.get("result"),
            resolved_at=now if b["status"] == Battle.Status.RESOLVED else None,
        )
        for b in data.get("battles", [])
    )
    return campaign


def _users_ensure(data: dict[str, Any]) -> dict[str, Any]:
    """The users an export names, by username; the missing ones are created."""
    User = get_user_model()
    names = {m["username"] for m in data.get("memberships", [])}
    names |= {
        o["submitted_by"]
        for t in data["turns"]
        for o in t.get("orders", {}).values()
        if o.get("submitted_by")
    }
    details = {u["username"]: u for u in data.get("users", [])}
    users = {u.get_username(): u for u in User.objects.filter(username__in=names)}
    for name in sorted(names - set(users)):
        if not isinstance(name, str) or not name:
            raise ServiceError(f"Malformed export: bad username {name!r}.")
        extra = details.get(name, {})
        user = User(
            username=name,
            first_name=extra.get("first_name", ""),
            last_name=extra.get("last_name", ""),
        )
        user.set_unusable_password()
        user.save()
        users[name] = user
    return users


def _choice(choices: Any, value: Any, what: str) -> str:
    if value not in choices.values:
        raise ServiceError(
            f"Malformed export: {value!r} is not a {what} ({', '.join(choices.values)})."
        )
    return value


def _player(players: dict[str, Any], key: str | None, *, required: bool = False):
    if key is None and not required:
        return None
    if key not in players:
        raise ServiceError(f"Malformed export: unknown player {key!r}.")
    return players[key]


# --- replay ----------------------------------------------------------------------------------


@dataclass
class ReplayReport:
    ok: bool = True
    differences: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)  # the stages replayed, in order


def turn_replay(*, turn: Turn) -> ReplayReport:
    """Re-run each stored resolution of a turn and compare its ledger and events, entry by
    entry, with the stored ones. Also checks that the turn's seed matches the hash published
    before resolution, and that each stage used the seed derived from it."""
    report = ReplayReport()
    resolutions = sorted(turn.resolutions.all(), key=lambda r: STAGE_ORDER.get(r.stage, 9))
    if not resolutions:
        report.ok = False
        report.differences.append(f"Turn {turn.number} has no stored resolution to replay.")
        return report
    if turn.seed is not None and turn.seed_hash:
        published = seed_hash(campaign=turn.campaign, number=turn.number, seed=turn.seed)
        if published != turn.seed_hash:
            report.differences.append(
                f"seed hash: published {turn.seed_hash}, the seed {turn.seed} gives {published}"
            )
    for r in resolutions:
        stage = str(TurnResolution.Stage(r.stage).label)
        report.stages.append(stage)
        expected_seed = (
            turn.seed
            if r.stage == TurnResolution.Stage.TURN
            else (derive_seed(turn.seed, "after-battles") if turn.seed is not None else None)
        )
        if r.seed != expected_seed:
            report.differences.append(
                f"{stage}: seed: the turn fixed {expected_seed}, the resolution used {r.seed}"
            )
        if _scripted(r) is not None:
            # a run given its dice (tests) proves nothing about the seed: flag it, and replay
            # it with the dice it stored so that the rules are still checked
            report.differences.append(
                f"{stage}: resolved with scripted dice, not with the turn's seed: the replay "
                "re-uses the stored dice and cannot check the seed"
            )
        try:
            ledger, events = _rerun(r)
        except (FormatError, RulesError, KeyError, TypeError, ValueError) as e:
            report.differences.append(f"{stage}: the replay failed: {e}")
            continue
        report.differences += _ledger_diff(stage, r.ledger, ledger)
        report.differences += _events_diff(stage, r.events, events)
    report.ok = not report.differences
    return report


def _scripted(r: TurnResolution) -> list[int] | None:
    """The dice a Phases 4–8 run was given instead of its seed (`services.SCRIPTED_DICE`)."""
    if r.stage != TurnResolution.Stage.AFTER or not isinstance(r.inputs, dict):
        return None
    return r.inputs.get(SCRIPTED_DICE)


def _rerun(r: TurnResolution) -> tuple[list[dict], list[dict]]:
    state = from_data(CampaignState, r.state_before, "state_before")
    scripted = _scripted(r)
    inputs = {k: v for k, v in r.inputs.items() if scripted is None or k != SCRIPTED_DICE}
    dice: Dice = SeededDice(r.seed) if scripted is None else ScriptedDice(scripted)
    if r.stage == TurnResolution.Stage.TURN:
        orders = {
            pid: from_data(PlayerOrders, {**po, "player_id": pid}, f"orders of {pid}")
            for pid, po in inputs.items()
        }
        out = resolve_turn(state, orders, dice)
    else:
        results = {
            bid: from_data(BattleResult, {**res, "battle_id": bid}, f"result of {bid}")
            for bid, res in inputs.items()
        }
        out = resolve_after_battles(state, results, dice)
    return _plain([x.to_dict() for x in out.ledger]), _plain([e.to_dict() for e in out.events])


def _ledger_diff(stage: str, stored: list[dict], replayed: list[dict]) -> list[str]:
    out = []
    for i in range(max(len(stored), len(replayed))):
        a = stored[i] if i < len(stored) else None
        b = replayed[i] if i < len(replayed) else None
        if a == b:
            continue
        entry = a or b or {}
        where = f"{stage}: ledger #{entry.get('seq', i + 1)} ({entry.get('purpose', '?')})"
        out.append(f"{where}: {_describe(a, b)}")
    return out


def _events_diff(stage: str, stored: list[dict], replayed: list[dict]) -> list[str]:
    out = []
    for i in range(max(len(stored), len(replayed))):
        a = stored[i] if i < len(stored) else None
        b = replayed[i] if i < len(replayed) else None
        if a != b:
            kind = (a or b or {}).get("type", "?")
            out.append(f"{stage}: event #{i + 1} ({kind}): {_describe(a, b)}")
    return out


def _describe(stored: dict | None, replayed: dict | None) -> str:
    """The two values, or for two entries only the fields that differ."""
    if stored is None:
        return f"not stored, replay gives {_short(replayed)}"
    if replayed is None:
        return f"stored {_short(stored)}, the replay has no such entry"
    keys = sorted(set(stored) | set(replayed))
    return "; ".join(
        f"{k}: stored {_short(stored.get(k))}, replayed {_short(replayed.get(k))}"
        for k in keys
        if stored.get(k) != replayed.get(k)
    )


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
