from django.db import migrations, models


def _keep_early_close(apps, schema_editor):
    """Campaigns made before the setting closed early when every player had confirmed: keep
    that for them; new campaigns start with it off."""
    apps.get_model("campaign", "Campaign").objects.update(auto_close=True)


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0006_labels_choices"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="auto_close",
            field=models.BooleanField(
                default=False,
                help_text=(
                    "When every active player has confirmed his orders, the turn closes and is "
                    "resolved at once, before its deadline."
                ),
                verbose_name="close automatically when everyone has confirmed",
            ),
        ),
        migrations.RunPython(_keep_early_close, migrations.RunPython.noop),
    ]
