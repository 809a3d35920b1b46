"""Battles: created pending (with their pack) by Phases 0–2, resolved with a result."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from campaign.models import Campaign, Turn


class Battle(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RESOLVED = "resolved", _("Resolved")

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

    class Meta:
        ordering = ["campaign", "turn__number", "contact_order"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="battle_key")]
        verbose_name = _("battle")
        verbose_name_plural = _("battles")

    def __str__(self) -> str:
        return f"{self.key} ({self.x}, {self.y})"
