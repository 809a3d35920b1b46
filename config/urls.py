from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("account/notifications/", include("notifications.urls")),
    path("c/<slug:slug>/battles/", include("battles.urls")),
    path("", include("campaign.urls")),
]
# MEDIA_ROOT is never served as such: battle photos go through `battles:result-photo`, which
# checks who is asking (a guessable media path must not bypass fog of war).
