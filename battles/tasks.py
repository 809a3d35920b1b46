"""Battle tasks: each takes ids, calls one service of `battles.services`, and is safe to run
twice (the odds are cached per version of the pack, or per what-if input, so a second run
finds them computed). Retries: `config.celery.RETRY`."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from battles import services
from battles.models import Battle
from campaign.models import Turn
from config.celery import RETRY

log = logging.getLogger(__name__)


@shared_task(name="battles.battle_odds", **RETRY)
def battle_odds_task(battle_id: int) -> str:
    """Compute (or find cached) the tactical engine's odds of one battle."""
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        log.info("battle_odds(%s): no such battle", battle_id)
        return "skipped"
    services.battle_odds_compute(battle=battle)
    return "computed"


@shared_task(name="battles.what_if_odds", **RETRY)
def what_if_odds_task(turn_id: int, input_hash: str, data: dict[str, Any]) -> str:
    """Compute (or find cached) the odds of a what-if battle asked for on the orders page."""
    turn = Turn.objects.select_related("campaign").filter(pk=turn_id).first()
    if turn is None:
        log.info("what_if_odds(%s): no such turn", turn_id)
        return "skipped"
    services.what_if_odds_compute(
        campaign=turn.campaign, turn=turn, input_hash=input_hash, data=data
    )
    return "computed"
