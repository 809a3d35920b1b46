"""`rules/` is pure: standard library only, no clock, no module-level randomness.

Every module under rules/ is parsed (not imported) and its imports checked, wherever they
appear. Only rules/dice.py (its own `random.Random` instances), rules/cli/calculator.py (the
CLI's fresh seed) and rules/generate.py (a seeded `random.Random` for synthetic campaigns,
never game dice) may import `random`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = {"django", "celery", "time", "psycopg", "psycopg2"}
RANDOM_ALLOWED = {"dice.py", "cli/calculator.py", "generate.py"}


def modules() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def imported(tree: ast.AST) -> list[tuple[str, int]]:
    """Top-level module names of every import statement, with line numbers."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name.split(".")[0], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module.split(".")[0], node.lineno))
    return found


def test_rules_has_modules():
    names = {p.relative_to(RULES).as_posix() for p in modules()}
    assert {"dice.py", "checks.py", "cli/calculator.py", "setup/__init__.py"} <= names


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(RULES)))
def test_module_imports_are_pure(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(RULES.parent)
    for name, line in imported(tree):
        assert name not in FORBIDDEN, f"{where}:{line} imports {name}"
        if name == "random":
            assert path.relative_to(RULES).as_posix() in RANDOM_ALLOWED, (
                f"{where}:{line} imports random; take an injected Dice instead"
            )


def test_the_checker_sees_forbidden_imports():
    tree = ast.parse(
        "import time\nfrom django.db import models\ndef f():\n    from random import choice\n"
    )
    assert [n for n, _ in imported(tree)] == ["time", "django", "random"]
