"""Anonymous visitors' public reads of listings served from the cache at the door."""

import functools

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.urls import Resolver404, resolve
from rest_framework.settings import api_settings

from config.api.throttling import AnonymousThrottle
from listings.cache import public_read_at_door, public_read_store, public_reads_enabled

# Accept headers that DRF answers with the JSON renderer, unparameterised: none (the first
# renderer), anything, JSON. Others go through content negotiation in the view.
JSON_ACCEPTS = frozenset({None, "*/*", "application/json"})


# Resolving a path through the whole URLconf cost a tenth of a cached read; the answer for
# a path does not change with its URLconf (the detail's ids: a recent few are kept).
@functools.lru_cache(maxsize=4096)
def _reads_public_listings(urlconf: str, path: str) -> bool:
    """Whether `path` is that of GET /properties or GET /properties/:id in `urlconf`."""
    # Imported here: the views import this module's neighbours, not the other way round.
    from listings.api.views import PropertyViewSet

    try:
        view = resolve(path, urlconf).func
    except Resolver404:
        return False
    return getattr(view, "cls", None) is PropertyViewSet


def _anonymous_json_read(request) -> bool:
    """An anonymous visitor's GET of listings in JSON: no credentials (no Authorization
    header, no session), no other format asked for."""
    meta = request.META
    return (
        request.method == "GET"
        and "HTTP_AUTHORIZATION" not in meta
        and meta.get("HTTP_ACCEPT") in JSON_ACCEPTS
        and f"{api_settings.URL_FORMAT_OVERRIDE}=" not in meta.get("QUERY_STRING", "")
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and _reads_public_listings(settings.ROOT_URLCONF, request.path_info)
    )


class PublicReadsMiddleware:
    """Serves the cached public reads of anonymous visitors before the rest of the stack
    runs, and keeps every public read's response once the stack has made it.

    A cached read is most of what a search portal serves, and what made it cost was the
    way to it: Django's middleware, DRF's request, authentication, negotiation, and two
    round trips to the cache (the rate limit, then the entry). At the door, an anonymous
    visitor's JSON read counts its rate limit (the anonymous one: the only limit on these
    reads for a visitor) and reads its entry in one round trip, and an entry kept with the
    headers the platform sent answers it as it was sent. Anything else goes on through
    the stack with what the door found: the throttle takes the hit it counted, the view
    the lookup (listings.cache.public_read_at_door). First in MIDDLEWARE, so that what it
    keeps is the response as the whole stack made it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        at_door = public_reads_enabled() and _anonymous_json_read(request)
        if at_door:
            served = self._serve(request)
            if served is not None:
                return served
        response = self.get_response(request)
        # Set by the listings' view on a public read to keep (PropertyViewSet).
        read = getattr(response, "public_read", None)
        if read is not None:
            public_read_store(read, response, whole=at_door)
        return response

    @staticmethod
    def _serve(request):
        """The kept response, or None (a miss, a refused hit, a host not allowed)."""
        throttle = AnonymousThrottle()
        if throttle.rate is None:
            return None
        try:
            window = throttle.window_key(throttle.address_key(request))
            return public_read_at_door(request, window=window, rate=throttle)
        except DisallowedHost:
            # The stack answers it, as it answers any request for a host not allowed.
            return None
