"""The planner's estimate of the listings table's size, read inside other statements.

`TABLE_ROWS` is a subquery of pg_class.reltuples (as of the last VACUUM or ANALYZE): what
the page reader weighs an index walk against (listings.search.pages.sorts_whole). The
statements that count a search select it beside their count, so it costs no round trip
of its own.
"""

from listings.models import Property

# The table's name is the model's, never a value from a request.
TABLE_ROWS = (
    f"(SELECT reltuples::bigint FROM pg_class WHERE oid = '{Property._meta.db_table}'::regclass)"  # noqa: S608
)
