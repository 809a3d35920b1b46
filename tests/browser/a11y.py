"""Accessibility checks in the browser: axe-core (vendored from the npm registry, version
4.14.1, MPL-2.0: tests/browser/vendor/) runs in the page and reports WCAG violations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
BLOCKING = {"serious", "critical"}


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """The serious and critical violations axe finds in the page as it stands now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # evaluated, not added as a <script>: the site's Content-Security-Policy refuses
        # inline scripts (a script added by a test included)
        page.evaluate(AXE.read_text() + "\n;true")
    result = page.evaluate(
        "() => axe.run(document, {resultTypes: ['violations'],"
        " runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})"
    )
    return [v for v in result["violations"] if v.get("impact") in BLOCKING]


def axe_report(violations: list[dict[str, Any]]) -> str:
    """One line per violation and element, for an assertion message."""
    lines = []
    for v in violations:
        for node in v["nodes"][:5]:
            lines.append(f"{v['impact']} {v['id']}: {v['help']} at {node['target']}")
    return "\n".join(lines)
