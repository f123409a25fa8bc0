"""The processes a measurement runs against: gunicorn, and HAProxy in front of several,
started, awaited and stopped.

Shared by the benchmark (bench/run.py), the load test (tests/load/run.py) and the cluster
(bench/cluster.py), which must serve the platform the same way production does.
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


def gunicorn_command(
    app: str,
    *,
    port: int,
    workers: int,
    threads: int,
    keep_alive_seconds: int | None = None,
    worker_connections: int | None = None,
) -> list[str]:
    """The command that serves the WSGI application `app` on 127.0.0.1:port with gunicorn:
    `workers` gthread processes of `threads` threads each, each process holding at most
    `worker_connections` connections (gunicorn's default without)."""
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
        # gunicorn's control socket is one path per user ($HOME/.gunicorn/gunicorn.ctl):
        # every server after the first here (the baseline, a cluster's second node) failed
        # to open it and said so; nothing here manages servers through it.
        "--no-control-socket",
    ]
    if keep_alive_seconds is not None:
        command += ["--keep-alive", str(keep_alive_seconds)]
    if worker_connections is not None:
        command += ["--worker-connections", str(worker_connections)]
    return command


def gunicorn(
    app: str,
    *,
    port: int,
    workers: int,
    threads: int,
    environment: dict,
    keep_alive_seconds: int | None = None,
    worker_connections: int | None = None,
) -> subprocess.Popen:
    """Serve the WSGI application `app` on 127.0.0.1:port in its own process group
    (gunicorn_command).

    The port must be free: a server left running there would answer in its place (with
    other code, another database), and the measurement would be of it.
    """
    require_free_port(port)
    command = gunicorn_command(
        app,
        port=port,
        workers=workers,
        threads=threads,
        keep_alive_seconds=keep_alive_seconds,
        worker_connections=worker_connections,
    )
    return subprocess.Popen(command, cwd=ROOT, env=environment, start_new_session=True)


def balancer_configuration(*, port: int, nodes: dict[str, int], stats_port: int) -> str:
    """HAProxy's configuration, listening on `port`: round robin over the web `nodes`
    (name: port), checked every second on /healthz; a request that found its node dead is
    retried on another node when it is idempotent (GET, HEAD, OPTIONS), and only its
    connection is retried otherwise. Its statistics page is on `stats_port`."""
    servers = "".join(
        f"    server {name} 127.0.0.1:{node_port} check\n" for name, node_port in nodes.items()
    )
    return f"""\
# Made by bench/servers.py (balancer_configuration).
global
    maxconn 2000
    log stdout format raw local0

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout http-request 10s
    timeout http-keep-alive 60s

frontend web
    bind 127.0.0.1:{port}
    option forwardfor
    # The application's limit on bodies (docs/deployment.md, "Request body limit").
    http-request deny deny_status 413 if {{ req.hdr_val(content-length) gt 106954752 }}
    default_backend nodes

backend nodes
    balance roundrobin
    # A new connection to a node for each request: an idle kept-alive connection that
    # the node closes just as a request is sent on it would make HAProxy close the
    # client's connection unanswered, the client not knowing whether its write happened.
    option http-server-close
    option httpchk
    http-check send meth GET uri /healthz hdr Host 127.0.0.1
    http-check expect status 200
    # Checked every second: a node is out after three failed checks (refused, or not
    # answered within 5 s: a busy node is slow, not dead), and back after two good ones.
    timeout check 5s
    default-server inter 1s fall 3 rise 2
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout 502 503 504
    http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS
    # Which node answered (or failed to), for the scale test's accounting.
    http-after-response set-header X-Web-Node %s
{servers}
listen stats
    bind 127.0.0.1:{stats_port}
    stats enable
    stats uri /
"""


def balancer(*, port: int, nodes: dict[str, int]) -> subprocess.Popen:
    """HAProxy on 127.0.0.1:port in front of the web `nodes` (name: port), configured as
    the cluster's (balancer_configuration); its statistics page 100 ports further."""
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


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on, as the system hands them out."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
