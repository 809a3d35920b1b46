"""Importing a campaign export (`campaign.exchange.export`): the whole campaign rebuilt in one
transaction, or nothing at all, with a message that says what is wrong with the document."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from django.utils import timezone

from battles.models import Battle
from campaign import adapters
from campaign.errors import ServiceError
from campaign.exchange.export import FORMAT, VERSION, clock_from_carry
from campaign.models import Campaign, Membership, Orders, Player, Side, Turn, TurnResolution
from rules import FormatError, RulesError, to_data


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
    campaign = _campaign_create(data)
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
    turns = _turns_create(campaign, data, players, users)
    _battles_create(campaign, data, turns)
    return campaign


def _campaign_create(data: dict[str, Any]) -> Campaign:
    """The campaign and its rules state's rows, with the sides' names."""
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
    state = adapters.state_from_data(data["state"], "state")
    campaign = Campaign.objects.create(
        slug=slug,
        name=info["name"],
        description=info.get("description", ""),
        fog_of_war=bool(info.get("fog_of_war", False)),
        auto_close=bool(info.get("auto_close", False)),
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
    return campaign


def _turns_create(
    campaign: Campaign, data: dict[str, Any], players: dict[str, Player], users: dict[str, Any]
) -> dict[int, Turn]:
    """The turns, with their orders and stored resolutions."""
    now = timezone.now()
    turns: dict[int, Turn] = {}
    for t in data["turns"]:
        status = _choice(Turn.Status, t["status"], "turn status")
        done = status != Turn.Status.OPEN
        deadline, battles_deadline = t.get("deadline"), t.get("battles_deadline")
        carry, paused_at = clock_from_carry(t.get("carry") or {}, bool(t.get("paused")), now)
        turns[t["number"]] = Turn.objects.create(
            campaign=campaign,
            number=t["number"],
            status=status,
            deadline=datetime.fromisoformat(deadline) if deadline else None,
            battles_deadline=datetime.fromisoformat(battles_deadline) if battles_deadline else None,
            timezone=t.get("timezone", "UTC"),
            extensions=t.get("extensions", 0),
            paused_at=paused_at,
            seed=t.get("seed"),
            seed_hash=t.get("seed_hash", ""),
            carry=carry,
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
    return turns


def _battles_create(campaign: Campaign, data: dict[str, Any], turns: dict[int, Turn]) -> None:
    now = timezone.now()
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
    return cast(str, value)  # one of the choices' values


def _player(
    players: dict[str, Player], key: str | None, *, required: bool = False
) -> Player | None:
    if key is None and not required:
        return None
    if key not in players:
        raise ServiceError(f"Malformed export: unknown player {key!r}.")
    return players[key]
