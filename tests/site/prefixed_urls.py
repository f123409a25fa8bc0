"""The website's routes under language prefixes (/en/, /es/), with robots.txt, the sitemap,
the admin and the API outside them: how config.seo and listings.sitemap are tested with
prefixed addresses, whatever config.urls does."""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from listings import views as listing_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("config.api.urls")),
    path("", include("config.seo_urls")),
    *i18n_patterns(
        path("", listing_views.search, name="home"),
        path("", include("accounts.site_urls")),
        path("", include("listings.site_urls")),
        path("", include("media_app.site_urls")),
        path("", include("favorites.site_urls")),
        path("", include("appointments.site_urls")),
        path("", include("notifications.site_urls")),
    ),
]
