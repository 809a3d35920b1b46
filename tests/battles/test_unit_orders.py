"""The unit-orders method at the table (§10, p. 49–52): the battle pack links to the
calculators; a side may use the method only with a single leader and command (R10.1.2) and
within the campaign's points limit (option `unit_orders_max_points`); the command test (R10.3)
and the unit order test (R10.2) read the die rolled at the table through the rules' tests."""

from __future__ import annotations

import pytest
from django.urls import reverse

from battles.packs import pack_sheet_get
from battles.unit_orders import eligibility
from campaign.models import Command, Force
from tests.battles.test_pack import contact, html_of, pack_url, text

pytestmark = pytest.mark.django_db


def calc_url(key: str = "t1-b1", slug: str = "incursion") -> str:
    return reverse("battles:unit-orders", args=[slug, key])


def _single_command(campaign, force_key: str) -> None:
    """Leave the force one command with its general (R10.1.2's proof of the method)."""
    force = Force.objects.get(campaign=campaign, key=force_key)
    commands = list(Command.objects.filter(force=force).order_by("pk"))
    for c in commands[1:]:
        c.units.update(command=commands[0])
        c.delete()


def test_the_pack_links_to_the_calculators_and_says_who_may_use_them(cast):
    battle = contact(cast.campaign)
    pack = html_of(cast.client("side_a"), pack_url())
    assert calc_url() in pack
    page = text(html_of(cast.client("side_a"), calc_url()))
    sheet = pack_sheet_get(battle=battle)
    for side in sheet.sides:
        e = eligibility(side, None)
        assert e.reason in page
    assert "Nothing here is saved" in page


def test_points_limit_and_single_command(cast):
    _single_command(cast.campaign, "d3")
    battle = contact(cast.campaign)
    raiders, march = pack_sheet_get(battle=battle).sides
    e = eligibility(march, None)
    assert e.allowed and e.leader == "Lady Margaret Fenwick" and e.leader_cv > 0
    assert not eligibility(march, march.points - 1).allowed
    assert "above the" in eligibility(march, march.points - 1).reason
    assert eligibility(march, march.points).allowed
    # the option reaches the page: the March over the limit is told so
    cast.campaign.options = {**cast.campaign.options, "unit_orders_max_points": march.points - 1}
    cast.campaign.save(update_fields=["options"])
    page = text(html_of(cast.client("side_b"), calc_url()))
    assert "above the" in page and "Command test (R10.3)" not in page.split("Side B")[-1]


def test_command_test_reads_the_table_die(cast):
    _single_command(cast.campaign, "d3")
    contact(cast.campaign)
    client = cast.client("side_b")
    page = text(html_of(client, calc_url()))
    assert "Command test (R10.3)" in page
    # D-24: die 3 + CV 2 + good omens = 6 → all units disorganised
    q = "?test=command&side=b&die=3&leader_cv=2&omens=good&talismans=0"
    page = text(html_of(client, calc_url() + q))
    assert "All units become disorganised." in page
    assert "R10.3: 1D6 3" in page and "= 6" in page
    # the leader dead or fled: −3 → 3 or less, read as a rout
    q = "?test=command&side=b&die=1&leader_cv=2&leader_dead_or_fled=on&talismans=0"
    page = text(html_of(client, calc_url() + q))
    assert "The whole army routs" in page and "A-46" in page
    # htmx gets the form back, with its answer
    r = client.get(
        calc_url() + "?test=command&side=b&die=6&leader_cv=2&talismans=0", HTTP_HX_REQUEST="true"
    )
    assert "The army is OK." in r.content.decode() and "<html" not in r.content.decode()


def test_unit_order_test_and_bad_input(cast):
    _single_command(cast.campaign, "d3")
    contact(cast.campaign)
    client = cast.client("side_b")
    # D-23 shape: 1 + quality 0 + leader in person 3 = 4 → delay
    q = "?test=unit&side=b&die=1&quality_mod=0&order=attack&delivered_by=leader"
    page = text(html_of(client, calc_url() + q))
    assert "Delay: the messenger stays with the unit" in page
    # result 0 (chaos): Attack is read as Hold
    q = "?test=unit&side=b&die=1&quality_mod=-2&order=attack&delivered_by=messenger"
    page = text(html_of(client, calc_url() + q))
    assert "Chaos" in page and "Hold instead of Attack" in page
    # a die of 7 is refused with a message, nothing breaks
    q = "?test=unit&side=b&die=7&quality_mod=0&order=attack&delivered_by=leader"
    page = text(html_of(client, calc_url() + q))
    assert "Correct the values marked above" in page
    assert "less than or equal to 6" in page
