"""The limits of the cluster's data tiers on this machine (docs/deployment.md).

    python -m bench.tiers [--seconds 20] [--deliveries 3000]

On the cluster of bench/cluster.py, started from an empty database:

- the primary's writes per second: pgbench's simple-update script (`-N`: per transaction
  an UPDATE, a SELECT and an INSERT) with 8 clients for --seconds, on a database of its
  own on the primary (scale 10), while the standby streams;
- webhook deliveries per second per worker: --deliveries events for an admin's webhook
  whose receiver (in this process) answers 204 at once, written in one transaction while
  no worker runs, then drained by one worker, and again by two.

The web tier's requests per second, per node and for two nodes behind HAProxy, come from
the benchmark: `make bench BENCH_ARGS="--kinds mix --nodes 2"` (docs/performance.md).
"""

import argparse
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg

from bench import cluster

ADMIN_EMAIL = "tiers-admin@tiers.example"
PASSWORD = "tiers-Password-123"  # noqa: S105 (the throwaway cluster's admin)


def log(message: str) -> None:
    print(f"[tiers] {message}", flush=True)


class Receiver(BaseHTTPRequestHandler):
    """Answers every webhook with 204 at once."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args) -> None:
        return


def primary_writes(seconds: int) -> float:
    """pgbench's simple-update transactions per second on the primary, 8 clients."""
    server = ["-h", cluster.HOST, "-p", str(cluster.PRIMARY_PORT), "-U", "root"]
    with cluster.replica.connect(cluster.PRIMARY_PORT) as primary:
        primary.execute("DROP DATABASE IF EXISTS pgbench WITH (FORCE)")
        primary.execute("CREATE DATABASE pgbench")
    try:
        cluster.replica.run("pgbench", *server, "-i", "-q", "-s", "10", "pgbench")
        output = cluster.replica.run(
            "pgbench", *server, "-N", "-c", "8", "-j", "2", "-T", str(seconds), "pgbench"
        )
    finally:
        with cluster.replica.connect(cluster.PRIMARY_PORT) as primary:
            primary.execute("DROP DATABASE IF EXISTS pgbench WITH (FORCE)")
    return float(re.search(r"tps = ([\d.]+)", output).group(1))


EVENTS_SCRIPT = """
from django.db import transaction
from accounts.models import User
from notifications.events import NewEvent, events_record
from notifications.models import WebhookEndpoint
from notifications.services import webhook_register

admin = User.objects.get(email={email!r})
if not WebhookEndpoint.objects.filter(user=admin).exists():
    webhook_register(by=admin, url={url!r}, events=["*"])
with transaction.atomic():
    events_record([
        NewEvent(type="property.updated", payload={{"number": number}})
        for number in range({count})
    ])
"""


def pending_deliveries(primary_url: str) -> int:
    with psycopg.connect(primary_url) as connection:
        return connection.execute(
            "SELECT count(*) FROM notifications_webhookdelivery WHERE status = 'pending'"
        ).fetchone()[0]


def deliveries_per_second(environment: dict, workers: int, count: int, url: str) -> float:
    """Deliveries per second of `workers` workers draining `count` new deliveries."""
    for name in cluster.WORKERS:
        cluster.process_signal(name, signal.SIGTERM)
    subprocess.run(
        [sys.executable, str(cluster.ROOT / "manage.py"), "shell", "-c",
         EVENTS_SCRIPT.format(email=ADMIN_EMAIL, url=url, count=count)],
        check=True, cwd=cluster.ROOT, env=environment,
    )  # fmt: skip
    primary_url = environment["DATABASE_URL"]
    started = time.monotonic()
    # Without the sweep a start runs: it would enqueue every delivery a second time.
    for name in cluster.WORKERS[:workers]:
        cluster.worker_start(name, environment, recover=False)
    while pending_deliveries(primary_url):
        if time.monotonic() - started > 600:
            raise SystemExit("the deliveries did not drain within 10 minutes")
        time.sleep(0.2)
    return count / (time.monotonic() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--deliveries", type=int, default=3000)
    arguments = parser.parse_args()

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{receiver.server_port}/hook"
    log("starting the cluster from an empty database")
    cluster.stop()
    environment = cluster.start(
        fresh=True,
        environment={
            "WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true",
            "DJANGO_SUPERUSER_EMAIL": ADMIN_EMAIL,
            "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
        },
    )
    cluster.manage(environment, "createsuperuser", "--noinput")
    try:
        log(f"the primary's writes: pgbench -N, 8 clients, {arguments.seconds} s")
        writes = primary_writes(arguments.seconds)
        rates = {}
        for workers in (1, 2):
            log(f"{arguments.deliveries} webhook deliveries drained by {workers} worker(s)")
            rates[workers] = deliveries_per_second(
                environment, workers, arguments.deliveries, hook_url
            )
    finally:
        cluster.stop()
        receiver.shutdown()
    print(
        "\n".join(
            [
                "| tier | measure | per second |",
                "|---|---|---:|",
                f"| PostgreSQL primary | pgbench -N, 8 clients (transactions) | {writes:,.0f} |",
                f"| one worker | webhook deliveries | {rates[1]:,.0f} |",
                f"| two workers | webhook deliveries | {rates[2]:,.0f} |",
            ]
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
