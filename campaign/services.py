"""Campaign services: every write of the campaign app. Keyword-only, `<entity>_<action>`.

Resolution claims its turn with a conditional update (`status=CLOSED → RESOLVING`) that
commits before any work, so a second concurrent call finds the turn taken and does nothing.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from battles.models import Battle
from campaign import adapters, visibility
from campaign.models import Campaign, Membership, Orders, Player, Turn, TurnResolution
from rules.battle import BattleResult
from rules.codec import FormatError, from_data, to_data
from rules.dice import Dice, SeededDice, derive_seed
from rules.errors import OrderError, RulesError
from rules.orders import PlayerOrders, validate_orders
from rules.phases.after_battle import validate_result
from rules.scenarios import load_scenario
from rules.turn import resolve_after_battles, resolve_turn
from rules.types import CampaignState


class ServiceError(ValueError):
    """A request the campaign cannot carry out; the message says why, for people."""


class TurnNotOpen(ServiceError):
    pass


class SetupInProgress(ServiceError):
    """The campaign is still being set up: it has no turn yet."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        super().__init__(f"{campaign.name} is still being set up: the first turn has not opened.")


class TurnBusy(ServiceError):
    """The turn is already being resolved, or has been (the loser of a race gets this)."""


class InvalidOrders(ServiceError):
    def __init__(self, errors: list[OrderError]) -> None:
        self.errors = errors
        super().__init__("; ".join(e.message for e in errors))


class InvalidBattleResult(ServiceError):
    pass


def seed_hash(*, campaign: Campaign, number: int, seed: int) -> str:
    """Published before resolution; anyone can check it once the seed is revealed."""
    return hashlib.sha256(f"fwcampaign:{campaign.slug}:{number}:{seed}".encode()).hexdigest()


# --- campaigns -------------------------------------------------------------------------------


@transaction.atomic
def campaign_create(
    *,
    slug: str,
    name: str,
    state: CampaignState,
    description: str = "",
    colours: dict[str, str] | None = None,
    fog_of_war: bool = False,
    gm=None,
) -> Campaign:
    """A new campaign from a complete rules state. A scenario's options are applied (its data
    file decides them, e.g. the Incursion turns Phase 0 off, R11.4.3)."""
    if Campaign.objects.filter(slug=slug).exists():
        raise ServiceError(f"A campaign with the slug {slug!r} already exists.")
    if state.scenario:
        try:
            scenario = load_scenario(state.scenario)
        except RulesError as e:
            raise ServiceError(str(e)) from e
        state = replace(state, options=scenario.apply_options(state.options))
    campaign = Campaign.objects.create(
        slug=slug,
        name=name,
        description=description,
        scenario=state.scenario or "",
        fog_of_war=fog_of_war,
        width=state.map.width,
        height=state.map.height,
        options=to_data(state.options),
    )
    adapters.state_create(campaign=campaign, state=state, colours=colours or {})
    visibility.sightings_record(campaign=campaign, state=state)
    Turn.objects.create(
        campaign=campaign, number=state.turn, status=Turn.Status.OPEN, opened_at=timezone.now()
    )
    if gm is not None:
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    return campaign


@transaction.atomic
def campaign_delete(*, campaign: Campaign) -> None:
    """Delete a campaign with everything in it (its rows cascade)."""
    campaign.delete()


def campaign_state(*, campaign: Campaign) -> CampaignState:
    """The current rules state, with the current turn's carried data."""
    return adapters.state_load(campaign=campaign, turn=turn_current(campaign=campaign))


def turn_current(*, campaign: Campaign) -> Turn:
    if campaign.setup_open:
        raise SetupInProgress(campaign)
    turn = campaign.turns.order_by("-number").first()
    if turn is None:
        raise ServiceError(f"Campaign {campaign.slug} has no turn.")
    return turn


# --- orders ----------------------------------------------------------------------------------


@transaction.atomic
def orders_submit(
    *, player: Player, turn: Turn, data: dict[str, Any], confirm: bool = False, user=None
) -> Orders:
    """Save (and optionally confirm) a player's orders for an open turn. Invalid orders are
    refused with every error; orders for a closed turn are refused and whatever was saved
    before stays as it was."""
    turn = Turn.objects.select_for_update().get(pk=turn.pk)
    if turn.status != Turn.Status.OPEN:
        raise TurnNotOpen(
            f"Turn {turn.number} is {turn.get_status_display().lower()}: orders can no longer "
            "be changed. Your saved orders are kept as they were."
        )
    if player.campaign_id != turn.campaign_id:
        raise ServiceError("This player does not belong to the turn's campaign.")
    data = {**data, "player_id": player.key}
    if isinstance(data.get("forces"), dict):
        # force ids may be left out of each force's orders: they are the keys (state format)
        data["forces"] = {
            fid: {**fo, "force_id": fo.get("force_id", fid)} if isinstance(fo, dict) else fo
            for fid, fo in data["forces"].items()
        }
    try:
        po = from_data(PlayerOrders, data)
    except FormatError as e:
        raise InvalidOrders([OrderError(None, "format", str(e))]) from e
    state = adapters.state_load(campaign=turn.campaign)
    errors = validate_orders(state, player.key, po)
    if errors:
        raise InvalidOrders(errors)
    stored = to_data(po)
    stored.pop("player_id")
    now = timezone.now()
    orders, _ = Orders.objects.update_or_create(
        turn=turn,
        player=player,
        defaults={
            "data": stored,
            "status": Orders.Status.CONFIRMED if confirm else Orders.Status.SAVED,
            "confirmed_at": now if confirm else None,
            "submitted_by": user,
        },
    )
    if confirm and turn.deadline is not None:
        # the last confirmation may close the turn before its deadline (campaign.services_turn)
        from campaign.tasks import turn_close_if_ready_task  # the tasks import this module

        transaction.on_commit(lambda: turn_close_if_ready_task.delay(turn.pk), robust=True)
    return orders


