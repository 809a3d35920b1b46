"""Battle services: every write of the battles app. Keyword-only, `<entity>_<action>`.

Phases 0–2 create a turn's battles pending (`battles_create`). A tabletop result goes through
these steps (spec: either player enters, the other confirms or disputes, the GM overrides
with a note):

    none ──enter──▶ entered ──confirm (other side)──▶ confirmed ─┐
                      │  ▲                                        ├─▶ every battle settled:
                      │  └──enter again (before confirmation)     │   Phases 4–8 can run
                      └──dispute (other side, note)──▶ disputed   │
    any state ──override (GM, mandatory note)──▶ overridden ──────┘

Only a confirmed or overridden result (or one the tactical engine fought) resolves the
battle (`Battle.status`), so an entered or disputed one holds up the turn. Every action is
appended to the battle's audit log. Each service is given the campaign the request came
through, and refuses a battle of another one. When the last battle of a turn is settled the
turn is told (`campaign.signals.battles_settled`); the turn's state machine goes on from
there. Refusals are `ServiceError`s (`battles.refusals`); an entry's mistakes are keyed by
the entry's fields (`battles.entry.battle_result_check`), so the result form shows each beside
its field. Each action of the result page is given the version of the result its form was
built on, and refuses another (`battles.stale.StaleResult`): every change of the result or
its entry raises the version (`Battle.result_changed`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, cast

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from battles.entry import battle_result_check
from battles.models import (
    MAX_PHOTO_BYTES,
    Battle,
    BattleAudit,
    BattlePhoto,
    WhatIfOdds,
    photo_type,
)
from battles.refusals import (
    BattleRefused,
    refuse_settled,
    require_other_side,
    require_waiting,
    rights_asking,
)
from battles.roster import battle_roster_get
from battles.selectors import battle_odds_hash, battle_odds_input, what_if_hash
from battles.stale import result_expected
from campaign import adapters
from campaign.errors import ServiceError
from campaign.models import AuditEntry, Campaign, Turn
from campaign.signals import battles_settled
from rules import (
    BattleInput,
    FormatError,
    PendingBattle,
    RulesError,
    SeededDice,
    TacticalError,
    battle_input_from_data,
    battle_input_from_state,
    derive_seed,
    odds_pool,
    tactical_resolve,
    tactical_simulate,
    to_data,
    validate_result,
)

NOTE_FIELD = "note"
PHOTO_FIELD = "photo"
RESOLVER_FIELD = "resolver"

ODDS_RUNS = 1000

log = logging.getLogger(__name__)

# an object as a JSONField holds it (audit data, odds: `Odds.to_dict`); the field reads as Any
Json = dict[str, Any]


AUTO_AT_DEADLINE_NOTE = gettext_lazy(
    "No result was entered by the battles deadline: the tactical engine fought the battle, as "
    "the game master had chosen."
)


class InvalidBattleResult(ServiceError):
    """A result the rules refuse for the battle (`battle_result_record`)."""


# --- who is asking ---------------------------------------------------------------------------


def _locked(battle: Battle) -> Battle:
    return (
        Battle.objects.select_for_update(of=("self",))
        .select_related("campaign", "turn")
        .get(pk=battle.pk)
    )


def _audit(
    battle: Battle, user: User | None, action: str, *, note: str = "", data: Json | None = None
) -> BattleAudit:
    return BattleAudit.objects.create(battle=battle, user=user, action=action, note=note, data=data)


def _settled_announce(turn: Turn) -> bool:
    """Tell the turn once every one of its battles is resolved (its Phases 4–8 can run). The
    turn row is locked first: of two last battles settled at once, the second to get the lock
    sees the first committed, so one of them announces it."""
    Turn.objects.select_for_update().filter(pk=turn.pk).first()
    if Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).exists():
        return False
    battles_settled.send(sender=Battle, turn=turn)
    return True


# --- the services ----------------------------------------------------------------------------


@transaction.atomic
def battles_create(*, turn: Turn, pending: Iterable[PendingBattle]) -> list[Battle]:
    """The battles Phases 0–2 of `turn` produced, each waiting for its result with its pack."""
    return Battle.objects.bulk_create(
        Battle(
            campaign=turn.campaign,
            turn=turn,
            key=b.battle_id,
            x=b.square[0],
            y=b.square[1],
            contact_order=b.contact_order,
            pack=to_data(b.pack),
        )
        for b in pending
    )


@transaction.atomic
def battle_result_record(
    *, battle: Battle, data: dict[str, Any], resolver: str = "tabletop"
) -> Battle:
    """Record a battle's result after checking it against the battle (rules validation):
    the battle is resolved. (The entry workflow around it: the services below.)"""
    battle = Battle.objects.select_for_update().select_related("turn").get(pk=battle.pk)
    if not battle.turn.waiting_for_battles:
        raise InvalidBattleResult(
            f"Battle {battle.key} belongs to turn {battle.turn.number}, which is not waiting "
            "for battle results."
        )
    try:
        result = adapters.result_from_data(battle.key, data)
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
    battle.result = adapters.result_to_data(result)
    battle.resolver = resolver
    battle.status = Battle.Status.RESOLVED
    battle.resolved_at = timezone.now()
    battle.save(update_fields=battle.result_changed("result", "resolver", "status", "resolved_at"))
    return battle


@transaction.atomic
def battle_resolver_set(
    *,
    campaign: Campaign,
    battle: Battle,
    user: User,
    version: object,
    resolver: str,
    auto_at_deadline: bool = False,
) -> Battle:
    """The GM chooses how the battle is resolved: on the tabletop (the result entered by
    hand) or by the tactical engine; and whether the engine fights it at the turn's battles
    deadline if no result has been entered by then (`battles_auto_resolve_due`). `version`,
    here and below: the version of the result the form was built on (`battles.stale`)."""
    battle = _locked(battle)
    rights = rights_asking(campaign, battle, user)
    if not rights.is_gm:
        raise BattleRefused(_("Only the game master chooses how a battle is resolved."))
    result_expected(battle=battle, posted=version)
    require_waiting(battle)
    if battle.entry in (Battle.Entry.CONFIRMED, Battle.Entry.OVERRIDDEN):
        raise BattleRefused(
            _("Battle %(battle)s already has its result.") % {"battle": battle.label}
        )
    if resolver not in Battle.Resolver.values:
        raise ServiceError({RESOLVER_FIELD: [_("Choose tabletop or auto-resolve.")]})
    battle.resolver = resolver
    battle.auto_at_deadline = auto_at_deadline
    battle.save(update_fields=battle.result_changed("resolver", "auto_at_deadline"))
    _audit(
        battle,
        user,
        "resolver-set",
        data={"resolver": resolver, "auto_at_deadline": auto_at_deadline},
    )
    return battle


@transaction.atomic
def battle_auto_resolve(
    *, campaign: Campaign, battle: Battle, user: User, version: object
) -> Battle:
    """The GM has the tactical engine fight the battle now. Its dice are the turn's seed
    derived for this battle, so the same turn gives the same result. The result is checked
    like a tabletop entry and needs no confirmation: the battle is resolved, the engine's
    roll ledger goes to the audit log, and once every battle of the turn is, Phases 4–8 are
    queued."""
    battle = _locked(battle)
    rights = rights_asking(campaign, battle, user)
    if not rights.is_gm:
        raise BattleRefused(_("Only the game master can auto-resolve a battle."))
    result_expected(battle=battle, posted=version)
    require_waiting(battle)
    return _auto_resolve(battle, user, "auto-resolve")


def _auto_resolve(battle: Battle, user: User | None, action: str, note: str = "") -> Battle:
    """Fight the (locked, waiting) battle with the tactical engine and record its result as
    settled; `action` and `note` name why in the audit log."""
    if battle.status != Battle.Status.PENDING:
        raise BattleRefused(
            _("Battle %(battle)s already has its result.") % {"battle": battle.label}
        )
    state = adapters.state_current(campaign=battle.campaign)
    pending = next((b for b in state.pending_battles if b.battle_id == battle.key), None)
    if pending is None:
        raise BattleRefused(
            _("Battle %(battle)s is not waiting to be fought.") % {"battle": battle.label}
        )
    dice = SeededDice(derive_seed(battle.turn.seed or 0, "battle", battle.key))
    try:
        outcome = tactical_resolve(battle_input_from_state(state, pending), dice)
    except TacticalError as e:
        raise BattleRefused(
            _("The tactical engine cannot fight battle %(battle)s: %(why)s")
            % {"battle": battle.label, "why": e}
        ) from e
    data = to_data(outcome.result)
    data.pop("battle_id", None)
    check = battle_result_check(roster=battle_roster_get(battle=battle), data=data)
    if not check.ok:
        raise check.refusal()
    battle_result_record(battle=battle, data=check.data or {}, resolver=Battle.Resolver.AUTO)
    battle.refresh_from_db()
    battle.entry = Battle.Entry.CONFIRMED
    battle.entered_by = user
    battle.entered_at = timezone.now()
    battle.confirmed_by = None
    battle.save(
        update_fields=battle.result_changed("entry", "entered_by", "entered_at", "confirmed_by")
    )
    _audit(
        battle,
        user,
        action,
        note=note,
        data={
            "result": check.data,
            "seed": dice.seed,
            "turns": outcome.turns,
            "played": outcome.played,
            "log": list(outcome.log),
            "ledger": dice.ledger_dicts(),
        },
    )
    _settled_announce(battle.turn)
    return battle


def battles_due_auto_resolve_list(*, now: datetime) -> list[Battle]:
    """The battles the engine must fight now: marked "auto-resolve at the deadline", still
    waiting with no result entered, in a turn whose battles deadline has passed."""
    return list(
        Battle.objects.filter(
            status=Battle.Status.PENDING,
            auto_at_deadline=True,
            entry=Battle.Entry.NONE,
            turn__status=Turn.Status.BATTLES,
            turn__battles_deadline__lte=now,
        )
        .select_related("turn", "campaign")
        .order_by("turn_id", "contact_order", "pk")
    )


def battles_auto_resolve_due(*, now: datetime) -> list[Battle]:
    """Have the tactical engine fight every battle due at its deadline
    (`battles_due_auto_resolve_list`), each in its own transaction. One that the engine
    cannot fight, or that was settled meanwhile, is left for the GM (it stays in his inbox)
    and logged; the others go on. Returns the battles fought."""
    fought = []
    for battle in battles_due_auto_resolve_list(now=now):
        try:
            with transaction.atomic():
                locked = _locked(battle)
                if locked.entry != Battle.Entry.NONE or not locked.auto_at_deadline:
                    continue  # a result came in meanwhile: it goes the usual way
                require_waiting(locked)
                fought.append(
                    _auto_resolve(
                        locked,
                        None,
                        "auto-resolve-deadline",
                        note=str(AUTO_AT_DEADLINE_NOTE),
                    )
                )
        except ServiceError as e:
            log.warning("battle %s not auto-resolved at its deadline: %s", battle.pk, e)
    return fought


@transaction.atomic
def battle_result_enter(
    *,
    campaign: Campaign,
    battle: Battle,
    user: User,
    version: object,
    data: Mapping[str, Any],
    report_text: str = "",
) -> Battle:
    """A player of the battle (or the GM) enters its result; it waits for a player of the
    other side (either side, if the GM entered it) to confirm or dispute it. Until then it
    may be entered again; once confirmed, disputed or settled, only the GM changes it."""
    battle = _locked(battle)
    rights = rights_asking(campaign, battle, user)
    if not (rights.is_gm or rights.side):
        raise BattleRefused(
            _(
                "Only the players who fought battle %(battle)s, or the game master, can enter "
                "its result."
            )
            % {"battle": battle.label}
        )
    result_expected(battle=battle, posted=version)
    require_waiting(battle)
    refuse_settled(battle, rights)
    check = battle_result_check(roster=battle_roster_get(battle=battle), data=data)
    if not check.ok:
        raise check.refusal()
    battle.result = check.data
    battle.entry = Battle.Entry.ENTERED
    battle.entered_by = user
    battle.entered_at = timezone.now()
    battle.confirmed_by = None
    battle.report_text = report_text.strip()
    battle.save(
        update_fields=battle.result_changed(
            "result", "entry", "entered_by", "entered_at", "confirmed_by", "report_text"
        )
    )
    side = None if rights.is_gm else rights.side
    _audit(battle, user, "entered", data={"side": side, "result": check.data})
    return battle


@transaction.atomic
def battle_result_confirm(
    *, campaign: Campaign, battle: Battle, user: User, version: object
) -> Battle:
    """A player of the other side confirms the entered result, the one he read (`version`):
    the battle is resolved, and once every battle of the turn is, Phases 4–8 are queued."""
    battle = _locked(battle)
    rights = rights_asking(campaign, battle, user)
    result_expected(battle=battle, posted=version)
    require_waiting(battle)
    require_other_side(battle, rights)
    battle_result_record(battle=battle, data=battle.result or {}, resolver=Battle.Resolver.TABLETOP)
    battle.refresh_from_db()
    battle.entry = Battle.Entry.CONFIRMED
    battle.confirmed_by = user
    battle.save(update_fields=battle.result_changed("entry", "confirmed_by"))
    _audit(battle, user, "confirmed", data={"side": rights.side})
    _settled_announce(battle.turn)
    return battle


@transaction.atomic
def battle_result_dispute(
    *, campaign: Campaign, battle: Battle, user: User, version: object, note: str
) -> Battle:
    """A player of the other side disputes the entered result, saying why: the turn waits
    until the GM settles it (it shows in his inbox)."""
    battle = _locked(battle)
    rights = rights_asking(campaign, battle, user)
    result_expected(battle=battle, posted=version)
    require_waiting(battle)
    require_other_side(battle, rights)
    note = (note or "").strip()
    if not note:
        raise ServiceError(
            {NOTE_FIELD: [_("Say what is wrong with the result: the game master reads it.")]}
        )
    battle.entry = Battle.Entry.DISPUTED
    battle.dispute_note = note
    battle.save(update_fields=battle.result_changed("entry", "dispute_note"))
    _audit(battle, user, "disputed", note=note, data={"side": rights.side})
    return battle


@transaction.atomic
def battle_result_override(
    *,
    campaign: Campaign,
    battle: Battle,
    user: User,
    version: object,
    note: str,
    data: Mapping[str, Any] | None = None,
    report_text: str | None = None,
) -> Battle:
    """The GM settles the result, whatever its state, with a note that the audit log keeps:
    the given result, or the entered one when none is given. The battle is resolved, and once
    every battle of the turn is, Phases 4–8 are queued."""
    battle = _locked(battle)
    rights = rights_asking(campaign, battle, user)
    if not rights.is_gm:
        raise BattleRefused(_("Only the game master can override a battle's result."))
    result_expected(battle=battle, posted=version)
    require_waiting(battle)
    note = (note or "").strip()
    if not note:
        raise ServiceError(
            {NOTE_FIELD: [_("An override needs a note saying why: the audit log keeps it.")]}
        )
    if data is None:
        if battle.result is None:
            raise BattleRefused(
                _("No result of battle %(battle)s has been entered: give the result to settle.")
                % {"battle": battle.label}
            )
        data = battle.result
    check = battle_result_check(roster=battle_roster_get(battle=battle), data=data)
    if not check.ok:
        raise check.refusal()
    previous = {"entry": battle.entry, "result": battle.result}
    battle_result_record(battle=battle, data=check.data or {}, resolver=Battle.Resolver.TABLETOP)
    battle.refresh_from_db()
    battle.entry = Battle.Entry.OVERRIDDEN
    fields = ["entry"]
    if report_text is not None:
        battle.report_text = report_text.strip()
        fields.append("report_text")
    battle.save(update_fields=battle.result_changed(*fields))
    logged = {"result": check.data, "previous": previous}
    _audit(battle, user, "overridden", note=note, data=logged)
    changes = {"battle": battle.key, **logged}  # the campaign's audit log too
    AuditEntry.log(
        campaign, "overridden", user=user, turn=battle.turn.number, reason=note, changes=changes
    )
    _settled_announce(battle.turn)
    return battle


@transaction.atomic
def battle_photo_add(
    *, campaign: Campaign, battle: Battle, user: User, file: UploadedFile[bytes], caption: str = ""
) -> BattlePhoto:
    """A player of the battle or the GM adds a photo of it (JPEG, PNG or GIF, at most
    10 MB). It is stored under a new name; the uploaded name is not kept."""
    battle = _locked(battle)
    rights = rights_asking(campaign, battle, user)
    if not rights.can_add_photo:
        raise BattleRefused(
            _("Only the players who fought battle %(battle)s, or the game master, add photos.")
            % {"battle": battle.label}
        )
    size = getattr(file, "size", None) or 0
    if size > MAX_PHOTO_BYTES:
        raise ServiceError({PHOTO_FIELD: [_("A photo can be at most 10 MB.")]})
    ext = photo_type(file.read(16))
    file.seek(0)
    if ext is None or not size:
        raise ServiceError({PHOTO_FIELD: [_("The photo must be a JPEG, PNG, GIF or WebP image.")]})
    photo = BattlePhoto(battle=battle, caption=caption.strip()[:200], uploaded_by=user)
    photo.file.save(f"{uuid.uuid4().hex}.{ext}", ContentFile(file.read()), save=False)
    photo.save()
    _audit(battle, user, "photo-added", data={"photo": photo.pk, "caption": photo.caption})
    return photo


@transaction.atomic
def battle_odds_compute(*, battle: Battle) -> Json:
    """The tactical engine's odds for the battle (ODDS_RUNS simulated fights, seeded from the
    turn), cached on the battle for this version of its pack and rosters. Computing again for
    the same version returns the cached odds."""
    battle = _locked(battle)
    inp = battle_odds_input(battle=battle)
    version = battle_odds_hash(battle=battle, inp=inp)
    if battle.odds and battle.odds_pack_hash == version:
        return cast(Json, battle.odds)
    seed = derive_seed(battle.turn.seed or 0, "odds", battle.key)
    odds = _simulate(inp, seed)
    battle.odds = odds
    battle.odds_pack_hash = version
    battle.save(update_fields=["odds", "odds_pack_hash"])
    return odds


@transaction.atomic
def what_if_odds_compute(*, campaign: Campaign, turn: Turn, input_hash: str, data: Json) -> Json:
    """The odds of a what-if battle (`battles.selectors.what_if_input_get`; `data` is its
    engine input as JSON, `input_hash` the key the asking page looks for), cached for the
    campaign. Computing again for the same input returns the cached odds; odds asked for in
    earlier turns are dropped, since the forces have changed since."""
    cached = WhatIfOdds.objects.filter(campaign=campaign, input_hash=input_hash).first()
    if cached is not None:
        return cast(Json, cached.odds)
    inp: BattleInput = battle_input_from_data(data)
    if what_if_hash(inp=inp) != input_hash:
        raise ServiceError(_("The what-if battle does not match the odds asked for."))
    seed = derive_seed(0, "what-if", input_hash)
    odds = _simulate(inp, seed)
    row, _created = WhatIfOdds.objects.get_or_create(
        campaign=campaign, input_hash=input_hash, defaults={"turn": turn, "odds": odds}
    )
    WhatIfOdds.objects.filter(campaign=campaign, turn__number__lt=turn.number).delete()
    return cast(Json, row.odds)


def _simulate(inp: BattleInput, seed: int) -> Json:
    """The engine's odds over ODDS_RUNS fights, as data (the same whatever the pool: in a
    Celery prefork child it is none, in-process)."""
    with odds_pool(ODDS_RUNS) as pool:
        return tactical_simulate(inp, runs=ODDS_RUNS, seed=seed, pool=pool).to_dict()
