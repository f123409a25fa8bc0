"""Public searches' statements compiled once per shape (listings.search_statements)."""

import logging
import random
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from config.api.pagination import sorted_after_filtering
from listings import search_statements as statements_module
from listings.demo_bulk import bulk_seed
from listings.filters import SORTS, PropertyFilter
from listings.groups import GroupedSearch
from listings.models import Property, PropertyType, TransactionType
from listings.search_statements import (
    EVERY_MATCH,
    STAND_INS,
    search_statements,
    shape_statement,
)
from listings.selectors import property_visible_to
from tests.properties.support import PROPERTIES_URL

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_only]

CAP = 11
# Prices on, beside and between the bands' edges (listings.groups), and beyond the last.
PRICES = ["0", "9.99", "10", "12", "1000", "1150.50", "150000", "220000", "820000000", "9e8"]


@pytest.fixture
def seeded(settings, tmp_path):
    """Listings of every kind in many towns and categories, seeded as the benchmark does."""
    settings.MEDIA_ROOT = str(tmp_path)
    bulk_seed(count=400, images_per_property=1, seed=11, workers=0, progress=False)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {
        "municipality": sorted(set(Property.objects.values_list("municipality", flat=True))),
        "categoryId": sorted(set(Property.objects.values_list("category_id", flat=True))),
    }


def random_search(rng: random.Random, seeded: dict, *, most: int = 7) -> dict:
    """A visitor's search on up to `most` of the filters the groups hold, sorted some way."""
    choices = {
        "transactionType": list(TransactionType.values),
        "type": list(PropertyType.values),
        "municipality": [*seeded["municipality"], " MADRID ", "nowhere"],
        "categoryId": seeded["categoryId"],
        "minBedrooms": ["0", "1", "2", "3", "5"],
        "minPrice": PRICES,
        "maxPrice": PRICES,
    }
    names = rng.sample(sorted(choices), rng.randint(0, most))
    data = {name: rng.choice(choices[name]) for name in names}
    if "minPrice" in data and "maxPrice" in data:
        low, high = sorted((data["minPrice"], data["maxPrice"]), key=Decimal)
        data.update(minPrice=low, maxPrice=high)
    sort = rng.choice([None, *SORTS])
    if sort:
        data["sort"] = sort
    return data


def filtered(data: dict) -> PropertyFilter:
    query = QueryDict(mutable=True)
    query.update(data)
    filterset = PropertyFilter(query, queryset=property_visible_to(viewer=AnonymousUser()))
    assert filterset.is_valid(), filterset.errors
    return filterset


def executed(statement: tuple[str, list]) -> list:
    with connection.cursor() as cursor:
        cursor.execute(*statement)
        return cursor.fetchall()


def test_each_searchs_statements_find_what_the_orms_find(seeded):
    # given 250 random public searches over 400 listings
    rng = random.Random(5)
    for _ in range(250):
        data = random_search(rng, seeded)
        filterset = filtered(data)
        search = filterset.grouped_search()
        listings = filterset.qs

        # when their statements are made from their shapes'
        statements = search_statements(search, sort=data.get("sort"))

        # then each page's ids, walked or sorted whole, are the ORM's page
        for sorted_whole in (False, True):
            ordered = sorted_after_filtering(listings) if sorted_whole else listings
            for offset, limit in ((0, 10), (7, 5), (30, 10)):
                ids = statements.ids(offset=offset, limit=limit, sorted_whole=sorted_whole)
                assert ids is not None, data
                expected = list(ordered.values_list("pk", flat=True)[offset : offset + limit])
                assert [row[0] for row in executed(ids)] == expected, data
        # and the matches left to count, outside the whole bands, are counted as the ORM
        # counts them, up to the cap
        edges = search.outside_edges()
        counts = statements.partial_counts(edges, cap=CAP)
        assert counts is not None, data
        parts = (
            [listings]
            if edges is None
            else [listings.filter(GroupedSearch.edge_condition(*edge)) for edge in edges.items()]
        )
        assert [executed(count)[0][0] for count in counts] == [
            min(part.count(), CAP) for part in parts
        ], data


