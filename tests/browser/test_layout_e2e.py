"""The pages' layout in a real Chromium (issue 11): buttons readable on their background, the
GM's controls side by side without overlapping, and no page scrolling sideways on a phone.

Each test starts at the home page and only clicks. The home page's campaign cards link their
campaign (by its name) once the integrator's branch is in; until then `campaign_open` falls
back to the overview's address, the only address typed after the home page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DESKTOP

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The WCAG contrast ratio of each visible button's text on what lies under it (the first
# ancestor with an opaque background; the page is white under all of them).
CONTRASTS = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const under = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return [...document.querySelectorAll('button, a.button')]
    .filter((b) => b.offsetParent !== null)
    .map((b) => {
      const ink = lum(rgb(getComputedStyle(b).color).slice(0, 3));
      const ground = lum(under(b));
      const ratio = (Math.max(ink, ground) + 0.05) / (Math.min(ink, ground) + 0.05);
      return [b.textContent.trim(), Math.round(ratio * 100) / 100];
    });
}"""


# The boxes of the GM's turn controls: each form's and those of the fields, labels and buttons
# in it
CONTROL_BOXES = """() => [...document.querySelectorAll('.turn-controls form')].map((form) => ({
  form: form.getBoundingClientRect().toJSON(),
  items: [...form.querySelectorAll('input:not([type=hidden]), select, button, label, strong, .meta')]
    .map((e) => ({ name: e.name || e.textContent.trim().slice(0, 30), box: e.getBoundingClientRect().toJSON() })),
}))"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5 and (
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
    )


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["left"] >= outer["left"] - 0.5
        and inner["right"] <= outer["right"] + 0.5
        and inner["top"] >= outer["top"] - 0.5
        and inner["bottom"] <= outer["bottom"] + 0.5
    )


def log_in(new_context, live_server, username: str, password: str, **context_args: Any) -> Page:
    """A page of a new browser context, logged in through the login form, on the home page."""
    context = new_context(**{**DESKTOP, **context_args})
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/")
    return page


def campaign_open(page: Page, name: str, slug: str) -> None:
    """From the home page, open the campaign's overview by clicking its card's link (named
    with the campaign's name); without one (the cards are not links before the integrator's
    branch is merged), go to the overview's address."""
    link = page.locator("main").get_by_role("link", name=name, exact=True)
    if link.count():
        link.first.click()
    else:
        page.goto(page.url.rstrip("/") + f"/c/{slug}/")
    expect(page.locator("nav.campaign-nav strong")).to_have_text(name)


def nav_click(page: Page, name: str) -> None:
    page.locator("nav.campaign-nav").get_by_role("link", name=name, exact=True).click()
    page.wait_for_load_state()


def assert_buttons_readable(page: Page) -> None:
    contrasts = page.evaluate(CONTRASTS)
    assert contrasts, page.url
    low = [(text, ratio) for text, ratio in contrasts if ratio < 4.5]
    assert not low, (page.url, low)


@pytest.fixture
def setup_world(transactional_db, settings) -> Callable[[], Any]:
    from tests.campaign.setup.test_setup import make_world

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world


def test_every_set_up_button_is_readable(setup_world, new_context, live_server):
    """White-on-white "Remove"/"Delete" buttons: every button of the set-up pages has a
    contrast of at least 4.5:1 with what lies under it."""
    world = setup_world(forces=True)
    gm = log_in(new_context, live_server, "gina", "gina-pass-1")
    campaign_open(gm, world.campaign.name, world.campaign.slug)
    for link in ("Holdings", "Sides and armies", "Invitations", "Roster", "Start"):
        nav_click(gm, link)
        assert_buttons_readable(gm)
    nav_click(gm, "Invitations")
    gm.get_by_role("button", name="Create the link").click()
    assert_buttons_readable(gm)  # with a "Withdraw" button
    nav_click(gm, "Roster")
    gm.locator("main").get_by_role("link", name="Hammer").click()
    expect(gm.get_by_role("button", name="Delete this force")).to_be_visible()
    assert_buttons_readable(gm)
    nav_click(gm, "Holdings")
    remove = gm.get_by_role("button", name="Remove").first
    expect(remove).to_be_visible()
    assert_buttons_readable(gm)



def test_the_gm_controls_do_not_overlap_on_a_laptop(demo, login):
    """At 1366 × 768 the deadline field ran under the "Extend" column: every control stays
    inside its own form, and no two controls overlap."""
    gm = login("gm", viewport={"width": 1366, "height": 768})
    campaign_open(gm, demo.name, demo.slug)
    forms = gm.evaluate(CONTROL_BOXES)
    assert len(forms) >= 3, forms
    items = []
    for i, form in enumerate(forms):
        for item in form["items"]:
            assert inside(item["box"], form["form"]), (item["name"], item["box"], form["form"])
            items.append((i, item))
    for n, (i, a) in enumerate(items):
        for j, b in items[n + 1 :]:
            assert i == j or not overlap(a["box"], b["box"]), (a, b)
    for i, a in enumerate(forms):
        for b in forms[i + 1 :]:
            assert not overlap(a["form"], b["form"]), (a["form"], b["form"])
