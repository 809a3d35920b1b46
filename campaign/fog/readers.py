"""Fog of war over battles and amendments: who may read them. The rules are in `campaign.fog`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from battles.models import Battle
from campaign.access import Viewer
from campaign.models import Amendment, Campaign, Player

# --- battles ---------------------------------------------------------------------------------


def battle_sides(battle: Battle) -> tuple[str, ...]:
    """The alliances (side keys) that fight `battle`, side "a" first."""
    return tuple(str(s.get("side")) for s in (battle.pack or {}).get("sides", []))


def battle_visible(*, viewer: Viewer, battle: Battle) -> bool:
    """Whether `viewer` may see this battle at all (see the module text)."""
    if battle.campaign_id != viewer.campaign.pk:
        return False
    return sees_sides(viewer, battle_sides(battle))


def sees_sides(viewer: Viewer, sides: Iterable[str]) -> bool:
    if viewer.sees_everything:
        return True
    return viewer.side_key is not None and viewer.side_key in sides


def battle_sides_get(*, campaign: Campaign) -> dict[str, tuple[str, ...]]:
    """Battle id → the alliances that fought it, side "a" first: what a lens needs to know
    which battles a viewer's side fought (one query)."""
    return {
        key: tuple(str(s.get("side")) for s in sides or ())
        for key, sides in Battle.objects.filter(campaign=campaign).values_list("key", "pack__sides")
    }


# --- amendments ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AmendmentReaders:
    """Who reads what an amendment corrects and why: whoever sees the `sides` (see the module
    text); None: everyone."""

    sides: tuple[str, ...] | None

    def include(self, viewer: Viewer) -> bool:
        return self.sides is None or sees_sides(viewer, self.sides)


def amendment_readers(amendment: Amendment) -> AmendmentReaders:
    """The sides that saw what `amendment` corrects: a battle's two sides, a player's side;
    everyone for the options in force and a rollback. A battle is read as the amendment's
    preview recorded it: a later amendment may have given its key to another battle, or
    deleted its row."""
    if amendment.kind == Amendment.Kind.RESULT:
        for turn in (amendment.preview or {}).get("diff", []):
            for pair in turn.get("battles", []):
                if pair.get("battle") != amendment.target:
                    continue
                for v in (pair.get("old"), pair.get("new")):
                    if v is not None:
                        return AmendmentReaders(tuple(str(s) for s in v.get("sides", [])))
        battle = Battle.objects.filter(
            campaign_id=amendment.campaign_id, key=amendment.target
        ).first()
        return AmendmentReaders(battle_sides(battle) if battle is not None else ())
    if amendment.kind == Amendment.Kind.ORDERS:
        side = (
            Player.objects.filter(campaign_id=amendment.campaign_id, key=amendment.target)
            .values_list("side__key", flat=True)
            .first()
        )
        return AmendmentReaders((side,) if side else ())
    return AmendmentReaders(None)
