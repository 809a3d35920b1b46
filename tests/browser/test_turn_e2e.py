"""A whole turn of the demo campaign in a real Chromium, as its three people play it.

The game master sets the deadline of turn 1 on the overview (and pauses its clock: with a
deadline, the last confirmation would close the turn by itself, and here the GM closes it);
the raider and the defender, each in his own browser, draw a path by clicking squares of the
map, save and confirm; the GM closes the turn (Celery runs eagerly: the resolution runs inside
that request, in the live server's thread) and looks at the new map; both players read the
report, and the raider's pages hold none of the defender forces fog of war hides from him.
Screenshots of the map page, desktop and phone, go to test-artifacts/.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils.html import escape
from playwright.sync_api import Page, expect

from campaign.adapters import state_current
from campaign.fog import visible_force_keys
from campaign.models import Campaign, Orders, Sighting, Turn
from campaign.selectors import turn_current
from campaign.turns.services import turn_close
from tests.browser.conftest import htmx_idle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"


def hidden_force_names(campaign: Campaign, side: str) -> dict[str, str]:
    """Enemy forces (key → name) the side neither sees now nor remembers as a ghost."""
    state = state_current(campaign=campaign)
    side_of = {p.id: p.side for p in state.players}
    seen = visible_force_keys(state, side) | set(
        Sighting.objects.filter(campaign=campaign, side_key=side).values_list(
            "force_key", flat=True
        )
    )
    return {f.id: f.name for f in state.forces if side_of[f.owner] != side and f.id not in seen}


def assert_hidden(page: Page, hidden: dict[str, str]) -> None:
    html = page.content()
    for key, name in hidden.items():
        assert name not in html and escape(name) not in html, (page.url, name)
        assert f'data-force="{key}"' not in html, (page.url, key)
        assert f'id="force-{key}"' not in html, (page.url, key)


def click_square(page: Page, force: str, x: int, y: int) -> None:
    page.locator(f'#orders-force-{force} rect.click[data-x="{x}"][data-y="{y}"]').click()


def draw_path(page: Page, force: str, squares: list[tuple[int, int]]) -> None:
    """Click the squares one after the other; each click comes back with the path so far."""
    path_field = page.locator(f'#orders-form-{force} input[name="path"]')
    drawn: list[str] = []
    for x, y in squares:
        click_square(page, force, x, y)
        drawn.append(f"{x},{y}")
        expect(path_field).to_have_value("; ".join(drawn))
        htmx_idle(page)


def open_editor(page: Page, force: str, name: str) -> None:
    page.locator(f"#orders-force-{force}").get_by_role(
        "link", name=f"Edit the orders of {name}"
    ).click()
    expect(page.locator(f"#orders-form-{force}")).to_be_visible()
    htmx_idle(page)


def save_and_confirm(page: Page, force: str, name: str, summary: str) -> None:
    page.get_by_role("button", name=f"Save the orders of {name}").click()
    card = page.locator(f"#orders-force-{force}")
    expect(card).to_contain_text("Saved. Confirm your orders")
    expect(card).to_contain_text(summary)
    htmx_idle(page)
    page.get_by_role("button", name="Confirm my orders for turn 1 as final").click()
    status = page.locator("#orders-status")
    expect(status).to_contain_text("Your orders for turn 1 are confirmed.")
    expect(status.locator(".badge-confirmed")).to_be_visible()


def screenshot_map(page: Page, phone: Page, who: str, artifacts, url: str) -> None:
    """The map page on a desktop screen and on a phone's, saved for people to look at; on
    the phone the page itself must not scroll sideways (the map scrolls in its box)."""
    for kind, p in (("desktop", page), ("phone", phone)):
        p.goto(url)
        expect(p.locator("svg.map")).to_be_visible()
        p.screenshot(path=str(artifacts / f"map-{who}-{kind}.png"), full_page=True)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= phone.viewport_size["width"], f"{who}'s map page is {width}px wide on a phone"


def test_a_whole_turn_in_the_browser(demo, login, phone_page, live_server, artifacts):
    base = f"{live_server.url}/c/{SLUG}"

    # --- the GM opens turn 1: a deadline three days away, then the clock paused ----------------
    gm = login("gm")
    gm.goto(f"{base}/")
    panel = gm.locator("#turn-panel")
    expect(panel).to_contain_text("Turn 1, day 0")
    expect(panel).to_contain_text("Orders are open.")
    deadline = (datetime.now(UTC) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    gm.fill('input[name="deadline"]', deadline)
    gm.select_option('select[name="timezone"]', "Europe/Rome")
    gm.get_by_role("button", name="Set the deadline").click()
    expect(gm.get_by_text("The deadline is set.")).to_be_visible()
    expect(panel).to_contain_text("UTC")  # set in Rome's time, shown on the GM's own clock
    gm.get_by_role("button", name="Pause the turn").click()
    expect(gm.get_by_text("The turn is paused: its deadline will not fire.")).to_be_visible()
    turn = Turn.objects.get(campaign=demo, number=1)
    assert turn.deadline is not None and turn.paused and turn.timezone == "Europe/Rome"

    # --- the raider: Hakon's Warband (Probe, at 2,4) gets a new path, clicked on the map -------
    raider = login("raider")
    raider.goto(f"{base}/orders/")
    open_editor(raider, "r2", "Hakon's Warband")
    raider.locator("#orders-force-r2").get_by_role("button", name="Clear the path").click()
    expect(raider.locator("#orders-force-r2 .path-empty")).to_be_visible()
    htmx_idle(raider)
    draw_path(raider, "r2", [(3, 4), (4, 4)])
    save_and_confirm(raider, "r2", "Hakon's Warband", "(3, 4) → (4, 4)")

    # --- the defender: the Northern March (Defend) asks for Probe, then gets a path ------------
    defender = login("defender")
    defender.goto(f"{base}/orders/")
    open_editor(defender, "d2", "The Northern March")
    defender.select_option("#orders-form-d2 select[name=change_to]", "probe")
    expect(defender.locator("#chance-d2")).to_contain_text("Chance the force acts as ordered")
    htmx_idle(defender)
    draw_path(defender, "d2", [(12, 1), (13, 1)])
    save_and_confirm(defender, "d2", "The Northern March", "(12, 1) → (13, 1)")

    orders = {o.player.key: o for o in Orders.objects.filter(turn=turn).select_related("player")}
    assert orders["raiders"].status == orders["defenders"].status == Orders.Status.CONFIRMED
    assert orders["raiders"].data["forces"]["r2"]["path"] == [[3, 4], [4, 4]]
    d2 = orders["defenders"].data["forces"]["d2"]
    assert d2["change_to"] == "probe" and d2["path"] == [[12, 1], [13, 1]]
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.OPEN  # paused: the GM closes

    # --- the GM sees both confirmed, closes the turn; it resolves in that request --------------
    gm.goto(f"{base}/")
    expect(gm.locator('[data-orders="confirmed"]')).to_have_count(2)
    gm.once("dialog", lambda dialog: dialog.accept())  # "… cannot be undone"
    gm.get_by_role("button", name="Close the turn and resolve it").click()
    expect(gm.get_by_text("The turn is closed and its resolution has started.")).to_be_visible()
    turn.refresh_from_db()
    assert turn.status == Turn.Status.RESOLVED, turn.status
    assert Turn.objects.get(campaign=demo, number=2).status == Turn.Status.OPEN
    panel = gm.locator("#turn-panel")
    expect(panel).to_contain_text("Turn 2, day 1")
    expect(panel).to_contain_text("Orders are open.")
    expect(panel).to_contain_text(f"Seed {turn.seed}; its hash was {turn.seed_hash}.")
    expect(panel).not_to_have_attribute("hx-trigger", "every 2s")  # settled: no polling

    gm.goto(f"{base}/map/")
    expect(gm.locator("#map-title")).to_contain_text("turn 2")
    expect(gm.locator('svg.map [data-force="d2"]')).to_have_count(1)  # the GM sees everyone
    screenshot_map(gm, phone_page(gm), "gm", artifacts, f"{base}/map/")

    # --- both players read the report; fog of war hides the defenders from the raider ----------
    demo.refresh_from_db()
    hidden_from_raider = hidden_force_names(demo, "raiders")
    hidden_from_defender = hidden_force_names(demo, "defenders")
    assert hidden_from_raider, "nothing hidden: the fog-of-war check would prove nothing"
    for page, hidden in ((raider, hidden_from_raider), (defender, hidden_from_defender)):
        page.goto(f"{base}/turns/1/")
        expect(page.locator("main h1")).to_have_text("Turn 1: report and dice ledger")
        expect(page.locator("#seed")).to_contain_text(f"The seed of this turn was {turn.seed}.")
        expect(page.locator("#narrative-title")).to_be_visible()
        assert_hidden(page, hidden)
        page.goto(f"{base}/map/")
        expect(page.locator("#map-title")).to_contain_text("turn 2")
        assert_hidden(page, hidden)
    expect(raider.locator('svg.map [data-force="r2"]')).to_have_count(1)  # his own, moved
    expect(defender.locator('svg.map [data-force="d2"]')).to_have_count(1)
    # the lists repeating the map in words come when opened, under the same fog
    raider.locator("#map-lists summary").click()
    table = raider.locator("#map-lists table.map-table")
    expect(table).to_be_visible()
    expect(table.get_by_role("link", name="Hakon's Warband")).to_be_visible()
    raider.screenshot(path=str(artifacts / "map-raider-lists.png"), full_page=True)
    assert_hidden(raider, hidden_from_raider)

    for who, page in (("raider", raider), ("defender", defender)):
        phone = phone_page(page)
        screenshot_map(page, phone, who, artifacts, f"{base}/map/")
        assert_hidden(phone, hidden_from_raider if who == "raider" else hidden_from_defender)


def test_the_overview_follows_the_resolution_by_itself(demo, login, live_server):
    """The GM's turn panel polls while the turn waits for a worker, and swaps in the next
    turn by itself once the worker is done: no reload, and the polling stops."""
    from campaign.turns.tasks import turn_resolve_task

    turn = turn_close(turn=turn_current(campaign=demo), seed=11)
    gm = login("gm")
    gm.goto(f"{live_server.url}/c/{SLUG}/")
    panel = gm.locator("#turn-panel")
    expect(panel).to_contain_text("Orders are closed; the resolution is waiting for a worker.")
    expect(panel).to_have_attribute("hx-trigger", "every 2s")
    gm.evaluate("window.stillTheSamePage = true")

    turn_resolve_task.delay(turn.pk)  # the worker (eager here): the task closing queues

    expect(panel).to_contain_text("Turn 2, day 1", timeout=10_000)
    expect(panel).to_contain_text("Orders are open.")
    expect(panel).not_to_have_attribute("hx-trigger", "every 2s")
    assert gm.evaluate("window.stillTheSamePage") is True
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RESOLVED
