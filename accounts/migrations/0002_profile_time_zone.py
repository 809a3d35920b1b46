from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="time_zone",
            field=models.CharField(default="UTC", max_length=64, verbose_name="time zone"),
        ),
    ]
