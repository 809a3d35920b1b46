"""The turn's answers to what the rest of the app announces (`campaign.signals`): each calls
one service of the state machine. Connected when the app is ready (`campaign.apps`)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from campaign.models import Turn
from campaign.signals import battles_settled, orders_confirmed
from campaign.turns import services


@receiver(battles_settled, dispatch_uid="turns-battles-settled")
def _battles_settled(sender: Any, *, turn: Turn, **kwargs: Any) -> None:
    services.turn_after_battles_queue(turn=turn)


@receiver(orders_confirmed, dispatch_uid="turns-orders-confirmed")
def _orders_confirmed(sender: Any, *, turn: Turn, **kwargs: Any) -> None:
    services.turn_close_if_ready_queue(turn=turn)
