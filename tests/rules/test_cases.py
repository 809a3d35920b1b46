"""Runs every adjudication case file under tests/rules/cases/ (see its README)."""

import pytest

from tests.rules.casefile import Case, all_cases


@pytest.mark.parametrize("path", all_cases(), ids=lambda p: p.stem)
def test_case(path):
    Case(path).check()
