"""Shared fixtures for the rules tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import pytest

from rules.dice import ScriptedDice


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """Keep each phase's report on the item, so fixtures can see whether the test passed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def scripted(request: pytest.FixtureRequest) -> Iterator[Callable[[Iterable[int]], ScriptedDice]]:
    """Factory of `ScriptedDice`; at teardown every die scripted by a passing test must have
    been used (a failing test already reports its own problem)."""
    made: list[ScriptedDice] = []

    def make(values: Iterable[int]) -> ScriptedDice:
        dice = ScriptedDice(values)
        made.append(dice)
        return dice

    yield make
    call = getattr(request.node, "rep_call", None)
    if call is not None and call.passed:
        for dice in made:
            dice.assert_exhausted()
