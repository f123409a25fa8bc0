"""How many public listings were created on each day (UTC), kept by PostgreSQL: triggers
on the listings table keep listings_publiclistingday (listings/sql/public_listing_days.sql)
in the writing statement, as they keep the public listing groups (listings.search.groups).
Only PostgreSQL keeps the days.
"""

from pathlib import Path

from listings.triggers import install_sql_file, uninstall_triggers

SQL_FILE = Path(__file__).resolve().parent.parent / "sql" / "public_listing_days.sql"


def install(schema_editor) -> None:
    """Install the triggers and rebuild the days (a migration's step; PostgreSQL only)."""
    install_sql_file(schema_editor, SQL_FILE)


def uninstall(schema_editor) -> None:
    """Remove the triggers and their functions (reversing the migration that made them)."""
    uninstall_triggers(
        schema_editor,
        prefix="listings_public_days",
        functions=(
            "listings_public_days_follow()",
            "listings_public_days_clear()",
            "listings_creation_day(timestamptz)",
        ),
    )
