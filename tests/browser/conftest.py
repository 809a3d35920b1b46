"""Browser tests: Playwright drives Debian's Chromium (never a downloaded one) against
pytest-django's live server. See docs/environment.md, "Browser tests".

Sync Playwright runs an event loop in the test's thread, and Django refuses ORM calls from a
thread with a running loop unless told it is safe: here it is, the test's own ORM calls (to
set up the demo and check the database) never run concurrently with that loop's tasks.

The site's Content-Security-Policy is enforced here as everywhere (config/settings.py): every
browser context reports each violation the policy makes (its `securitypolicyviolation`
events, and the console's "Content Security Policy" errors), and a test whose pages made one
fails (`no_csp_violation`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import expect

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# An `expect(...)` waits for its condition up to this long (Playwright's own default is 5 s):
# a page that runs the tactical engine (the odds) took 11 s on a loaded 2-core machine. A
# bound, not a pace: a condition that holds sooner ends the wait at once.
expect.set_options(timeout=60_000)

CHROMIUM = Path("/usr/bin/chromium")
# screenshots and other artefacts the tests leave for people to look at (gitignored)
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"
PASSWORDS = {"gm": "gm-pass-1", "raider": "raider-pass-1", "defender": "defender-pass-1"}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


# htmx marks swapped-in content `htmx-added` until its settle step has processed it (given it
# its hx-* listeners, 20 ms after the swap): a click or a change before then goes unheard
HTMX_IDLE = (
    "() => !document.querySelector('.htmx-added, .htmx-settling, .htmx-swapping, .htmx-request')"
)


def htmx_idle(page) -> None:
    """Wait until htmx has no request in flight and has processed what it swapped in."""
    page.wait_for_function(HTMX_IDLE)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (./run tests does it)")
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            # this machine's network is closed: without these Chromium keeps dialling out
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    # English pages whatever the machine's locale (the tests read their text)
    return {**browser_context_args, "locale": "en-US", "timezone_id": "UTC"}


# in every document, before its own scripts: each violation goes to the test (`new_context`)
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.fwCspViolation(`${e.effectiveDirective} refused ${e.blockedURI || "inline"}`
    + ` in ${e.documentURI} (${e.sourceFile || "the page"}:${e.lineNumber}) ${e.sample}`);
});
"""


@pytest.fixture
def csp_violations() -> list[str]:
    return []


@pytest.fixture
def new_context(new_context: Callable[..., Any], csp_violations: list[str]) -> Callable[..., Any]:
    """pytest-playwright's `new_context` (which the `context` and `page` fixtures use too),
    each context reporting the policy's violations to `csp_violations`."""

    def report(text: str) -> None:  # a function of ours: Playwright wraps no builtin
        csp_violations.append(text)

    def console(message: Any) -> None:
        if "Content Security Policy" in message.text:
            csp_violations.append(f"console: {message.text}")

    def make(**kwargs: Any) -> Any:
        context = new_context(**kwargs)
        context.expose_function("fwCspViolation", report)
        context.add_init_script(CSP_LISTENER)
        context.on("console", console)
        return context

    return make


@pytest.fixture(autouse=True)
def no_csp_violation(csp_violations: list[str]):
    """Fails the test if a page broke the Content-Security-Policy. Its teardown comes after
    the contexts are closed (it was set up first), when every report has arrived."""
    yield
    assert not csp_violations, "Content-Security-Policy violations:\n" + "\n".join(csp_violations)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def demo(transactional_db, settings):
    """The demo campaign with fog of war on and known passwords for its three users."""
    from campaign.models import Campaign, Membership

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("load_demo", stdout=StringIO())  # it prints random passwords: replace them
    campaign = Campaign.objects.get(slug="incursion")
    campaign.fog_of_war = True
    campaign.save(update_fields=["fog_of_war"])
    for m in Membership.objects.filter(campaign=campaign).select_related("user"):
        m.user.set_password(PASSWORDS[m.user.username])
        m.user.save(update_fields=["password"])
    return campaign


@pytest.fixture
def login(live_server, new_context) -> Callable[..., Any]:
    """login(username, **context_args) → a page of a new browser context, logged in through
    the login form. `new_context` closes the contexts after the test."""

    def log_in(username: str, **context_args: Any):
        context = new_context(**{**DESKTOP, **context_args})
        context.set_default_timeout(15_000)
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORDS[username])
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(f"{live_server.url}/")
        return page

    return log_in


@pytest.fixture
def phone_page(new_context) -> Callable[..., Any]:
    """phone_page(page) → a page on a phone-sized screen, logged in as `page`'s user."""

    def open_phone(page):
        context = new_context(**PHONE, storage_state=page.context.storage_state())
        context.set_default_timeout(15_000)
        return context.new_page()

    return open_phone
