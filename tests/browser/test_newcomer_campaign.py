"""A new group runs a campaign from nothing to its end, in real Chromium, by clicking only.

Nobody types an address after the home page: the GM signs up from the home page and creates
a campaign from the Incursion scenario; he invites two players by email, and each follows
the link from his email (`mail.outbox`, as a person takes it from his inbox), signs up and
joins in one step, and marks his roster ready; the GM starts the campaign. Both players find
their to-do on the home page, give orders on the map and confirm; the GM closes and resolves
the turn. In turn 2 the Red Riders and the Southern March meet: each player opens the battle
from his to-do, one enters the result, the other confirms it, and the campaign ends with the
Raiders' victory; the end page names the winner.

The turn's seed is fixed (the same dice each run: `secrets.randbits` is patched where the
turn draws it). One thing is arranged rather than played: while turn 2 waits for its battle,
the Jarl's Host stands in Wolfstead carrying Millbrook's loot, so that the Raiders' victory
(R11.7.2) comes on day 2 and not after weeks of raiding; it is what the rules check at the
end of the day (Phase 6), and nothing else in the turn depends on it.

The players' steps run on a phone screen (390×844), where no page may scroll sideways; the
whole story runs once in English and once in Italian, with screenshots in test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core import mail
from playwright.sync_api import Page, expect

from battles.models import Battle
from campaign.models import Campaign, Force, Holding, Turn, Unit
from tests.browser.conftest import DESKTOP, PHONE, htmx_idle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = 2  # with the orders below: turn 1 brings the two forces close, turn 2 makes them meet
SLUG = "wend"
PASSWORD = "long-winter-in-the-fells"
NAMES = {"gm": "Gunnar the Grey", "raider": "Ulla Wolfsdottir", "defender": "Edmund Ashbury"}
ARMY = {"raider": "raiders", "defender": "defenders"}
# what each player orders, turn by turn: force, a requested order (or None), the path
ORDERS = {
    1: {
        "raider": ("r3", None, [(3, 7), (4, 8), (5, 9)]),
        "defender": ("d3", "full-speed", [(10, 9), (9, 9), (8, 9)]),
    },
    2: {
        "raider": ("r3", None, [(5, 9), (6, 9), (7, 9)]),
        "defender": ("d3", None, [(8, 8), (7, 8), (6, 8)]),
    },
}


class Story:
    """One run: the browser pages of the three people, the language, the screenshots."""

    def __init__(self, base: str, lang: str, new_context: Callable, artifacts: Path) -> None:
        self.base, self.lang, self.artifacts = base, lang, artifacts
        self.new_context = new_context
        self.pages: dict[str, Page] = {}
        self.shots = 0

    def page(self, who: str) -> Page:
        if who not in self.pages:
            context = self.new_context(**(DESKTOP if who == "gm" else PHONE))
            context.set_default_timeout(20_000)
            page = context.new_page()
            page.on("dialog", lambda dialog: dialog.accept())  # "are you sure?" questions
            self.pages[who] = page
        return self.pages[who]

    def shot(self, who: str, what: str) -> None:
        """A screenshot for people to look at; a player's page must fit the phone's width."""
        page = self.pages[who]
        htmx_idle(page)
        self.shots += 1
        name = f"newcomer-{self.lang}-{self.shots:02d}-{who}-{what}.png"
        page.screenshot(path=str(self.artifacts / name), full_page=True)
        if who != "gm":
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{what}: {who}'s page is {width}px wide on a phone"


def choose_language(page: Page, lang: str) -> None:
    page.locator("#language-select").select_option(lang)
    page.locator("form.language button[type=submit]").click()
    expect(page.locator("html")).to_have_attribute("lang", lang)


def fill_account(page: Page, username: str, lang: str, form: str = "main form") -> None:
    scope = page.locator(form).filter(has=page.locator("input[name$=password1]"))
    scope.locator("input[name$=username]").fill(username)
    scope.locator("input[name$=first_name]").fill(NAMES[username])
    scope.locator("input[name$=email]").fill(f"{username}@example.org")
    scope.locator("input[name$=password1]").fill(PASSWORD)
    scope.locator("input[name$=password2]").fill(PASSWORD)
    language = scope.locator("select[name$=language]")
    if language.count():
        language.select_option(lang)
    scope.locator("button[type=submit]").click()


def gm_signs_up_and_creates(story: Story) -> None:
    gm = story.page("gm")
    gm.goto(story.base + "/")  # the only address anyone types
    choose_language(gm, story.lang)
    gm.locator('header a[href="/accounts/signup/"]').click()
    fill_account(gm, "gm", story.lang)
    expect(gm.locator("header")).to_contain_text(NAMES["gm"])
    gm.locator('main a[href="/new/"]').click()
    gm.fill("#id_name", "Wend Valley")
    gm.fill("#id_slug", SLUG)
    gm.locator('input[name=source][value="incursion"]').check()
    gm.locator("main form button[type=submit]").click()
    expect(gm).to_have_url(re.compile(rf"/c/{SLUG}/invite/$"))
    story.shot("gm", "invitations")


def gm_invites(story: Story, who: str) -> str:
    """The GM emails an invitation to the army; the link as the guest's email gives it."""
    gm = story.page("gm")
    gm.locator("select[name=role]").select_option("player")
    gm.locator("select[name=target]").select_option(f"player:{ARMY[who]}")
    gm.fill("input[name=email]", f"{who}@example.org")
    before = len(mail.outbox)
    gm.locator('main form[action$="/invite/"] button[type=submit]').click()
    expect(gm.locator("main")).to_contain_text(f"{who}@example.org")
    (message,) = mail.outbox[before:]
    assert message.to == [f"{who}@example.org"]
    return re.search(r"https?://\S+/join/\S+/", message.body)[0]


