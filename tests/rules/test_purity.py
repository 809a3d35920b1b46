"""`rules/` is pure: an allow-list of standard-library modules, no clock, no module-level
randomness.

Every module under rules/ is parsed (not imported) and its imports checked, wherever they
appear. The core may import only CORE (and `rules` itself); the scenario loader may also read
its data files; rules/cli/, the engine's I/O edge, may use more of the standard library. No
module anywhere imports django, celery, psycopg or time. Only rules/dice.py and
rules/generate.py (seeded `random.Random` instances) and rules/cli/calculator.py (the CLI's
fresh seed, `SystemRandom`) may import `random`, and only those classes of it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN = {"django", "celery", "time", "psycopg", "psycopg2"}
CORE = {
    "__future__",
    "abc",
    "collections.abc",
    "dataclasses",
    "enum",
    "fractions",
    "functools",
    "json",  # text ⇄ values, no I/O: the codec quotes a refused value as the JSON it came from
    "gc",  # the turn holds off the cyclic collector while it runs (rules.turn)
    "contextlib",
    "math",
    "re",
    "types",
    "typing",
}
SCENARIOS = CORE | {"pathlib", "tomllib"}  # rules/scenarios/ reads its own TOML files
CLI = CORE | {
    "argparse",
    "concurrent.futures",
    "contextlib",
    "json",
    "multiprocessing",
    "os",
    "pathlib",
    "sys",
    "textwrap",
    "threading",
    "timeit",  # default_timer: a monotonic clock for the seconds a simulation took
}
# Module → the names of `random` it may use: seeded generators, or the CLI's fresh seed.
RANDOM = {
    "dice.py": {"Random"},
    "generate.py": {"Random"},
    "cli/calculator.py": {"SystemRandom"},
}


def modules() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def rel(path: Path) -> str:
    return path.relative_to(RULES).as_posix()


def allowed_for(path: Path) -> set[str]:
    where = rel(path)
    if where.startswith("cli/"):
        return CLI
    if where.startswith("scenarios/"):
        return SCENARIOS
    return CORE


def imported(tree: ast.AST) -> list[tuple[str, int]]:
    """Full module names of every import statement, with line numbers (relative imports are
    of `rules` itself)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(("rules" if node.level else node.module or "", node.lineno))
    return sorted(found, key=lambda item: item[1])


def random_names(tree: ast.AST) -> set[str]:
    """The names a module takes from `random`: `from random import X` and `random.X`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            names |= {alias.name for alias in node.names}
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            names.add(node.attr)
    return names


def is_allowed(name: str, allowed: set[str]) -> bool:
    return any(name == a or name.startswith(a + ".") for a in allowed | {"rules"})


def test_rules_has_modules():
    names = {rel(p) for p in modules()}
    assert {"dice.py", "checks.py", "cli/calculator.py", "setup/__init__.py"} <= names


@pytest.mark.parametrize("path", modules(), ids=rel)
def test_module_imports_are_pure(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(RULES.parent)
    allowed = allowed_for(path) | ({"random"} if rel(path) in RANDOM else set())
    for name, line in imported(tree):
        assert name.split(".")[0] not in FORBIDDEN, f"{where}:{line} imports {name}"
        assert is_allowed(name, allowed), (
            f"{where}:{line} imports {name}, which is not on its allow-list"
            + ("; take an injected Dice instead" if name == "random" else "")
        )
    if rel(path) in RANDOM:
        used = random_names(tree)
        assert used <= RANDOM[rel(path)], f"{where} uses random.{sorted(used)}"


def test_the_checker_sees_forbidden_imports():
    tree = ast.parse(
        "import time\nfrom django.db import models\ndef f():\n    from random import choice\n"
        "from . import dice\nimport os.path\n"
    )
    assert [n for n, _ in imported(tree)] == ["time", "django.db", "random", "rules", "os.path"]
    assert random_names(ast.parse("import random\nrandom.seed(1)\nrandom.Random(2)\n")) == {
        "seed",
        "Random",
    }
    assert not is_allowed("os.path", CORE) and is_allowed("os.path", CLI)
    assert not is_allowed("collections", CORE) and is_allowed("rules.dice", CORE)
    assert not is_allowed("time", CLI) and not is_allowed("datetime", CLI)


def test_allow_lists_are_standard_library():
    for name in CLI | SCENARIOS | {"random"}:
        assert name.split(".")[0] in sys.stdlib_module_names, name
