"""Reading and writing many rows in a fixed number of queries: the adapters' reads and writes
of a turn's state (`campaign.adapters.state_load`, `state_save`) touch hundreds of forces and
thousands of units, and must stay a bounded number of statements, and lean, however many."""

from __future__ import annotations

import json
from collections.abc import Iterable
from operator import itemgetter
from typing import Any

from django.db import connections, models, router
from django.db.models import ForeignObjectRel
from django.db.models.functions import Cast

from campaign.models import Campaign


class JsonPath(models.Func):
    """PostgreSQL's `jsonb_path_query_array`: only the parts of a big JSON column a page uses
    (a 240-force state, a turn's events or its dice ledger are hundreds of kilobytes)."""

    function = "jsonb_path_query_array"
    template = "%(function)s(%(expressions)s::jsonpath)"

    def __init__(self, column: str, path: str) -> None:
        super().__init__(models.F(column), models.Value(path), output_field=models.JSONField())


def rows_read(qs: models.QuerySet[Any], fields: str, texts: str = "") -> Iterable[Any]:
    """The rows of `qs` as named tuples of `fields` (cheaper than model instances); the JSON
    columns in `texts` as text, for `json_text` (a JSONField decodes at several times the cost)."""
    names = texts.split()
    if names:
        qs = qs.annotate(**{f"{n}_text": Cast(n, models.TextField()) for n in names})
    return qs.values_list(*(f"{n}_text" if n in names else n for n in fields.split()), named=True)


def json_text(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def rows_sync(
    model: type[models.Model],
    campaign: Campaign,
    wanted: dict[str, dict[str, Any]],
    within: dict[str, list[int]] | None = None,
) -> dict[str, int]:
    """Make the campaign's rows of `model` match `wanted` (key → field values) with one read
    and at most three writes: delete the missing, create the new, update the changed in one
    statement. Existing rows are read as tuples of the compared fields only. Returns key → pk.

    `within` (a filter such as `{"force_id__in": pks}`): only the rows it selects are
    `wanted`'s to match, the others are left as they are; an empty list selects none, and
    nothing is read."""
    if within is not None and not any(within.values()) and not wanted:
        return {}
    fields = list(next(iter(wanted.values()), {}))
    rows = model._default_manager.filter(campaign=campaign)
    if within is not None:
        rows = rows.filter(**within)
    existing = {row[1]: (row[0], row[2:]) for row in rows.values_list("pk", "key", *fields)}
    gone = [pk for key, (pk, _) in existing.items() if key not in wanted]
    if gone:
        model._default_manager.filter(pk__in=gone).delete()
    new_rows = {
        key: model(key=key, campaign=campaign, **vals)
        for key, vals in wanted.items()
        if key not in existing
    }
    if new_rows:
        model._default_manager.bulk_create(list(new_rows.values()))
    changed: list[tuple[int, dict[str, Any]]] = []
    diff: set[str] = set()
    as_row = itemgetter(*fields) if len(fields) > 1 else lambda vals: tuple(vals[f] for f in fields)
    for key, vals in wanted.items():
        row = existing.get(key)
        if row is None:
            continue
        pk, values = row
        if as_row(vals) == values:  # the common case, compared in one go
            continue
        changed.append((pk, vals))
        diff.update(f for f, v in zip(fields, values, strict=True) if vals[f] != v)
    if changed:
        bulk_update(model, changed, sorted(diff))
    pks = {key: pk for key, (pk, _) in existing.items() if key in wanted}
    pks.update({key: r.pk for key, r in new_rows.items()})
    return pks


def bulk_update(
    model: type[models.Model], changed: list[tuple[int, dict[str, Any]]], fields: list[str]
) -> None:
    """Set `fields` of each (pk, values) row in one statement. On PostgreSQL that is an
    `UPDATE … FROM (VALUES …)`: Django's `bulk_update` builds a CASE WHEN per row and field,
    which costs about 80 ms of Python for the 165 forces that move in a 240-force turn."""
    conn = connections[router.db_for_write(model)]
    if conn.vendor != "postgresql":
        model._default_manager.bulk_update(
            [model(pk=pk, **{f: vals[f] for f in fields}) for pk, vals in changed], fields
        )
        return
    meta = model._meta
    pk_field, pk_column = _stored(meta.pk)
    cols = [_stored(meta.get_field(f)) for f in fields]
    qn = conn.ops.quote_name
    pk_col = qn(pk_column)
    names = ", ".join([pk_col, *(qn(column) for _c, column in cols)])
    casts = [pk_field.cast_db_type(conn), *(c.cast_db_type(conn) for c, _column in cols)]
    row_sql = "(" + ", ".join(f"%s::{cast}" for cast in casts) + ")"
    sets = ", ".join(f"{qn(column)} = v.{qn(column)}" for _c, column in cols)
    per_row = len(casts)
    limit = conn.features.max_query_params  # None with client-side binding (the default)
    batch = max(1, limit // per_row) if limit else len(changed)
    with conn.cursor() as cursor:
        for i in range(0, len(changed), batch):
            part = changed[i : i + batch]
            params: list[Any] = []
            for pk, vals in part:
                params.append(pk)
                params.extend(
                    c.get_db_prep_save(vals[f], conn)
                    for (c, _column), f in zip(cols, fields, strict=True)
                )
            cursor.execute(
                f"UPDATE {qn(meta.db_table)} AS t SET {sets} "
                f"FROM (VALUES {', '.join([row_sql] * len(part))}) AS v ({names}) "
                f"WHERE t.{pk_col} = v.{pk_col}",
                params,
            )


def _stored(
    field: models.Field[Any, Any] | ForeignObjectRel,
) -> tuple[models.Field[Any, Any], str]:
    """A field the rows store, with its column (a reverse relation has none)."""
    if isinstance(field, ForeignObjectRel) or field.column is None:
        raise TypeError(f"{field} has no column of its own to update")
    return field, field.column
