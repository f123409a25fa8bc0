"""The WSGI entry point that gunicorn serves (config.wsgi)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import gc, sys
import config.wsgi
frozen = gc.get_freeze_count()
views = "listings.api.views" in sys.modules
from django.db import connection
from listings.search_statements import shape_statement
print(frozen, views, connection.vendor, shape_statement.cache_info().currsize)
"""


def test_the_entry_point_loads_the_views_and_freezes_what_it_loaded():
    # (and, on PostgreSQL, compiles the public searches' statements of every shape)
    # given a fresh process, as a gunicorn worker starts
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}

    # when it imports the entry point
    result = subprocess.run(  # noqa: S603 (this interpreter, a fixed script)
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )

    # then the views are loaded before any request, and the objects loaded so far are
    # kept out of the garbage collector's full collections
    frozen, views, vendor, statements = result.stdout.split()
    assert views == "True"
    assert int(frozen) > 50_000
    # and on PostgreSQL every shape's statements are compiled: 128 sets of the seven
    # grouped filters, each with seven orders and two ways to read a page (1,792), and a
    # count of every match (128), of those under a price range's whole bands (64) and of
    # those above them (64)
    assert int(statements) == (2_048 if vendor == "postgresql" else 0)
