"""The Content-Security-Policy in a real browser: the site's own pages break none of it (every
browser test checks that, tests/browser/conftest.py), and the check itself catches a breach:
a script written into the page is refused, and reported."""

from __future__ import annotations

import time

WAIT = 10  # seconds: bounded, a report that never comes fails the test


def test_an_inline_script_is_refused_and_the_check_sees_it(live_server, page, csp_violations):
    page.goto(f"{live_server.url}/accounts/login/")
    assert "script-src 'self' 'nonce-" in page.evaluate(
        "() => fetch(location.href).then(r => r.headers.get('content-security-policy'))"
    )

    page.evaluate(
        """() => {
            const s = document.createElement("script");
            s.textContent = "window.fwRan = true";
            document.body.append(s);
        }"""
    )

    deadline = time.monotonic() + WAIT
    while not csp_violations and time.monotonic() < deadline:
        page.evaluate("() => new Promise(r => setTimeout(r, 50))")  # lets the report arrive
    assert not page.evaluate("() => window.fwRan === true")
    assert csp_violations and "script-src" in csp_violations[0], csp_violations
    csp_violations.clear()  # the breach this test made on purpose: the test itself passes
