"""Battles: created pending (with their pack) by Phases 0–2, resolved with a result."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from campaign.models import Campaign, Turn
from campaign.text.labels import battle_number


class Battle(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RESOLVED = "resolved", _("Resolved")

    class Entry(models.TextChoices):
        NONE = "none", _("No result yet")
        ENTERED = "entered", _("Entered, awaiting confirmation")
        CONFIRMED = "confirmed", _("Confirmed by both sides")
        DISPUTED = "disputed", _("Disputed")
        OVERRIDDEN = "overridden", _("Settled by the game master")

    class Resolver(models.TextChoices):
        TABLETOP = "tabletop", _("Tabletop")
        AUTO = "auto", _("Auto-resolve")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="battles")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="battles")
    key = models.CharField(max_length=50)  # the rules battle id, e.g. "t3-b1"
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    contact_order = models.PositiveIntegerField(default=1)
    pack = models.JSONField(_("battle pack"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    resolver = models.CharField(max_length=10, choices=Resolver.choices, default=Resolver.TABLETOP)
    result = models.JSONField(_("result"), null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    # the tabletop entry: one player enters, the other confirms or disputes; the GM settles
    entry = models.CharField(
        _("result entry"), max_length=12, choices=Entry.choices, default=Entry.NONE
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    entered_at = models.DateTimeField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    dispute_note = models.TextField(_("dispute"), blank=True)
    report_text = models.TextField(_("battle report"), blank=True)
    auto_at_deadline = models.BooleanField(_("auto-resolve at the deadline"), default=False)
    # the tactical engine's odds (rules.tactical.Odds.to_dict), cached per version of the pack
    # and rosters: `odds_pack_hash` is the hash they were computed for
    odds = models.JSONField(_("odds"), null=True, blank=True)
    odds_pack_hash = models.CharField(max_length=64, blank=True)
    # one more at every change of the result or of its entry (`result_changed`): a form of the
    # result page names the version it was rendered from, and a service refuses another
    # (`battles.stale`). Not exported: an imported battle starts again at 0.
    result_version = models.PositiveIntegerField(_("version of the result"), default=0)

    class Meta:
        ordering = ["campaign", "turn__number", "contact_order"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="battle_key")]
        verbose_name = _("battle")
        verbose_name_plural = _("battles")

    def __str__(self) -> str:
        return f"{self.key} ({self.x}, {self.y})"

    @property
    def label(self) -> str:
        """The battle as people number it, after the word "battle": "1 of turn 3"."""
        return battle_number(self.key)

    def result_changed(self, *fields: str) -> list[str]:
        """The result or its entry changed (entered, confirmed, disputed, settled, fought by
        the engine, amended, its resolver chosen): the version goes up one. Returns `fields`
        with the version, to save (`update_fields`, `bulk_update`). The caller holds the row
        locked, or writes it in the transaction that locked the campaign's turns."""
        self.result_version += 1
        return [*fields, "result_version"]


MAX_PHOTO_BYTES = 10 * 1024 * 1024
# the image types a photo may be, by their first bytes (no imaging library is needed)
PHOTO_SIGNATURES = (
    (b"\xff\xd8\xff", "jpg"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
)
PHOTO_TYPES = frozenset(("jpg", "png", "gif", "webp"))


def photo_type(head: bytes) -> str | None:
    """The extension of the image whose first 16 bytes are `head` (None: not a photo type)."""
    ext = next((e for sig, e in PHOTO_SIGNATURES if head.startswith(sig)), None)
    if ext is None and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        ext = "webp"
    return ext


def _photo_path(instance: BattlePhoto, filename: str) -> str:
    return f"battles/{instance.battle.campaign.slug}/{instance.battle.key}/{filename}"


class BattlePhoto(models.Model):
    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="photos")
    file = models.FileField(_("photo"), upload_to=_photo_path)
    caption = models.CharField(_("caption"), max_length=200, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("battle photo")
        verbose_name_plural = _("battle photos")

    def __str__(self) -> str:
        return self.caption or self.file.name or ""


class BattleAudit(models.Model):
    """Every change to a battle's result: who, what, and the GM's mandatory note."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="audit")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    action = models.CharField(_("action"), max_length=30)
    note = models.TextField(_("note"), blank=True)
    data = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["battle", "created_at", "pk"]
        verbose_name = _("battle audit entry")
        verbose_name_plural = _("battle audit log")

    def __str__(self) -> str:
        return f"{self.battle} · {self.action}"


class WhatIfOdds(models.Model):
    """The tactical engine's odds of a battle that has not happened: a player's force against
    a visible enemy force, asked for on the orders page. Cached per campaign and input (the
    sha256 of the engine input, built only from what the asking side may know), so that a
    Celery worker computes them once and the page finds them."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="+")
    input_hash = models.CharField(max_length=64)
    odds = models.JSONField(_("odds"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "input_hash"], name="what_if_input")
        ]
        verbose_name = _("what-if odds")
        verbose_name_plural = _("what-if odds")

    def __str__(self) -> str:
        return f"{self.campaign_id}:{self.input_hash[:12]}"
