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

from campaign.models import Holding
from tests.browser.conftest import DESKTOP, PHONE

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
  items: [...form.querySelectorAll(
    'input:not([type=hidden]), select, button, label, strong, .meta')].map((e) => ({
      name: e.name || e.textContent.trim().slice(0, 30),
      box: e.getBoundingClientRect().toJSON(),
    })),
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


# The map on a phone: its box, the drawing in it and the size of one square, in CSS pixels
MAP_SIZES = """() => {
  const box = document.querySelector('.map-scroll'), svg = box.querySelector('svg.map');
  const cols = Number(getComputedStyle(box).getPropertyValue('--map-cols'));
  const vb = svg.viewBox.baseVal;
  return { box: box.clientWidth, boxHeight: box.clientHeight, scroll: box.scrollWidth,
           scrollHeight: box.scrollHeight, svg: svg.getBoundingClientRect().width,
           svgHeight: svg.getBoundingClientRect().height,
           square: svg.getBoundingClientRect().width * 10 / vb.width, cols };
}"""


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


def assert_no_sideways_scroll(page: Page) -> None:
    page.wait_for_load_state()
    width, client = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width <= client, f"{page.url} is {width}px wide on a {client}px screen"


def battles_waiting(campaign) -> None:
    """Turn 1 of the demo closed and resolved to two battles waiting for their results (the
    defenders stand on the raiders' paths; the seed is fixed), as in test_battle_e2e."""
    from campaign.models import Force, Orders
    from campaign.selectors import turn_current
    from campaign.turns.services import turn_close, turn_resolve_run

    Force.objects.filter(campaign=campaign, key="d3").update(x=4, y=8)
    Force.objects.filter(campaign=campaign, key="d2").update(x=4, y=5)
    Orders.objects.filter(turn__campaign=campaign).update(status=Orders.Status.CONFIRMED)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=7)
    turn_resolve_run(turn_id=turn.pk)


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


def check_phone_map(page: Page) -> None:
    """The whole grid is reachable (the box pans to its last column and row) with squares a
    finger can tap; the zoom button fits the whole map in the width, and back."""
    sizes = page.evaluate(MAP_SIZES)
    assert sizes["square"] >= 40, sizes  # a tap target
    assert sizes["scroll"] >= sizes["svg"] - 1 and sizes["scrollHeight"] >= sizes["svgHeight"] - 1
    page.locator(".map-scroll").first.evaluate("b => b.scrollTo(b.scrollWidth, b.scrollHeight)")
    last = page.locator("svg.map .axis text").nth(sizes["cols"] - 1)
    expect(last).to_be_in_viewport()
    assert_no_sideways_scroll(page)
    page.get_by_role("button", name="Show the whole map").first.click()
    whole = page.evaluate(MAP_SIZES)
    assert whole["svg"] <= whole["box"] + 1, whole  # every column in the width
    assert whole["scrollHeight"] <= whole["boxHeight"] + 1, whole
    page.get_by_role("button", name="Zoom in: bigger squares").first.click()
    assert page.evaluate(MAP_SIZES)["square"] >= 40


@pytest.mark.parametrize("who", ["raider", "gm"])
def test_no_page_scrolls_sideways_on_a_phone(demo, login, who, artifacts):
    """At 390 × 844 a player and the GM click through home, overview, map, orders, the turn
    report and a battle's pages: none scrolls sideways (wide tables scroll in their own box),
    and the map's whole grid is reachable with squares big enough to tap."""
    battles_waiting(demo)
    page = login(who, **PHONE)
    assert_no_sideways_scroll(page)
    campaign_open(page, demo.name, demo.slug)
    assert_no_sideways_scroll(page)
    nav_click(page, "Map")
    assert_no_sideways_scroll(page)
    check_phone_map(page)
    page.screenshot(path=str(artifacts / f"phone-map-{who}.png"))
    for link in ("Orders", "Turn report", "Battles"):
        nav_click(page, link)
        assert_no_sideways_scroll(page)
        page.screenshot(path=str(artifacts / f"phone-{link.lower().replace(' ', '-')}-{who}.png"))
    battle = page.locator("#battle-list tr[data-battle]").first
    battle.get_by_role("link").last.click()  # its pack
    assert_no_sideways_scroll(page)
    for link in ("Enter or confirm the result", "The battle's report"):
        page.locator("main").get_by_role("link", name=link).first.click()
        assert_no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"phone-battle-report-{who}.png"), full_page=True)


def test_a_click_on_the_holdings_map_fills_the_square(setup_world, new_context, live_server):
    """Holdings were placed by typing x and y: a click on a square of the map fills them."""
    world = setup_world()
    gm = log_in(new_context, live_server, "gina", "gina-pass-1")
    campaign_open(gm, world.campaign.name, world.campaign.slug)
    nav_click(gm, "Holdings")
    gm.locator('svg.map .click[data-x="2"][data-y="4"]').click()
    form = gm.locator("#holding-form")
    expect(form.get_by_label("Column (x)")).to_have_value("2")
    expect(form.get_by_label("Row (y)")).to_have_value("4")
    assert gm.url.endswith("/setup/holdings/")  # filled in place, not by opening the link
    form.get_by_label("Name").fill("Watchtower")
    form.get_by_role("button", name="Place").click()
    expect(gm.get_by_text("Watchtower placed.")).to_be_visible()
    assert Holding.objects.filter(campaign=world.campaign, name="Watchtower", x=2, y=4).exists()
