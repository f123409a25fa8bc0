from django.apps import AppConfig


class ListingsConfig(AppConfig):
    name = "listings"
    verbose_name = "Listings"

    def ready(self) -> None:
        # SQL functions SQLite lacks, on each of its connections (listings.functions).
        from listings import functions

        functions.connect()
