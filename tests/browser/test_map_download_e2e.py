"""A player downloads the map data from the map page, clicking from the home page: the
browser unpacks the compressed answer (issue 14) into the document the page draws, under
the same fog of war."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_downloads_the_map_he_sees(demo, login, artifacts):
    page = login("raider")
    page.get_by_role("link", name=demo.name).first.click()
    page.get_by_role("link", name="Map", exact=True).first.click()
    expect(page.locator("svg.map")).to_be_visible()
    page.screenshot(path=str(artifacts / "map-download-raider.png"))
    with page.expect_download() as got:
        page.get_by_role("link", name="Download the map data (JSON)").click()
    download = got.value
    assert download.suggested_filename == f"{demo.slug}-map.json"
    data = json.loads(download.path().read_text(encoding="utf-8"))
    assert data["viewer"]["player"] == "raiders" and data["fog_of_war"] is True
    owners = {f["owner"] for f in data["forces"]}
    assert "raiders" in owners
    drawn = page.locator("svg.map [data-force]").evaluate_all(
        "nodes => nodes.map(n => n.dataset.force)"
    )
    assert {f["key"] for f in data["forces"]} == set(drawn)  # what the page draws, no more
