"""The REST API: version 1 under /api/v1, its OpenAPI schema and offline interactive docs."""

from django.conf import settings
from django.urls import include, path, re_path
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.api.exceptions import api_not_found

v1 = [
    path("", include("accounts.api.urls")),
    path("", include("listings.api.urls")),
    path("", include("appointments.api.urls")),
    path("", include("media_app.api.urls")),
    path("", include("favorites.api.urls")),
    path("", include("notifications.api.urls")),
    re_path(r"^schema/?$", SpectacularAPIView.as_view(api_version="v1"), name="schema"),
]

urlpatterns = [
    path("v1/", include(v1)),
    # Swagger UI's page starts itself with an inline script and style: allowed on this page only.
    re_path(
        r"^docs/?$",
        csp_override(
            {
                **settings.SECURE_CSP,
                "script-src": [CSP.SELF, CSP.UNSAFE_INLINE],
                "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
            }
        )(SpectacularSwaggerView.as_view(url_name="schema")),
        name="api-docs",
    ),
    # Anything else under /api/ is a 404 problem document, never an HTML page; the path
    # may hold newlines (%0A), which `.` would not match.
    re_path(r"^[\s\S]*$", api_not_found),
]
