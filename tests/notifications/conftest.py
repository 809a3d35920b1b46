"""The notification tests read the links in the messages: build them on the default site
address, whatever SITE_URL or FW_DEMO_ADDR the environment running the tests has."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def site_url(settings) -> str:
    settings.SITE_URL = "http://127.0.0.1:8000"
    return settings.SITE_URL
