from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        # the campaign export carries the notification log (campaign.exchange.parts)
        from campaign.exchange.parts import part_register
        from notifications.exchange import PART

        part_register(PART)
