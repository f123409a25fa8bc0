"""The base of every API viewset."""

from rest_framework import viewsets

from config.ids import ID_REGEX


class ApiViewSet(viewsets.GenericViewSet):
    """A GenericViewSet whose ids in paths have the platform's shape (D2, config.ids).

    Anything else in an id position cannot name a resource, so it falls through to the
    API's 404 route instead of reaching the database, and no id can be taken for a sibling
    route's name (PATCH /users/register is not a change of user "register"); the schema
    states the same pattern.
    """

    lookup_value_regex = ID_REGEX
