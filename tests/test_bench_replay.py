"""bench/replay.py: the benchmark's requests replayed in-process, and what they cost."""

import pytest
from django.db import connection
from django.test import Client

from bench.replay import replay
from tests.factories import ListingFactory

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


def test_a_request_not_answered_200_stops_the_replay_naming_it():
    with pytest.raises(RuntimeError, match=r"^/api/v1/properties/missing answered 404$"):
        replay(Client(), ["/api/v1/properties?page=1", "/api/v1/properties/missing"])
