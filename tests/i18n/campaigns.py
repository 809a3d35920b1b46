"""The campaigns the member walk reads (issue 29), played through the services with every
notice sent as it would be once the transactions commit: the demo through four turns with
battles and an amended result, and a generated three-sided campaign with fog of war, weather
and random events every turn."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import replace
from io import StringIO
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts.models import Profile
from battles.models import Battle
from battles.services import battle_result_record
from campaign.adapters import state_current
from campaign.models import Campaign, Membership, Player, Turn
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add, user_get_or_create
from campaign.setup.services import campaign_create
from campaign.turns.amend import amendment_commit, amendment_preview
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from rules.generate import generate_campaign, generate_orders
from rules.types import Force, Options
from tests.campaign.commands.conftest import stalemate
from tests.campaign.commands.test_amend_six_turns import corrected, march_orders
from tests.campaign.conftest import battle_result_data, orders_data

Capture = Callable[..., AbstractContextManager[Any]]
DEMO_TURNS = 4
DEMO_SEED = 2  # with march_orders: battles on turns 2 to 4


def languages_set(language: str) -> None:
    """Every account reads the site in `language`."""
    for user in get_user_model().objects.all():
        Profile.objects.update_or_create(user=user, defaults={"language": language})


def _resolve(turn: Turn, seed: int, result_of: Callable[[Battle], dict[str, Any]]) -> None:
    turn = turn_close(turn=turn, seed=seed)
    turn_resolve(turn_id=turn.pk)
    pending = Battle.objects.filter(turn=turn, status=Battle.Status.PENDING)
    for battle in pending:
        battle_result_record(battle=battle, data=result_of(battle))
    if Turn.objects.get(pk=turn.pk).status == Turn.Status.BATTLES:
        turn_resolve_after_battles(turn_id=turn.pk)


def demo_played(capture: Capture) -> dict[str, Any]:
    """The demo, an observer added, every account in Italian, four turns played and turn 2's
    battle result amended; a second amendment left as a preview. Role → user."""
    call_command("load_demo", stdout=StringIO())
    campaign = Campaign.objects.get(slug="incursion")
    observer = user_get_or_create(username="olive", password="olive-pass-1")
    observer.email = "olive@example.org"
    observer.save(update_fields=["email"])
    membership_add(campaign=campaign, user=observer, role=Membership.Role.OBSERVER)
    languages_set("it")
    users = {m.user.username: m.user for m in campaign.memberships.select_related("user")}
    with capture(execute=True):
        for n in range(1, DEMO_TURNS + 1):
            for player, data in march_orders(campaign, n == 1).items():
                orders_submit(
                    player=campaign.players.get(key=player),
                    turn=turn_current(campaign=campaign),
                    data=data,
                )
            _resolve(turn_current(campaign=campaign), DEMO_SEED, stalemate)
        gm = users["gm"]
        battle = campaign.battles.get(key="t2-b1")
        amend = {
            "campaign": campaign,
            "user": gm,
            "kind": "battle-result",
            "turn_number": 2,
            "target": "t2-b1",
            "reason": "Le perdite erano due quinti.",
        }
        draft = amendment_preview(**amend, data=corrected(battle))
        amendment_commit(amendment=draft, user=gm)
        battle = campaign.battles.get(key="t3-b1")
        amendment_preview(**{**amend, "turn_number": 3, "target": "t3-b1"}, data=corrected(battle))
    return {
        "gm": gm,
        "raiders": users["raider"],
        "defenders": users["defender"],
        "observer": observer,
    }


def _named(force: Force) -> Force:
    """The generator's unit types are its codes ("veteran terrible-creature"); a GM names them
    ("Veteran terrible creature"). Its generals keep no name: the pages name them by force."""
    commands = tuple(
        replace(
            c,
            units=tuple(
                replace(
                    u, type=f"{u.quality.value} {u.speciality.value}".replace("-", " ").capitalize()
                )
                for u in c.units
            ),
        )
        for c in force.commands
    )
    return replace(force, commands=commands)


THREE_SEED = 255
THREE_TURNS = 3


def three_played(capture: Capture) -> dict[str, Any]:
    """A generated campaign of three players on three sides, fog of war on, weather and random
    events every turn (the reinforcement interval: one day), the Naran battlefields (random
    scenery, special scenarios, the terrain annex), three turns played with their battles; an
    observer following the third player. Role → user."""
    options = Options(
        random_events=True, reinforcement_interval_days=1, weather_phase=True,
        holding_features=True, random_scenery=True, special_scenarios=True,
        naran_battle_terrain=True,
    )  # fmt: skip
    state = generate_campaign(
        width=12, height=8, players=3, sides=3, forces=8, units_per_force=2, seed=THREE_SEED,
        options=options,
    )  # fmt: skip
    state = replace(state, forces=tuple(_named(f) for f in state.forces))
    campaign = campaign_create(slug="three", name="Tre lati", state=state, fog_of_war=True)
    players = {p.key: p for p in Player.objects.filter(campaign=campaign)}
    users: dict[str, Any] = {}
    for who in ("gm", "p1", "p2", "p3", "observer"):
        users[who] = user_get_or_create(
            username=f"tre-{who}", password=f"{who}-pass-1", email=f"{who}@example.org"
        )
    Membership.objects.create(campaign=campaign, user=users["gm"], role=Membership.Role.GM)
    for key in ("p1", "p2", "p3"):
        membership_add(
            campaign=campaign, user=users[key], role=Membership.Role.PLAYER, player=players[key]
        )
    membership_add(
        campaign=campaign,
        user=users["observer"],
        role=Membership.Role.OBSERVER,
        player=players["p3"],
    )
    languages_set("it")
    with capture(execute=True):
        for n in range(1, THREE_TURNS + 1):
            turn = turn_current(campaign=campaign)
            orders = generate_orders(state_current(campaign=campaign), seed=THREE_SEED + n)
            for player in campaign.players.order_by("position"):
                orders_submit(player=player, turn=turn, data=orders_data(orders[player.key]))

            def result(battle: Battle) -> dict[str, Any]:
                return battle_result_data(state_current(campaign=campaign), battle.key)

            _resolve(turn, n, result)
    return users


def members(users: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield from users.items()


def setup_created() -> dict[str, Any]:
    """A GM who reads Italian creates the Incursion on the web ("Wend", 16×12); a player joins
    the raiders. The campaign stays in set-up. Role → user."""
    from django.test import Client
    from django.urls import reverse

    gm = user_get_or_create(username="gina", password="gina-pass-1", email="gina@example.org")
    languages_set("it")
    client = Client()
    client.force_login(gm)
    client.cookies["django_language"] = "it"
    response = client.post(
        reverse("campaign:new"),
        {"name": "Wend", "slug": "wend", "source": "incursion", "width": 16, "height": 12},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(slug="wend")
    raider = user_get_or_create(username="ulf", password="ulf-pass-1", email="ulf@example.org")
    membership_add(
        campaign=campaign,
        user=raider,
        role=Membership.Role.PLAYER,
        player=campaign.players.get(role="raiders"),
    )
    return {"gm": gm, "raiders": raider}
