"""Page/limit pagination with strict parameters (D8): 1 <= `page` <= MAX_PAGE, 1 <= `limit` <=
a maximum, anything else a 400 naming the parameter."""

import math
from collections.abc import Callable, Sequence

from django.db.models import QuerySet
from rest_framework import serializers
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

# The deepest page anyone may ask for: a 32-bit integer. Every answer repeats its page, and
# a page past 64 bits could not be written as JSON (orjson refuses it): such a request was
# a 500.
MAX_PAGE = 2**31 - 1


def read_page_and_limit(query_params, *, max_limit: int) -> dict[str, int]:
    """The page and limit given, validated; anything else is a 400 naming the parameter,
    in DRF's words."""
    fields = {
        "page": serializers.IntegerField(min_value=1, max_value=MAX_PAGE),
        "limit": serializers.IntegerField(min_value=1, max_value=max_limit),
    }
    values, errors = {}, {}
    for name, field in fields.items():
        if name not in query_params:
            continue
        try:
            values[name] = field.run_validation(query_params[name])
        except serializers.ValidationError as error:
            errors[name] = error.detail
    if errors:
        raise serializers.ValidationError(errors)
    return values


def page_limit_parameters(*, max_limit: int, default_limit: int) -> list[dict]:
    """The OpenAPI description of `page` and `limit`."""
    return [
        {
            "name": "page",
            "required": False,
            "in": "query",
            "description": f"Page number, from 1 to {MAX_PAGE}.",
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
        },
        {
            "name": "limit",
            "required": False,
            "in": "query",
            "description": f"Items per page, 1 to {max_limit}.",
            "schema": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_limit,
                "default": default_limit,
            },
        },
    ]


def _slice(items: QuerySet | Sequence, *, offset: int, limit: int) -> list:
    """One page of a queryset or a list, as model instances or items."""
    return list(items[offset : offset + limit])


class PageLimitPagination(BasePagination):
    """Counts a queryset and slices it by `page` and `limit`; subclasses choose the response
    envelope."""

    default_limit = 10
    max_limit = 100

    def paginate_queryset(self, queryset: QuerySet | Sequence, request, view=None):
        return self.paginate_rows(queryset, request, page_rows=_slice)

    def paginate_rows(
        self,
        queryset: QuerySet | Sequence,
        request,
        *,
        page_rows: Callable[..., list],
    ) -> list:
        """Read page and limit, count, then the page by `page_rows(queryset, offset, limit)`."""
        given = read_page_and_limit(request.query_params, max_limit=self.max_limit)
        self.page = given.get("page", 1)
        self.limit = given.get("limit", self.default_limit)
        self.total = queryset.count() if isinstance(queryset, QuerySet) else len(queryset)
        self.pages = math.ceil(self.total / self.limit) if self.total else 0
        offset = (self.page - 1) * self.limit
        if offset >= self.total:
            return []
        return page_rows(queryset, offset=offset, limit=self.limit)

    def get_paginated_response(self, data) -> Response:
        raise NotImplementedError

    def get_schema_operation_parameters(self, view):
        return page_limit_parameters(max_limit=self.max_limit, default_limit=self.default_limit)


class DataPagination(PageLimitPagination):
    """`{data: [...], pagination: {total, page, limit, pages}}` (GET /notifications, /users)."""

    default_limit = 20

    def get_paginated_response(self, data) -> Response:
        return Response(
            {
                "data": data,
                "pagination": {
                    "total": self.total,
                    "page": self.page,
                    "limit": self.limit,
                    "pages": self.pages,
                },
            }
        )

    def get_paginated_response_schema(self, schema):
        integer = {"type": "integer"}
        return {
            "type": "object",
            "required": ["data", "pagination"],
            "properties": {
                "data": schema,
                "pagination": {
                    "type": "object",
                    "required": ["total", "page", "limit", "pages"],
                    "properties": {
                        "total": integer,
                        "page": integer,
                        "limit": integer,
                        "pages": integer,
                    },
                },
            },
        }
