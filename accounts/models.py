"""What an account adds to Django's user: the language he reads the site in, and his time zone
(every moment on every page, email and notice is on his clock: `campaign.moments`).

The display name needs no row of its own: it is `User.first_name`, which
`campaign.selectors.user_label` (through `get_full_name()`) shows everywhere a user is named,
without a join."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    # an IANA name ("Europe/Rome"), checked with zoneinfo by the forms and the services
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return str(self.user)


class CalendarFeed(models.Model):
    """A user's private calendar of deadlines (`accounts.calendar`): whoever holds the address
    with its token reads it, so the user can reset the token (the old address stops
    working)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed"
    )
    token = models.CharField(_("token"), max_length=64, unique=True)
    reset_at = models.DateTimeField(_("reset at"), auto_now=True)

    class Meta:
        verbose_name = _("calendar feed")
        verbose_name_plural = _("calendar feeds")

    def __str__(self) -> str:
        return str(self.user)
