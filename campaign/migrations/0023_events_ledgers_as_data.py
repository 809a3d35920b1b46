"""Events and dice ledgers as data (export format 3): every stored ledger and event list
written in English prose (format 1 of `docs/state-format.md`) is converted to codes and
parameters by the frozen converters of `campaign.exchange.upgrade`, so that a turn resolved
before still reads in every language and replays exactly. Rows are read and written as raw
JSON, one table at a time; the converters leave data already in today's format as it is, so
running this again changes nothing."""

import json

from django.db import migrations

from campaign.exchange.upgrade import upgrade_prose
from campaign.records import ledger_compact, ledger_expand

# table → the JSON columns that hold ledgers or events, at any depth
TABLES = {
    "campaign_turnresolution": ("ledger", "events"),
    "campaign_setuproll": ("ledger",),
    "campaign_linearchive": ("data",),
    "campaign_amendment": ("original", "amended", "preview"),
    "battles_battleaudit": ("data",),
}


def _load(value):
    return json.loads(value) if isinstance(value, str | bytes | bytearray) else value


def _upgraded(column, value):
    if value is None:
        return None
    if column == "ledger":  # a bare list, maybe stored compact (campaign.records)
        return ledger_compact(upgrade_prose({"ledger": ledger_expand(value)})["ledger"])
    if column == "events":
        return upgrade_prose({"events": value})["events"]
    return upgrade_prose(value)


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for table, columns in TABLES.items():
            cursor.execute(f"SELECT id, {', '.join(columns)} FROM {table}")  # noqa: S608
            for pk, *raw in cursor.fetchall():
                old = [_load(v) for v in raw]
                new = [_upgraded(c, v) for c, v in zip(columns, old, strict=True)]
                if new == old:
                    continue
                sets = ", ".join(f"{c} = %s" for c in columns)
                cursor.execute(
                    f"UPDATE {table} SET {sets} WHERE id = %s",  # noqa: S608
                    [*(None if v is None else json.dumps(v) for v in new), pk],
                )


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0022_export_jobs_deadline_checks"),
        ("battles", "0005_result_version"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
