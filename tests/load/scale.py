"""The fault test: the load test through the cluster while its parts fail (make scale-test).

    python -m tests.load.scale [--seconds 180] [--users 32]

The cluster of bench/cluster.py is started from an empty database (two web nodes behind
HAProxy, two workers, a PostgreSQL primary and its streaming standby, Redis, an S3 server),
with the workers' email going to a real SMTP server (aiosmtpd) and the owners' webhooks to
a local receiver, both in this process. The load test's users (tests/load/run.py) then work
through HAProxy for --seconds, newcomers sign up all along (each sign-up emails its
confirmation), and meanwhile:

1. web-1 is killed with SIGKILL, its whole process group, and started again 15 s later;
2. worker-1 is killed with SIGKILL while it runs a webhook delivery, and started again 5 s
   later, as a process manager would (its start gives back what it left running);
3. the standby's replay is paused for 25 s, so that it lags past the router's bound.

It passes only when:

- every resource whose creation was answered 2xx reads back afterwards through HAProxy and
  from each web node directly, the same to the public as to its owner;
- every read right after a write (an owner's new listing, an approved listing) saw it;
- every 5xx (or connection closed unanswered) was a request in flight on web-1 while it
  was being killed (from the signal until its last process had ended), no more of them
  than users (each has one request at a time): a request sent to web-1 once it is dead
  finds its port closed, and HAProxy sends it to web-2;
- every webhook delivery succeeded, and the receiver got exactly the deliveries made (each
  endpoint every event once, by its webhook-id; copies of one id are counted, since the
  idempotency key absorbs them); every sign-up got one email (copies share a Message-ID);
- the task backlog drains.

The figures are printed and written to artifacts/reliability/scale.txt.
"""

import argparse
import contextlib
import signal
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from email import message_from_bytes
from http.server import ThreadingHTTPServer

import psycopg
import urllib3
from aiosmtpd.controller import Controller

from bench import cluster
from bench.servers import free_port
from config.replica_health import LAG_QUERY, lag_of
from tests.load.run import (
    ADMIN_EMAIL,
    PASSWORD,
    ROOT,
    UNLIMITED_RATES,
    Client,
    Receiver,
    Tally,
    backlog_drained,
    requests_table,
    unreadable,
    users_run,
    users_setup,
)

ARTIFACT = ROOT / "artifacts" / "reliability" / "scale.txt"
KILLED_NODE = "web-1"
KILLED_WORKER = "worker-1"
# How long each part stays failed.
NODE_DOWN_SECONDS = 15
WORKER_DOWN_SECONDS = 5
REPLAY_PAUSE_SECONDS = 25
# The router's lag bound (DATABASE_REPLICA_MAX_LAG_SECONDS's default): the pause must pass it.
LAG_BOUND_SECONDS = 5.0
# The workers' settings: a delivery's lease short enough for the backlog to drain quickly
# after a worker dies mid-attempt (still longer than an attempt's 15 s timeout).
CLUSTER_SETTINGS = {
    "WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true",
    "WEBHOOKS_ATTEMPT_LEASE_SECONDS": "20",
    "WEBHOOKS_SWEEP_INTERVAL_SECONDS": "30",
    **UNLIMITED_RATES,
    "DJANGO_SUPERUSER_EMAIL": ADMIN_EMAIL,
    "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
}


def log(message: str) -> None:
    print(f"[scale] {message}", flush=True)


# --- The receivers: webhooks and email --------------------------------------------------------


class HookReceiver(Receiver):
    """The load test's receiver, holding each webhook a moment, so that deliveries are in
    flight when a worker dies."""

    delay = 0.05


class MailBox:
    """An SMTP server's handler: the Message-IDs it received, by recipient."""

    def __init__(self) -> None:
        self.received: dict[str, Counter] = defaultdict(Counter)
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd calls it by this name
        message = message_from_bytes(envelope.content)
        with self.lock:
            for recipient in envelope.rcpt_tos:
                self.received[recipient][message["Message-ID"]] += 1
        return "250 Message accepted for delivery"