def player_joins(story: Story, who: str, link: str) -> None:
    page = story.page(who)
    page.goto(link)  # from his email
    choose_language(page, story.lang)
    story.shot(who, "invitation")
    fill_account(page, who, story.lang, form="main form")
    expect(page).to_have_url(re.compile(rf"/c/{SLUG}/roster/$"))
    story.shot(who, "roster")
    page.locator('form[action$="/roster/ready/"] button[value="1"]').click()
    expect(page.locator('form[action$="/roster/ready/"] button[value="0"]')).to_be_visible()


def gm_starts(story: Story) -> None:
    gm = story.page("gm")
    gm.locator("header a.brand").click()
    gm.locator(".campaign-card .todo-list a").first.click()  # "every roster is ready: start"
    expect(gm).to_have_url(re.compile(rf"/c/{SLUG}/start/$"))
    story.shot("gm", "start")
    gm.locator("main form[method=post] button[type=submit]").last.click()
    expect(gm).to_have_url(re.compile(rf"/c/{SLUG}/$"))
    assert Turn.objects.get(campaign__slug=SLUG, number=1).status == Turn.Status.OPEN


def player_orders(story: Story, who: str, turn: int) -> None:
    """From the home page's to-do to the orders page; one force's path on the map; confirm."""
    force, change, path = ORDERS[turn][who]
    page = story.page(who)
    page.locator("header a.brand").click()
    story.shot(who, f"home-turn{turn}")
    page.locator(".campaign-card .todo-list a").first.click()
    expect(page).to_have_url(re.compile(rf"/c/{SLUG}/orders/$"))
    page.locator(f'#orders-force-{force} a[href*="/orders/force/{force}/"]').first.click()
    form = page.locator(f"#orders-form-{force}")
    expect(form).to_be_visible()
    htmx_idle(page)
    if change:
        form.locator("select[name=change_to]").select_option(change)
        htmx_idle(page)
    form.locator("input[name=zoc][value=engage]").check()
    path_field = form.locator('input[name="path"]')
    drawn: list[str] = []
    for x, y in path:
        page.locator(f'#orders-force-{force} rect.click[data-x="{x}"][data-y="{y}"]').click()
        drawn.append(f"{x},{y}")
        expect(path_field).to_have_value("; ".join(drawn))
        htmx_idle(page)
    form.locator(".form-actions button[type=submit]:not([name])").click()
    expect(page.locator(f"#orders-form-{force}")).to_have_count(0)  # saved: the summary is back
    htmx_idle(page)
    story.shot(who, f"orders-turn{turn}")
    page.locator('#orders-status button[value="confirm"]').click()
    expect(page.locator("#orders-status .badge-confirmed")).to_be_visible()


