"""A member's walk through the site (issue 29): from the home page and a campaign's pages,
every same-site link (`href`) and htmx fragment (`hx-get`) he can follow with GET, up to a
limit, each page's visible text checked (tests.i18n.checks)."""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

from django.test import Client

from tests.i18n.checks import hyphen_minus, internal_ids, stand_ins, untranslated, visible_text

# never followed: leaving, downloads, the admin, the language switch, static files
SKIP = re.compile(
    r"/logout|/admin/|/export|\.json$|\.zip$|\.png$|\.svg$|\.pdf$|/download|/static/|/media/"
    r"|/i18n/|/photos/\d+/"
)
PER_PATH = 3  # query-string variants of one path (a list's pages, a map's squares)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, bool]] = []  # (url, is an htmx fragment)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "a" and a.get("href") and "download" not in a:
            self.links.append((a["href"] or "", False))
        if a.get("hx-get"):
            self.links.append((a["hx-get"] or "", True))


def links_of(html: str, base: str) -> list[tuple[str, bool]]:
    """The same-site GET links of a page, made absolute paths, fragments dropped."""
    parser = _Links()
    parser.feed(html)
    out = []
    for href, htmx in parser.links:
        if href.startswith(("mailto:", "javascript:", "#", "tel:")) or "{" in href:
            continue
        url = urldefrag(urljoin("http://testserver" + base, href)).url
        parts = urlsplit(url)
        if parts.netloc != "testserver" or SKIP.search(parts.path):
            continue
        out.append((parts.path + (f"?{parts.query}" if parts.query else ""), htmx))
    return out


@dataclass
class Problem:
    url: str
    kind: str
    found: list[str]

    def __str__(self) -> str:
        return f"{self.url}: {self.kind}:\n" + "\n".join(f"    {f}" for f in self.found[:8])


@dataclass
class Checks:
    """Which checks a reading gets: Italian pages also the untranslated English."""

    italian: bool

    def of(self, where: str, text: str) -> list[Problem]:
        checks: list[tuple[str, Callable[[str], list[str]]]] = [
            ("internal id or code", internal_ids),
            ("plural stand-in", stand_ins),
            ("hyphen for minus", hyphen_minus),
        ]
        if self.italian:
            checks.insert(0, ("English left untranslated", untranslated))
        return [Problem(where, kind, found) for kind, check in checks if (found := check(text))]


@dataclass
class Walk:
    visited: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # 5xx answers
    dump: str = ""  # every text read, when asked for (FW_CRAWL_DUMP)


def crawl(client: Client, starts: Iterable[str], checks: Checks, *, limit: int = 300) -> Walk:
    """Follow every same-site link and fragment from `starts`, breadth first, up to `limit`
    requests; check the text of each HTML answer."""
    walk = Walk()
    queue = deque((s, False) for s in starts)
    seen: set[str] = set()
    variants: Counter[str] = Counter()
    while queue and len(walk.visited) < limit:
        url, htmx = queue.popleft()
        path = url.split("?")[0]
        if url in seen or ("?" in url and variants[path] >= PER_PATH):
            continue
        seen.add(url)
        variants[path] += "?" in url
        headers = {"HX-Request": "true"} if htmx else {}
        response = client.get(url, headers=headers)
        walk.visited.append(url)
        if response.status_code >= 500:
            walk.errors.append(f"{url}: {response.status_code}")
            continue
        if response.status_code in (301, 302) and response.get("Location"):
            queue.append((urlsplit(response["Location"]).path, False))
            continue
        if "text/html" not in response.get("Content-Type", ""):
            continue
        html = response.content.decode()
        text = visible_text(html)
        walk.problems += checks.of(url + (" (htmx)" if htmx else ""), text)
        walk.dump += f"===== {url}\n{text}\n"
        for link in links_of(html, path):
            if link[0] not in seen:
                queue.append(link)
    return walk


def report(problems: Iterable[Problem]) -> str:
    """The problems, one block per URL and kind, the same text once per kind."""
    seen: set[tuple[str, str]] = set()
    lines = []
    for p in problems:
        fresh = [f for f in p.found if (p.kind, f) not in seen]
        seen.update((p.kind, f) for f in fresh)
        if fresh:
            lines.append(str(Problem(p.url, p.kind, fresh)))
    return "\n".join(lines)
