from django.db import migrations, models
from django.db.models import F


def salt_from_slug(apps, schema_editor):
    # every hash published so far was salted with the campaign's slug
    Campaign = apps.get_model("campaign", "Campaign")
    Campaign.objects.filter(seed_salt="").update(seed_salt=F("slug"))


class Migration(migrations.Migration):
    dependencies = [
        ("campaign", "0008_player_roster_ready"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="seed_salt",
            field=models.CharField(blank=True, max_length=50, verbose_name="seed salt"),
        ),
        migrations.RunPython(salt_from_slug, migrations.RunPython.noop),
    ]
