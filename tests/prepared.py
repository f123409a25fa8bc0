"""What PostgreSQL's connection of the tests holds prepared (config.statements)."""

from django.db import connection


def prepared_runs(pattern: str) -> dict[str, int]:
    """How many times each statement prepared on the connection whose text is LIKE `pattern`
    ran (its custom and generic plans). Statements stay prepared for the connection's life,
    across tests: compare what a test ran against what was there before it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            [pattern],
        )
        return dict(cursor.fetchall())


def runs_since(before: dict[str, int], pattern: str) -> dict[str, int]:
    """The statements LIKE `pattern` that ran since `before` was read, and how many times."""
    after = prepared_runs(pattern)
    runs = {statement: count - before.get(statement, 0) for statement, count in after.items()}
    return {statement: count for statement, count in runs.items() if count}
