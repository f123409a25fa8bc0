"""Statements planned for their values every time, where the values decide the plan.

psycopg prepares a statement a connection runs five times (config/settings/base.py), and
PostgreSQL may then plan it once for any values (plan_cache_mode "auto"), which saves the
planning of statements whose best plan is the same for every value. Map searches and map
clusters are found by ranges of coordinates, whose best index and order depend on where
and how large the box is: planned without their values, a whole-country clusters view read
the whole country for one strip along its edge (1.9 s instead of 0.2 ms at 1,000,000
listings), a town's box walked the date index for its page (18 to 24 ms instead of 2.3 ms
from the longitude index), and which plan a connection kept depended on the requests it was
asked first (the benchmark's clusters ran at 56 or at 116 requests a second).

Inside `planned_for_its_values`, PostgreSQL plans every statement for its values
(plan_cache_mode force_custom_plan), set local to the transaction the block opens, which
ends with it (inside an outer transaction the block is a savepoint, and the setting lasts
until the outer one ends: statements planned for their values, never other answers). It
costs the planning (a fraction of a millisecond for these statements) and three round trips
(the transaction's start, the setting, its end), so only the statements whose plan the
values decide run inside: a search's rows, read by their ids, are read after the block. A
statement that runs in a transaction of its own for its timeout sets its plan mode with its
timeout instead (listings.search.counting.rows_within, `planned`), in the same round trip
(PLANNED_FOR_ITS_VALUES).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections, transaction

# Selected, sets the plan mode for the rest of the current transaction.
PLANNED_FOR_ITS_VALUES = "set_config('plan_cache_mode', 'force_custom_plan', true)"


@contextmanager
def planned_for_its_values(database: str) -> Iterator[None]:
    """Statements run inside are planned for their values every time (PostgreSQL)."""
    if connections[database].vendor != "postgresql":
        yield
        return
    with transaction.atomic(using=database), connections[database].cursor() as cursor:
        cursor.execute(f"SELECT {PLANNED_FOR_ITS_VALUES}")
        yield
