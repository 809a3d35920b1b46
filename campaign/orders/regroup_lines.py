"""What the orders page's "Regrouping" box lists (R8.3.2 [NARAN]): each unit of the player's
forces whose speciality has points in its force's pool, with the figures he asked for, and,
where the roster gives the type's minimum size, a new unit of it (R8.3.3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from campaign.text.labels import SPECIALITY, label

if TYPE_CHECKING:
    from campaign.orders.selectors import OrdersPage


@dataclass(frozen=True)
class RegroupLine:
    """One unit a pool may buy figures for, and how many its owner asked for."""

    field: str
    force_id: str
    unit_id: str
    force: str
    unit: str
    speciality: str
    points_per_figure: int
    pool: int
    figures: int
    new_field: str  # R8.3.3: a new unit of this type, when `min_figures` is known
    min_figures: int
    leader_points: int
    new_figures: int


def regroup_lines(page: OrdersPage) -> list[RegroupLine]:
    """Every unit of the player's forces whose speciality has points in the force's pool."""
    if not page.state.options.naran_regroup:
        return []
    asked = {(p.force_id, p.unit_id, p.new_unit): p.figures for p in page.orders.regroup}
    out: list[RegroupLine] = []
    for card in page.forces:
        pool = card.force.regroup_pool
        for u in card.force.units:
            points = pool.get(u.speciality.value, 0)
            if points and u.points_per_figure:
                out.append(
                    RegroupLine(
                        f"regroup-{len(out)}",
                        card.key,
                        u.id,
                        card.name,
                        u.type,
                        label(SPECIALITY, u.speciality),
                        u.points_per_figure,
                        points,
                        asked.get((card.key, u.id, False), 0),
                        f"regroup-{len(out)}-new",
                        u.min_figures,
                        u.leader_points,
                        asked.get((card.key, u.id, True), 0),
                    )
                )
    return out
