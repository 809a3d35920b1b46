"""Battle pages, under `c/<slug>/battles/` (config/urls.py); every view takes `slug`."""

from django.urls import path  # noqa: F401  (patterns are added below by each page)

app_name = "battles"

urlpatterns: list = []
