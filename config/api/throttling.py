"""Rate limits (D13); counters live in the default cache, shared when REDIS_URL is set."""

import hashlib
import math
from types import SimpleNamespace

from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


class CountedInWindow:
    """DRF's sliding window of a throttle, counted by the cache itself when it can
    (config.cache: a script in Redis, a lock in local memory): one round trip per request
    instead of reading the pickled history and writing it back (two), and no lost hits
    between them. Other caches count as DRF does.

    A hit may have been counted before the view, with the request's other reads
    (listings.middleware.PublicReadsMiddleware): the request carries it in `counted_hits`,
    by window key, and it is taken instead of counting the request twice.
    """

    window = None

    @staticmethod
    def window_key(key: str) -> str:
        # Its own key: a history DRF pickled under the plain key is another type of value.
        return f"{key}:window"

    def allow_request(self, request, view) -> bool:
        hit_window = getattr(self.cache, "hit_window", None)
        if hit_window is None or self.rate is None:
            return super().allow_request(request, view)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window_key = self.window_key(self.key)
        counted = getattr(request, "counted_hits", {}).pop(window_key, None)
        self.window = counted or hit_window(
            window_key, now=self.now, seconds=self.duration, limit=self.num_requests
        )
        return self.window.allowed

    def wait(self) -> float | None:
        """Seconds until a request would be counted again, as DRF reckons them."""
        if self.window is None:
            return super().wait()
        remaining = self.duration
        if self.window.oldest is not None:
            remaining = self.duration - (self.now - self.window.oldest)
        available = self.num_requests - self.window.count + 1
        if available <= 0:
            return None
        return remaining / float(available)


class PerAddress:
    """Counted per client address (DRF's get_ident: the proxies' NUM_PROXIES honoured)."""

    def address_key(self, request) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AnonymousThrottle(CountedInWindow, PerAddress, AnonRateThrottle):
    """Anonymous clients, per address."""

    scope = "anonymous"

    def get_cache_key(self, request, view) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.address_key(request)


class SignedInThrottle(CountedInWindow, UserRateThrottle):
    """Signed-in users, per user; anonymous clients are counted by AnonymousThrottle only."""

    scope = "signed_in"

    def get_cache_key(self, request, view) -> str | None:
        # DRF's class counts anonymous clients per address here too: a second counter, and
        # two more cache round trips per anonymous request, for a limit they already have.
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class AddressThrottle(CountedInWindow, PerAddress, SimpleRateThrottle):
    """A scope counted per client address, signed in or not."""

    def get_cache_key(self, request, view) -> str:
        return self.address_key(request)


class LoginAddressThrottle(AddressThrottle):
    scope = "login"


class RegisterAddressThrottle(AddressThrottle):
    scope = "register"


class LoginEmailThrottle(CountedInWindow, SimpleRateThrottle):
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


class UploadThrottle(CountedInWindow, SimpleRateThrottle):
    """Media uploads per user."""

    scope = "upload"

    def get_cache_key(self, request, view) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class WebhookRegisterThrottle(CountedInWindow, UserRateThrottle):
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
