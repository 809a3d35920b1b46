from django.contrib import admin
from django.urls import include, path

from accounts.views import language_set

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("accounts.auth_urls")),
    # Django's set_language, which also stores a logged-in user's choice on his profile
    path("i18n/setlang/", language_set, name="set_language"),
    path("account/notifications/", include("notifications.urls")),
    path("c/<slug:slug>/battles/", include("battles.urls")),
    path("", include("campaign.urls")),
]
# MEDIA_ROOT is never served as such: battle photos go through `battles:result-photo`, which
# checks who is asking (a guessable media path must not bypass fog of war).
