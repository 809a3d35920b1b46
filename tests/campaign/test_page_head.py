"""Every page's <head>: the site's icon (issue 11: no favicon), a small hand-written SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_every_page_links_the_site_icon(cast):
    for who, url in (("anonymous", "/"), ("gm", f"/c/{cast.campaign.slug}/")):
        html = cast.client(who).get(url).content.decode()
        head = html.split("</head>")[0]
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in head, who


def test_the_icon_is_a_small_svg_the_static_files_serve():
    icon = Path(settings.BASE_DIR) / "static" / "favicon.svg"
    root = ET.fromstring(icon.read_text(encoding="utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox") == "0 0 32 32"
    assert icon.stat().st_size < 2000
    assert finders.find("favicon.svg") == str(icon)
