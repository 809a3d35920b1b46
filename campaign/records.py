"""The rows a resolution leaves behind: the stored resolution itself (so the turn can be
replayed and checked) and the maps its stored states refer to; the amendments and the audit
log; and the exports members asked for, written by a worker (`ExportJob`)."""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# a dice ledger entry's fields (`rules.RollRecord.to_dict`), in order
LEDGER_KEYS = (
    "seq",
    "purpose",
    "rule",
    "sides",
    "natural",
    "modifiers",
    "total",
    "outcome",
    "details",
    "values",
)
_LEDGER_KEYSET = frozenset(LEDGER_KEYS)
_MODIFIER_KEYSETS = (frozenset(("reason", "value")), frozenset(("reason", "value", "params")))
# The fields of a ledger written before the ledger spoke codes (English reasons and outcomes,
# no values): its stored rows are read back as such, for the upgrade to convert
# (`campaign.exchange.upgrade.ledger_v1`).
_V1_KEYS = LEDGER_KEYS[:-1]


def _modifiers_plain(modifiers: Any) -> bool:
    return isinstance(modifiers, list) and all(
        isinstance(m, dict) and m.keys() in _MODIFIER_KEYSETS for m in modifiers
    )


def _modifier_row(m: dict[str, Any]) -> list[Any]:
    params = m.get("params")
    return [m["reason"], m["value"], params] if params else [m["reason"], m["value"]]


def _modifier_dict(row: list[Any]) -> dict[str, Any]:
    if len(row) > 2:
        return {"reason": row[0], "value": row[1], "params": row[2]}
    return {"reason": row[0], "value": row[1]}


def ledger_compact(value: Any) -> Any:
    """A ledger as stored: each entry an array of `LEDGER_KEYS`' values (empty values as
    null), its modifiers [reason, value] or [reason, value, params]. The keys repeated on
    every roll were half the text a turn stored. An entry of any other shape is kept as it
    is."""
    if not isinstance(value, list):
        return value
    out: list[Any] = []
    for e in value:
        if isinstance(e, dict) and e.keys() == _LEDGER_KEYSET and _modifiers_plain(e["modifiers"]):
            row = [e[k] for k in LEDGER_KEYS]
            row[5] = [_modifier_row(m) for m in e["modifiers"]]
            row[9] = row[9] or None
            out.append(row)
        else:
            out.append(e)
    return out


def ledger_expand(value: Any) -> Any:
    """The ledger as readers take it, entries as dicts (`ledger_compact` undone; rows written
    before it hold dicts, read as they are; rows of the English ledger, nine fields, are read
    as its dicts)."""
    if not isinstance(value, list):
        return value
    out: list[Any] = []
    for e in value:
        if isinstance(e, list) and len(e) == len(LEDGER_KEYS):
            entry = dict(zip(LEDGER_KEYS, e, strict=True))
            entry["modifiers"] = [_modifier_dict(m) for m in entry["modifiers"]]
            entry["values"] = entry["values"] or {}
            out.append(entry)
        elif isinstance(e, list) and len(e) == len(_V1_KEYS):
            entry = dict(zip(_V1_KEYS, e, strict=True))
            entry["modifiers"] = [{"reason": r, "value": v} for r, v in entry["modifiers"]]
            out.append(entry)
        else:
            out.append(e)
    return out


class LedgerField(models.JSONField):
    """A dice ledger (a list of `rules.RollRecord.to_dict()` entries), stored compact
    (`ledger_compact`) and read back as the same dicts."""

    def get_prep_value(self, value: Any) -> Any:
        return super().get_prep_value(ledger_compact(value))

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return ledger_expand(super().from_db_value(value, expression, connection))


