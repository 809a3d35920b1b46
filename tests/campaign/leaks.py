"""The leak detectors shared by the permission matrix (test_permissions.py) and the fog-of-war
walk of a three-side campaign (test_fog_three_sides.py), and the URLs both walk.

A `Secret` is something one reader must not see, found in a response's text (a string, a
pattern) or in its JSON (a list of squares, a roll of the dice ledger): `leaks` names the
secrets a response holds. What is secret for whom is each test's policy; the helpers here
build the usual kinds: a hidden force (`force_secrets`), the roster of an enemy force a side
may see only as the map shows it (`roster_secrets`), rolls of the ledger (`Secret.rows`),
and counts (`count_secret`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.html import escape

from campaign.fog import visible_force_keys
from campaign.models import Campaign, Sighting
from rules.types import CampaignState, Force

NAMESPACES = ("campaign", "notifications", "battles")
HTMX = {"HX-Request": "true"}

# --- the URLs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One URL to request: a name, the variant of its arguments, and the parameters it takes."""

    name: str
    variant: str
    params: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.name}[{self.variant}]" if self.variant else self.name

    @property
    def needs_battle(self) -> bool:
        return self.variant.startswith("battle")


def _walk(patterns, namespace: str, params: tuple[str, ...]) -> Iterator[tuple[str, tuple]]:
    for p in patterns:
        here = params + tuple(p.pattern.regex.groupindex)
        if isinstance(p, URLResolver):
            inner = namespace
            if p.namespace:
                inner = f"{namespace}:{p.namespace}" if namespace else p.namespace
            yield from _walk(p.url_patterns, inner, here)
        elif isinstance(p, URLPattern) and namespace.split(":")[0] in NAMESPACES:
            # an unnamed URL cannot be reversed, nor given a row: it fails the row test
            yield f"{namespace}:{p.name or f'<unnamed {p.pattern}>'}", here


def url_names() -> list[tuple[str, tuple[str, ...]]]:
    """Every URL of the namespaces, as registered when the tests run: (name, parameters)."""
    return sorted(set(_walk(get_resolver().url_patterns, "", ())))


# --- what a response holds ----------------------------------------------------------------------

# tokens that are random text: a "d1" inside one is no force key
TOKENS = re.compile(r'(csrfmiddlewaretoken" value="|"x-csrftoken": ")[^"]*')
_ROW = re.compile(r'<tr data-purpose="([^"]*)">(.*?)</tr>', re.S)
_CELL = re.compile(r"<td>(.*?)</td>", re.S)


@dataclass
class Reading:
    """A response's text, its JSON (if it is JSON) and the rolls of the ledger it shows."""

    body: str
    payload: Any = None

    @cached_property
    def rows(self) -> set[tuple[str, str]]:
        """(purpose, rule) of every roll shown: the report's ledger rows, the JSON's rolls."""
        out: set[tuple[str, str]] = set()
        for purpose, cells in _ROW.findall(self.body):
            tds = _CELL.findall(cells)
            out.add((purpose, tds[2].strip() if len(tds) > 2 else ""))
        _json_rows(self.payload, out)
        return out


def reading_of(body: str, content_type: str) -> Reading:
    body = TOKENS.sub(r"\1", body)
    return Reading(body, json.loads(body) if "json" in content_type else None)


def _json_rows(payload: Any, out: set[tuple[str, str]]) -> None:
    if isinstance(payload, dict):
        if isinstance(payload.get("purpose"), str) and "natural" in payload:
            out.add((payload["purpose"], str(payload.get("rule", ""))))
        for v in payload.values():
            _json_rows(v, out)
    elif isinstance(payload, list):
        for v in payload:
            _json_rows(v, out)


@dataclass(frozen=True)
class Secret:
    label: str
    texts: tuple[str, ...] = ()
    pattern: re.Pattern | None = None
    squares: tuple[tuple[int, int], ...] | None = None  # a list of squares, in JSON
    # rolls of the ledger, (purpose, rule); a rule of "" stands for every rule
    rows: frozenset[tuple[str, str]] = field(default_factory=frozenset)

    def found_in(self, reading: Reading) -> bool:
        return bool(self.seen_in(reading))

    def seen_in(self, reading: Reading) -> list[str]:
        """What of the secret the response holds: the texts, the matches, the rolls (as
        "purpose rule"), the squares."""
        body, payload = reading.body, reading.payload
        seen = [t for t in self.texts if t in body]
        if self.pattern is not None:
            seen += sorted({m.group(0) for m in self.pattern.finditer(body)})
        if self.rows:
            seen += [
                f"{purpose} {rule}"
                for purpose, rule in sorted(reading.rows)
                if (purpose, rule) in self.rows or (purpose, "") in self.rows
            ]
        if self.squares is not None and payload is not None and has_list(payload, self.squares):
            seen.append(str(list(self.squares)))
        return seen


