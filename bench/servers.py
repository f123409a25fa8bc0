"""The processes a measurement runs against: gunicorn started, awaited and stopped.

Shared by the benchmark (bench/run.py) and the load test (tests/load/run.py), which must
serve the platform the same way production does.
"""

import contextlib
import os
import signal
import socket
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
    """Serve the WSGI application `app` on 127.0.0.1:port in its own process group.

    The port must be free: a server left running there would answer in its place (with
    other code, another database), and the measurement would be of it.
    """
    require_free_port(port)
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


def balancer(*, port: int, nodes: dict[str, int]) -> subprocess.Popen:
    """HAProxy on 127.0.0.1:port in front of the web `nodes` (name: port), configured as
    the cluster's (bench/cluster.py); its statistics page on the next port."""
    from bench.cluster import balancer_configuration

    require_free_port(port)
    path = ROOT / "var" / "bench" / f"haproxy-{port}.cfg"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(balancer_configuration(port=port, nodes=nodes, stats_port=port + 100))
    process = subprocess.Popen(
        ["haproxy", "-db", "-f", str(path)],  # noqa: S607 (Debian's haproxy, on PATH)
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    wait_until_up(f"http://127.0.0.1:{port}/healthz")
    return process


def require_free_port(port: int) -> None:
    """Stop the run, saying why, if something already listens on 127.0.0.1:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As gunicorn binds: connections of an earlier server still closing do not count,
        # only a listener does.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as error:
            raise SystemExit(
                f"port {port} is in use ({error.strerror}): stop what listens there first"
            ) from None


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
