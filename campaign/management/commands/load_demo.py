"""`manage.py load_demo`: the demo campaign "Incursion", its three users and turn-1 orders."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, cast

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from campaign import adapters
from campaign.management.commands._common import (
    json_read,
    service_errors,
)
from campaign.models import Campaign, Membership
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add, user_get_or_create
from campaign.setup.services import campaign_create, campaign_delete
from config.site import site_url
from rules import FormatError

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "incursion"


class Command(BaseCommand):
    help = (
        "Create the demo campaign (fixtures/incursion: state.json and demo.json) with its "
        "game master and two players, each given a fresh random password, and save the "
        "players' turn-1 standing orders (saved, not confirmed). If the campaign exists "
        "already, only new passwords are set and printed, so the demo can be started again; "
        "--reset deletes the campaign and creates it anew."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help="delete the demo campaign (all its turns, orders and battles) and recreate it",
        )
        parser.add_argument(
            "--fixtures",
            metavar="DIR",
            default=str(DEMO_DIR),
            help="folder holding demo.json and the state it names (default: %(default)s)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        folder = Path(opts["fixtures"])
        demo = _demo_read(folder)
        slug = demo["campaign"]["slug"]
        existing = Campaign.objects.filter(slug=slug).first()
        with transaction.atomic(), service_errors():
            if existing is not None and opts["reset"]:
                campaign_delete(campaign=existing)
                self.stdout.write(f"Deleted the campaign {slug!r}.")
                existing = None
            if existing is not None:
                self.stdout.write(
                    f"The demo campaign {slug!r} exists already (use --reset to recreate it); "
                    "its users get new passwords."
                )
                campaign = existing
            else:
                campaign = _campaign_create(demo, folder)
            passwords = _users_ensure(campaign, demo)
            if existing is None:
                _orders_save(campaign, demo)
        self._welcome(campaign, demo, passwords)

    def _welcome(self, campaign: Campaign, demo: dict[str, Any], passwords: dict[str, str]) -> None:
        players = {p.key: p.name for p in campaign.players.all()}
        w = max(len(u) for u in passwords)
        self.stdout.write(self.style.SUCCESS(f"The demo campaign “{campaign.name}” is ready."))
        # read now, not from the settings: `./run demo` serves on FW_DEMO_ADDR
        self.stdout.write(f"Open {site_url(os.environ)}/ and log in as one of:")
        for u in demo["users"]:
            plays = players.get(u.get("player") or "", "")
            role = f"plays {plays}" if plays else "game master" if u["role"] == "gm" else u["role"]
            self.stdout.write(
                f"  {u['username']:<{w}}  password {passwords[u['username']]}  "
                f"{u.get('display_name', '')} ({role})"
            )


def _demo_read(folder: Path) -> dict[str, Any]:
    """demo.json, checked for what the command uses."""
    demo = json_read(str(folder / "demo.json"), "demo")
    info = demo.get("campaign") if isinstance(demo, dict) else None
    users = demo.get("users") if isinstance(demo, dict) else None
    if not (
        isinstance(info, dict)
        and isinstance(info.get("slug"), str)
        and isinstance(info.get("name"), str)
        and isinstance(users, list)
        and users
        and all(
            isinstance(u, dict)
            and isinstance(u.get("username"), str)
            and u.get("role") in Membership.Role.values
            for u in users
        )
        and isinstance(demo.get("orders", {}), dict)
    ):
        raise CommandError(
            f"{folder / 'demo.json'} is malformed: it needs campaign.slug, campaign.name and "
            "users with username and role."
        )
    return cast(dict[str, Any], demo)  # checked above: a dict (with a campaign)


def _campaign_create(demo: dict[str, Any], folder: Path) -> Campaign:
    info = demo["campaign"]
    state_file = folder / info.get("state", "state.json")
    try:
        state = adapters.state_from_data(json_read(str(state_file), "state"), "state")
    except FormatError as e:
        raise CommandError(f"{state_file}: {e}") from None
    return campaign_create(
        slug=info["slug"],
        name=info["name"],
        description=info.get("description", ""),
        state=state,
        colours=dict(demo.get("colours", {})),
    )


def _users_ensure(campaign: Campaign, demo: dict[str, Any]) -> dict[str, str]:
    """Each demo user with a new random password, and a membership if he has none."""
    players = {p.key: p for p in campaign.players.all()}
    members = set(campaign.memberships.values_list("user__username", flat=True))
    passwords: dict[str, str] = {}
    for u in demo["users"]:
        password = secrets.token_urlsafe(9)
        user = user_get_or_create(
            username=u["username"],
            password=password,
            first_name=u.get("display_name", "")[:150],
            email=u.get("email", ""),
        )
        passwords[u["username"]] = password
        if u["username"] in members:
            continue
        plays = u.get("player")
        if plays is not None and plays not in players:
            raise CommandError(f"Demo user {u['username']} plays {plays!r}, an unknown player.")
        membership_add(
            campaign=campaign,
            user=user,
            role=u["role"],
            player=players[plays] if plays else None,
        )
    return passwords


def _orders_save(campaign: Campaign, demo: dict[str, Any]) -> None:
    """The standing orders of the demo's first turn, saved (not confirmed) for each player.
    Force ids may be left out of each force's orders, as in docs/state-format.md."""
    turn = turn_current(campaign=campaign)
    if demo.get("orders_turn", turn.number) != turn.number:
        raise CommandError(
            f"The demo orders are for turn {demo['orders_turn']}, the campaign is at turn "
            f"{turn.number}."
        )
    players = {p.key: p for p in campaign.players.all()}
    users = {u.get("player"): u["username"] for u in demo["users"] if u.get("player") in players}
    members = {m.user.get_username(): m.user for m in campaign.memberships.select_related("user")}
    for pid, data in sorted(demo.get("orders", {}).items()):
        if pid not in players:
            raise CommandError(f"The demo has orders for {pid!r}, an unknown player.")
        forces = data.get("forces", {})
        data = {
            **data,
            "forces": {fid: {"force_id": fid, **fo} for fid, fo in forces.items()},
        }
        data.pop("player_id", None)
        orders_submit(
            player=players[pid], turn=turn, data=data, user=members.get(users.get(pid, ""))
        )
