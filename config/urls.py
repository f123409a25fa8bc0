"""Root URL configuration: the website under /en/ and /es/, admin at /admin/, API at /api/,
health at /healthz."""

from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path
from django.utils import timezone
from django.views.decorators.http import last_modified
from django.views.i18n import JavaScriptCatalog

from config import views
from listings import views as listing_views
from media_app.views import media_serve

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("config.api.urls")),
    path("healthz", views.healthz, name="healthz"),
    # robots.txt and the sitemap, at the root whatever the language (config.seo).
    path("", include("config.seo_urls")),
    # A listing's address from before the language prefixes: one 301 to its canonical
    # address in the visitor's language (the listing page's own redirect).
    path("listings/<str:pk>/", listing_views.detail, name="listing-unprefixed"),
]

# The website (docs/website.md): each app's pages, all calling the API's services, under the
# language's prefix (/en/, /es/). `/` and any unprefixed page redirect to the prefix of the
# visitor's language (LocaleMiddleware, from Accept-Language).
# The scripts' texts in the page's language (static/js, locale/*/LC_MESSAGES/djangojs.po). They
# change only with a deployment, so a browser asking again gets a 304 from the process's start.
STARTED = timezone.now()
javascript_catalog = last_modified(lambda request, **kwargs: STARTED)(JavaScriptCatalog.as_view())

urlpatterns += i18n_patterns(
    path("", listing_views.search, name="home"),
    path("jsi18n/", javascript_catalog, name="javascript-catalog"),
    path("", include("accounts.site_urls")),
    path("", include("listings.site_urls")),
    path("", include("media_app.site_urls")),
    path("", include("favorites.site_urls")),
    path("", include("appointments.site_urls")),
    path("", include("notifications.site_urls")),
    prefix_default_language=True,
)

# Error pages in the site's style; under /api/ they answer problem documents like the API.
handler400 = "config.website.bad_request"
handler404 = "config.website.page_not_found"
handler403 = "config.website.permission_denied"
handler500 = "config.website.server_error"

if settings.DEBUG:
    # Local media is served by Django only in development; production uses S3 or a web server.
    # media_serve sends the stored type with nosniff, never HTML (D11).
    urlpatterns.append(path(f"{settings.MEDIA_URL.strip('/')}/<path:path>", media_serve))
