"""Routers of the API: every path is accepted with and without a trailing slash (D1)."""

from rest_framework.routers import SimpleRouter

from config.ids import ID_REGEX


class OptionalSlashRouter(SimpleRouter):
    """A SimpleRouter whose routes match `/users` and `/users/` alike, without a redirect."""

    def __init__(self) -> None:
        super().__init__()
        self.trailing_slash = "/?"
        # Ids are cuid2 strings (D2, config.ids). Anything else in an id position cannot
        # name a resource, so it falls through to the API's 404 route instead of reaching
        # the database, and no id can be taken for a sibling route's name (PATCH
        # /users/register is not a change of user "register"); the schema states the same
        # pattern.
        self._default_value_pattern = ID_REGEX
