"""The account pages of this site (`accounts:`); Django's own auth views keep their
un-namespaced names in `accounts.auth_urls`."""

from django.urls import path

from accounts import calendar_views, views

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("signup/done/", views.signup_done, name="signup-done"),
    path("verify/<uidb64>/<token>/", views.verify, name="verify"),
    path("profile/", views.profile, name="profile"),
    path("calendar/reset/", calendar_views.calendar_reset, name="calendar-reset"),
    path("calendar/<str:token>.ics", calendar_views.calendar_feed, name="calendar-feed"),
]
