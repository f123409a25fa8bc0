"""SQL functions the listings' queries use that SQLite does not have as PostgreSQL has them.

SQLite's LOWER() lowercases ASCII letters only: LOWER('MÁLAGA') is 'mÁlaga', so a town
written in capitals with an accent was never found by its name on SQLite. `unicode_lower`
is Python's str.lower, registered on every SQLite connection when it opens (Django's
connection_created signal, the documented place for it; ListingsConfig.ready connects it).
"""

from django.db.backends.signals import connection_created
from django.db.models.functions import Lower


class TownKey(Lower):
    """A town's name as the municipality filter compares it: lowercased, every letter.

    LOWER() on PostgreSQL (the expression of the lower(municipality) indexes); on SQLite,
    unicode_lower()."""

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, function="UNICODE_LOWER", **extra_context)


def register_sqlite_functions(sender, connection, **kwargs) -> None:
    """connection_created receiver: add unicode_lower to a new SQLite connection."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("unicode_lower", 1, _lower, deterministic=True)


def _lower(value: str | None) -> str | None:
    return None if value is None else value.lower()


def connect() -> None:
    """Register the functions on every SQLite connection opened from now on."""
    connection_created.connect(register_sqlite_functions, dispatch_uid="listings.functions")
