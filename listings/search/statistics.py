"""The planner's figure of the listings table's size, read inside other statements or alone.

`TABLE_ROWS` is a subquery of pg_class.reltuples (as of the last VACUUM or ANALYZE; -1
before the table's first): what the page reader weighs an index walk against
(listings.search.pages.sorts_whole), and a relevance search its window's paths
(listings.search.windows, through table_rows). The statements that count a search select
it beside their count, so it costs no round trip of its own.
"""

from django.db import connections

from listings.models import Property

# The table's name is the model's, never a value from a request.
TABLE_ROWS = (
    f"(SELECT reltuples::bigint FROM pg_class WHERE oid = '{Property._meta.db_table}'::regclass)"  # noqa: S608
)


def table_rows(database: str) -> int:
    """The planner's estimate of the listings table's size (TABLE_ROWS), on its own."""
    with connections[database].cursor() as cursor:
        cursor.execute(f"SELECT {TABLE_ROWS}")
        return cursor.fetchone()[0]
