"""What every set-up check and calculator shares: its error and its problems as data.

Validations return their problems as data (`SetupProblem`), like `validate_orders`: the
set-up form shows them while the GM types. Calculators raise `SetupError` only for inputs
that cannot describe anything (negative points, an unknown formula).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rules.errors import RulesError


class SetupError(RulesError):
    """A set-up calculator was given values that describe nothing (e.g. negative points)."""


@dataclass(frozen=True, slots=True)
class SetupProblem:
    """One broken set-up rule. `code` is stable for programs, `message` is for people (in
    English, naming things by their ids); `facts` holds what the message says as data, keyed
    by the code's own names (for holdings: "holding", "square", "owner", "other", "distance",
    "terrain", "race", "player", "capitals"), for a program that words it its own way."""

    code: str
    message: str
    rule: str
    subject: str | None = None  # force, holding or player id
    facts: Mapping[str, object] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, str | None]:
        return {
            "code": self.code,
            "message": self.message,
            "rule": self.rule,
            "subject": self.subject,
        }


class Problems:
    """Collects `SetupProblem`s for one validation."""

    def __init__(self) -> None:
        self.items: list[SetupProblem] = []

    def add(
        self, code: str, rule: str, message: str, subject: str | None = None, **facts: object
    ) -> None:
        self.items.append(SetupProblem(code, message, rule, subject, facts))

    def extend(self, problems: Iterable[SetupProblem]) -> None:
        self.items.extend(problems)

    def __call__(self) -> tuple[SetupProblem, ...]:
        return tuple(self.items)


def non_negative(name: str, value: int) -> None:
    if value < 0:
        raise SetupError(f"{name} must be 0 or more, not {value}")
