"""`page` and `limit` (D8), read by config.api.pagination.read_page_and_limit."""

import pytest
from django.http import QueryDict
from rest_framework import serializers

from config.api.pagination import MAX_PAGE, read_page_and_limit


class PageLimitSerializer(serializers.Serializer):
    """The same rules as a DRF serializer states them: the errors to match."""

    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, required=False)
    limit = serializers.IntegerField(min_value=1, max_value=100, required=False)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "page=3",
        "limit=100&page=1",
        "page=0",
        "page=-1&limit=0",
        "page=abc&limit=101",
        "limit=",
        "page=2.5",
        "page=1&page=x",
        "limit=%20%207",
        "page=2147483647&limit=100",
        "page=2147483648",
        "page=30900562627009093632&limit=6",
    ],
)
def test_page_and_limit_are_read_as_a_drf_serializer_reads_them(query):
    # given a query string, and a serializer of the same two fields
    params = QueryDict(query)
    serializer = PageLimitSerializer(data={key: params[key] for key in params})

    # when both read it
    if serializer.is_valid():
        # then a valid one gives the same values
        assert read_page_and_limit(params, max_limit=100) == serializer.validated_data
    else:
        # and an invalid one the same errors, with their codes
        with pytest.raises(serializers.ValidationError) as refused:
            read_page_and_limit(params, max_limit=100)
        assert refused.value.detail == serializer.errors
        assert refused.value.get_codes() == {
            name: [error.code for error in errors] for name, errors in serializer.errors.items()
        }