def has_list(payload: Any, squares: tuple[tuple[int, int], ...]) -> bool:
    wanted = [list(sq) for sq in squares]
    if isinstance(payload, list):
        if payload == wanted:
            return True
        return any(has_list(v, squares) for v in payload)
    if isinstance(payload, dict):
        return any(has_list(v, squares) for v in payload.values())
    return False


def leaks(body: str, content_type: str, secrets: list[Secret]) -> list[str]:
    """The labels of the secrets the response holds."""
    reading = reading_of(body, content_type)
    return [s.label for s in secrets if s.found_in(reading)]


# --- kinds of secrets --------------------------------------------------------------------------


def _texts(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(t for n in names if n for t in sorted({n, escape(n)}))


def force_secrets(forces: Iterable[Force], keys: set[str]) -> list[Secret]:
    """A hidden force: its key (and its commands', units' and characters' ids), its name, its
    generals' and its characters' names."""
    out = []
    for f in forces:
        if f.id not in keys:
            continue
        names = [f.name]
        names += [c.general.name for c in f.commands if c.general is not None]
        names += [i.name for i in f.individuals]
        pattern = re.compile(rf"\b{re.escape(f.id)}(?:[cgiu]\d+)?\b")
        out.append(Secret(f"hidden force {f.id}", texts=_texts(names), pattern=pattern))
    return out


def roster_secrets(forces: Iterable[Force], keys: set[str], label: str) -> list[Secret]:
    """The roster of an enemy force a side sees only as the map shows it (key, name, owner,
    square, status, figures): its commands', generals', units' and characters' ids, its
    generals' and characters' names and its units' types (give the units distinctive types:
    a type such as "infantry" is found everywhere)."""
    out = []
    for f in forces:
        if f.id not in keys:
            continue
        names = [c.general.name for c in f.commands if c.general is not None]
        names += [i.name for i in f.individuals]
        names += [u.type for u in f.units]
        pattern = re.compile(rf"\b{re.escape(f.id)}[cgiu]\d+\b")
        out.append(Secret(f"{label} {f.id}", texts=_texts(names), pattern=pattern))
    return out


def count_secret(label: str, sentence: str, allowed: int | None) -> Secret:
    """A sentence that counts (its `{n}`, a number): found when it counts anything other than
    `allowed` (None: it must not be there at all)."""
    number = r"\d+" if allowed is None else rf"(?!{allowed}\b)\d+"
    parts = [re.escape(p) for p in sentence.split("{n}")]
    return Secret(label, pattern=re.compile(rf"\b{number}".join(parts)))


def hidden_from(campaign: Campaign, state: CampaignState, side: str | None) -> set[str]:
    """Enemy forces the side neither sees now nor remembers (ghosts); every force for an
    observer following no side."""
    if side is None:
        return {f.id for f in state.forces}
    side_of = {p.id: p.side for p in state.players}
    enemies = {f.id for f in state.forces if side_of[f.owner] != side}
    remembered = set(
        Sighting.objects.filter(campaign=campaign, side_key=side).values_list(
            "force_key", flat=True
        )
    )
    return enemies - visible_force_keys(state, side) - remembered


# --- what a battle's own side may read -------------------------------------------------------


# the after-battle checks of one unit (R8.1, R8.2): their events name the unit, not the battle
AFTER_BATTLE_EVENTS = frozenset({"WoundedChecked", "DesertersChecked"})


def without_battles(
    reading: Reading, keys: set[str], lines: Iterable[str] = (), units: Iterable[str] = ()
) -> Reading:
    """The response without what belongs to the battles `keys` (their sides see both armies,
    as at the table): the ledger rows whose purpose names one, in the text the `lines` that
    tell of their rolls, and in JSON every object that names one (a battle, its pack, its
    events and rolls) or is keyed by one (its result), and the after-battle checks of the
    `units` that fought in them."""
    if not keys:
        return reading

    def names_one(text: str) -> bool:
        return any(re.search(rf"\b{re.escape(k)}\b", text) for k in keys)

    if reading.payload is not None:
        payload = _json_without(reading.payload, keys, names_one, frozenset(units))
        return Reading(json.dumps(payload, ensure_ascii=False), payload)
    body = _ROW.sub(lambda m: "" if names_one(m.group(1)) else m.group(0), reading.body)
    for line in lines:
        body = body.replace(line, "")
    return Reading(body)


def _json_without(payload: Any, keys: set[str], names_one, units: frozenset[str]) -> Any:
    if isinstance(payload, dict):
        if any(
            isinstance(v, str) and (v in keys or (k == "purpose" and names_one(v)))
            for k, v in payload.items()
        ):
            return None
        if payload.get("type") in AFTER_BATTLE_EVENTS and payload.get("unit_id") in units:
            return None
        return {
            k: _json_without(v, keys, names_one, units) for k, v in payload.items() if k not in keys
        }
    if isinstance(payload, list):
        return [_json_without(v, keys, names_one, units) for v in payload]
    return payload
