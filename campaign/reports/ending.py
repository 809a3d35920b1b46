"""The end of a campaign: who won and how, against the scenario's victory conditions, with
the campaign's totals by army. Only an ended campaign has this page; by then fog of war is
lifted for everyone (`Viewer.sees_everything`), so it shows the same to every member."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q
from django.utils.translation import gettext as _

from battles.models import Battle
from campaign.models import Campaign, Player, Turn
from campaign.text.labels import ENDED, ENDED_HOW, label
from rules import RulesError, load_scenario


@dataclass(frozen=True)
class ArmyTotals:
    player: Player
    side: str
    won: bool
    battles_won: int
    battles_lost: int
    forces: int
    holdings: int  # held at the end, not destroyed
    capitals: int
    surrendered: bool


@dataclass(frozen=True)
class Ending:
    reason: str  # in a few words
    how: str  # a sentence with the rule
    winner: str  # the winning side's name; empty for a draw
    conditions: list[str]  # the scenario's victory conditions
    turns: int
    days: int
    battles: int
    armies: list[ArmyTotals]
    last_turn: Turn | None


def ending_get(*, campaign: Campaign) -> Ending:
    """The final page's content; the campaign must have ended."""
    sides = dict(campaign.sides.values_list("key", "name"))
    players = (
        Player.objects.filter(campaign=campaign)
        .select_related("side")
        .annotate(
            n_forces=Count("forces", distinct=True),
            n_holdings=Count("holdings", filter=Q(holdings__destroyed=False), distinct=True),
            n_capitals=Count(
                "holdings",
                filter=Q(holdings__destroyed=False, holdings__capital=True),
                distinct=True,
            ),
        )
        .order_by("position", "key")
    )
    armies = [
        ArmyTotals(
            player=p,
            side=p.side.name,
            won=bool(campaign.winner) and p.side.key == campaign.winner,
            battles_won=p.battles_won,
            battles_lost=p.battles_lost,
            forces=p.n_forces,
            holdings=p.n_holdings,
            capitals=p.n_capitals,
            surrendered=p.surrendered,
        )
        for p in players
    ]
    last = campaign.turns.order_by("-number").first()
    return Ending(
        reason=label(ENDED, campaign.ended),
        how=label(ENDED_HOW, campaign.ended) if campaign.ended in ENDED_HOW else "",
        winner=sides.get(campaign.winner, campaign.winner) if campaign.winner else "",
        conditions=_conditions(campaign),
        turns=last.number if last else 0,
        days=campaign.day,
        battles=Battle.objects.filter(campaign=campaign, status=Battle.Status.RESOLVED).count(),
        armies=armies,
        last_turn=last,
    )


def _conditions(campaign: Campaign) -> list[str]:
    """How the campaign could be won: the will to fight always (R9.1), then what the
    scenario adds (§11.7 for the Incursion)."""
    out = [_("A side wins when every other side fails its will-to-fight test (R9.1).")]
    if not campaign.scenario:
        return out
    try:
        victory = load_scenario(campaign.scenario).victory
    except RulesError:
        return out
    if victory.loot_to_capital:
        out.append(
            _(
                "The %(role)s win by bringing a force carrying loot into their capital's "
                "square (R11.7.2)."
            )
            % {"role": victory.loot_to_capital.capitalize()}
        )
    if victory.end_day:
        out.append(
            _("On day %(day)s the campaign ends: %(reason)s.")
            % {"day": victory.end_day, "reason": label(ENDED, victory.end_reason).lower()}
        )
    return out
