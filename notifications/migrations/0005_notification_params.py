from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0004_amended_kind"),
    ]

    operations = [
        migrations.AddField(
            model_name="notification",
            name="params",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
