"""An invitation link opened by someone without an account: the join page with a sign-up
form, which creates the account and joins the campaign in one step.

`campaign:join` is routed here (campaign/urls.py, an entry point), so that the campaign's
packages never import accounts: a logged-in user is handed to campaign.setup's own join view.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.forms import SignupForm
from accounts.views import signup_attempt
from campaign.setup import invitations
from campaign.setup.views import players


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """What the invitation offers; for a visitor, "create an account and join" (one POST,
    atomic: a refused invitation leaves no account behind) or "log in" to join with his
    account."""
    if request.user.is_authenticated:
        return players.join(request, token)
    invitation = players.join_invitation(token)
    refusal = invitations.invitation_refusal(invitation=invitation, user=None)
    posted = request.method == "POST" and refusal is None
    form = SignupForm(request.POST if posted else None)
    status = 400 if request.method == "POST" else 200
    if posted:
        done, status = signup_attempt(request, form, invitation_token=invitation.token)
        if done is not None and done.verifying:
            return redirect("accounts:signup-done")
        if done is not None and done.membership is not None:
            name = invitation.campaign.name
            messages.success(request, _("Welcome to %(c)s.") % {"c": name})
            return redirect(players.after_join(done.membership))
    return players.join_render(
        request, invitation, refusal=refusal, status=status, signup_form=form
    )
