"""The Celery app: configured from the Django settings named CELERY_*; finds each app's tasks."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("fwcampaign")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A worker and its beat: turn deadlines are checked every minute (`celery -A config beat`).
app.conf.beat_schedule = {
    "turn-deadlines": {"task": "campaign.deadlines_check", "schedule": 60.0},
}
# Workers that share a broker with others (several deployments, or a test's own worker) keep
# to their own queue; the tasks they queue go there too.
app.conf.task_default_queue = os.environ.get("CELERY_QUEUE") or "celery"
