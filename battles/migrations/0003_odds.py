from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("battles", "0002_result_entry_audit"),
    ]

    operations = [
        migrations.AddField(
            model_name="battle",
            name="odds",
            field=models.JSONField(blank=True, null=True, verbose_name="odds"),
        ),
        migrations.AddField(
            model_name="battle",
            name="odds_pack_hash",
            field=models.CharField(blank=True, max_length=64),
        ),
    ]
