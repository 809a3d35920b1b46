from django.conf import settings
from django.conf.urls.static import static
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
# uploaded battle photos in development; production serves MEDIA_ROOT from the web server
urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
