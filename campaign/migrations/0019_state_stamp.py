"""The state stamp (campaign.records.StateStamp) and the triggers that renew it.

Every write to a table `state_load` reads gives the campaign a new random stamp, in the
same transaction: on PostgreSQL one statement-level trigger per table and event (a bulk
update of 2,400 units renews it once); on SQLite (the demo) a row trigger. Other databases
get no triggers and no stamps, so nothing is ever cached there (campaign.state_cache).
"""

from django.db import migrations, models

TABLES = (
    "campaign_player",
    "campaign_side",
    "campaign_holding",
    "campaign_force",
    "campaign_command",
    "campaign_unit",
    "campaign_individual",
    "campaign_square",
)

PG_FUNCTION = """
CREATE OR REPLACE FUNCTION campaign_state_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO campaign_statestamp (campaign_id, stamp)
        SELECT c, gen_random_uuid()::text FROM (SELECT DISTINCT campaign_id AS c FROM old_rows) s
        ON CONFLICT (campaign_id) DO UPDATE SET stamp = EXCLUDED.stamp;
    ELSE
        INSERT INTO campaign_statestamp (campaign_id, stamp)
        SELECT c, gen_random_uuid()::text FROM (SELECT DISTINCT campaign_id AS c FROM new_rows) s
        ON CONFLICT (campaign_id) DO UPDATE SET stamp = EXCLUDED.stamp;
    END IF;
    RETURN NULL;
END $$;
"""

PG_CAMPAIGN_GONE = """
CREATE OR REPLACE FUNCTION campaign_state_stamp_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM campaign_statestamp WHERE campaign_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER campaign_campaign_stamp_d AFTER DELETE ON campaign_campaign
    FOR EACH ROW EXECUTE FUNCTION campaign_state_stamp_gone();
"""

SQLITE_STAMP = "lower(hex(randomblob(16)))"


def _pg(table: str) -> list[str]:
    return [
        f"CREATE TRIGGER {table}_stamp_i AFTER INSERT ON {table} REFERENCING NEW TABLE AS "
        f"new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_state_stamp();",
        f"CREATE TRIGGER {table}_stamp_u AFTER UPDATE ON {table} REFERENCING NEW TABLE AS "
        f"new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_state_stamp();",
        f"CREATE TRIGGER {table}_stamp_d AFTER DELETE ON {table} REFERENCING OLD TABLE AS "
        f"old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_state_stamp();",
    ]


def _sqlite(table: str) -> list[str]:
    return [
        f"CREATE TRIGGER {table}_stamp_{event[0].lower()} AFTER {event} ON {table} BEGIN "
        f"INSERT OR REPLACE INTO campaign_statestamp (campaign_id, stamp) "
        f"VALUES ({row}.campaign_id, {SQLITE_STAMP}); END;"
        for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD"))
    ]


def triggers_create(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = [PG_FUNCTION, PG_CAMPAIGN_GONE] + [s for t in TABLES for s in _pg(t)]
        fill = "SELECT id, gen_random_uuid()::text FROM campaign_campaign"
    elif vendor == "sqlite":
        statements = [s for t in TABLES for s in _sqlite(t)] + [
            "CREATE TRIGGER campaign_campaign_stamp_d AFTER DELETE ON campaign_campaign BEGIN "
            "DELETE FROM campaign_statestamp WHERE campaign_id = OLD.id; END;"
        ]
        fill = f"SELECT id, {SQLITE_STAMP} FROM campaign_campaign"
    else:
        return
    for sql in statements:
        schema_editor.execute(sql)
    schema_editor.execute(f"INSERT INTO campaign_statestamp (campaign_id, stamp) {fill}")


def triggers_drop(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        return
    names = [f"{t}_stamp_{e}" for t in TABLES for e in "iud"] + ["campaign_campaign_stamp_d"]
    tables = [t for t in TABLES for _ in "iud"] + ["campaign_campaign"]
    for name, table in zip(names, tables, strict=True):
        on = f" ON {table}" if vendor == "postgresql" else ""
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}{on};")
    if vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS campaign_state_stamp();")
        schema_editor.execute("DROP FUNCTION IF EXISTS campaign_state_stamp_gone();")


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0018_stored_maps"),
    ]

    operations = [
        migrations.CreateModel(
            name="StateStamp",
            fields=[
                ("campaign_id", models.BigIntegerField(primary_key=True, serialize=False)),
                ("stamp", models.CharField(max_length=36)),
            ],
            options={
                "verbose_name": "state stamp",
                "verbose_name_plural": "state stamps",
            },
        ),
        migrations.RunPython(triggers_create, triggers_drop),
    ]
