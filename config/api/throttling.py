"""Rate limits (D13); counters live in the default cache, shared when REDIS_URL is set."""

import hashlib

from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


class AnonymousThrottle(AnonRateThrottle):
    """Anonymous clients, per address."""

    scope = "anonymous"


class SignedInThrottle(UserRateThrottle):
    """Signed-in users, per user; anonymous clients are counted by AnonymousThrottle only."""

    scope = "signed_in"

    def get_cache_key(self, request, view) -> str | None:
        # DRF's class counts anonymous clients per address here too: a second counter, and
        # two more cache round trips per anonymous request, for a limit they already have.
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class AddressThrottle(SimpleRateThrottle):
    """A scope counted per client address, signed in or not."""

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


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
