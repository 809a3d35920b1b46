from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        # logging in applies the user's language; a failed login counts against the limit
        from accounts import receivers  # noqa: F401