class TurnResolution(models.Model):
    """What one resolution did, kept so the turn can be replayed and checked: the state it
    started from, its inputs (orders or battle results), the seed, the ledger and events."""

    class Stage(models.TextChoices):
        TURN = "turn", _("Phases 0–2")
        AFTER = "after-battles", _("Phases 4–8")

    # Phases 0–2 run before Phases 4–8: the order stages are exported and replayed in
    STAGE_ORDER: ClassVar[dict[str, int]] = {Stage.TURN: 0, Stage.AFTER: 1}
    # `inputs` key of a Phases 4–8 run given its dice (tests): the values it used, which the
    # replay check re-uses (and says so)
    SCRIPTED_DICE = "scripted-dice"

    turn = models.ForeignKey("campaign.Turn", on_delete=models.CASCADE, related_name="resolutions")
    stage = models.CharField(max_length=20, choices=Stage.choices)
    seed = models.BigIntegerField()
    # the state it started from: in full or as a delta of the resolution before it, the map
    # by reference (campaign.stored_states reads and writes it)
    state_before = models.JSONField()
    # where each force stood at the start ({force: [x, y]}): what the map shows of a turn
    squares_before = models.JSONField(default=dict, blank=True)
    inputs = models.JSONField()
    ledger = LedgerField()
    events = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["turn", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "stage"], name="one_resolution_per_stage"),
        ]
        verbose_name = _("turn resolution")
        verbose_name_plural = _("turn resolutions")

    def __str__(self) -> str:
        return f"{self.turn} · {self.get_stage_display()}"


class StoredMap(models.Model):
    """One version of a campaign's map as the rules read it (`GameMap` data), which the
    stored states of its resolutions refer to by digest instead of each holding a copy."""

    campaign = models.ForeignKey(
        "campaign.Campaign", on_delete=models.CASCADE, related_name="stored_maps"
    )
    digest = models.CharField(max_length=64, db_index=True)  # SHA-256 of the data's canonical JSON
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "digest"], name="one_stored_map"),
        ]
        verbose_name = _("stored map")
        verbose_name_plural = _("stored maps")

    def __str__(self) -> str:
        return f"{self.campaign_id} · {self.digest[:12]}"


class StateStamp(models.Model):
    """A random token that the database renews whenever a row `state_load` reads changes
    (players, sides, holdings, forces, commands, units, individuals, squares): triggers of
    migration 0019 write it, so every write path counts, bulk updates, the admin and raw SQL
    included. A process keeps the rows it decoded under it (`campaign.state_cache`). No
    foreign key: a child row's delete trigger must not block deleting its campaign."""

    campaign_id = models.BigIntegerField(primary_key=True)
    stamp = models.CharField(max_length=36)

    class Meta:
        verbose_name = _("state stamp")
        verbose_name_plural = _("state stamps")

    def __str__(self) -> str:
        return f"{self.campaign_id} · {self.stamp}"


class Amendment(models.Model):
    """The GM's correction of one input of a resolved turn (a battle's result, a player's
    orders, the campaign's options in force that turn), or a rollback to the start of a turn:
    a new record linked to the input it corrects, which it keeps as it was. Drafted with a
    preview of what follows (`preview`: the consequences turn by turn, `digest` of the branch
    it replays), then committed (the campaign's line of turns replaced, the old one kept as a
    `LineArchive`) or discarded (the draft deleted). `campaign.turns.amend` owns its life."""

    class Kind(models.TextChoices):
        RESULT = "battle-result", _("Battle result")
        ORDERS = "orders", _("Orders")
        OPTIONS = "options", _("Campaign options")
        ROLLBACK = "rollback", _("Rollback")

    class Status(models.TextChoices):
        DRAFT = "draft", _("Previewed, not committed")
        COMMITTED = "committed", _("Committed")

    campaign = models.ForeignKey(
        "campaign.Campaign", on_delete=models.CASCADE, related_name="amendments"
    )
    number = models.PositiveIntegerField()  # 1, 2 … within the campaign
    turn_number = models.PositiveIntegerField(_("turn"))
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    target = models.CharField(max_length=50, blank=True)  # the battle's or player's key
    original = models.JSONField(null=True, blank=True)  # the input as it was
    amended = models.JSONField(null=True, blank=True)  # the input as it should have been
    reason = models.TextField(_("reason"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    # the line the preview was made from (`line_digest`): a commit on another line is refused
    base = models.CharField(max_length=64, blank=True)
    digest = models.CharField(max_length=64, blank=True)  # the branch previewed
    preview = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="amendment_number"),
        ]
        verbose_name = _("amendment")
        verbose_name_plural = _("amendments")

    def __str__(self) -> str:
        return f"{self.campaign_id} · {self.number} · {self.kind} {self.turn_number}"


