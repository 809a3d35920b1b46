"""The site's own address, for the links that leave it (emails) and for what the demo prints.

`SITE_URL` names it (`https://example.org`); unset, it is the demo's: `http://` and the
address `./run demo` serves on, `FW_DEMO_ADDR` (default 127.0.0.1:8000). Both are read from
the environment given, so the settings and the `load_demo` command agree.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULT_DEMO_ADDR = "127.0.0.1:8000"


def demo_addr(environ: Mapping[str, str]) -> str:
    """host:port the demo server listens on (`FW_DEMO_ADDR`, as `./run demo` gives it to
    `runserver`); a bare port, which `runserver` reads as one on 127.0.0.1, gets that host."""
    addr = (environ.get("FW_DEMO_ADDR") or "").strip() or DEFAULT_DEMO_ADDR
    if addr.isdigit():
        addr = f"127.0.0.1:{addr}"
    return addr


def site_url(environ: Mapping[str, str]) -> str:
    """`SITE_URL`, else `http://` + the demo's address; without a trailing slash."""
    url = (environ.get("SITE_URL") or "").strip() or f"http://{demo_addr(environ)}"
    return url.rstrip("/")
