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
print(frozen, views)
"""


def test_the_entry_point_loads_the_views_and_freezes_what_it_loaded():
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
    frozen, views = result.stdout.split()
    assert views == "True"
    assert int(frozen) > 50_000
