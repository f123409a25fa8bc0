"""Routers of the API: every path is accepted with and without a trailing slash (D1)."""

from rest_framework.routers import DynamicRoute, Route, SimpleRouter


class OptionalSlashRouter(SimpleRouter):
    """A SimpleRouter whose routes match `/users` and `/users/` alike, without a redirect.

    DRF's own routes (list, its actions, detail, its actions), each ending in an optional
    slash: DRF's documented way to change the patterns a router makes is its `routes`. The
    `{lookup}` part is each viewset's `lookup_value_regex` (config.api.viewsets.ApiViewSet).
    """

    routes = [
        Route(
            url=r"^{prefix}/?$",
            mapping={"get": "list", "post": "create"},
            name="{basename}-list",
            detail=False,
            initkwargs={"suffix": "List"},
        ),
        DynamicRoute(
            url=r"^{prefix}/{url_path}/?$",
            name="{basename}-{url_name}",
            detail=False,
            initkwargs={},
        ),
        Route(
            url=r"^{prefix}/{lookup}/?$",
            mapping={
                "get": "retrieve",
                "put": "update",
                "patch": "partial_update",
                "delete": "destroy",
            },
            name="{basename}-detail",
            detail=True,
            initkwargs={"suffix": "Instance"},
        ),
        DynamicRoute(
            url=r"^{prefix}/{lookup}/{url_path}/?$",
            name="{basename}-{url_name}",
            detail=True,
            initkwargs={},
        ),
    ]
