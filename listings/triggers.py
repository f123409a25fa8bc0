"""Installing and removing the SQL files of the tables PostgreSQL keeps from the listings
(listings/sql/: the public listing groups and days, the places, the map cells): each file's
statement-level triggers on listings_property and the functions they run. Migrations call
these through each table's module; other databases keep no such tables.

A migration runs a file as it is now, so the first migration that runs one comes after
every column the file reads: migration 0037, after the `public` column (0035) that the
triggers count listings by. A change to a file is installed by a new migration that runs
it again (and rebuilds the table); a file that comes to read a newer column moves the
first run past that column's migration, as 0037 did."""

from pathlib import Path

# The statements a file's triggers follow, each trigger named <prefix>_<operation>.
OPERATIONS = ("insert", "update", "delete", "truncate")


def install_sql_file(schema_editor, path: Path) -> None:
    """Run a file of triggers (every statement can run again, its last ones rebuild the
    table from the listings)."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(path.read_text(encoding="utf-8"), params=None)


def uninstall_triggers(schema_editor, *, prefix: str, functions: tuple[str, ...]) -> None:
    """Drop a file's triggers (`prefix`_insert, ...) and then its functions (signatures)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    for operation in OPERATIONS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {prefix}_{operation} ON listings_property")
    for function in functions:
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {function}")
