"""Page/limit pagination with strict parameters (D8) and the interface's envelopes."""

import math
from collections.abc import Sequence

from django.db.models import QuerySet
from rest_framework import serializers
from rest_framework.pagination import BasePagination
from rest_framework.response import Response


class PageLimitQuerySerializer(serializers.Serializer):
    """page >= 1 and 1 <= limit <= max_limit; anything else is a 400 naming the parameter."""

    page = serializers.IntegerField(min_value=1, required=False)

    def __init__(self, *args, max_limit: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["limit"] = serializers.IntegerField(
            min_value=1, max_value=max_limit, required=False
        )


class PageLimitPagination(BasePagination):
    """Slices a queryset by `page` and `limit`; subclasses choose the response envelope."""

    default_limit = 10
    max_limit = 100

    def paginate_queryset(self, queryset: QuerySet | Sequence, request, view=None):
        query = PageLimitQuerySerializer(
            data={
                key: request.query_params[key]
                for key in ("page", "limit")
                if key in request.query_params
            },
            max_limit=self.max_limit,
        )
        query.is_valid(raise_exception=True)
        self.page = query.validated_data.get("page", 1)
        self.limit = query.validated_data.get("limit", self.default_limit)
        self.total = queryset.count() if isinstance(queryset, QuerySet) else len(queryset)
        self.pages = math.ceil(self.total / self.limit) if self.total else 0
        offset = (self.page - 1) * self.limit
        if offset >= self.total:
            return []
        return list(queryset[offset : offset + self.limit])

    def get_paginated_response(self, data) -> Response:
        raise NotImplementedError

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": "page",
                "required": False,
                "in": "query",
                "description": "Page number, from 1.",
                "schema": {"type": "integer", "minimum": 1, "default": 1},
            },
            {
                "name": "limit",
                "required": False,
                "in": "query",
                "description": f"Items per page, 1 to {self.max_limit}.",
                "schema": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_limit,
                    "default": self.default_limit,
                },
            },
        ]


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


class PropertyPagination(PageLimitPagination):
    """`{properties, totalItems, totalPages, itemsPerPage, currentPage}` (GET /properties)."""

    default_limit = 10

    def get_paginated_response(self, data) -> Response:
        return Response(
            {
                "properties": data,
                "totalItems": self.total,
                "totalPages": self.pages,
                "itemsPerPage": self.limit,
                "currentPage": self.page,
            }
        )

    def get_paginated_response_schema(self, schema):
        integer = {"type": "integer"}
        return {
            "type": "object",
            "required": ["properties", "totalItems", "totalPages", "itemsPerPage", "currentPage"],
            "properties": {
                "properties": schema,
                "totalItems": integer,
                "totalPages": integer,
                "itemsPerPage": integer,
                "currentPage": integer,
            },
        }
