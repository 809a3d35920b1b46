"""The Content-Security-Policy (issue 12, defect 11): every response carries it, strict
(config/settings.py, SECURE_CSP), with the nonce the page's own tags carry; and nothing the
site writes needs more: no inline script, no inline event handler, no style attribute, no
htmx that evals. The browser tests (tests/browser) fail on any violation a real page makes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)
POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'", "'nonce-*'"],
    "style-src": ["'self'", "'nonce-*'"],
    "img-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
NONCE = re.compile(r"'nonce-([^']+)'")


def _policy(response) -> tuple[dict[str, list[str]], str | None]:
    """The directives of the response's policy (its nonce as `'nonce-*'`), and the nonce."""
    header = response.headers["Content-Security-Policy"]
    nonces = set(NONCE.findall(header))
    assert len(nonces) <= 1, header
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = [NONCE.sub("'nonce-*'", v) for v in values]
    return directives, next(iter(nonces), None)


def test_a_page_sends_the_policy_and_its_tags_carry_its_nonce(cast):
    for who, url in (("anonymous", "/accounts/login/"), ("gm", f"/c/{cast.campaign.slug}/")):
        response = cast.client(who).get(url)
        assert response.status_code == 200, who
        directives, nonce = _policy(response)
        assert directives == POLICY, who
        html = response.content.decode()
        # htmx's own tag carries the nonce (`{% htmx_script %}`); the site's script is 'self'
        assert f'htmx-2.min.js" defer nonce="{nonce}"></script>' in html, who
        assert '<script src="/static/js/site.js" defer></script>' in html, who
        assert '"allowEval": false' in html and '"includeIndicatorStyles": false' in html


def test_a_fragment_and_a_refusal_send_it_too(cast):
    client = cast.client("gm")
    fragment = client.get(f"/c/{cast.campaign.slug}/", headers={"HX-Request": "true"})
    missing = client.get("/c/no-such-campaign/")
    for response in (fragment, missing):
        assert _policy(response)[0].keys() == POLICY.keys()


def test_the_admin_pages_keep_to_it(admin_client):
    """Django's admin writes a nonce on the few inline styles it has; ours is a static file."""
    response = admin_client.get("/admin/campaign/campaign/")
    assert response.status_code == 200
    directives, nonce = _policy(response)
    assert directives == POLICY
    html = response.content.decode()
    assert re.findall(r'<style nonce="([^"]+)"', html) in ([], [nonce])
    assert '<link rel="stylesheet" href="/static/css/admin.css">' in html


# --- what the site writes: nothing the policy would refuse --------------------------------------

# as Django reads them: a {# #} comment ends on its own line (over two, it is text)
COMMENTS = re.compile(r"\{#[^\n]*?#\}|\{% comment %\}.*?\{% endcomment %\}", re.S)
REFUSED = {
    "an inline script": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>"),
    "an inline style element": re.compile(r"<style\b"),
    "an inline event handler": re.compile(r"\son[a-z]+\s*=\s*[\"'{]"),
    "a style attribute": re.compile(r"\sstyle\s*=\s*[\"'{]"),
    "an hx-on handler (eval)": re.compile(r"\bhx-on\b|\bhx-on:"),
    "hx-vars or a js: value (eval)": re.compile(r"\bhx-vars\b|[\"']\s*js:|javascript:"),
    "an htmx trigger filter (eval)": re.compile(r"hx-trigger[\"']?\s*[:=]\s*[\"'][^\"']*\["),
}
APPS = ("accounts", "battles", "campaign", "config", "notifications")


def _written() -> list[tuple[Path, str]]:
    templates = [(p, COMMENTS.sub("", p.read_text())) for p in (ROOT / "templates").rglob("*.html")]
    code = [
        (p, p.read_text())
        for app in APPS
        for p in (ROOT / app).rglob("*.py")
        if "migrations" not in p.parts
    ]
    return templates + code


def test_nothing_the_site_writes_needs_more_than_the_policy():
    found = [
        f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}: {what}: {m.group(0)!r}"
        for path, text in _written()
        for what, pattern in REFUSED.items()
        for m in pattern.finditer(text)
    ]
    assert not found, "\n".join(found)


def test_the_check_finds_what_it_looks_for():
    for what, sample in {
        "an inline script": "<script>alert(1)</script>",
        "an inline style element": "<style>.x { color: red }</style>",
        "an inline event handler": '<button onclick="go()">',
        "a style attribute": '<span style="color: red">',
        "an hx-on handler (eval)": '<a hx-on:click="x()">',
        "hx-vars or a js: value (eval)": "<div hx-vals='js:{a: 1}'>",
        "an htmx trigger filter (eval)": '"hx-trigger": "keyup[key==\'Enter\']"',
    }.items():
        assert REFUSED[what].search(sample), what
    assert not REFUSED["an inline script"].search('<script src="/static/js/site.js" defer>')
