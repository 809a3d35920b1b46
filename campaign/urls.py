from django.urls import path

from campaign import views

app_name = "campaign"

urlpatterns = [
    path("", views.home, name="home"),
]
