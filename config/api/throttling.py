"""Rate limits (D13): DRF throttle classes that count with the `limits` package.

Each limit is a moving window: a request counts for the period after it, and a client over
the limit waits until its oldest counted request leaves the window. Counters live in the
storage named by RATE_LIMIT_STORAGE_URL: Redis in production (shared between processes and
machines; `limits` counts a request there in one Lua script, one round trip), process
memory otherwise.

What it buys: DRF's own SimpleRateThrottle keeps each window as a list in the cache, read
and written back, two round trips to Redis per limit and request; in-process a listing
detail at 1,000,000 listings costs 0.96 to 1.05 ms of CPU with this counting against 1.14
to 1.16 ms with DRF's, in alternating runs (docs/performance.md). It stays correct because
the script checks and records a request atomically in Redis, so concurrent requests of one
client can never pass together over its limit (DRF's read-then-write can).
"""

import functools
import hashlib
import math
import threading
import time
from types import SimpleNamespace

# Imported whole before any request runs: `limits` imports its storage's client library on
# first use and reads its version, and a thread that found it half imported by another
# thread (a worker's threads start together) was refused with a ConfigurationError.
import redis  # noqa: F401
from django.conf import settings
from limits import (
    RateLimitItem,
    RateLimitItemPerDay,
    RateLimitItemPerHour,
    RateLimitItemPerMinute,
    RateLimitItemPerSecond,
)
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

# A rate is written as DRF writes it, "<count>/<period>": the period's first letter decides.
PERIODS = {
    "s": RateLimitItemPerSecond,
    "m": RateLimitItemPerMinute,
    "h": RateLimitItemPerHour,
    "d": RateLimitItemPerDay,
}


# One limiter per storage and process, however many of its threads ask for it first at once.
LIMITER_LOCK = threading.Lock()


@functools.cache
def limiter_on(storage_url: str) -> MovingWindowRateLimiter:
    """The process's limiter on the storage at `storage_url`."""
    return MovingWindowRateLimiter(storage_from_string(storage_url))


def rate_limiter() -> MovingWindowRateLimiter:
    """The limiter on the configured storage (RATE_LIMIT_STORAGE_URL), made on first use (a
    forked worker makes its own connection)."""
    with LIMITER_LOCK:
        return limiter_on(settings.RATE_LIMIT_STORAGE_URL)


@functools.cache
def parse_rate(rate: str) -> RateLimitItem:
    """The limit of a rate such as "120/min"."""
    count, period = rate.split("/")
    return PERIODS[period.strip()[0]](int(count))


class RateThrottle(BaseThrottle):
    """A limit of one scope (a key of REST_FRAMEWORK's DEFAULT_THROTTLE_RATES), counted per
    identity; `identity()` returns None for a request the scope does not count."""

    scope: str

    def identity(self, request) -> str | None:
        raise NotImplementedError

    def allow_request(self, request, view) -> bool:
        self.limit = None
        identity = self.identity(request)
        if identity is None:
            return True
        self.limit = parse_rate(api_settings.DEFAULT_THROTTLE_RATES[self.scope])
        self.key = (self.scope, identity)
        return rate_limiter().hit(self.limit, *self.key)

    def wait(self) -> float | None:
        """Seconds until the oldest counted request leaves the window."""
        if self.limit is None:
            return None
        stats = rate_limiter().get_window_stats(self.limit, *self.key)
        return max(stats.reset_time - time.time(), 0)


class AddressThrottle(RateThrottle):
    """A scope counted per client address (DRF's get_ident: NUM_PROXIES honoured), signed
    in or not."""

    def identity(self, request) -> str | None:
        return self.get_ident(request)


class UserThrottle(RateThrottle):
    """A scope counted per signed-in user; anonymous requests are not counted by it."""

    def identity(self, request) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return str(request.user.pk)


class AnonymousThrottle(AddressThrottle):
    """Anonymous clients, per address."""

    scope = "anonymous"

    def identity(self, request) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return super().identity(request)


class SignedInThrottle(UserThrottle):
    """Signed-in users, per user."""

    scope = "signed_in"


class LoginAddressThrottle(AddressThrottle):
    scope = "login"


class RegisterAddressThrottle(AddressThrottle):
    scope = "register"


class LoginEmailThrottle(RateThrottle):
    """Login attempts per target email, whatever address they come from."""

    scope = "login_email"

    def identity(self, request) -> str | None:
        try:
            email = request.data.get("email")
        except AttributeError:
            return None
        if not isinstance(email, str) or not email.strip():
            return None
        # The email is hashed so that the storage holds no personal data.
        return hashlib.sha256(email.strip().lower().encode()).hexdigest()


class UploadThrottle(RateThrottle):
    """Media uploads per user (per address for a request that is not signed in)."""

    scope = "upload"

    def identity(self, request) -> str | None:
        if request.user.is_authenticated:
            return str(request.user.pk)
        return self.get_ident(request)


class WebhookRegisterThrottle(UserThrottle):
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
