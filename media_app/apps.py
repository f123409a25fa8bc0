from django.apps import AppConfig


class MediaAppConfig(AppConfig):
    name = "media_app"
    verbose_name = "Media"