def test_the_api_answers_the_same_with_statements_left_to_the_orm(
    seeded, anonymous_client, settings, monkeypatch, throttle_rates
):
    # given 80 random public searches on up to two filters, some counted past the limit,
    # answered with the shapes' statements
    settings.PROPERTY_LIST_EXACT_COUNT_LIMIT = 20
    throttle_rates(anonymous="1000/min")
    rng = random.Random(9)
    searches = [
        {
            **random_search(rng, seeded, most=2),
            "page": rng.randint(1, 3),
            "limit": rng.choice([5, 10]),
        }
        for _ in range(80)
    ]
    answers = [anonymous_client.get(PROPERTIES_URL, search) for search in searches]

    # when every shape is left to the ORM (and nothing is answered from the cache)
    monkeypatch.setattr(statements_module, "shape_statement", lambda *arguments: None)
    cache.clear()
    orm_answers = [anonymous_client.get(PROPERTIES_URL, search) for search in searches]

    # then the answers are the same, listing for listing and count for count
    assert [answer.status_code for answer in answers] == [200] * len(searches)
    assert [answer.json() for answer in answers] == [answer.json() for answer in orm_answers]
    assert sum(bool(answer.json()["properties"]) for answer in answers) > len(searches) / 2


def test_a_search_with_statements_takes_the_statements_the_orm_takes(
    seeded, anonymous_client, monkeypatch
):
    # given a search whose price range cuts through bands, so that its matches are counted,
    # asked for once already (its shape's statements compiled then)
    search = {"transactionType": "SALE", "minPrice": "1150.50", "maxPrice": "220000"}
    anonymous_client.get(PROPERTIES_URL, {**search, "sort": "price", "page": 2})

    # when a visitor asks for its first page, then with every shape left to the ORM
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {**search, "sort": "price"})
    monkeypatch.setattr(statements_module, "shape_statement", lambda *arguments: None)
    cache.clear()
    with CaptureQueriesContext(connection) as orm_queries:
        orm_response = anonymous_client.get(PROPERTIES_URL, {**search, "sort": "price"})

    # then both take the same statements (the count in its savepoint with its timeout, the
    # page's ids, their rows); only the ids' page size and start are parameters
    assert response.status_code == orm_response.status_code == 200
    assert response.json() == orm_response.json()
    assert len(queries) == len(orm_queries) == 7
    statements = [query["sql"] for query in queries]
    orm_statements = [query["sql"] for query in orm_queries]
    assert statements[5] == orm_statements[5] + " OFFSET 0"
    # (the savepoints' names are numbered)
    assert statements[1:4] + statements[6:] == orm_statements[1:4] + orm_statements[6:]


@pytest.mark.parametrize("part", ["walk", "sort whole", EVERY_MATCH, "below", "above"])
def test_a_shape_whose_stand_ins_are_not_told_apart_is_left_to_the_orm(monkeypatch, caplog, part):
    # given stand-ins where the price range's two ends are the same value, so that a
    # statement's parameters cannot say which is which
    first, second = STAND_INS
    same = {**first, "maxPrice": first["minPrice"]}
    monkeypatch.setattr(statements_module, "STAND_INS", (same, second))
    shape_statement.cache_clear()

    # when a shape filtering on both is asked for
    with caplog.at_level(logging.WARNING, logger="listings.search_statements"):
        statement = shape_statement(("minPrice", "maxPrice"), "price", part, CAP)
    shape_statement.cache_clear()

    # then the ORM compiles that shape's statements, and the log says so
    assert statement is None
    assert "left to the ORM" in caplog.text


def test_a_shape_whose_second_stand_ins_compile_otherwise_is_left_to_the_orm(monkeypatch, caplog):
    # given a compiler that gives the second stand-ins' statement another shape
    compiled = statements_module._compiled

    def diverging(names, sort, part, cap, stand_ins):
        sql, params, values = compiled(names, sort, part, cap, stand_ins)
        if stand_ins is STAND_INS[1]:
            sql = sql.replace("WHERE", "WHERE TRUE AND", 1)
        return sql, params, values

    monkeypatch.setattr(statements_module, "_compiled", diverging)
    shape_statement.cache_clear()

    # when a shape is asked for
    with caplog.at_level(logging.WARNING, logger="listings.search_statements"):
        statement = shape_statement(("transactionType",), "", EVERY_MATCH, CAP)
    shape_statement.cache_clear()

    # then it is left to the ORM
    assert statement is None
    assert "left to the ORM" in caplog.text