# --- the turn --------------------------------------------------------------------------------


@transaction.atomic
def turn_close(*, turn: Turn, seed: int | None = None) -> Turn:
    """Close an open turn and fix its seed; the seed's hash is published, the seed itself is
    revealed only after resolution."""
    if seed is None:
        seed = secrets.randbits(62)
    if not 0 <= seed < 2**63:
        raise ServiceError("The seed must be a non-negative 63-bit integer.")
    updated = Turn.objects.filter(pk=turn.pk, status=Turn.Status.OPEN).update(
        status=Turn.Status.CLOSED,
        seed=seed,
        seed_hash=seed_hash(campaign=turn.campaign, number=turn.number, seed=seed),
        closed_at=timezone.now(),
    )
    turn.refresh_from_db()
    if not updated:
        raise TurnNotOpen(f"Turn {turn.number} is not open ({turn.get_status_display()}).")
    return turn


def _claim(turn_id: int, frm: str, to: str) -> Turn:
    """The conditional update that makes resolution single: only one caller moves the turn
    from `frm` to `to`; every other gets `TurnBusy`."""
    if Turn.objects.filter(pk=turn_id, status=frm).update(status=to) != 1:
        turn = Turn.objects.get(pk=turn_id)
        if turn.status == Turn.Status.OPEN:
            raise TurnNotOpen(f"Turn {turn.number} is still open: close it before resolving.")
        raise TurnBusy(
            f"Turn {turn.number} cannot be resolved now: it is "
            f"{turn.get_status_display().lower()} (already resolving or resolved)."
        )
    return Turn.objects.select_related("campaign").get(pk=turn_id)


@dataclass(frozen=True)
class Resolution:
    turn: Turn
    events: list[dict]
    ledger: list[dict]
    pending: list[str]


def turn_resolve(*, turn_id: int) -> Resolution:
    """Phases 0–2 of a closed turn (resolve_turn). Afterwards the turn waits for battle
    results; with no battle it is ready for Phases 4–8 at once."""
    turn = _claim(turn_id, Turn.Status.CLOSED, Turn.Status.RESOLVING)
    try:
        return _resolve_phases_0_2(turn)
    except BaseException:
        Turn.objects.filter(pk=turn_id).update(status=Turn.Status.CLOSED)
        raise


@transaction.atomic
def _resolve_phases_0_2(turn: Turn) -> Resolution:
    campaign = turn.campaign
    state = adapters.state_load(campaign=campaign)
    orders = {
        o.player.key: from_data(PlayerOrders, {**o.data, "player_id": o.player.key})
        for o in turn.orders.select_related("player")
    }
    dice = SeededDice(turn.seed)
    out = resolve_turn(state, orders, dice)
    ledger = [r.to_dict() for r in out.ledger]
    events = [e.to_dict() for e in out.events]
    TurnResolution.objects.create(
        turn=turn,
        stage=TurnResolution.Stage.TURN,
        seed=turn.seed,
        state_before=to_data(state),
        inputs={pid: _orders_data(po) for pid, po in sorted(orders.items())},
        ledger=ledger,
        events=events,
    )
    adapters.state_save(campaign=campaign, state=out.state)
    visibility.sightings_record(campaign=campaign, state=out.state)
    Battle.objects.bulk_create(
        Battle(
            campaign=campaign,
            turn=turn,
            key=b.battle_id,
            x=b.square[0],
            y=b.square[1],
            contact_order=b.contact_order,
            pack=to_data(b.pack),
        )
        for b in out.pending_battles
    )
    turn.carry = adapters.carry_of(out.state)
    turn.status = Turn.Status.BATTLES
    turn.save(update_fields=["carry", "status"])
    from notifications.tasks import enqueue_phases_0_2_notices  # battles, missing orders

    enqueue_phases_0_2_notices(turn_id=turn.pk, events=events)
    return Resolution(turn, events, ledger, [b.battle_id for b in out.pending_battles])


def _orders_data(po: PlayerOrders) -> dict[str, Any]:
    d = to_data(po)
    d.pop("player_id")
    return d


