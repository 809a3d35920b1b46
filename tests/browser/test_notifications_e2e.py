"""The GM's reminder and the in-app notice, in a real Chromium, by clicking only.

From the home page the game master logs in, opens the demo campaign and reminds the defender,
who has saved his turn-1 orders but not confirmed them. The defender logs in: the header's
badge says one notification is unread; he opens his notifications, clicks the notice and
lands on his orders page, the badge gone. The reminder was emailed as well. Screenshots of
the overview and of the notification list go to test-artifacts/.

No URL is typed after the home page. The GM reaches the overview through the link the home
page's campaign card gives (issue 11, blocker 1: the cards become links on another branch).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from notifications.models import Kind, Notification
from tests.browser.conftest import DESKTOP, PASSWORDS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARMY = "The March of Ashbury"  # the defenders' army, played by Sir Edmund of Ashbury


def log_in_from_home(new_context, live_server, username: str) -> Page:
    """A new browser on the home page; the user logs in through the header's link."""
    context = new_context(**DESKTOP)
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/")
    page.locator("header").get_by_role("link", name="Log in").click()
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORDS[username])
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/")
    return page


def test_the_gm_reminds_a_player_who_reads_it_in_the_app(
    demo, new_context, live_server, artifacts, mailoutbox
):
    # --- the GM: home page → the campaign → "Remind" for the defender ---------------------------
    gm = log_in_from_home(new_context, live_server, "gm")
    campaign_link = gm.locator("main").get_by_role("link", name=demo.name).first
    expect(
        campaign_link, "the home page's campaign card must link to the overview (issue 11)"
    ).to_be_visible()
    campaign_link.click()
    expect(gm.locator("h1")).to_have_text(demo.name)
    orders = gm.locator('.orders-list [data-player="defenders"]')
    expect(orders).to_contain_text(f"{ARMY} (Sir Edmund of Ashbury): saved, not confirmed")
    gm.get_by_role("button", name=f"Remind {ARMY}").click()
    expect(gm.get_by_text(f"Reminder sent to {ARMY}.")).to_be_visible()
    expect(orders).to_contain_text("reminded on")
    gm.screenshot(path=str(artifacts / "notifications-gm-overview.png"), full_page=True)

    [notice] = Notification.objects.filter(kind=Kind.GM_REMINDER)
    assert notice.user.username == "defender" and notice.read_at is None
    assert [m.to for m in mailoutbox] == [["defender@example.org"]]

    # --- the defender: the badge, the list, the notice → his orders page ----------------------
    defender = log_in_from_home(new_context, live_server, "defender")
    badge = defender.get_by_role("link", name="Notifications, 1 unread")
    expect(badge).to_be_visible()
    expect(badge.locator(".nav-badge")).to_have_text("1")
    badge.click()
    expect(defender.locator("h1")).to_have_text("Your notifications")
    item = defender.locator(".notification.unread")
    expect(item).to_have_count(1)
    expect(item).to_contain_text("Email: Sent")
    defender.screenshot(path=str(artifacts / "notifications-list.png"), full_page=True)
    item.get_by_role("link", name=notice.subject).click()

    defender.wait_for_url(re.compile(r"/c/incursion/orders/$"))
    expect(defender.locator(".nav-badge")).to_have_count(0)
    expect(defender.get_by_role("link", name="Notifications", exact=True)).to_be_visible()
    notice.refresh_from_db()
    assert notice.read_at is not None
