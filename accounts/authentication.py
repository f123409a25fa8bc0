"""Bearer-token authentication of REST clients (decisions D6)."""

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from accounts.selectors import access_token_find


class BearerTokenAuthentication(BaseAuthentication):
    """`Authorization: Bearer <token>`; unknown, revoked or expired tokens are 401."""

    keyword = b"bearer"

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword:
            return None
        if len(parts) != 2:
            raise AuthenticationFailed("The Authorization header must be 'Bearer <token>'.")
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError as error:
            raise AuthenticationFailed("The token is unknown, revoked or expired.") from error
        access_token = access_token_find(token=token)
        if access_token is None:
            raise AuthenticationFailed("The token is unknown, revoked or expired.")
        return access_token.user, access_token

    def authenticate_header(self, request) -> str:
        return "Bearer"