class LineArchive(models.Model):
    """The turns an amendment replaced, as they were (the export's form of turns and battles,
    states whole): the GM reads them and they travel in the export."""

    campaign = models.ForeignKey(
        "campaign.Campaign", on_delete=models.CASCADE, related_name="line_archives"
    )
    amendment = models.OneToOneField(Amendment, on_delete=models.CASCADE, related_name="archive")
    from_turn = models.PositiveIntegerField()
    data = models.JSONField()  # {"turns": [...], "battles": [...], "state": ...}
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("replaced line of turns")
        verbose_name_plural = _("replaced lines of turns")

    def __str__(self) -> str:
        return f"{self.campaign_id} · from turn {self.from_turn}"


class AuditEntry(models.Model):
    """The campaign's audit log: every amendment, rollback, result override and claim
    recovery, who did it (none: the system), when, why and what changed."""

    class Action(models.TextChoices):
        AMENDED = "amended", _("Turn amended")
        ROLLED_BACK = "rolled-back", _("Campaign rolled back")
        OVERRIDDEN = "overridden", _("Battle result settled by the game master")
        CLAIM_RECOVERED = "claim-recovered", _("Interrupted resolution given back")
        CLAIM_RELEASED = "claim-released", _("Abandoned resolution released")

    campaign = models.ForeignKey(
        "campaign.Campaign", on_delete=models.CASCADE, related_name="audit_entries"
    )
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    turn_number = models.PositiveIntegerField(_("turn"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    changes = models.JSONField(default=dict, blank=True)  # what changed, as data
    amendment = models.ForeignKey(
        Amendment, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "-created_at", "-pk"]
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log")

    def __str__(self) -> str:
        return f"{self.campaign_id} · {self.action} · {self.created_at}"

    @classmethod
    def log(
        cls,
        campaign: Any,
        action: str,
        *,
        user: Any = None,
        turn: int | None = None,
        reason: str = "",
        changes: dict[str, Any] | None = None,
        amendment: Amendment | None = None,
    ) -> AuditEntry:
        """Add an entry (`campaign`: the campaign or its id)."""
        key = "campaign_id" if isinstance(campaign, int) else "campaign"
        return cls.objects.create(
            **{key: campaign},
            action=action,
            user=user,
            turn_number=turn,
            reason=reason,
            changes=changes or {},
            amendment=amendment,
        )


class ExportJob(models.Model):
    """A member's export of the campaign, written by a worker (`campaign.exchange.jobs`) and
    downloaded by him alone once ready: the whole campaign for the GM, what his side may see
    for anyone else. `reader` says for whom it was written (role, army followed, whether he
    saw everything), and a download is refused when the member no longer reads the campaign
    that way. The document is kept gzipped; a member keeps his last finished one, a day."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting for a worker")
        RUNNING = "running", _("Being written")
        READY = "ready", _("Ready")
        FAILED = "failed", _("Not written")

    class Failure(models.TextChoices):
        """Why an export failed, as its reader is told."""

        LOST = "lost", _("its worker stopped before it was written")
        LEFT = "left", _("what you may see of the campaign changed before it was written")
        ERROR = "error", _("an error stopped it (the worker's log says which)")

    IN_FLIGHT = (Status.QUEUED, Status.RUNNING)

    campaign = models.ForeignKey(
        "campaign.Campaign", on_delete=models.CASCADE, related_name="export_jobs"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reader = models.CharField(max_length=80)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    step = models.CharField(max_length=20, blank=True)  # what the worker is at (a key)
    percent = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now_add=True)  # the last sign of life of its worker
    finished_at = models.DateTimeField(null=True, blank=True)
    content = models.BinaryField(null=True, blank=True)  # the JSON document, gzipped
    size = models.PositiveBigIntegerField(default=0)  # the JSON's bytes, unzipped
    failure = models.CharField(max_length=10, choices=Failure.choices, blank=True)

    class Meta:
        ordering = ["campaign", "user", "-created_at", "-pk"]
        constraints = [
            # one export at a time per member and campaign: a second click finds the first
            models.UniqueConstraint(
                fields=["campaign", "user"],
                condition=models.Q(status__in=["queued", "running"]),
                name="export_job_one_in_flight",
            ),
        ]
        verbose_name = _("export")
        verbose_name_plural = _("exports")

    def __str__(self) -> str:
        return f"{self.campaign_id} · {self.user_id} · {self.status}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.READY, self.Status.FAILED)
