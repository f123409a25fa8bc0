"""The project's configuration of Django's admin app."""

from django.contrib.admin.apps import AdminConfig


class PlatformAdminConfig(AdminConfig):
    """Django's admin with the project's site (config.admin.PlatformAdminSite).

    Apart from config.admin so that the site's module may import forms and models: it is
    imported once the apps are loaded, this one while they load.
    """

    default_site = "config.admin.PlatformAdminSite"
