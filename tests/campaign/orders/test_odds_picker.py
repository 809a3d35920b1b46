"""The what-if odds picker (issue 14): a card offers its nearest visible enemies, at most
`ENEMY_CHOICES_MAX`, nearest first, not every enemy force of the campaign."""

from __future__ import annotations

from types import SimpleNamespace

from campaign.orders.selectors import ENEMY_CHOICES_MAX, enemy_choices
from rules import Force, Status


def _enemy(i: int, square: tuple[int, int]) -> Force:
    return Force(id=f"e{i:02d}", owner="blue", square=square, status=Status.PROBE, commands=())


def test_a_card_offers_only_its_nearest_enemies_nearest_first():
    enemies = tuple(_enemy(i, (i, 0)) for i in range(20))  # e00 at (0, 0) … e19 at (19, 0)
    card = SimpleNamespace(square=(10, 0))
    choices = enemy_choices(card, enemies)  # type: ignore[arg-type]
    assert len(choices) == ENEMY_CHOICES_MAX == 8
    assert [c.distance for c in choices] == [0, 1, 1, 2, 2, 3, 3, 4]
    assert [c.key for c in choices[:3]] == ["e10", "e09", "e11"]  # ties by name
    assert enemy_choices(card, enemies[:3]) and len(enemy_choices(card, enemies[:3])) == 3  # type: ignore[arg-type]
