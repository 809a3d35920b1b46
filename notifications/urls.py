from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("", views.log, name="log"),
    path("<int:pk>/open/", views.notification_open, name="open"),
    path("read/", views.notifications_read_all, name="read-all"),
]
