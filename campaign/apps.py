from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CampaignConfig(AppConfig):
    name = "campaign"
    verbose_name = _("Campaigns")

    def ready(self) -> None:
        # receivers: the turn's state machine listens for what battles and orders announce.
        # tasks: the turn's services queue them by name, so every process (the web one too,
        # where Celery's autodiscovery never runs) must have them registered.
        # (the exports' tasks too: the export page queues them by name)
        # the campaign export carries the set-up rolls (campaign.exchange.parts)
        # and the amendments with the audit log (campaign.exchange.history)
        from campaign.exchange import tasks as export_tasks  # noqa: F401
        from campaign.exchange.history import AMENDMENTS, AUDIT
        from campaign.exchange.parts import part_register
        from campaign.setup.rolls import PART
        from campaign.turns import receivers, tasks  # noqa: F401

        part_register(PART)
        part_register(AMENDMENTS)  # before the audit log, which names them
        part_register(AUDIT)
