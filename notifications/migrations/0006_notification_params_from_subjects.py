"""The notices written before titles had codes: their English subject read back into the
title's code and values (`notifications.titles`), so that an Italian reader reads them in
Italian too. A subject that matches none (written in another language, cut at 200
characters) keeps no code: its stored subject is shown, as before."""

import re

from django.db import migrations

_NUMBER = r"(?P<turn>\d+)"
PATTERNS = {
    "turn-opened": [
        ("turn-opened", rf"^(?P<campaign>.+): turn {_NUMBER} is open for orders$"),
        ("deadline-changed", rf"^(?P<campaign>.+): the deadline of turn {_NUMBER} has changed$"),
    ],
    "reminder": [
        ("reminder", rf"^(?P<campaign>.+): orders for turn {_NUMBER} are due within a day$"),
    ],
    "battle": [
        (
            "battle",
            rf"^(?P<campaign>.+): battle at \((?P<x>-?\d+), (?P<y>-?\d+)\) on turn {_NUMBER}$",
        ),
    ],
    "missing-orders": [
        ("missing-orders", rf"^(?P<campaign>.+): your forces had no orders on turn {_NUMBER}$"),
    ],
    "turn-resolved": [
        ("turn-resolved", rf"^(?P<campaign>.+): turn {_NUMBER} has been resolved$"),
    ],
    "gm-reminder": [
        (
            "gm-reminder",
            rf"^(?P<campaign>.+): the game master reminds you of your orders for turn {_NUMBER}$",
        ),
    ],
    "amended": [
        ("amended", rf"^(?P<campaign>.+): the game master amended turn {_NUMBER}$"),
    ],
}


def params_of(kind, subject):
    for code, pattern in PATTERNS.get(kind, []):
        found = re.match(pattern, subject)
        if found:
            values = found.groupdict()
            return {
                "title": code,
                **{k: (v if k == "campaign" else int(v)) for k, v in values.items()},
            }
    return None


def forwards(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    batch = []
    for n in Notification.objects.filter(params={}).only("pk", "kind", "subject").iterator():
        params = params_of(n.kind, n.subject)
        if params is not None:
            n.params = params
            batch.append(n)
        if len(batch) >= 500:
            Notification.objects.bulk_update(batch, ["params"])
            batch = []
    if batch:
        Notification.objects.bulk_update(batch, ["params"])


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0005_notification_params"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
