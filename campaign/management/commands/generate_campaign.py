"""`manage.py generate_campaign`: a synthetic campaign (rules.generate) for load tests."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_slug
from django.db import transaction

from campaign.management.commands._common import service_errors
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.services import campaign_create
from rules import generate_campaign, generate_orders, to_data


class Command(BaseCommand):
    help = (
        "Create a synthetic campaign: a random map with terrain, players in alternating "
        "alliances with a territory band, a capital and two villages each, and forces of "
        "random units. The same --seed gives the same campaign. With --orders, standing "
        "orders for turn 1 are saved too (every force marches toward an enemy band)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--width", type=int, default=16, help="map columns (default 16)")
        parser.add_argument("--height", type=int, default=12, help="map rows (default 12)")
        parser.add_argument("--players", type=int, default=2, help="players (default 2)")
        parser.add_argument(
            "--forces", type=int, default=6, help="forces in all, shared out (default 6)"
        )
        parser.add_argument(
            "--units-per-force", type=int, default=3, help="units in each force (default 3)"
        )
        parser.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
        parser.add_argument("--slug", help="the new campaign's slug (default generated-<seed>)")
        parser.add_argument("--name", help="its name (default: Generated campaign <seed>)")
        parser.add_argument(
            "--orders", action="store_true", help="also save generated turn-1 standing orders"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        seed = opts["seed"]
        slug = opts["slug"] or f"generated-{seed}"
        try:
            validate_slug(slug)
        except ValidationError:
            raise CommandError(
                f"{slug!r} is not a valid slug (letters, digits, hyphens and underscores)."
            ) from None
        try:
            state = generate_campaign(
                width=opts["width"],
                height=opts["height"],
                players=opts["players"],
                forces=opts["forces"],
                units_per_force=opts["units_per_force"],
                seed=seed,
            )
        except ValueError as e:
            raise CommandError(f"Cannot generate this campaign: {e}.") from None
        with transaction.atomic(), service_errors():
            campaign = campaign_create(
                slug=slug, name=opts["name"] or f"Generated campaign {seed}", state=state
            )
            saved = 0
            if opts["orders"]:
                turn = turn_current(campaign=campaign)
                players = {p.key: p for p in campaign.players.all()}
                for pid, po in sorted(generate_orders(state, seed=seed).items()):
                    data = to_data(po)
                    data.pop("player_id")
                    orders_submit(player=players[pid], turn=turn, data=data)
                    saved += 1
        self.stdout.write(
            self.style.SUCCESS(
                f"Created campaign {slug}: {state.map.width}×{state.map.height} map, "
                f"{len(state.players)} players, {len(state.forces)} forces"
                + (f", orders saved for {saved} player(s)." if opts["orders"] else ".")
            )
        )
