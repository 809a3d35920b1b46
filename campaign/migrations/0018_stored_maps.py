
import django.db.models.deletion
from django.db import migrations, models


def squares_fill(apps, schema_editor):
    # rows written before this migration keep their whole state: read the squares from it
    TurnResolution = apps.get_model("campaign", "TurnResolution")
    rows = []
    for r in TurnResolution.objects.only("pk", "state_before").iterator(chunk_size=50):
        forces = (r.state_before or {}).get("forces", ())
        r.squares_before = {f["id"]: list(f["square"]) for f in forces}
        rows.append(r)
        if len(rows) >= 50:
            TurnResolution.objects.bulk_update(rows, ["squares_before"])
            rows = []
    TurnResolution.objects.bulk_update(rows, ["squares_before"])


class Migration(migrations.Migration):

    dependencies = [
        ('campaign', '0017_force_craft'),
    ]

    operations = [
        migrations.AddField(
            model_name='turnresolution',
            name='squares_before',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.CreateModel(
            name='StoredMap',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('digest', models.CharField(db_index=True, max_length=64)),
                ('data', models.JSONField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='stored_maps', to='campaign.campaign')),
            ],
            options={
                'verbose_name': 'stored map',
                'verbose_name_plural': 'stored maps',
                'constraints': [models.UniqueConstraint(fields=('campaign', 'digest'), name='one_stored_map')],
            },
        ),
        migrations.RunPython(squares_fill, migrations.RunPython.noop),
    ]
