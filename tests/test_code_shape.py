"""The shape the code keeps (docs/architecture.md): no module of the web app over 600 lines,
no function anywhere over 80 lines, and the import contracts (pyproject.toml,
`[tool.importlinter]`) kept. Ruff checks complexity (C901 at 15) and statement counts
(PLR0915 at 50); this checks what ruff cannot."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("campaign", "battles", "notifications", "config")
CODE = (*APPS, "rules")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def _sources(packages: tuple[str, ...]) -> list[Path]:
    return sorted(
        p for pkg in packages for p in (ROOT / pkg).rglob("*.py") if "migrations" not in p.parts
    )


def test_no_module_of_the_web_app_is_over_600_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in _sources(APPS)
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these modules (at most {MAX_MODULE_LINES} lines): {long}"


def test_no_function_is_over_80_lines():
    long = []
    for path in _sources(CODE):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert not long, f"split these functions (at most {MAX_FUNCTION_LINES} lines): {long}"


def test_the_import_contracts_are_kept():
    """`lint-imports`: the layers, the turn alone driving battles and notifications, the
    battles app on the campaign's core only, the rules engine's public API only."""
    tool = Path(sys.executable).parent / "lint-imports"
    if not tool.exists() and shutil.which("lint-imports") is None:
        pytest.fail("import-linter is a dev dependency: run `uv sync` (./run does)")
    done = subprocess.run(
        [str(tool) if tool.exists() else "lint-imports", "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