def gm_closes(story: Story, turn: int) -> None:
    gm = story.page("gm")
    gm.locator("header a.brand").click()
    gm.locator(".campaign-card .todo-list a").first.click()  # "every player has confirmed"
    gm.locator('form[action$="/turn/close/"] button[type=submit]').click()
    expect(gm.locator("#turn-panel")).to_be_visible()
    story.shot("gm", f"closed-turn{turn}")


def arrange_loot_at_home(campaign: Campaign) -> None:
    """The Jarl's Host back in Wolfstead with Millbrook's loot (see the module's text)."""
    Force.objects.filter(campaign=campaign, key="r1").update(x=2, y=5, loot=["millbrook"])
    Holding.objects.filter(campaign=campaign, key="millbrook").update(sacked=True, carried_by="r1")


def enter_result(story: Story, who: str, battle: Battle) -> None:
    """Every unit loses a third of its figures killed; one raider figure per unit flees and
    every other defender figure flees, so the Raiders hold the field (R7.3.2)."""
    figures = dict(Unit.objects.filter(campaign=battle.campaign).values_list("key", "figures"))
    page = story.page(who)
    page.locator("header a.brand").click()
    page.locator(".campaign-card .todo-list a").first.click()
    form = page.locator("#result-form")
    expect(form).to_be_visible()
    for letter, side in zip("ab", battle.pack["sides"], strict=True):
        for force in side["forces"]:
            for u in force["units"]:
                uid, n = u["unit_id"], figures[u["unit_id"]]
                form.locator(f'input[name="u-{uid}-killed"]').fill(str(n // 3))
                fled = "1" if letter == "a" else str(n - n // 3)
                form.locator(f'input[name="u-{uid}-fled"]').fill(fled)
    form.locator('input[type="radio"][value="a"]').check()
    story.shot(who, "result-form")
    form.locator('button[formaction$="/result/enter/"]').click()
    expect(page.locator('form[action$="/result/confirm/"]')).to_have_count(0)
    htmx_idle(page)


def confirm_result(story: Story, who: str) -> None:
    page = story.page(who)
    page.locator("header a.brand").click()
    page.locator(".campaign-card .todo-list a").first.click()
    expect(page.locator('form[action$="/result/confirm/"]')).to_be_visible()
    page.locator('form[action$="/result/confirm/"] button[type=submit]').click()
    htmx_idle(page)


@pytest.mark.parametrize("lang", ["en", "it"])
def test_a_new_group_plays_a_campaign_to_its_end(
    live_server, new_context, settings, artifacts, monkeypatch, lang
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ACCOUNT_EMAIL_VERIFICATION = False
    settings.SITE_URL = live_server.url  # emailed links lead back to this server
    monkeypatch.setattr("campaign.turns.services.secrets.randbits", lambda bits: SEED)
    story = Story(live_server.url, lang, new_context, artifacts)

    gm_signs_up_and_creates(story)
    links = {who: gm_invites(story, who) for who in ("raider", "defender")}
    for who, link in links.items():
        player_joins(story, who, link)
    gm_starts(story)

    for turn in (1, 2):
        for who in ("raider", "defender"):
            player_orders(story, who, turn)
        gm_closes(story, turn)
    campaign = Campaign.objects.get(slug=SLUG)
    turn2 = Turn.objects.get(campaign=campaign, number=2)
    assert turn2.status == Turn.Status.BATTLES, turn2.status
    assert list(turn2.battles.values_list("x", "y")) == [(7, 8)]
    arrange_loot_at_home(campaign)

    enter_result(story, "defender", turn2.battles.get())
    confirm_result(story, "raider")
    campaign.refresh_from_db()
    assert (campaign.ended, campaign.winner) == ("raiders-win", "raiders")

    for who in ("raider", "defender", "gm"):
        page = story.page(who)
        page.locator("header a.brand").click()
        page.locator(".campaign-card .todo-list a").first.click()  # "see who won"
        expect(page).to_have_url(re.compile(rf"/c/{SLUG}/end/$"))
        expect(page.locator("#end-winner")).to_contain_text("Raiders")
        story.shot(who, "end")
