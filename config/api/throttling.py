"""Rate limits (D13): DRF's throttles, counting in the default cache (shared between
processes when REDIS_URL is set)."""

import hashlib
import math
from types import SimpleNamespace

from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


class PerAddress:
    """Counted per client address (DRF's get_ident: the proxies' NUM_PROXIES honoured)."""

    def address_key(self, request) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AnonymousThrottle(PerAddress, AnonRateThrottle):
    """Anonymous clients, per address."""

    scope = "anonymous"

    def get_cache_key(self, request, view) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.address_key(request)


class SignedInThrottle(UserRateThrottle):
    """Signed-in users, per user; anonymous clients are counted by AnonymousThrottle only."""

    scope = "signed_in"

    def get_cache_key(self, request, view) -> str | None:
        # DRF's class counts anonymous clients per address here too: a second counter, and
        # two more cache round trips per anonymous request, for a limit they already have.
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class AddressThrottle(PerAddress, SimpleRateThrottle):
    """A scope counted per client address, signed in or not."""

    def get_cache_key(self, request, view) -> str:
        return self.address_key(request)


class LoginAddressThrottle(AddressThrottle):
    scope = "login"


class RegisterAddressThrottle(AddressThrottle):
    scope = "register"


class LoginEmailThrottle(SimpleRateThrottle):
    """Login attempts per target email, whatever address they come from."""

    scope = "login_email"

    def get_cache_key(self, request, view) -> str | None:
        try:
            email = request.data.get("email")
        except AttributeError:
            return None
        if not isinstance(email, str) or not email.strip():
            return None
        # The email is hashed so that cache keys hold no personal data.
        digest = hashlib.sha256(email.strip().lower().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": digest}


class UploadThrottle(SimpleRateThrottle):
    """Media uploads per user."""

    scope = "upload"

    def get_cache_key(self, request, view) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class WebhookRegisterThrottle(UserRateThrottle):
    """Webhook registrations per user, whatever their outcome (only signed-in owners and
    admins get as far as the throttles)."""

    scope = "webhook_register"


# Sign-in attempts, wherever they are made: the API, the website's page, the admin's page.
LOGIN_THROTTLES = (LoginAddressThrottle, LoginEmailThrottle)
# Every request's own limits (the API's default classes): the website's search counts too.
REQUEST_THROTTLES = (AnonymousThrottle, SignedInThrottle)


def page_request_wait(request, throttle_classes, *, data=None) -> int | None:
    """Seconds to wait when a page request (a form post, a search) is over one of the
    limits, else None (and counted).

    The website's and the admin's pages count against the API's own limits with the same
    classes. Those read `headers`, `META`, `user` and `data` from a DRF request; a Django
    request offers the same through this stand-in. `data` is what the classes read as the
    body (LoginEmailThrottle its `email`): the post itself unless given.
    """
    attempt = SimpleNamespace(
        headers=request.headers,
        META=request.META,
        user=request.user,
        data=request.POST if data is None else data,
    )
    for throttle_class in throttle_classes:
        throttle = throttle_class()
        if not throttle.allow_request(attempt, None):
            return max(1, math.ceil(throttle.wait() or 1))
    return None