def newcomers_loop(client: Client, signed_up: list[str], finished: threading.Event) -> None:
    """Someone signs up about every half second; each sign-up answered 201 is recorded."""
    number = 0
    while not finished.is_set():
        email = f"newcomer-{number}@load.example"
        status, _ = client.call(
            "sign up",
            "POST",
            "/api/v1/users/register",
            {
                "email": email,
                "password": PASSWORD,
                "name": f"Newcomer {number}",
                "userType": "CUSTOMER",
            },
        )
        if status == 201:
            signed_up.append(email)
        number += 1
        finished.wait(0.5)


# --- The faults -------------------------------------------------------------------------------


@dataclass
class Faults:
    """When web-1 was killed and died (time.monotonic()), and what the faults showed."""

    node_killed_at: float = 0.0
    # When its last process had ended: until then it may take requests it will not answer.
    node_dead_at: float = 0.0
    worker_was_delivering: bool = False
    largest_lag_seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


def running_delivery(primary_url: str, worker_id: str) -> bool:
    """Whether the worker is running a webhook delivery now."""
    with psycopg.connect(primary_url) as connection:
        return bool(
            connection.execute(
                "SELECT 1 FROM django_tasks_database_dbtaskresult WHERE status = 'RUNNING'"
                " AND task_path = 'notifications.tasks.webhook_deliver'"
                " AND worker_ids ->> -1 = %s",
                [worker_id],
            ).fetchone()
        )


def replica_lag(port: int) -> float | None:
    """How far behind the standby is, as the router measures it (config/replica_health);
    None when it cannot tell."""
    with cluster.replica.connect(port) as server:
        return lag_of(*server.execute(LAG_QUERY).fetchone())


def faults_run(seconds: float, environment: dict, faults: Faults) -> None:
    """The three faults, at a fifth, two fifths and three fifths of the run."""
    started = time.monotonic()

    def at(fraction: float) -> None:
        time.sleep(max(0.0, started + seconds * fraction - time.monotonic()))

    try:
        at(0.2)
        log(f"killing {KILLED_NODE} (SIGKILL)")
        faults.node_killed_at = time.monotonic()
        cluster.process_signal(KILLED_NODE, signal.SIGKILL)
        faults.node_dead_at = time.monotonic()
        time.sleep(NODE_DOWN_SECONDS)
        log(f"starting {KILLED_NODE} again")
        cluster.web_start(KILLED_NODE, environment)

        at(0.4)
        worker_id = f"cluster-{KILLED_WORKER}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if running_delivery(environment["DATABASE_URL"], worker_id):
                faults.worker_was_delivering = True
                break
            time.sleep(0.02)
        log(f"killing {KILLED_WORKER} (SIGKILL), in a delivery: {faults.worker_was_delivering}")
        cluster.process_signal(KILLED_WORKER, signal.SIGKILL)
        time.sleep(WORKER_DOWN_SECONDS)
        log(f"starting {KILLED_WORKER} again")
        cluster.worker_start(KILLED_WORKER, environment)

        at(0.6)
        log(f"pausing the standby's replay for {REPLAY_PAUSE_SECONDS} s")
        with cluster.replica.connect(cluster.STANDBY.port) as standby:
            standby.execute("SELECT pg_wal_replay_pause()")
            try:
                until = time.monotonic() + REPLAY_PAUSE_SECONDS
                while time.monotonic() < until:
                    lag = replica_lag(cluster.STANDBY.port)
                    faults.largest_lag_seconds = max(faults.largest_lag_seconds, lag or 0.0)
                    time.sleep(1)
            finally:
                standby.execute("SELECT pg_wal_replay_resume()")
        log("the standby replays again")
    except Exception as error:
        faults.errors.append(f"{type(error).__name__}: {error}")


# --- Checks afterwards ------------------------------------------------------------------------


