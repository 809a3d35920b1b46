"""The GM exports the campaign, clicking from the home page (issue 28): the export page asks
for it, a task writes it (in the web process here, as in the demo without a broker), the
progress line says when it is ready, and the download is the campaign's JSON, the very bytes
of the export."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from campaign.exchange.export import FORMAT, campaign_export, export_json
from campaign.models import Campaign
from tests.browser.a11y import axe_report, axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_exports_the_campaign_and_downloads_it(demo, login, artifacts):
    page = login("gm")
    page.get_by_role("link", name=demo.name).first.click()
    page.get_by_role("navigation", name="Campaign").get_by_role("link", name="Export").click()
    line = page.locator("#export-job")
    expect(line).to_contain_text("You have no export yet.")
    page.get_by_role("button", name="Export the whole campaign (JSON)").click()
    expect(line).to_contain_text("is ready")
    page.screenshot(path=str(artifacts / "export-ready-gm.png"))
    found = axe_violations(page)  # no serious or critical WCAG 2.1 A/AA violation
    assert not found, axe_report(found)
    with page.expect_download() as got:
        line.get_by_role("link", name="Download the export (JSON)").click()
    download = got.value
    assert download.suggested_filename == f"{demo.slug}-full.json"
    text = download.path().read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["format"] == FORMAT and data["campaign"]["slug"] == demo.slug
    assert text == export_json(campaign_export(campaign=Campaign.objects.get(pk=demo.pk)))
