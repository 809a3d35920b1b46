"""How a stored resolution keeps the state it started from (`TurnResolution.state_before`).

A turn's state before is mostly the state before the previous resolution: forces move, a few
change status, the map never changes in play. So a resolution stores its state before as

- a **delta** against the resolution before it in the campaign's line (`{"$delta": …,
  "$chain": [pks]}`: the rows to read, from the last full one to the one it is a delta of), or
- **in full** (with `"$full"`) at the first resolution, every `CHAIN_MAX` rows, or when a
  delta would not be smaller;

and in both the map is a reference (`{"$map": digest}`) to a `StoredMap` row the campaign
keeps once per version of its map. Rows written before this (the whole state, map included,
no marker) are read as they are. Reading a state costs one query for its chain and one for
its map (none when the map is in this process's cache: a digest names one content forever).

The delta is structural JSON: dicts by key, lists of records with unique `id`s by id (the
state's forces, players, holdings), anything else replaced whole. `delta_apply(a,
delta_make(a, b)) == b` for any JSON `a`, `b`; `delta_apply` never changes its arguments.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import rules as R
from campaign.kept import Kept
from campaign.models import Campaign, StoredMap, TurnResolution

CHAIN_MAX = 16  # rows read for one state at most: every 16th stage (8 turns) is stored whole

_FULL = "$full"
_DELTA = "$delta"
_CHAIN = "$chain"
_MAP = "$map"

# --- the delta -----------------------------------------------------------------------------


def _by_id(v: Any) -> dict[str, Any] | None:
    """`v` as {id: record} when it is a non-empty list of records with unique string ids."""
    if not isinstance(v, list) or not v:
        return None
    out: dict[str, Any] = {}
    for e in v:
        if not isinstance(e, dict) or not isinstance(e.get("id"), str) or e["id"] in out:
            return None
        out[e["id"]] = e
    return out


def delta_make(a: Any, b: Any) -> Any:
    """What turns `a` into `b` (`a != b`): `["=", b]`, or a dict's `{"~": {key: delta},
    "-": [removed keys]}`, or a list of records' `{"@": {id: delta}, "ids": [order]}` (the
    order only when it changed)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: dict[str, Any] = {
            "~": {
                k: delta_make(a[k], v) if k in a else ["=", v]
                for k, v in b.items()
                if k not in a or a[k] != v
            }
        }
        removed = [k for k in a if k not in b]
        if removed:
            out["-"] = removed
        return out
    old, new = _by_id(a), _by_id(b)
    if old is not None and new is not None:
        res: dict[str, Any] = {
            "@": {
                i: delta_make(old[i], e) if i in old else ["=", e]
                for i, e in new.items()
                if old.get(i) != e
            }
        }
        if list(new) != list(old):
            res["ids"] = list(new)
        return res
    return ["=", b]


def delta_apply(a: Any, delta: Any) -> Any:
    """`a` changed by `delta` (from `delta_make`): new containers along the changed paths,
    `a` itself untouched."""
    if isinstance(delta, list):
        return delta[1]
    if "~" in delta:
        out = {k: v for k, v in a.items() if k not in delta.get("-", ())}
        for k, d in delta["~"].items():
            out[k] = delta_apply(out.get(k), d)
        return out
    old = {e["id"]: e for e in a}
    mod = delta["@"]
    ids = delta.get("ids") or list(old)
    return [delta_apply(old.get(i), mod[i]) if i in mod else old[i] for i in ids]


# --- the map, once per campaign and version ------------------------------------------------

# a digest names one content forever: the maps last read are kept in this process
_MAPS_MAX = 4
_MAPS: Kept[str, Any] = Kept(_MAPS_MAX)


def _digest(data: Any) -> str:
    """The SHA-256 of `data`'s canonical JSON; a map's, once per map object (the map never
    changes in play, and the adapters hand the same object for the same map)."""
    known = _DIGESTS.get(id(data))
    if known is not None and known[0] is data:
        return known[1]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(text.encode()).hexdigest()
    _DIGESTS.put(id(data), (data, digest))
    return digest


# id of a map's data → (the data, its digest): the object kept alive with it, so its id is
# not another's meanwhile
_DIGESTS: Kept[int, tuple[Any, str]] = Kept(_MAPS_MAX)


def _map_ref(campaign_id: int, game_map: Any, known: set[str] | None = None) -> dict[str, str]:
    """The reference to `game_map`, stored once for the campaign (`known`: the digests
    already stored by the caller). Asking first is a small query; the insert sends the
    whole map (a 64×64 map is about 190 KB of JSON), at every stage."""
    digest = _digest(game_map)
    if known is None or digest not in known:
        stored = StoredMap.objects.filter(campaign_id=campaign_id, digest=digest)
        if not stored.exists():
            StoredMap.objects.bulk_create(  # one statement, even if another just stored it
                [StoredMap(campaign_id=campaign_id, digest=digest, data=game_map)],
                ignore_conflicts=True,
            )
        if known is not None:
            known.add(digest)
    _MAPS.put(digest, game_map)
    return {_MAP: digest}


def _maps_get(digests: Iterable[str]) -> dict[str, Any]:
    """The maps of `digests` (one query for those not in this process's cache)."""
    wanted = set(digests)
    found = {d: m for d in wanted if (m := _MAPS.get(d)) is not None}
    missing = wanted - set(found)
    if missing:
        for digest, data in StoredMap.objects.filter(digest__in=missing).values_list(
            "digest", "data"
        ):
            found[digest] = data
            _MAPS.put(digest, data)
    lost = wanted - set(found)
    if lost:
        raise ValueError(f"stored state: map {sorted(lost)[0][:12]}… is missing")
    return found


# --- rows: what to store, and reading it back ----------------------------------------------


def _is_delta(stored: Any) -> bool:
    return isinstance(stored, dict) and _DELTA in stored


def _kept(stored: Any, rows: dict[int, Any]) -> Any:
    """The state as stored rows keep it (map by reference), from `stored` and its chain."""
    if not _is_delta(stored):
        return stored
    chain: list[int] = stored[_CHAIN]
    missing = [pk for pk in chain if pk not in rows]
    if missing:
        raise ValueError(f"stored state: resolution(s) {missing} of its chain are missing")
    data = rows[chain[0]]
    for pk in chain[1:]:
        data = delta_apply(data, rows[pk][_DELTA])
    return delta_apply(data, stored[_DELTA])


def _wholes(kept: dict[int, Any]) -> dict[int, Any]:
    """The state data as the rules read them: the maps put back (one query for those not in
    the cache), the markers taken out. A row written before deltas is its whole state."""
    refs = {
        v["map"][_MAP]
        for v in kept.values()
        if isinstance(v, dict) and _FULL in v and isinstance(v.get("map"), dict)
    }
    maps = _maps_get(refs) if refs else {}
    out = {}
    for pk, v in kept.items():
        if isinstance(v, dict) and _FULL in v:
            v = {k: x for k, x in v.items() if k != _FULL}
            if isinstance(v.get("map"), dict) and _MAP in v["map"]:
                v["map"] = maps[v["map"][_MAP]]
        out[pk] = v
    return out


def _chain_rows(pks: Iterable[int]) -> dict[int, Any]:
    pks = list(pks)
    if not pks:
        return {}
    return dict(TurnResolution.objects.filter(pk__in=pks).values_list("pk", "state_before"))


def _stored_of(rows: Sequence[TurnResolution]) -> dict[int, Any]:
    """Each row's stored `state_before` by pk; those loaded without it (deferred: a page
    that finds the state decoded already does not fetch it) read in one query."""
    stored = {r.pk: r.state_before for r in rows if "state_before" not in r.get_deferred_fields()}
    stored.update(_chain_rows(r.pk for r in rows if r.pk not in stored))
    return stored


def state_data_of(resolution: TurnResolution) -> Any:
    """The whole state data `resolution` started from (one query for its chain if it is a
    delta, one for its map unless cached)."""
    stored = _stored_of([resolution])[resolution.pk]
    chain = stored[_CHAIN] if _is_delta(stored) else ()
    return _wholes({0: _kept(stored, _chain_rows(chain))})[0]


def states_data_of(rows: Sequence[TurnResolution]) -> dict[int, Any]:
    """The whole state data of each of `rows` by pk (e.g. a campaign's line): the chains are
    read from the rows themselves, with one query for any row of a chain not among them
    (and one for the rows loaded without their state)."""
    stored = _stored_of(rows)
    wanted = {pk for v in stored.values() if _is_delta(v) for pk in v[_CHAIN]}
    stored.update(_chain_rows(wanted - set(stored)))
    kept: dict[int, Any] = {}

    def kept_of(pk: int) -> Any:
        if pk not in kept:
            v = stored[pk]
            kept[pk] = delta_apply(kept_of(v[_CHAIN][-1]), v[_DELTA]) if _is_delta(v) else v
        return kept[pk]

    return _wholes({r.pk: kept_of(r.pk) for r in rows})


def _kept_form(campaign_id: int, data: Any, known: set[str] | None = None) -> Any:
    """`data` (a whole state) as a full row keeps it (anything else as it is: reading it
    will say what is wrong)."""
    if not isinstance(data, dict):
        return data
    out = {**data, _FULL: 1}
    if isinstance(data.get("map"), dict):
        out["map"] = _map_ref(campaign_id, data["map"], known)
    return out


def _stored(kept: Any, prev_pk: int | None, prev_stored: Any, prev_kept: Any) -> Any:
    """What a row stores for `kept` after the row `prev_pk` (which stores `prev_stored`
    and keeps `prev_kept`): a delta unless the chain is full or the delta no smaller."""
    if prev_pk is None or not isinstance(prev_kept, dict) or _FULL not in prev_kept:
        return kept
    chain = [*prev_stored[_CHAIN], prev_pk] if _is_delta(prev_stored) else [prev_pk]
    if len(chain) >= CHAIN_MAX:
        return kept
    delta = delta_make(prev_kept, kept) if prev_kept != kept else {"~": {}}
    if len(json.dumps(delta)) * 2 > len(json.dumps(kept)):
        return kept
    return {_DELTA: delta, _CHAIN: chain}


def state_stored(*, campaign: Campaign, data: Any) -> Any:
    """What a new resolution of `campaign` stores as its `state_before` (`data`: the whole
    state): a delta of the latest resolution of the campaign's line, or the whole. Call
    `stored_noted` with the row once saved: the next resolution then starts from it
    without reading and replaying its chain."""
    kept = _kept_form(campaign.pk, data)
    # the latest row and its chain: the rows of a chain are those just before it in the line
    line = TurnResolution.objects.filter(turn__campaign=campaign).order_by(
        "-turn__number", "-created_at", "-pk"
    )
    latest = line.values_list("pk", "created_at").first()
    if latest is None:
        stored = kept
    else:
        noted = _noted_get(latest)
        if noted is None:
            rows = list(line.values_list("pk", "state_before")[:CHAIN_MAX])
            prev_pk, prev_stored = rows[0]
            noted = (prev_stored, _kept(prev_stored, dict(rows)))
        stored = _stored(kept, latest[0], *noted)
    _made.last = (stored, kept)
    return stored


# what `state_stored` gave last in this thread, with its kept form, until `stored_noted`
# files it under the row that stores it; rows so filed by (pk, created_at): a rolled back
# row is never found again (its pk is not reused with the same time)
_made = threading.local()
_NOTED: Kept[tuple[int, Any], tuple[Any, Any]] = Kept(8)


def stored_noted(resolution: TurnResolution) -> None:
    """`resolution` (just saved) stores what `state_stored` gave last: keep its kept form."""
    made = getattr(_made, "last", None)
    _made.last = None
    if made is not None and made[0] is resolution.state_before:
        _NOTED.put((resolution.pk, resolution.created_at), made)


def noted_forget() -> None:
    """Forget the rows noted (as a process that did not write them: tests)."""
    _NOTED.clear()
    _made.last = None


def _noted_get(key: tuple[int, Any]) -> tuple[Any, Any] | None:
    return _NOTED.get(key)


def line_compact(campaign: Campaign, line: Sequence[TurnResolution]) -> None:
    """Store the whole states of `line` (saved rows of `campaign`, in the order they ran,
    each holding its whole state) as full rows and deltas, in place; the caller saves them."""
    known: set[str] = set()
    prev: TurnResolution | None = None
    prev_kept: Any = None
    for r in line:
        kept = _kept_form(campaign.pk, r.state_before, known)
        r.state_before = _stored(
            kept, prev.pk if prev else None, prev.state_before if prev else None, prev_kept
        )
        prev, prev_kept = r, kept


def squares_of(data: Any) -> dict[str, list[int]]:
    """Where each force of a whole state stands (what the map reads of a turn's start)."""
    forces = data.get("forces", ()) if isinstance(data, dict) else ()
    return {
        f["id"]: list(f["square"])
        for f in forces
        if isinstance(f, dict) and isinstance(f.get("id"), str) and f.get("square")
    }


# --- decoded, once per process -------------------------------------------------------------

# states; a 960-force state is a few megabytes of objects
_DECODED: Kept[tuple[int, Any], R.CampaignState] = Kept(8)


def _decoded_get(resolution: TurnResolution) -> tuple[Any, R.CampaignState | None]:
    """The cache key of a stored resolution's state (None: not cacheable) and the state if
    this process decoded it already."""
    if resolution.pk is None or "created_at" in resolution.get_deferred_fields():
        return None, None
    key = (resolution.pk, resolution.created_at)
    return key, _DECODED.get(key)


def _decoded_put(key: Any, data: Any) -> R.CampaignState:
    state = R.from_data(R.CampaignState, data, "state_before")
    if key is not None:
        _DECODED.put(key, state)
    return state


def state_before(resolution: TurnResolution) -> R.CampaignState:
    """The state a stored resolution started from. A stored resolution is never changed
    (only created), so the few states last decoded are kept in this process, keyed by the
    row and when it was written: a report or a battle's pages read the same one for each of
    their parts, and decoding a big state costs more than the rest of the page."""
    key, state = _decoded_get(resolution)
    if state is not None:
        return state
    return _decoded_put(key, state_data_of(resolution))


def states_before(rs: list[TurnResolution]) -> list[R.CampaignState]:
    """`state_before` of each of `rs` (rows of one line), their chains read together."""
    found = [_decoded_get(r) for r in rs]
    need = [r for r, (_k, s) in zip(rs, found, strict=True) if s is None]
    data = states_data_of(need) if need else {}
    return [
        s if s is not None else _decoded_put(k, data[r.pk])
        for r, (k, s) in zip(rs, found, strict=True)
    ]