@transaction.atomic
def battle_result_record(
    *, battle: Battle, data: dict[str, Any], resolver: str = "tabletop"
) -> Battle:
    """Record a battle's result after checking it against the battle (rules validation)."""
    battle = Battle.objects.select_for_update().select_related("turn").get(pk=battle.pk)
    if battle.turn.status != Turn.Status.BATTLES:
        raise InvalidBattleResult(
            f"Battle {battle.key} belongs to turn {battle.turn.number}, which is not waiting "
            "for battle results."
        )
    try:
        result = from_data(BattleResult, {**data, "battle_id": battle.key})
    except FormatError as e:
        raise InvalidBattleResult(str(e)) from e
    state = adapters.state_load(campaign=battle.campaign, turn=battle.turn)
    pending = next((b for b in state.pending_battles if b.battle_id == battle.key), None)
    if pending is None:
        raise InvalidBattleResult(f"Battle {battle.key} is not pending.")
    try:
        validate_result(state, pending, result)
    except RulesError as e:
        raise InvalidBattleResult(str(e)) from e
    stored = to_data(result)
    stored.pop("battle_id")
    battle.result = stored
    battle.resolver = resolver
    battle.status = Battle.Status.RESOLVED
    battle.resolved_at = timezone.now()
    battle.save(update_fields=["result", "resolver", "status", "resolved_at"])
    return battle


# `TurnResolution.inputs` key of a Phases 4–8 run given its dice (tests): the values used
SCRIPTED_DICE = "scripted-dice"


def turn_resolve_after_battles(*, turn_id: int, dice: Dice | None = None) -> Resolution:
    """Phases 4–8 once every battle of the turn has a result; then the next turn opens.

    `dice` is for tests only (e.g. a `ScriptedDice`): a run given its dice is not the turn's
    seeded run, so the values it used are stored with its inputs (`SCRIPTED_DICE`) and the
    replay check re-uses them and says so (`campaign.exchange.turn_replay`)."""
    waiting = list(
        Battle.objects.filter(turn_id=turn_id, status=Battle.Status.PENDING).values_list(
            "key", flat=True
        )
    )
    if waiting:
        raise ServiceError(f"Battles still without a result: {', '.join(sorted(waiting))}.")
    turn = _claim(turn_id, Turn.Status.BATTLES, Turn.Status.RESOLVING_AFTER)
    try:
        return _resolve_phases_4_8(turn, dice)
    except BaseException:
        Turn.objects.filter(pk=turn_id).update(status=Turn.Status.BATTLES)
        raise


@transaction.atomic
def _resolve_phases_4_8(turn: Turn, dice: Dice | None = None) -> Resolution:
    campaign = turn.campaign
    state = adapters.state_load(campaign=campaign, turn=turn)
    results = {
        b.key: from_data(BattleResult, {**b.result, "battle_id": b.key})
        for b in Battle.objects.filter(turn=turn)
    }
    seed = derive_seed(turn.seed, "after-battles")  # stored as is, even for a scripted run
    scripted = dice is not None
    if dice is None:
        dice = SeededDice(seed)
    out = resolve_after_battles(state, results, dice)
    ledger = [r.to_dict() for r in out.ledger]
    events = [e.to_dict() for e in out.events]
    inputs: dict[str, Any] = {k: _result_data(r) for k, r in sorted(results.items())}
    if scripted:
        inputs[SCRIPTED_DICE] = [v for r in out.ledger for v in r.natural]
    TurnResolution.objects.create(
        turn=turn,
        stage=TurnResolution.Stage.AFTER,
        seed=seed,
        state_before=to_data(state),
        inputs=inputs,
        ledger=ledger,
        events=events,
    )
    adapters.state_save(campaign=campaign, state=out.state)
    visibility.sightings_record(campaign=campaign, state=out.state)
    now = timezone.now()
    turn.status = Turn.Status.RESOLVED
    turn.resolved_at = now
    turn.save(update_fields=["status", "resolved_at"])
    if not out.state.ended:
        Turn.objects.create(
            campaign=campaign, number=out.state.turn, status=Turn.Status.OPEN, opened_at=now
        )
    from notifications import tasks as notices  # each member's digest, once this commits

    notices.enqueue_on_commit(notices.notify_turn_resolved_task, turn.pk)
    return Resolution(turn, events, ledger, [])


def _result_data(r: BattleResult) -> dict[str, Any]:
    d = to_data(r)
    d.pop("battle_id")
    return d


# --- memberships -----------------------------------------------------------------------------


@transaction.atomic
def membership_add(
    *, campaign: Campaign, user, role: str, player: Player | None = None
) -> Membership:
    if role == Membership.Role.PLAYER and player is None:
        raise ServiceError("A player membership needs the player (army) it controls.")
    if player is not None and player.campaign_id != campaign.pk:
        raise ServiceError("That player belongs to another campaign.")
    try:
        return Membership.objects.create(campaign=campaign, user=user, role=role, player=player)
    except IntegrityError as e:
        raise ServiceError(f"{user} is already a member of {campaign}.") from e


def user_get_or_create(*, username: str, password: str | None = None, **fields):
    """The user with this name, created (with an unusable password unless one is given)."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username, defaults=fields)
    if created or password is not None:
        if password is None:
            user.set_unusable_password()
        else:
            user.set_password(password)
        user.save()
    return user
