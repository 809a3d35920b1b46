"""Who may do what with one battle's result, now, decided once (`BattleRights`): the result
page uses it to show the right forms, and `battles.services` to refuse what it does not allow.
Who may see the battle at all is fog of war's one rule (`campaign.fog.battle_visible`)."""

from __future__ import annotations

from dataclasses import dataclass

from battles.models import Battle, BattleAudit
from battles.roster import SIDE_KEYS
from campaign.access import Viewer

# audit actions taken by the periodic deadline check, not by a user
CLOCK_ACTIONS = {"auto-resolve-deadline"}

# result entry states in which the turn may go on to Phases 4–8
SETTLED = (Battle.Entry.CONFIRMED, Battle.Entry.OVERRIDDEN)


@dataclass(frozen=True)
class BattleRights:
    """What one member may do with one battle's result, now. Who may see the battle at all is
    fog of war's one rule (`campaign.fog.battle_visible`)."""

    is_gm: bool
    side: str | None  # "a" / "b": the viewer is a player of that side (alliance) of the battle
    entry: str  # Battle.Entry
    entered_side: str | None  # the side whose player entered the result (None: the GM)
    waiting: bool  # the battle's turn waits for battle results
    amendable: bool = False  # it has its result and its turn is resolved (an amendment)

    @property
    def can_enter(self) -> bool:
        """A player of the battle while the result is not confirmed, disputed or settled;
        the GM too, while no one has confirmed it (after that he overrides)."""
        return (
            self.waiting
            and (self.is_gm or self.side is not None)
            and self.entry in (Battle.Entry.NONE, Battle.Entry.ENTERED)
        )

    @property
    def can_confirm(self) -> bool:
        """A player of the other side than the one who entered it (either side for a
        result the GM entered)."""
        return (
            self.waiting
            and self.entry == Battle.Entry.ENTERED
            and self.side is not None
            and self.side != self.entered_side
        )

    @property
    def can_dispute(self) -> bool:
        return self.can_confirm

    @property
    def can_override(self) -> bool:
        return self.waiting and self.is_gm

    @property
    def can_amend(self) -> bool:
        """The GM corrects a result once the turn is resolved: an amendment of the turn,
        previewed before it is committed (`campaign.turns.amend`)."""
        return self.amendable and self.is_gm

    @property
    def can_set_resolver(self) -> bool:
        return self.waiting and self.is_gm and self.entry not in SETTLED

    @property
    def can_add_photo(self) -> bool:
        return self.is_gm or self.side is not None


def battle_side_for_alliance(*, battle: Battle, side_key: str | None) -> str | None:
    """The battle side ("a" or "b") of an alliance, if it fights in the battle."""
    if not side_key:
        return None
    for key, side in zip(SIDE_KEYS, (battle.pack or {}).get("sides", []), strict=False):
        if side.get("side") == side_key:
            return key
    return None


def battle_entered_side_get(*, battle: Battle) -> str | None:
    """The side whose player entered the current result (from the audit log); None when the
    GM entered it or nothing is entered."""
    if battle.entry == Battle.Entry.NONE:
        return None
    last = (
        BattleAudit.objects.filter(battle=battle, action="entered")
        .order_by("-created_at", "-pk")
        .values_list("data", flat=True)
        .first()
    )
    side = last.get("side") if isinstance(last, dict) else None
    return side if side in SIDE_KEYS else None


def battle_rights_for_viewer(*, battle: Battle, viewer: Viewer) -> BattleRights:
    """Only players act for a side: an observer who follows a player may read, not enter."""
    return BattleRights(
        is_gm=viewer.is_gm,
        side=battle_side_for_alliance(battle=battle, side_key=viewer.side_key)
        if viewer.is_player
        else None,
        entry=battle.entry,
        entered_side=battle_entered_side_get(battle=battle),
        waiting=battle.turn.waiting_for_battles,
        amendable=battle.result is not None and battle.turn.resolved,
    )
