"""Battle pages, under `c/<slug>/battles/` (config/urls.py); every view takes `slug`. Each POST
action on a battle's result has its own URL, `<key>/result/<action>/`."""

from django.urls import path

from battles.views import history, odds, pack, result, unit_orders

app_name = "battles"

urlpatterns = [
    path("", history.history, name="history"),
    path("print/", pack.pack_print, name="pack-print"),
    path("<slug:key>/", history.detail, name="detail"),
    path("<slug:key>/pack/", pack.pack, name="pack"),
    path("<slug:key>/odds/", odds.odds, name="odds"),
    path("<slug:key>/unit-orders/", unit_orders.unit_orders, name="unit-orders"),
    path("<slug:key>/result/", result.result, name="result"),
    path("<slug:key>/result/photos/<int:pk>/", result.photo, name="result-photo"),
    path("<slug:key>/result/preview/", result.result_preview, name="result-preview"),
    path("<slug:key>/result/enter/", result.result_enter, name="result-enter"),
    path("<slug:key>/result/override/", result.result_override, name="result-override"),
    path("<slug:key>/result/confirm/", result.result_confirm, name="result-confirm"),
    path("<slug:key>/result/dispute/", result.result_dispute, name="result-dispute"),
    path("<slug:key>/result/resolver/", result.result_resolver, name="result-resolver"),
    path("<slug:key>/result/auto/", result.result_auto, name="result-auto"),
    path("<slug:key>/result/photo/", result.result_photo, name="result-photo-add"),
]
