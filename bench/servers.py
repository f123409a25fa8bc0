"""The processes a measurement runs against: gunicorn started, awaited and stopped.

Shared by the benchmark (bench/run.py) and the load test (tests/load/run.py), which must
serve the platform the same way production does.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def gunicorn(
    app: str,
    *,
    port: int,
    workers: int,
    threads: int,
    environment: dict,
    keep_alive_seconds: int | None = None,
) -> subprocess.Popen:
    """Serve the WSGI application `app` on 127.0.0.1:port in its own process group."""
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        app,
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--worker-class",
        "gthread",
        "--threads",
        str(threads),
        "--log-level",
        "warning",
    ]
    if keep_alive_seconds is not None:
        command += ["--keep-alive", str(keep_alive_seconds)]
    return subprocess.Popen(command, cwd=ROOT, env=environment, start_new_session=True)


def wait_until_up(url: str, seconds: float = 30) -> None:
    """Return once `url` answers below 500; stop the run if it has not within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status < 500:
                    return
        except urllib.error.HTTPError as error:
            if error.code < 500:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"{url} did not come up")
        time.sleep(0.3)


def stop(process: subprocess.Popen) -> None:
    """End the process and everything it started (gunicorn's workers)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
