from django.urls import include, path

from campaign.views import home, overview
from campaign.views import map as map_views
from campaign.views import orders as orders_views
from campaign.views import report as report_views
from campaign.views import setup as setup_views

app_name = "campaign"

urlpatterns = [
    path("", home.home, name="home"),
    path("c/<slug:slug>/", overview.detail, name="detail"),
    path("c/<slug:slug>/turn/status/", overview.turn_status, name="turn-status"),
    path("c/<slug:slug>/map/", map_views.map_page, name="map"),
    path("c/<slug:slug>/map.json", map_views.map_json, name="map-json"),
    path("c/<slug:slug>/turns/<int:number>/", report_views.report, name="report"),
    path("c/<slug:slug>/turns/<int:number>/replay/", report_views.replay, name="replay"),
    path("c/<slug:slug>/inbox/", report_views.inbox, name="inbox"),
    path("c/<slug:slug>/export.json", report_views.export, name="export"),
    path("c/<slug:slug>/orders/", include(orders_views.urlpatterns)),
]

# set-up (spec §2): new campaign, map, territory, holdings, options, players, rosters, start
urlpatterns += [
    path("new/", setup_views.campaign_new, name="new"),
    path("join/<str:token>/", setup_views.join, name="join"),
    path("c/<slug:slug>/setup/map/", setup_views.setup_map, name="setup-map"),
    path("c/<slug:slug>/setup/map/square/", setup_views.setup_square, name="setup-square"),
    path("c/<slug:slug>/setup/map/import/", setup_views.setup_import, name="setup-import"),
    path("c/<slug:slug>/setup/territory/", setup_views.setup_territory, name="setup-territory"),
    path("c/<slug:slug>/setup/holdings/", setup_views.setup_holdings, name="setup-holdings"),
    path("c/<slug:slug>/setup/options/", setup_views.setup_options, name="setup-options"),
    path("c/<slug:slug>/setup/players/", setup_views.setup_players, name="setup-players"),
    path("c/<slug:slug>/invite/", setup_views.invite, name="invite"),
    path("c/<slug:slug>/roster/", setup_views.roster, name="roster"),
    path("c/<slug:slug>/roster/<str:key>/", setup_views.roster_force, name="roster-force"),
    path("c/<slug:slug>/start/", setup_views.start, name="start"),
]
