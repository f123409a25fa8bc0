"""The entry points (config/wsgi.py, config/asgi.py; config/loading.py): what a server
process holds before its first request."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Loads the entry point as a server process does, then says what the collector sees.
PROBE = """
import gc, json, sys
import {entry_point}
print(json.dumps({{
    "frozen": gc.get_freeze_count(),
    "tracked": len(gc.get_objects()),
    "urls": "config.urls" in sys.modules,
    "views": "listings.api.views" in sys.modules,
}}))
"""


def load_entry_point(entry_point: str) -> dict:
    """What PROBE reports from a process of its own loading `entry_point`, with the test
    settings."""
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    completed = subprocess.run(  # noqa: S603 (a fixed command)
        [sys.executable, "-c", PROBE.format(entry_point=entry_point)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(completed.stdout.splitlines()[-1])


@pytest.mark.parametrize("entry_point", ["config.wsgi", "config.asgi"])
def test_an_entry_point_loads_the_urls_and_freezes_what_the_process_keeps(entry_point):
    # when a server process loads the application
    loaded = load_entry_point(entry_point)

    # then the URLs and the views they import are loaded before any request ...
    assert loaded["urls"] is True
    assert loaded["views"] is True
    # ... and frozen with the rest: a full collection sees only what was made since
    assert loaded["frozen"] > 50_000
    assert loaded["tracked"] < loaded["frozen"] / 10