def caught_up(port: int, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if replica_lag(port) == 0:
            return True
        time.sleep(0.5)
    return False


def deliveries_made(primary_url: str) -> tuple[set[tuple[str, str]], Counter]:
    """The deliveries in the database, as (endpoint path, event id), and their statuses."""
    with psycopg.connect(primary_url) as connection:
        rows = connection.execute(
            "SELECT endpoint.url, delivery.event_id, delivery.status"
            " FROM notifications_webhookdelivery AS delivery"
            " JOIN notifications_webhookendpoint AS endpoint ON endpoint.id = delivery.endpoint_id"
        ).fetchall()
    made = {("/" + url.split("/", 3)[3], str(event_id)) for url, event_id, _ in rows}
    return made, Counter(status for _, _, status in rows)


def tasks_given_back(primary_url: str) -> int:
    with psycopg.connect(primary_url) as connection:
        return connection.execute(
            "SELECT count(*) FROM django_tasks_database_dbtaskresult"
            " WHERE exception_class_path = 'notifications.tasks.WorkerLost'"
        ).fetchone()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--users", type=int, default=32)
    arguments = parser.parse_args()
    if arguments.seconds < 100:
        parser.error("--seconds must leave room for the three faults: at least 100")

    hooks = ThreadingHTTPServer(("127.0.0.1", 0), HookReceiver)
    threading.Thread(target=hooks.serve_forever, daemon=True).start()
    hooks_url = f"http://127.0.0.1:{hooks.server_port}"
    mailbox = MailBox()
    smtp_port = free_port()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=smtp_port)
    smtp.start()

    log("starting the cluster from an empty database")
    cluster.stop()
    environment = cluster.start(
        fresh=True,
        environment={**CLUSTER_SETTINGS, "EMAIL_URL": f"smtp://127.0.0.1:{smtp_port}"},
    )
    cluster.manage(environment, "createsuperuser", "--noinput")
    primary_url = environment["DATABASE_URL"]
    base = f"http://{cluster.HOST}:{cluster.BALANCER_PORT}"
    pool = urllib3.PoolManager(maxsize=arguments.users + 8, timeout=urllib3.Timeout(30))
    tally = Tally()
    faults = Faults()
    signed_up: list[str] = []
    try:
        admin, world, clients = users_setup(
            base, pool, tally, arguments.users, lambda number: f"{hooks_url}/hook/{number}"
        )
        signed_up += [f"load-{number}@load.example" for number in range(arguments.users)]
        finished = threading.Event()
        newcomers = threading.Thread(
            target=newcomers_loop, args=(Client(base, pool, tally), signed_up, finished)
        )
        fault_thread = threading.Thread(
            target=faults_run, args=(arguments.seconds, environment, faults)
        )
        log(f"{arguments.users} users and newcomers through HAProxy for {arguments.seconds} s")
        newcomers.start()
        fault_thread.start()
        elapsed = users_run(clients, admin, world, arguments.seconds)
        finished.set()
        newcomers.join()
        fault_thread.join()

        log("checking: the standby catches up, then every node reads every write")
        replica_current = caught_up(cluster.STANDBY.port)
        missing = {}
        for name, port in {"haproxy": cluster.BALANCER_PORT, **cluster.WEB_PORTS}.items():
            missing[name] = unreadable(f"http://{cluster.HOST}:{port}", pool, world)

        log("checking: the backlog drains")
        state, drain_seconds = backlog_drained(primary_url)
        # The last emails reach the SMTP server a moment after their task finished.
        time.sleep(2)
        deliveries, delivery_statuses = deliveries_made(primary_url)
        given_back = tasks_given_back(primary_url)
    finally:
        cluster.stop()
        hooks.shutdown()
        smtp.stop()

    # 5xx: the requests in flight on the killed node when it died. HAProxy answers them
    # 502 from that node, or, for a request on a kept-alive connection, closes the
    # connection unanswered as the node did (no answer: 599 here, no node named).
    explained = [
        error
        for error in tally.server_errors
        if error.node in (KILLED_NODE, "")
        and error.sent <= faults.node_dead_at
        and error.at >= faults.node_killed_at
    ]
    unexplained = [error for error in tally.server_errors if error not in explained]
    failures = [
        *tally.failures,
        *(f"{error.kind}: {error.status} from {error.node or '?'}: {error.detail}"
          for error in unexplained),
    ]  # fmt: skip

    received = HookReceiver.received
    hooks_lost = deliveries - set(received)
    hooks_unexpected = set(received) - deliveries
    hooks_copies = sum(count - 1 for count in received.values())
    emails_lost = [address for address in signed_up if not mailbox.received.get(address)]
    emails_twice = [
        address for address, ids in mailbox.received.items() if len(ids) > 1
    ]  # two different messages to one address: a second email, not a copy
    email_copies = sum(count - 1 for ids in mailbox.received.values() for count in ids.values())
    read_after_write = sum(
        tally.statuses[kind].total() for kind in ("read own listing", "read approved")
    )
    bound = arguments.users + 1

    lines = [
        f"scale test: {arguments.users} users + newcomers for {elapsed:.0f} s through HAProxy,"
        f" 2 web nodes ({cluster.WEB_PROCESSES} processes x {cluster.WEB_THREADS} threads),"
        " 2 workers, primary + streaming standby",
        *requests_table(tally, elapsed),
        f"faults: {KILLED_NODE} killed {NODE_DOWN_SECONDS} s; {KILLED_WORKER} killed "
        f"{'in a delivery' if faults.worker_was_delivering else 'NOT in a delivery'}, "
        f"down {WORKER_DOWN_SECONDS} s; standby replay paused {REPLAY_PAUSE_SECONDS} s "
        f"(largest lag {faults.largest_lag_seconds:.1f} s)",
        f"5xx or no answer: {len(tally.server_errors)}, of which in flight on {KILLED_NODE} "
        f"while it was killed: {len(explained)} (bound: {bound}; its last process ended "
        f"{faults.node_dead_at - faults.node_killed_at:.2f} s after the signal); "
        f"others: {len(unexplained)}",
        f"reads right after a write: {read_after_write}; stale or failed: "
        f"{sum(1 for failure in failures if failure.startswith('read '))}",
        f"created: {len(world.properties)} listings, {len(world.images)} photos, "
        f"{len(world.favorites)} favorites, {len(world.appointments)} visits, "
        f"{len(signed_up)} sign-ups; not readable afterwards: "
        + ", ".join(f"{name} {len(items)}" for name, items in missing.items()),
        f"webhooks: {len(deliveries)} deliveries made ({dict(delivery_statuses)}), "
        f"{sum(received.values())} requests received; lost {len(hooks_lost)}, unexpected "
        f"{len(hooks_unexpected)}, copies absorbed by webhook-id {hooks_copies}",
        f"emails: {len(signed_up)} sign-ups, {len(mailbox.received)} addresses reached; lost "
        f"{len(emails_lost)}, second messages {len(emails_twice)}, copies absorbed by "
        f"Message-ID {email_copies}",
        f"tasks given back after the worker's death: {given_back}; backlog after "
        f"{drain_seconds:.0f} s: " + ", ".join(f"{key} {value}" for key, value in state.items()),
        f"standby caught up afterwards: {replica_current}; unexpected answers: {len(failures)}",
    ]
    report = "\n".join(lines)
    print(report)
    for failure in failures[:20]:
        print(f"  {failure}")
    for error in tally.server_errors[:40]:
        print(
            f"  {error.status} {error.kind} from {error.node or '?'} at "
            f"{error.sent - faults.node_killed_at:+.1f} to "
            f"{error.at - faults.node_killed_at:+.1f} s of the node's kill"
        )
    for name, items in missing.items():
        for item in items[:10]:
            print(f"  missing on {name}: {item}")
    for error in faults.errors:
        print(f"  fault injection: {error}")
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(report + "\n")
    passed = (
        not faults.errors
        and faults.worker_was_delivering
        and faults.largest_lag_seconds
        > float(environment.get("DATABASE_REPLICA_MAX_LAG_SECONDS", 5))
        and len(explained) <= bound
        and not unexplained
        and not failures
        and not any(missing.values())
        and replica_current
        and not hooks_lost
        and not hooks_unexpected
        and delivery_statuses.get("succeeded", 0) == len(deliveries)
        and not emails_lost
        and not emails_twice
        and state["deliveries pending"] == 0
        and state["tasks waiting or running"] == 0
    )
    print("SCALE TEST PASSED" if passed else "SCALE TEST FAILED")
    return 0 if passed else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
