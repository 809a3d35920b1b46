from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CampaignConfig(AppConfig):
    name = "campaign"
    verbose_name = _("Campaigns")

    def ready(self) -> None:
        # the turn's state machine listens for what battles and orders announce
        from campaign.turns import receivers  # noqa: F401
