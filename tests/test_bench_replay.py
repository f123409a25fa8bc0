"""bench/replay.py: the benchmark's requests replayed in-process, and what they cost."""

import gc
from collections import Counter

import pytest
from django.db import connection
from django.test import Client

from accounts.services import access_token_issue
from bench.replay import CollectionTimer, replay, send, statement_shape, statement_times
from tests.factories import ListingFactory
from tests.support import make_user

pytestmark = pytest.mark.django_db


def test_a_replay_sends_each_request_once_and_reads_the_cpu_it_took():
    # given listings and two request lines
    ListingFactory.create_batch(3)
    lines = ["/api/v1/properties?page=1&limit=2", "/api/v1/places?q=ma"]

    # when they are replayed
    result = replay(Client(), lines)

    # then each was answered once, and the CPU read: the database's where it runs here
    assert result.requests == 2
    assert 0 < result.p50_ms <= result.p95_ms
    assert result.python_cpu_ms > 0
    assert (result.database_cpu_ms is not None) == (connection.vendor == "postgresql")


def test_a_replay_times_the_garbage_collections_its_requests_cause():
    # given listings, and a collector that collects after every few allocations
    ListingFactory.create_batch(3)
    lines = ["/api/v1/properties?page=1&limit=2", "/api/v1/places?q=ma"]
    thresholds = gc.get_threshold()
    gc.set_threshold(10)
    try:
        # when the requests are replayed
        result = replay(Client(), lines)
    finally:
        gc.set_threshold(*thresholds)

    # then the collections are timed: their time per request, and the longest of them
    assert result.collector_ms > 0
    assert 0 < result.longest_collection_ms <= result.collector_ms * result.requests
    # ... and the timer is gone with the replay
    assert not any(isinstance(callback, CollectionTimer) for callback in gc.callbacks)


def test_a_replay_names_its_slowest_requests_by_path_without_their_tokens():
    # given listings and three request lines, one signed in with a bearer token
    ListingFactory.create_batch(3)
    token, _access_token = access_token_issue(user=make_user())
    lines = [
        "/api/v1/properties?page=1&limit=2",
        "/api/v1/places?q=ma",
        f"/api/v1/favorites\t{token}",
    ]

    # when they are replayed asking for the three slowest, then for the slowest
    result = replay(Client(), lines, slowest=3)
    slowest = replay(Client(), lines, slowest=1).slowest

    # then each is named by its path alone, slowest first, with the replay's wall times
    assert {path for _wall, path in result.slowest} == {
        "/api/v1/properties?page=1&limit=2",
        "/api/v1/places?q=ma",
        "/api/v1/favorites",
    }
    walls = [wall for wall, _path in result.slowest]
    assert walls == sorted(walls, reverse=True)
    assert walls[0] >= result.p95_ms > 0
    assert len(slowest) == 1
    assert replay(Client(), lines).slowest == ()


def test_a_request_not_answered_200_stops_the_replay_naming_it():
    with pytest.raises(RuntimeError, match=r"^/api/v1/properties/missing answered 404$"):
        replay(Client(), ["/api/v1/properties?page=1", "/api/v1/properties/missing"])


def test_statement_shapes_leave_out_literal_values_and_savepoint_names():
    # given statements with numbers, quoted values (one with a quote), an array, a
    # savepoint's name and lines
    statement = (
        'SELECT "column_0" FROM listings_property WHERE latitude >= 40.28 AND longitude <= -3.7'
        " AND municipality = 'L''Hospitalet' AND row = ANY('{1833,1834}'::int2[]) LIMIT 10001"
    )

    # then their shapes keep their words and names, on one line, without the values or the
    # savepoint's name
    assert statement_shape(statement) == (
        'SELECT "column_0" FROM listings_property WHERE latitude >= N AND longitude <= N'
        " AND municipality = ? AND row = ANY(?::int2[]) LIMIT N"
    )
    assert statement_shape('RELEASE SAVEPOINT "s1402511_x164"') == 'RELEASE SAVEPOINT "savepoint"'
    assert statement_shape("\nSELECT name\n  FROM places WHERE name LIKE 'a  b%'\n") == (
        "SELECT name FROM places WHERE name LIKE ?"
    )


def test_statement_times_count_each_shape_a_request_runs():
    # given listings, and the statements two requests for a page of them run
    ListingFactory.create_batch(3)
    lines = ["/api/v1/properties?page=1&limit=2", "/api/v1/properties?page=1&limit=2"]
    statements = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        send(Client(), lines[:1])
    shapes = Counter(statement_shape(sql) for sql in statements)

    # when both are replayed with each statement timed
    times = statement_times(Client(), lines)

    # then each shape is there as often a request as one request ran it, slowest first
    assert {each.shape: each.per_request for each in times} == dict(shapes)
    assert all(each.ms_per_request > 0 for each in times)
    assert [each.ms_per_request for each in times] == sorted(
        (each.ms_per_request for each in times), reverse=True
    )
