"""Notifications: the delivery log (one row per message meant for one user) and each user's
opt-outs. A row is also the notice the user reads on the site (his notification list and the
unread badge in the header): it exists whether or not the email went out, and `read_at`
says when he opened it there.

A row is unique per (user, turn, kind, key), so a task that runs twice finds the row of the
first run and does not send again. `key` tells apart messages of one kind in one turn: the
battle for a battle notice, the deadline for a turn-opened notice or a reminder (a new
deadline is news), the player and a count for the game master's reminders ("raiders:2", the
second he sent that player this turn), empty otherwise.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from campaign.models import Campaign, Turn
from notifications.titles import title_read


class Kind(models.TextChoices):
    TURN_OPENED = "turn-opened", _("Turn opened for orders")
    REMINDER = "reminder", _("Reminder 24 hours before the deadline")
    BATTLE = "battle", _("A battle involving you")
    MISSING_ORDERS = "missing-orders", _("Your forces acted without orders")
    TURN_RESOLVED = "turn-resolved", _("Turn resolved: your digest of the turn")
    GM_REMINDER = "gm-reminder", _("Reminder from the game master")
    AMENDED = "amended", _("A past turn amended by the game master")


class Notification(models.Model):
    """One message for one user: what it said, and what became of it (the delivery log)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Being sent")
        SENT = "sent", _("Sent")
        SKIPPED_OPT_OUT = "skipped-opt-out", _("Not sent: you opted out")
        SKIPPED_NO_EMAIL = "skipped-no-email", _("Not sent: no email address")
        FAILED = "failed", _("Failed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    key = models.CharField(max_length=100, blank=True, default="")
    subject = models.CharField(_("subject"), max_length=200)
    # the title's code and values, to write it in the reader's language (`title`)
    params = models.JSONField(default=dict, blank=True)
    body = models.TextField(_("message"))
    url = models.URLField(_("link"), max_length=500, blank=True)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    error = models.TextField(_("error"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "turn", "kind", "key"], name="notification_once"
            ),
        ]
        indexes = [
            models.Index(fields=["user", "-created_at"], name="notification_user_log"),
            # the header's unread badge counts these on every page
            models.Index(
                fields=["user"], condition=Q(read_at__isnull=True), name="notification_unread"
            ),
        ]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")

    def __str__(self) -> str:
        return f"{self.user} · {self.get_kind_display()} · {self.turn}"

    @property
    def title(self) -> str:
        """The title in the active language (the reader's); the stored subject for a notice
        from before titles had codes."""
        return title_read(self.params, self.subject)


class NotificationPreference(models.Model):
    """A user's choice for one kind of notification, or for all of them (`kind="all"`).
    No row means the notification is wanted."""

    ALL = "all"
    KINDS = [(ALL, _("All notifications")), *Kind.choices]

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    kind = models.CharField(_("kind"), max_length=20, choices=KINDS)
    enabled = models.BooleanField(_("enabled"), default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="notification_preference"),
        ]
        verbose_name = _("notification preference")
        verbose_name_plural = _("notification preferences")

    def __str__(self) -> str:
        state = _("on") if self.enabled else _("off")
        return f"{self.user} · {self.get_kind_display()} · {state}"
