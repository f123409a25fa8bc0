"""Reads of a fixed shape: compiled once per process, planned once per database connection.

A listing's detail is one statement whose text never changes, only the listing's id. Yet
each request built it anew (about 2 ms of the ORM's time for its forty columns, joins and
gallery subqueries) and PostgreSQL planned it anew (about 3 ms on the benchmark's machine,
where it executes in 0.2 ms: five joined tables, and the listing table's many indexes to
consider; docs/performance.md). `KeptStatement` compiles such a queryset once, with a
stand-in for the value that changes, and runs it inside `server_bound`, where the
connection's cursors bind parameters on the server, so that psycopg prepares the statement
on each connection and PostgreSQL reuses its plan. `server_bound` alone serves ORM reads
whose text is fixed but which are cheap to compile (the token lookup, a user's favorites).

Every other statement of the project keeps Django's default, parameters bound on the client
(psycopg never prepares those), whose plans follow each search's values: a generic plan is
right for a lookup by primary key and wrong for a price range. DATABASE_PREPARED_STATEMENTS
=false (settings) turns preparing off for poolers that cannot keep prepared statements
(PgBouncer before 1.21 in transaction mode); kept statements are still compiled once.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connections
from django.db.models import QuerySet


@contextmanager
def server_bound(alias: str) -> Iterator[None]:
    """Inside, the cursors that connection `alias` opens bind their parameters on the server,
    so psycopg prepares their statements and PostgreSQL plans each once per connection
    (nothing changes elsewhere).

    For statements whose text is the same at every run and whose best plan does not depend
    on the values: a lookup by a key, a user's own rows. Cursors are Django's, so queries
    are logged, counted and their errors wrapped as usual.
    """
    connection = connections[alias]
    if connection.vendor != "postgresql":
        yield
        return
    # Imported here: the module needs psycopg, which SQLite-only installations may lack.
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    psycopg_connection = connection.connection
    previous = psycopg_connection.cursor_factory
    psycopg_connection.cursor_factory = ServerBindingCursor
    try:
        yield
    finally:
        psycopg_connection.cursor_factory = previous


class KeptStatement:
    """A values() queryset compiled once, whose one changing value is passed to `rows()`.

    `queryset` is built with `stand_in` (a value no other parameter has) where the real
    value goes; compiling it gives the SQL, the parameters, and the position of the stand-in
    among them. Rows come back as values() gives them: dicts by the queryset's names, with
    the fields' conversions from the database applied.
    """

    def __init__(self, queryset: QuerySet, *, stand_in: str):
        query = queryset.query
        self.alias = queryset.db
        # Kept for converting the rows' values, which reads nothing of the connection it
        # was made with: any thread may use it.
        self.compiler = query.get_compiler(self.alias)
        self.sql, params = self.compiler.as_sql()
        self.params = list(params)
        if self.params.count(stand_in) != 1:
            raise ValueError(f"The stand-in must be exactly one of the parameters: {params}")
        self.slot = self.params.index(stand_in)
        self.names = [*query.extra_select, *query.values_select, *query.annotation_select]
        # The conversions of the selected columns' values, found once (results_iter looks
        # them up again for every call: a tenth of reading a page's rows).
        selected = [column for column, *_ in self.compiler.select[: self.compiler.col_count]]
        self.converters = self.compiler.get_converters(selected)
        self.composite = self.compiler.has_composite_fields(selected)

    def rows(self, value: Any) -> list[dict]:
        """The statement's rows with `value` in place of the stand-in."""
        params = self.params.copy()
        params[self.slot] = value
        with server_bound(self.alias), connections[self.alias].cursor() as cursor:
            cursor.execute(self.sql, params)
            fetched = cursor.fetchall()
        if self.composite:
            converted = self.compiler.results_iter([fetched])
        elif self.converters:
            converted = self.compiler.apply_converters(fetched, self.converters)
        else:
            converted = fetched
        return [dict(zip(self.names, row, strict=True)) for row in converted]
