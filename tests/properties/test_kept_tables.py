"""The SQL files of the tables PostgreSQL keeps from the listings (listings/triggers.py) are
what the migrations installed."""

import re

import pytest
from django.db import connection

from demo.bulk import KEPT_TABLE_FILES

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_only]

# Each function a file creates: its name and its body between its dollar quotes.
FUNCTION = re.compile(r"CREATE OR REPLACE FUNCTION (\w+)\(.*?AS (\$\w*\$)(.*?)\2", re.DOTALL)

FUNCTIONS = [
    pytest.param(match.group(1), match.group(3), id=match.group(1))
    for path in KEPT_TABLE_FILES
    for match in FUNCTION.finditer(path.read_text(encoding="utf-8"))
]


def test_every_kept_table_file_creates_functions():
    # the files' functions are found, so that the test below compares each of them
    assert len(FUNCTIONS) >= 2 * len(KEPT_TABLE_FILES)


@pytest.mark.parametrize("function, written", FUNCTIONS)
def test_the_installed_functions_are_the_sql_files(function, written):
    # when the function the migrations installed is read back
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [function])
        (installed,) = cursor.fetchone()

    # then it is the file's: a change to the file needs a migration that runs it again
    assert installed == written
