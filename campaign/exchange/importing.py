"""Importing a campaign export (`campaign.exchange.export`): the whole campaign rebuilt in one
transaction, or nothing at all, with a message that says what is wrong with the document.

It may be imported under another slug (and name): the turns' seed hashes are salted with
the campaign's `seed_salt`, which the export carries, so the replay check still passes.
The moments the export carries are restored as they were. Nothing is sent: the notification
log is restored as a log. The photos' files come from the archive
(`campaign.exchange.archive`); from the JSON document alone the photos are left out, and the
import says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from battles.models import Battle, BattlePhoto
from campaign import adapters, stored_states
from campaign.errors import ServiceError
from campaign.exchange import records
from campaign.exchange.export import FORMAT, PROSE_VERSIONS, VERSIONS_READ, clock_from_carry
from campaign.exchange.parts import (
    PARTS,
    Restore,
    choice,
    moment_read,
    moments_restore,
    turn_of,
    user_of,
)
from campaign.exchange.upgrade import upgrade_prose
from campaign.models import (
    DEADLINE_AHEAD_MAX,
    Campaign,
    Membership,
    Orders,
    Player,
    Side,
    Turn,
    TurnResolution,
)
from rules import FormatError, RulesError, to_data

SECTIONS = {
    "format",
    "version",
    "campaign",
    "sides",
    "colours",
    "state",
    "users",
    "memberships",
    "turns",
    "battles",
    "roster_ready",
    "sightings",
    "invitations",
}


@dataclass(frozen=True)
class Imported:
    campaign: Campaign
    users_created: list[str] = field(default_factory=list)  # with no password, no e-mail
    notes: list[str] = field(default_factory=list)  # what the import could not restore


def campaign_import(
    *,
    data: Any,
    slug: str | None = None,
    name: str | None = None,
    photos: records.PhotoFiles = None,
) -> Imported:
    """Rebuild an exported campaign, all in one transaction, under its own slug and name or
    the ones given. Refuses a slug already in use and a malformed document, saying what is
    wrong; users it names are created if missing, with an unusable password. `photos` gives
    the photos' files (`campaign.exchange.archive`); without it the photos are left out."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ServiceError(f"This is not a campaign export (expected format {FORMAT!r}).")
    if data.get("version") not in VERSIONS_READ:
        raise ServiceError(
            f"Unsupported export version {data.get('version')!r} (this version reads "
            f"{', '.join(map(str, VERSIONS_READ))})."
        )
    saved: list[str] = []  # the photo files written, removed again if the import fails
    try:
        try:
            if data["version"] in PROSE_VERSIONS:  # its events and ledgers in English prose
                data = upgrade_prose(data)
            with transaction.atomic():
                return _import(data, slug, name, photos, saved)
        except BaseException:
            storage = BattlePhoto._meta.get_field("file").storage
            for stored in saved:
                storage.delete(stored)
            raise
    except ServiceError:
        raise
    except FormatError as e:
        raise ServiceError(f"Malformed export: {e}") from e
    except (KeyError, IndexError) as e:
        raise ServiceError(f"Malformed export: missing {e}") from e
    except (TypeError, ValueError, AttributeError, RulesError) as e:
        raise ServiceError(f"Malformed export: {e}") from e
    except (IntegrityError, DataError) as e:
        raise ServiceError(f"Inconsistent export: {e}") from e


def _import(
    data: dict[str, Any],
    slug: str | None,
    name: str | None,
    photos: records.PhotoFiles,
    saved: list[str],
) -> Imported:
    unknown = sorted(set(data) - SECTIONS - set(PARTS))
    if unknown:
        raise ServiceError(f"Malformed export: unknown section(s) {', '.join(unknown)}.")
    campaign = _campaign_create(data, slug, name)
    players = {p.key: p for p in campaign.players.all()}
    ready = [_player(players, key, required=True) for key in data.get("roster_ready", [])]
    Player.objects.filter(pk__in=[p.pk for p in ready if p]).update(roster_ready=True)
    users, created = _users_ensure(data)
    Membership.objects.bulk_create(
        Membership(
            campaign=campaign,
            user=user_of(users, m["username"], "a membership"),
            role=choice(Membership.Role, m["role"], "membership role"),
            player=_player(players, m.get("player")),
        )
        for m in data.get("memberships", [])
    )
    turns = _turns_create(campaign, data, players, users)
    battles = _battles_create(campaign, data, turns, users)
    notes = records.battles_records_restore(battles, data, users, photos, saved)
    records.sightings_restore(campaign, data.get("sightings", []))
    records.invitations_restore(campaign, data.get("invitations", []), users, players, moment_read)
    for part in PARTS.values():
        part.restore(Restore(campaign, data.get(part.key, []), users, turns))
    created_at = data["campaign"].get("created_at")
    if created_at is not None:
        Campaign.objects.filter(pk=campaign.pk).update(
            created_at=moment_read(created_at, "the campaign's creation")
        )
        campaign.refresh_from_db()
    return Imported(campaign, created, notes)


