"""Two real PostgreSQL servers for the router's tests: the machine's primary and its
streaming standby on port 5433 (bench/replica.py, made here when it is missing).

The alias `replica_1` (config/settings/test.py) is a test mirror of the primary: it reads
the primary's test database, which reaches the standby by replication. The tests are
transactional, since what a test writes must be committed to be replicated, and they wait
for the standby to replay the primary's WAL rather than sleep.
"""

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.conf import settings
from django.db import connections

from bench import replica as standby_setup
from config.routers import read_database, replica_reads

REPLICA = "replica_1"
# Both servers, for the tests' markers: django_db(transaction=True, databases=DATABASES).
DATABASES = ["default", REPLICA]
# Seconds a test waits for the standby to reach a state before it fails.
PATIENCE = 30
# The lag bound of the tests, in seconds: short, yet above the standby's lag while the
# machine's other work writes a lot of WAL.
LAG_BOUND = 2.0


@pytest.fixture(scope="session")
def standby() -> None:
    """The machine's standby, streaming: made, started or rebuilt by bench/replica.py
    unless it already streams."""
    if not standby_setup.standby_streams(seconds=1):
        made = subprocess.run(
            [sys.executable, "-m", "bench.replica"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode != 0:
            pytest.fail(f"the standby could not be set up:\n{made.stdout}{made.stderr}")


def standby_connection() -> psycopg.Connection:
    """A connection of the test's own to the standby (its `postgres` database)."""
    replica = connections[REPLICA].settings_dict
    return psycopg.connect(
        host=replica["HOST"],
        port=replica["PORT"],
        user=replica["USER"],
        dbname="postgres",
        autocommit=True,
        connect_timeout=3,
    )


def wait_for(condition, what: str) -> None:
    """Return once `condition()` holds; fail the test, naming `what`, after PATIENCE."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {PATIENCE} s for {what}")
        time.sleep(0.05)


def replay_caught_up() -> None:
    """Return once the standby has replayed everything the primary has committed so far,
    and a transaction committed now: the standby's last replayed transaction is then
    fresh, whatever else the machine's cluster writes (a long transaction in another
    database streams WAL without a commit, and the standby looks as far behind as the
    last commit it replayed; config.replica_health)."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()")
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        [written] = cursor.fetchone()
    with standby_connection() as standby:

        def replayed() -> bool:
            query = "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn"
            return standby.execute(query, [written]).fetchone()[0]

        wait_for(replayed, f"the standby to replay up to {written}")


def standby_serves_again() -> None:
    """Return once the standby has caught up and public reads go to it again (the
    machine's other work may keep it past the bound for a while)."""

    def serves() -> bool:
        replay_caught_up()
        with replica_reads():
            return read_database() == REPLICA

    wait_for(serves, "the standby to serve public reads again")


@contextmanager
def replay_paused() -> Iterator[None]:
    """The standby receives the primary's WAL but applies none of it, within the block."""
    with standby_connection() as standby:
        standby.execute("SELECT pg_wal_replay_pause()")
        try:
            wait_for(
                lambda: (
                    standby.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[0]
                    == "paused"
                ),
                "the standby's replay to pause",
            )
            yield
        finally:
            standby.execute("SELECT pg_wal_replay_resume()")


@contextmanager
def standby_stopped() -> Iterator[None]:
    """The standby's server stopped within the block, started and streaming after it."""
    version = standby_setup.primary_version()
    standby_setup.cluster_control(version, "stop")
    try:
        yield
    finally:
        standby_setup.cluster_control(version, "start")
        if not standby_setup.standby_streams(seconds=PATIENCE):
            pytest.fail("the standby did not stream again after its restart")


@pytest.fixture
def routing(standby, settings) -> None:
    """Public reads routed to the standby: lag bound LAG_BOUND, a fresh health check at
    every read (no verdict kept), and a test database the standby has replayed."""
    settings.DATABASE_REPLICAS = [REPLICA]
    settings.DATABASE_REPLICA_MAX_LAG_SECONDS = LAG_BOUND
    settings.DATABASE_REPLICA_CHECK_SECONDS = 0.0
    settings.DATABASE_REPLICA_STICKY_SECONDS = 10
    # A run that was killed may have left replay paused.
    with standby_connection() as standby:
        standby.execute("SELECT pg_wal_replay_resume()")
    replay_caught_up()


@pytest.fixture
def within_bound(routing, settings) -> None:
    """A lag bound far above how long a test takes: the standby serves public reads even
    while its replay is paused, or slowed by the machine's other work."""
    settings.DATABASE_REPLICA_MAX_LAG_SECONDS = 3600
