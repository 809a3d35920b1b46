"""The campaign app's pages, by feature: the home page and the overview with the GM's turn
controls (`campaign.turns`), orders, the map, reports and the inbox, the export, and set-up.
A POST action has its own URL (and view), named after what it does."""

from django.urls import path, register_converter

from accounts import join as accounts_join
from campaign.exchange import views as exchange
from campaign.home import home
from campaign.keys import KeyConverter
from campaign.map import views as map_views
from campaign.orders import choices as orders_choices
from campaign.orders import confirm as orders_confirm
from campaign.orders import event_choices as orders_events
from campaign.orders import odds as orders_odds
from campaign.orders import regroup as orders_regroup
from campaign.orders import reinforcements as orders_reinforcements
from campaign.orders import views as orders
from campaign.reports import views as reports
from campaign.setup.views import map as setup_map
from campaign.setup.views import pages as setup
from campaign.setup.views import players, rosters
from campaign.setup.views import rolls as setup_rolls
from campaign.turns import amend_views as amend
from campaign.turns import views as turns

app_name = "campaign"

register_converter(KeyConverter, "key")  # rows and invitations by key: campaign.keys

C = "c/<slug:slug>/"

urlpatterns = [
    path("", home, name="home"),
    # the overview, and the GM's turn controls
    path(C, turns.detail, name="detail"),
    path(f"{C}turn/status/", turns.turn_status, name="turn-status"),
    path(f"{C}turn/deadline/", turns.turn_deadline, name="turn-deadline"),
    path(f"{C}turn/battles-deadline/", turns.turn_battles_deadline, name="turn-battles-deadline"),
    path(f"{C}turn/extend/", turns.turn_extend, name="turn-extend"),
    path(f"{C}turn/pause/", turns.turn_pause, name="turn-pause"),
    path(f"{C}turn/resume/", turns.turn_resume, name="turn-resume"),
    path(f"{C}turn/close/", turns.turn_close, name="turn-close"),
    path(f"{C}turn/advance/", turns.turn_advance, name="turn-advance"),
    path(f"{C}turn/retry/", turns.turn_retry, name="turn-retry"),
    path(f"{C}turn/auto-close/", turns.turn_auto_close, name="turn-auto-close"),
    path(f"{C}turn/remind/", turns.turn_remind, name="turn-remind"),
    # amendments and the audit log (the GM's)
    path(f"{C}battles/<key:battle>/amend/", amend.amend_result, name="amend-result"),
    path(f"{C}turns/<int:number>/amend/", amend.amend_turn, name="amend-turn"),
    path(f"{C}amendments/<int:number>/", amend.amendment, name="amendment"),
    path(f"{C}amendments/<int:number>/commit/", amend.amendment_commit, name="amendment-commit"),
    path(f"{C}amendments/<int:number>/discard/", amend.amendment_discard, name="amendment-discard"),
    path(f"{C}amendments/<int:number>/replaced/", amend.amendment_line, name="amendment-line"),
    path(f"{C}audit/", amend.audit, name="audit"),
    # the map
    path(f"{C}map/", map_views.map_page, name="map"),
    path(f"{C}map.json", map_views.map_json, name="map-json"),
    # reports, the inbox and the export
    path(f"{C}turns/latest/", reports.report_latest, name="report-latest"),
    path(f"{C}turns/<int:number>/", reports.report, name="report"),
    path(f"{C}turns/<int:number>/replay/", reports.replay, name="replay"),
    path(f"{C}inbox/", reports.inbox, name="inbox"),
    path(f"{C}end/", reports.end, name="end"),
    path(f"{C}export/", exchange.export, name="export"),
    path(f"{C}export/<int:job>/", exchange.export_job, name="export-job"),
    path(f"{C}export/<int:job>.json", exchange.export_download, name="export-download"),
    path(f"{C}export.zip", exchange.export_archive, name="export-archive"),
    # orders
    path(f"{C}orders/", orders.orders, name="orders"),
    path(f"{C}orders/confirm/", orders_confirm.orders_confirm_view, name="orders-confirm"),
    path(f"{C}orders/army/", orders_choices.orders_army, name="orders-army"),
    path(f"{C}orders/events/", orders_events.orders_events, name="orders-events"),
    path(f"{C}orders/regroup/", orders_regroup.orders_regroup, name="orders-regroup"),
    path(
        f"{C}orders/reinforcements/",
        orders_reinforcements.reinforcements,
        name="reinforcements",
    ),
    path(
        f"{C}orders/reinforcements/remove/",
        orders_reinforcements.reinforcements_remove,
        name="reinforcements-remove",
    ),
    path(
        f"{C}orders/reinforcements/move/",
        orders_reinforcements.reinforcements_move,
        name="reinforcements-move",
    ),
    path(f"{C}orders/force/<key:force_key>/", orders.orders_force, name="orders-force"),
    path(f"{C}orders/force/<key:force_key>/path/", orders.orders_path, name="orders-path"),
    path(
        f"{C}orders/force/<key:force_key>/chances/",
        orders.orders_probability,
        name="orders-probability",
    ),
    path(f"{C}orders/force/<key:force_key>/odds/", orders_odds.orders_odds, name="orders-odds"),
]

