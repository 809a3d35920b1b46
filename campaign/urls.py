from django.urls import path

from campaign.views import home

app_name = "campaign"

urlpatterns = [
    path("", home.home, name="home"),
]
