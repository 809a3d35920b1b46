"""What the orders page's "Random events" box shows (`campaign:orders-events`): the choices
the book leaves to the player when a random event comes up, written in advance like every
standing order (issue 13):

- "you may roll again" (*potete rilanciare*: §9.4.1 result 8, the Incursion day-7 table):
  whether he does (`PlayerOrders.event_reroll`);
- where a blow falls (A-41: its owner chooses): for each kind, his forces or holdings in the
  order he wants them struck (`PlayerOrders.event_targets`; the first still valid is used).

Offered only for the events that can come up in his campaign (`rules.event_choices_offered`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from campaign.text.names import force_label
from rules import EVENT_TARGET_KINDS, CampaignState, PlayerOrders, event_choices_offered

RANKS = 3  # ranked choices per kind: the first still valid is used

KIND_LABELS: dict[str, Promise] = {
    "leader-stress": gettext_lazy("A leader under stress: the force whose leader drops to CV 2"),
    "blizzard": gettext_lazy("A storm: which force is Shattered"),
    "epidemic-holding": gettext_lazy("An epidemic: in which holding"),
    "catastrophe-force": gettext_lazy(
        "A catastrophe strikes the square of one of your forces: which force"
    ),
    "catastrophe-holding": gettext_lazy(
        "A catastrophe strikes the square of one of your holdings: which holding"
    ),
}


@dataclass(frozen=True)
class TargetRow:
    """One kind of blow: his forces or holdings to choose from, and his ranked choice."""

    kind: str
    label: Promise
    options: tuple[tuple[str, str], ...]  # (id, name)
    ranks: tuple[str, ...]  # RANKS entries, "" where none is chosen

    @property
    def slots(self) -> list[tuple[int, str]]:
        """(rank number from 1, the id chosen there) for the template's selects."""
        return [(i + 1, v) for i, v in enumerate(self.ranks)]


@dataclass(frozen=True)
class EventChoices:
    reroll_offered: bool
    reroll: bool
    rows: tuple[TargetRow, ...]

    @property
    def show(self) -> bool:
        return self.reroll_offered or bool(self.rows)

    def row(self, kind: str) -> TargetRow | None:
        return next((r for r in self.rows if r.kind == kind), None)


def event_choices_for_player(
    *, state: CampaignState, player_key: str, orders: PlayerOrders
) -> EventChoices:
    """The box for one player, from the state and his saved orders."""
    reroll_offered, kinds = event_choices_offered(state, player_key)
    forces = tuple((f.id, force_label(f)) for f in state.forces if f.owner == player_key)
    holdings = tuple(
        (h.id, h.name or h.id)
        for h in state.holdings
        if h.owner == player_key and not (h.destroyed or h.carried_by)
    )
    rows = []
    for kind in kinds:
        options = forces if EVENT_TARGET_KINDS[kind] == "force" else holdings
        if not options:
            continue
        ids = {i for i, _name in options}
        chosen = [i for i in orders.event_targets.get(kind, ()) if i in ids][:RANKS]
        ranks = tuple(chosen + [""] * (RANKS - len(chosen)))
        rows.append(TargetRow(kind, KIND_LABELS[kind], options, ranks))
    return EventChoices(reroll_offered, orders.event_reroll, tuple(rows))
