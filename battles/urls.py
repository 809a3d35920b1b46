"""Battle pages, under `c/<slug>/battles/` (config/urls.py); every view takes `slug`."""

from django.urls import include, path  # noqa: F401  (patterns are added below by each page)

from battles.views import history, odds, pack

app_name = "battles"

urlpatterns: list = [
    path("", history.history, name="history"),
    path("print/", pack.pack_print, name="pack-print"),
    path("<slug:key>/", history.detail, name="detail"),
    path("<slug:key>/pack/", pack.pack, name="pack"),
    path("<slug:key>/odds/", odds.odds, name="odds"),
    path("<slug:key>/result/", include("battles.views.result")),  # result, result-photo
]
