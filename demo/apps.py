from django.apps import AppConfig


class DemoConfig(AppConfig):
    """Demo data: seeding commands only, no models."""

    name = "demo"
    verbose_name = "Demo data"
