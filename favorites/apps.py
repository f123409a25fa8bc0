from django.apps import AppConfig


class FavoritesConfig(AppConfig):
    name = "favorites"
    verbose_name = "Favorites"