# set-up (spec §2): new campaign, map, territory, holdings, options, players, rosters, start
urlpatterns += [
    path("new/", setup.campaign_new, name="new"),
    # a visitor may sign up and join there; accounts.join hands a logged-in user to players.join
    path("join/<key:token>/", accounts_join.join, name="join"),
    path(f"{C}setup/map/", setup_map.setup_map, name="setup-map"),
    path(f"{C}setup/map/square/", setup_map.setup_square, name="setup-square"),
    path(f"{C}setup/map/import/", setup_map.setup_import, name="setup-import"),
    path(f"{C}setup/territory/", setup_map.setup_territory, name="setup-territory"),
    path(f"{C}setup/holdings/", setup_map.setup_holdings, name="setup-holdings"),
    path(
        f"{C}setup/holdings/<key:key>/remove/",
        setup_map.setup_holding_remove,
        name="setup-holding-remove",
    ),
    path(f"{C}setup/options/", setup.setup_options, name="setup-options"),
    path(f"{C}setup/rolls/<slug:kind>/", setup_rolls.setup_roll, name="setup-roll"),
    path(f"{C}setup/players/", players.setup_players, name="setup-players"),
    path(f"{C}setup/sides/add/", players.setup_side_add, name="setup-side-add"),
    path(f"{C}setup/sides/<key:key>/delete/", players.setup_side_delete, name="setup-side-delete"),
    path(f"{C}setup/players/add/", players.setup_player_add, name="setup-player-add"),
    path(f"{C}setup/players/<key:key>/save/", players.setup_player_save, name="setup-player-save"),
    path(
        f"{C}setup/players/<key:key>/delete/",
        players.setup_player_delete,
        name="setup-player-delete",
    ),
    path(f"{C}invite/", players.invite, name="invite"),
    path(f"{C}invite/<int:pk>/revoke/", players.invitation_revoke, name="invitation-revoke"),
    path(f"{C}roster/", rosters.roster, name="roster"),
    path(f"{C}roster/ready/", rosters.roster_ready, name="roster-ready"),
    path(f"{C}roster/<key:key>/", rosters.roster_force, name="roster-force"),
    path(f"{C}roster/<key:key>/save/", rosters.roster_force_save, name="roster-force-save"),
    path(f"{C}roster/<key:key>/delete/", rosters.roster_force_delete, name="roster-force-delete"),
    path(
        f"{C}roster/<key:key>/commands/add/", rosters.roster_command_add, name="roster-command-add"
    ),
    path(f"{C}roster/<key:key>/units/add/", rosters.roster_unit_add, name="roster-unit-add"),
    path(
        f"{C}roster/<key:key>/characters/add/",
        rosters.roster_character_add,
        name="roster-character-add",
    ),
    path(
        f"{C}roster/<key:key>/items/<key:item>/save/",
        rosters.roster_item_save,
        name="roster-item-save",
    ),
    path(
        f"{C}roster/<key:key>/items/<key:item>/delete/",
        rosters.roster_item_delete,
        name="roster-item-delete",
    ),
    path(f"{C}start/", setup.start, name="start"),
]
