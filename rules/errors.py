"""Precise errors. Invalid orders are data (`OrderError`), not exceptions."""

from __future__ import annotations

from dataclasses import dataclass


class RulesError(ValueError):
    """Base class for rules-engine errors."""


class DiceError(RulesError):
    """Scripted dice misuse: exhausted, left over, or a value that is not a face."""


class InconsistentState(RulesError):
    """The state breaks an invariant (unknown id, force off the map, hostile stack…)."""


class InvalidResult(RulesError):
    """A battle result that cannot apply to its battle."""


class ScenarioError(RulesError):
    """A scenario data file that does not describe a playable scenario."""


@dataclass(frozen=True, slots=True)
class OrderError:
    """One problem with a player's orders, shown beside the field it concerns.

    `code` is stable for programs; `message` is for people; `field` names the order field."""

    force_id: str | None
    code: str
    message: str
    field: str = ""
    index: int | None = None  # path step index, when relevant

    def to_dict(self) -> dict[str, str | int | None]:
        return {
            "force_id": self.force_id,
            "code": self.code,
            "message": self.message,
            "field": self.field,
            "index": self.index,
        }


class IllegalOrders(RulesError):
    """Raised only where a caller insists on valid orders; carries the typed errors."""

    def __init__(self, errors: list[OrderError]) -> None:
        self.errors = errors
        super().__init__("; ".join(e.message for e in errors))
