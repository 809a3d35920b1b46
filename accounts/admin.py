"""Admin for the profiles; and the admin's own login form, under the limit of failed logins
that the site's login has (accounts.limits)."""

from __future__ import annotations

from django.contrib import admin

from accounts.forms import AdminLoginForm
from accounts.models import Profile
from campaign.admin import ModelAdmin

admin.site.login_form = AdminLoginForm


@admin.register(Profile)
class ProfileAdmin(ModelAdmin[Profile]):
    list_display = ["user", "language", "time_zone"]
    list_filter = ["language"]
    search_fields = ["user__username", "user__email", "user__first_name"]
    list_select_related = ["user"]
    raw_id_fields = ["user"]
