"""The pause clock becomes a column: `Turn.paused_at` (when the pause began) replaces the
`paused` flag and the moment kept in `Turn.carry["clock"]`."""

from datetime import datetime

from django.db import migrations, models
from django.utils import timezone


def clock_to_column(apps, schema_editor):
    Turn = apps.get_model("campaign", "Turn")
    for turn in Turn.objects.filter(models.Q(paused=True) | models.Q(carry__has_key="clock")):
        carry = dict(turn.carry or {})
        moment = (carry.pop("clock", None) or {}).get("paused_at")
        turn.carry = carry
        if turn.paused:
            turn.paused_at = datetime.fromisoformat(moment) if moment else timezone.now()
        turn.save(update_fields=["carry", "paused_at"])


def column_to_clock(apps, schema_editor):
    Turn = apps.get_model("campaign", "Turn")
    for turn in Turn.objects.filter(paused_at__isnull=False):
        turn.paused = True
        turn.carry = {**(turn.carry or {}), "clock": {"paused_at": turn.paused_at.isoformat()}}
        turn.save(update_fields=["paused", "carry"])


class Migration(migrations.Migration):
    dependencies = [("campaign", "0004_turn_battles_deadline")]

    operations = [
        migrations.AddField(
            model_name="turn",
            name="paused_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="paused since"),
        ),
        migrations.RunPython(clock_to_column, column_to_clock),
        migrations.RemoveField(model_name="turn", name="paused"),
    ]