def _campaign_create(data: dict[str, Any], slug: str | None, name: str | None) -> Campaign:
    """The campaign and its rules state's rows, with the sides' names."""
    info = data["campaign"]
    slug = info["slug"] if slug is None else slug
    try:
        validate_slug(slug)
    except ValidationError:
        raise ServiceError(f"Malformed export: {slug!r} is not a valid slug.") from None
    if len(slug) > Campaign._meta.get_field("slug").max_length:  # type: ignore[operator]
        raise ServiceError(f"The slug {slug!r} is too long.")
    if Campaign.objects.filter(slug=slug).exists():
        raise ServiceError(f"A campaign with the slug {slug!r} already exists.")
    name = str(info["name"] if name is None else name)
    if not name.strip() or len(name.splitlines()) > 1 or len(name) > 200:
        raise ServiceError(f"A campaign's name is one line of at most 200 characters: {name!r}.")
    if not data["turns"]:
        raise ServiceError("Malformed export: the campaign has no turn.")
    policy = info.get("missing_orders_policy", "hold")
    if policy not in dict(Campaign._meta.get_field("missing_orders_policy").choices or []):
        raise ServiceError(f"Malformed export: {policy!r} is not a missing-orders policy.")
    # version 1 has no salt: its hashes were salted with the slug it was exported under
    salt = str(info.get("seed_salt") or info["slug"])
    state = adapters.state_from_data(data["state"], "state")
    campaign = Campaign.objects.create(
        slug=slug,
        name=name,
        description=info.get("description", ""),
        fog_of_war=bool(info.get("fog_of_war", False)),
        auto_close=bool(info.get("auto_close", False)),
        setup_open=bool(info.get("setup_open", False)),
        missing_orders_policy=policy,
        seed_salt=salt,
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
    # a side no army has joined yet (set-up) is in no rules state
    known = {s.key for s in renamed}
    Side.objects.bulk_create(
        Side(campaign=campaign, key=str(key), name=str(sides[key]))
        for key in sorted(set(sides) - known)
    )
    return campaign


def _moment_or(row: dict[str, Any], key: str, default: datetime | None) -> datetime | None:
    """The moment a row carries, or `default` for an export without its moments."""
    return moment_read(row[key], key) if key in row else default


def _deadline(t: dict[str, Any], key: str, now: datetime) -> datetime | None:
    """A turn's deadline, at most `DEADLINE_AHEAD_MAX` ahead as the GM's form sets them: near
    the end of the calendar the clock could not move it on (resuming a pause would overflow)."""
    value = t.get(key)
    if not value:
        return None
    what = f"turn {t['number']}'s {key}"
    moment = moment_read(value, what)
    if moment is not None and moment > now + DEADLINE_AHEAD_MAX:
        raise ServiceError(
            f"Malformed export: {what} ({value}) is more than 100 years ahead; a deadline can "
            "be at most 100 years ahead."
        )
    return moment


def _turns_create(
    campaign: Campaign, data: dict[str, Any], players: dict[str, Player], users: dict[str, Any]
) -> dict[int, Turn]:
    """The turns, with their orders and stored resolutions."""
    now = timezone.now()
    turns: dict[int, Turn] = {}
    for t in data["turns"]:
        status = choice(Turn.Status, t["status"], "turn status")
        done = status != Turn.Status.OPEN
        carry, paused_at = clock_from_carry(t.get("carry") or {}, bool(t.get("paused")), now)
        turns[t["number"]] = Turn.objects.create(
            campaign=campaign,
            number=t["number"],
            status=status,
            deadline=_deadline(t, "deadline", now),
            battles_deadline=_deadline(t, "battles_deadline", now),
            timezone=t.get("timezone", "UTC"),
            extensions=t.get("extensions", 0),
            paused_at=paused_at,
            seed=t.get("seed"),
            seed_hash=t.get("seed_hash", ""),
            carry=carry,
            opened_at=_moment_or(t, "opened_at", now),
            closed_at=_moment_or(t, "closed_at", now if done else None),
            resolved_at=_moment_or(
                t, "resolved_at", now if status == Turn.Status.RESOLVED else None
            ),
        )
    order_rows = [(t, key, o) for t in data["turns"] for key, o in t.get("orders", {}).items()]
    orders = [
        Orders(
            turn=turns[t["number"]],
            player=_player(players, key, required=True),
            data=o["data"],
            status=choice(Orders.Status, o["status"], "orders status"),
            submitted_by=user_of(users, o.get("submitted_by"), f"the orders of {key}"),
            confirmed_at=_moment_or(
                o, "confirmed_at", now if o["status"] == Orders.Status.CONFIRMED else None
            ),
        )
        for t, key, o in order_rows
    ]
    Orders.objects.bulk_create(orders)
    moments_restore(Orders, orders, [o for _t, _k, o in order_rows], "saved_at")
    resolution_rows = [(t, r) for t in data["turns"] for r in t.get("resolutions", [])]
    resolutions = [
        TurnResolution(
            turn=turns[t["number"]],
            stage=choice(TurnResolution.Stage, r["stage"], "resolution stage"),
            seed=r["seed"],
            state_before=r["state_before"],
            squares_before=stored_states.squares_of(r["state_before"]),
            inputs=r["inputs"],
            ledger=r["ledger"],
            events=r["events"],
        )
        for t, r in resolution_rows
    ]
    TurnResolution.objects.bulk_create(resolutions)
    moments_restore(TurnResolution, resolutions, [r for _t, r in resolution_rows], "created_at")
    order = TurnResolution.STAGE_ORDER
    line = sorted(resolutions, key=lambda r: (r.turn.number, order.get(r.stage, 9)))
    stored_states.line_compact(campaign, line)  # exported whole, stored as deltas
    TurnResolution.objects.bulk_update(line, ["state_before"], batch_size=50)
    return turns


def _battles_create(
    campaign: Campaign, data: dict[str, Any], turns: dict[int, Turn], users: dict[str, Any]
) -> dict[str, Battle]:
    now = timezone.now()
    battles = [
        Battle(
            campaign=campaign,
            turn=turn_of(turns, b["turn"], f"battle {b['key']}"),
            key=b["key"],
            x=b["square"][0],
            y=b["square"][1],
            contact_order=b["contact_order"],
            pack=b["pack"],
            status=choice(Battle.Status, b["status"], "battle status"),
            resolver=choice(Battle.Resolver, b["resolver"], "battle resolver"),
            auto_at_deadline=bool(b.get("auto_at_deadline", False)),
            result=b.get("result"),
            resolved_at=_moment_or(
                b, "resolved_at", now if b["status"] == Battle.Status.RESOLVED else None
            ),
            entered_at=_moment_or(b, "entered_at", None),
            **records.battle_entry_fields(b, users),
        )
        for b in data.get("battles", [])
    ]
    Battle.objects.bulk_create(battles)
    return {b.key: b for b in battles}


def _users_ensure(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The users an export names, by username; the missing ones are created (with no
    password and no e-mail address: the export carries neither). Returns them and the
    usernames created."""
    User = get_user_model()
    details = {}
    for u in data.get("users", []):
        if not isinstance(u, dict) or not isinstance(u.get("username"), str):
            raise ServiceError(f"Malformed export: a user that is not a username: {u!r}.")
        details[u["username"]] = u
    names = set(details)
    # version 1 lists only some of the users it names
    names |= {m["username"] for m in data.get("memberships", [])}
    names |= {
        o["submitted_by"]
        for t in data["turns"]
        for o in t.get("orders", {}).values()
        if o.get("submitted_by")
    }
    users = {u.get_username(): u for u in User.objects.filter(username__in=names)}
    created = []
    for name in sorted(names - set(users), key=str):
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
        created.append(name)
    return users, created


def _player(
    players: dict[str, Player], key: str | None, *, required: bool = False
) -> Player | None:
    if key is None and not required:
        return None
    if key not in players:
        raise ServiceError(f"Malformed export: unknown player {key!r}.")
    return players[key]
