"""GET /properties' envelope: how a search's result is rendered, and documented."""

from django.conf import settings
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from config.api.pagination import page_limit_parameters
from listings.search import SearchResult

# GET /properties pages this many listings at a time by default, at most MAX_LIMIT (D8).
DEFAULT_LIMIT = 10
MAX_LIMIT = 100


class PropertyPagination(BasePagination):
    """`{properties, totalItems, totalItemsExact, totalPages, itemsPerPage, currentPage}`.

    Only renders: the view reads the page and limit, listing_search pages and counts."""

    def response(self, result: SearchResult, items: list[dict]) -> Response:
        """The envelope of a search's result whose listings are `items`."""
        return Response(
            {
                "properties": items,
                "totalItems": result.total,
                "totalItemsExact": result.exact,
                "totalPages": result.pages,
                "itemsPerPage": result.limit,
                "currentPage": result.page,
            }
        )

    def get_schema_operation_parameters(self, view):
        parameters = page_limit_parameters(max_limit=MAX_LIMIT, default_limit=DEFAULT_LIMIT)
        window = settings.PROPERTY_LIST_RESULT_WINDOW
        page = parameters[0]
        page["schema"]["maximum"] = window
        page["description"] = f"Page number, from 1; page * limit may be at most {window}."
        return parameters

    def get_paginated_response_schema(self, schema):
        integer = {"type": "integer"}
        return {
            "type": "object",
            "required": [
                "properties",
                "totalItems",
                "totalItemsExact",
                "totalPages",
                "itemsPerPage",
                "currentPage",
            ],
            "properties": {
                "properties": schema,
                "totalItems": integer,
                "totalItemsExact": {
                    "type": "boolean",
                    "description": "false when totalItems is an estimate (a broad search).",
                },
                "totalPages": integer,
                "itemsPerPage": integer,
                "currentPage": integer,
            },
        }
