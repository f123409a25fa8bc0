"""The bounded load test: gunicorn + PostgreSQL + the worker, 32 connections, about 2 minutes.

    python -m tests.load.run [--seconds 120] [--users 32]   (make load-test)

A fresh PostgreSQL database is migrated; the platform is served by gunicorn with the
production settings and one `db_worker`. Owners and customers registered through the API
then work at once for --seconds: owners create listings (with their type-specific record
and a photo), an admin approves them, owners confirm visits; customers search, read
listings, save favorites and book visits. Owners' webhooks point at a local receiver.

It passes when: no response was a 5xx (nor a connection error); the only 4xx are the
answers the rules give to racing users (409 for a second favorite of a listing, a visit
that overlaps another, a visit confirmed by then); every resource created is readable
afterwards, and every public listing reads the same to the public (through the cache of
public reads, on with Redis as in production) as to its owner; and the webhook backlog
is drained: every delivery succeeded, no task is left.
The figures are printed and written to artifacts/reliability/load.txt.
"""

import argparse
import datetime
import io
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg
import redis
import urllib3
from PIL import Image

from bench.servers import gunicorn, stop

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
PASSWORD = "load-test-Password-123"
ADMIN_EMAIL = "load-admin@load.example"
ARTIFACT = ROOT / "artifacts" / "reliability" / "load.txt"
# Every user comes from 127.0.0.1: the per-address limits would answer 429.
UNLIMITED_RATES = {
    f"THROTTLE_{scope}": "1000000/min"
    for scope in (
        "ANONYMOUS", "SIGNED_IN", "REGISTER", "LOGIN", "LOGIN_EMAIL", "UPLOAD",
        "WEBHOOK_REGISTER",
    )
}  # fmt: skip
# What the rules answer racing users (docs/reliability.md): anything else 4xx fails the run.
EXPECTED_CONFLICTS = {
    "favorite": {409},
    "book": {409},
    "confirm": {409},
}


def log(message: str) -> None:
    print(f"[load] {message}", flush=True)


# --- Receiving webhooks ----------------------------------------------------------------------


class Receiver(BaseHTTPRequestHandler):
    """Answers every webhook with 204, after `delay` seconds, and counts them by endpoint
    path and webhook-id (one delivery each)."""

    received: Counter = Counter()
    lock = threading.Lock()
    delay = 0.0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(self.delay)
        with self.lock:
            self.received[(self.path, self.headers.get("webhook-id", ""))] += 1
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args) -> None:
        return


# --- The client ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerError:
    """A 5xx answer (599: no answer at all): when its request was sent and when it ended
    (time.monotonic()), to what, and from which web node (HAProxy's X-Web-Node; empty
    without a balancer or an answer)."""

    sent: float
    at: float
    kind: str
    status: int
    node: str
    detail: str


@dataclass
class Tally:
    """Every response of the run, by request kind."""

    statuses: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failures: list[str] = field(default_factory=list)
    server_errors: list[ServerError] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, status: int, seconds: float, detail: str = "", node: str = "") -> None:
        with self.lock:
            self.statuses[kind][status] += 1
            self.latencies[kind].append(seconds)
            if status >= 500:
                now = time.monotonic()
                self.server_errors.append(
                    ServerError(now - seconds, now, kind, status, node, detail[:300])
                )
            elif status >= 400 and status not in EXPECTED_CONFLICTS.get(kind, set()):
                self.fail(f"{kind}: {status} {detail[:300]}")

    def fail(self, what: str) -> None:
        """A check the scenario makes did not hold (an answer, a read after a write)."""
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(what)


class Client:
    """One user's HTTP client (keep-alive connections from a shared pool)."""

    def __init__(self, base: str, pool: urllib3.PoolManager, tally: Tally, token: str = ""):
        self.base = base
        self.pool = pool
        self.tally = tally
        self.token = token

    def call(self, kind: str, method: str, path: str, body=None, fields=None) -> tuple[int, dict]:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        started = time.monotonic()
        try:
            if fields is not None:
                response = self.pool.request(
                    method, self.base + path, fields=fields, headers=headers, retries=False
                )
            else:
                payload = json.dumps(body).encode() if body is not None else None
                if payload is not None:
                    headers["Content-Type"] = "application/json"
                response = self.pool.request(
                    method, self.base + path, body=payload, headers=headers, retries=False
                )
        except urllib3.exceptions.HTTPError as error:
            self.tally.add(kind, 599, time.monotonic() - started, f"{path}: {error!r}")
            return 599, {}
        elapsed = time.monotonic() - started
        try:
            document = json.loads(response.data) if response.data else {}
        except ValueError:
            document = {}
        self.tally.add(
            kind,
            response.status,
            elapsed,
            f"{method} {path}: {response.data[:200]!r}",
            node=response.headers.get("X-Web-Node", ""),
        )
        return response.status, document


# --- The scenario ----------------------------------------------------------------------------


@dataclass
class World:
    """What the users made, for each other and for the checks at the end."""

    category_id: str
    available: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)  # id -> owner token
    images: dict[str, str] = field(default_factory=dict)  # id -> property id
    favorites: dict[str, str] = field(default_factory=dict)  # id -> customer token
    appointments: dict[str, str] = field(default_factory=dict)  # id -> customer token
    lock: threading.Lock = field(default_factory=threading.Lock)


def photo_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 240), (40, 120, 200)).save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


def owner_loop(client: Client, admin: Client, world: World, finished: threading.Event, rng) -> None:
    photo = photo_bytes()
    while not finished.is_set():
        status, listing = client.call(
            "create listing",
            "POST",
            "/api/v1/properties",
            {
                "title": f"Load test flat {rng.randrange(10**6)}",
                "description": "A bright flat made by the load test.",
                "price": rng.randrange(50_000, 900_000),
                "latitude": 40.4 + rng.random() / 10,
                "longitude": -3.7 + rng.random() / 10,
                "transactionType": "SALE",
                "municipality": "Madrid",
                "address": f"Calle Mayor {rng.randrange(1, 200)}",
                "area": rng.randrange(30, 200),
                "categoryId": world.category_id,
            },
        )
        if status != 201:
            continue
        listing_id = listing["id"]
        with world.lock:
            world.properties[listing_id] = client.token
        # Read your writes: the owner reads the new listing at once, through the public
        # read (which replicas may serve), on whichever node answers.
        client.call("read own listing", "GET", f"/api/v1/properties/{listing_id}")
        client.call(
            "create record",
            "POST",
            "/api/v1/apartments",
            {
                "propertyId": listing_id,
                "rooms": 3,
                "bedrooms": 2,
                "bathrooms": 1,
                "parkingSpace": False,
                "swimmingPool": False,
                "floors": 1,
                "balcony": True,
                "elevator": True,
            },
        )
        status, image = client.call(
            "upload photo",
            "POST",
            "/api/v1/images/upload",
            fields={
                "image": ("flat.jpg", photo, "image/jpeg"),
                "propertyId": listing_id,
                "title": "Living room",
            },
        )
        if status == 201:
            with world.lock:
                world.images[image["id"]] = listing_id
        status, _ = admin.call(
            "approve", "PATCH", f"/api/v1/properties/{listing_id}", {"status": "AVAILABLE"}
        )
        if status == 200:
            with world.lock:
                world.available.append(listing_id)
            status, seen = admin.call("read approved", "GET", f"/api/v1/properties/{listing_id}")
            if status == 200 and seen.get("status") != "AVAILABLE":
                admin.tally.fail(f"read approved: {listing_id} read as {seen.get('status')}")
        status, page = client.call("owner visits", "GET", "/api/v1/appointments?status=PENDING")
        items = page if isinstance(page, list) else page.get("data", [])
        for appointment in items[:3]:
            client.call(
                "confirm",
                "PATCH",
                f"/api/v1/appointments/{appointment['id']}",
                {"status": "CONFIRMED"},
            )


def customer_loop(client: Client, world: World, finished: threading.Event, rng) -> None:
    while not finished.is_set():
        filters = rng.choice(["", "?transactionType=SALE", "?type=apartment", "?q=flat&page=2"])
        client.call("search", "GET", f"/api/v1/properties{filters}")
        with world.lock:
            choices = list(world.available[-50:])
        if not choices:
            time.sleep(0.05)
            continue
        listing_id = rng.choice(choices)
        client.call("read listing", "GET", f"/api/v1/properties/{listing_id}")
        status, favorite = client.call(
            "favorite", "POST", "/api/v1/favorites", {"propertyId": listing_id}
        )
        if status == 201:
            with world.lock:
                world.favorites[favorite["id"]] = client.token
        start = datetime.datetime.now(datetime.UTC).replace(
            minute=0, second=0, microsecond=0
        ) + datetime.timedelta(days=rng.randrange(1, 30), hours=rng.randrange(0, 10))
        status, appointment = client.call(
            "book",
            "POST",
            "/api/v1/appointments",
            {
                "propertyId": listing_id,
                "date": start.isoformat().replace("+00:00", "Z"),
                "duration": 30,
                "notes": "Load test visit",
            },
        )
        if status == 201:
            with world.lock:
                world.appointments[appointment["id"]] = client.token
        client.call("my favorites", "GET", "/api/v1/favorites")
        client.call("my notifications", "GET", "/api/v1/notifications")


# --- Checks afterwards -----------------------------------------------------------------------


def unreadable(base: str, pool: urllib3.PoolManager, world: World) -> list[str]:
    """Every created resource, read back by who made it: what could not be read."""
    tally = Tally()
    missing = []
    public = Client(base, pool, tally)
    for listing_id, token in world.properties.items():
        path = f"/api/v1/properties/{listing_id}"
        status, listing = Client(base, pool, tally, token).call("check", "GET", path)
        if status != 200:
            missing.append(f"listing {listing_id}: {status}")
        elif listing["status"] not in ("PENDING", "SUSPENDED"):
            # The owner's read never comes from the cache of public reads; the public's may:
            # it must be the same listing, photos and all, after every write of the run.
            public_status, public_listing = public.call("check", "GET", path)
            if (public_status, public_listing) != (200, listing):
                differs = sorted(
                    key
                    for key in {*listing, *public_listing}
                    if listing.get(key) != public_listing.get(key)
                )
                missing.append(
                    f"listing {listing_id}: the public reads another version ({public_status};"
                    f" {', '.join(f'{key}: {public_listing.get(key)!r}' for key in differs)};"
                    f" the owner reads {', '.join(f'{listing.get(key)!r}' for key in differs)})"
                )
    by_listing = defaultdict(set)
    for image_id, listing_id in world.images.items():
        by_listing[listing_id].add(image_id)
    for listing_id, image_ids in by_listing.items():
        token = world.properties[listing_id]
        status, page = Client(base, pool, tally, token).call(
            "check", "GET", f"/api/v1/images?propertyId={listing_id}"
        )
        items = page if isinstance(page, list) else page.get("data", page.get("images", []))
        found = {item["id"] for item in items} if status == 200 else set()
        missing += [f"image {image_id}" for image_id in image_ids - found]
    for favorite_id, token in world.favorites.items():
        status, page = Client(base, pool, tally, token).call(
            "check", "GET", "/api/v1/favorites?limit=100"
        )
        items = page if isinstance(page, list) else page.get("data", [])
        if favorite_id not in {item["id"] for item in items}:
            missing.append(f"favorite {favorite_id}")
    for appointment_id, token in world.appointments.items():
        status, _ = Client(base, pool, tally, token).call(
            "check", "GET", f"/api/v1/appointments/{appointment_id}"
        )
        if status != 200:
            missing.append(f"appointment {appointment_id}: {status}")
    return missing


def backlog(url: str) -> dict[str, int]:
    with psycopg.connect(url) as connection:
        deliveries = dict(
            connection.execute(
                "SELECT status, count(*) FROM notifications_webhookdelivery GROUP BY status"
            ).fetchall()
        )
        tasks = dict(
            connection.execute(
                "SELECT status, count(*) FROM django_tasks_database_dbtaskresult GROUP BY status"
            ).fetchall()
        )
    return {
        "deliveries pending": deliveries.get("pending", 0),
        "deliveries succeeded": deliveries.get("succeeded", 0),
        "deliveries failed": deliveries.get("failed", 0),
        "tasks waiting or running": tasks.get("READY", 0) + tasks.get("RUNNING", 0),
        "tasks failed": tasks.get("FAILED", 0),
    }


def backlog_drained(url: str, seconds: float = 300) -> tuple[dict[str, int], float]:
    """The backlog once no delivery is pending and no task waits or runs, or after
    `seconds`; and how long that took."""
    started = time.monotonic()
    state = backlog(url)
    while (
        state["deliveries pending"] or state["tasks waiting or running"]
    ) and time.monotonic() - started < seconds:
        time.sleep(1)
        state = backlog(url)
    return state, time.monotonic() - started


# --- Running it -------------------------------------------------------------------------------


def users_setup(
    base: str, pool: urllib3.PoolManager, tally: Tally, users: int, hook_url
) -> tuple["Client", World, list[tuple[str, "Client"]]]:
    """The admin, a category, and `users` registered and signed in (a quarter of them
    owners, each with a webhook for every event at hook_url(number)); returns the admin's
    client, the world and (user type, client) pairs."""
    anonymous = Client(base, pool, tally)
    _, signed_in = anonymous.call(
        "login", "POST", "/api/v1/users/login", {"email": ADMIN_EMAIL, "password": PASSWORD}
    )
    admin = Client(base, pool, tally, signed_in["token"])
    _, category = admin.call("setup", "POST", "/api/v1/categories", {"name": "Flats"})
    world = World(category_id=category["id"])
    owners = max(1, users // 4)
    clients = []
    for number in range(users):
        user_type = "OWNER" if number < owners else "CUSTOMER"
        email = f"load-{number}@load.example"
        anonymous.call(
            "register",
            "POST",
            "/api/v1/users/register",
            {"email": email, "password": PASSWORD, "name": f"User {number}", "userType": user_type},
        )
        _, signed_in = anonymous.call(
            "login", "POST", "/api/v1/users/login", {"email": email, "password": PASSWORD}
        )
        client = Client(base, pool, tally, signed_in["token"])
        if user_type == "OWNER":
            client.call(
                "register webhook",
                "POST",
                "/api/v1/notifications/webhook/register",
                {"url": hook_url(number), "events": ["*"]},
            )
        clients.append((user_type, client))
    return admin, world, clients


def users_run(clients, admin: "Client", world: World, seconds: float) -> float:
    """Every user at work at once for `seconds`; returns how long it took them to stop."""
    finished = threading.Event()
    threads = []
    for number, (user_type, client) in enumerate(clients):
        rng = random.Random(number)
        if user_type == "OWNER":
            target, arguments_of = owner_loop, (client, admin, world, finished, rng)
        else:
            target, arguments_of = customer_loop, (client, world, finished, rng)
        threads.append(threading.Thread(target=target, args=arguments_of))
    started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    finished.set()
    for thread in threads:
        thread.join()
    return time.monotonic() - started


def requests_table(tally: Tally, elapsed: float) -> list[str]:
    """The run's requests: how many, how fast, and per kind their statuses and latencies."""
    requests = sum(sum(counter.values()) for counter in tally.statuses.values())
    lines = [
        f"requests sent: {requests} ({requests / elapsed:.0f}/s); "
        f"5xx or no answer: {len(tally.server_errors)}",
        "| kind | requests | statuses | p50 ms | p95 ms |",
        "|---|---:|---|---:|---:|",
    ]
    for kind in sorted(tally.statuses):
        latencies = sorted(tally.latencies[kind])
        p95 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))]
        statuses = ", ".join(
            f"{status}: {count}" for status, count in sorted(tally.statuses[kind].items())
        )
        lines.append(
            f"| {kind} | {len(latencies)} | {statuses} | "
            f"{statistics.median(latencies) * 1000:.0f} | {p95 * 1000:.0f} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--users", type=int, default=32)
    parser.add_argument("--port", type=int, default=8720)
    parser.add_argument(
        "--server",
        default=os.environ.get("LOAD_DATABASE_SERVER", "postgres://root@127.0.0.1:5432"),
    )
    arguments = parser.parse_args()
    name = "estate_load"
    url = f"{arguments.server}/{name}"
    with psycopg.connect(f"{arguments.server}/postgres", autocommit=True) as admin_connection:
        admin_connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin_connection.execute(f'CREATE DATABASE "{name}"')

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    media = ROOT / "var" / "load-media"
    redis_url = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/6")
    redis.Redis.from_url(redis_url).flushdb()
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DATABASE_URL": url,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "MEDIA_ROOT": str(media),
        **UNLIMITED_RATES,
        # The receiver is on this machine.
        "WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true",
        "DATABASE_POOL_MAX_SIZE": "8",
        # The cache of public reads is on, as in production, so that the checks afterwards
        # also find any listing the public would read stale.
        "REDIS_URL": redis_url,
        "DJANGO_SUPERUSER_EMAIL": ADMIN_EMAIL,
        "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
    }
    manage = [PYTHON, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v", "0"], check=True, env=environment, cwd=ROOT)
    subprocess.run(
        [*manage, "createsuperuser", "--noinput"],
        check=True,
        env=environment,
        cwd=ROOT,
        capture_output=True,
    )
    processes = [
        gunicorn("config.wsgi", port=arguments.port, workers=4, threads=4, environment=environment),
        subprocess.Popen(
            [*manage, "db_worker", "--no-reload"],
            cwd=ROOT,
            env=environment,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
        ),
    ]
    base = f"http://127.0.0.1:{arguments.port}"
    receiver_url = f"http://127.0.0.1:{receiver.server_port}"
    pool = urllib3.PoolManager(maxsize=arguments.users + 8, timeout=urllib3.Timeout(30))
    tally = Tally()
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if pool.request("GET", f"{base}/healthz", retries=False).status == 200:
                    break
            except urllib3.exceptions.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("gunicorn did not come up")
            time.sleep(0.3)

        admin, world, clients = users_setup(
            base, pool, tally, arguments.users, lambda number: f"{receiver_url}/hook"
        )
        owners = max(1, arguments.users // 4)
        log(f"{arguments.users} users ({owners} owners) for {arguments.seconds} s")
        elapsed = users_run(clients, admin, world, arguments.seconds)

        missing = unreadable(base, pool, world)
        state, drain_seconds = backlog_drained(url)
    finally:
        for process in processes:
            stop(process)
        receiver.shutdown()

    server_errors = len(tally.server_errors)
    lines = [
        f"load test: {arguments.users} users for {elapsed:.0f} s against gunicorn + PostgreSQL"
        " + db_worker",
        *requests_table(tally, elapsed),
    ]
    lines += [
        f"created: {len(world.properties)} listings, {len(world.images)} photos, "
        f"{len(world.favorites)} favorites, {len(world.appointments)} visits; "
        f"not readable afterwards: {len(missing)}",
        f"webhooks: {sum(Receiver.received.values())} requests received for "
        f"{len(Receiver.received)} deliveries; backlog after {drain_seconds:.0f} s: "
        + ", ".join(f"{key} {value}" for key, value in state.items()),
        f"unexpected answers: {len(tally.failures)}",
    ]
    report = "\n".join(lines)
    print(report)
    for failure in tally.failures[:20]:
        print(f"  {failure}")
    for error in tally.server_errors[:20]:
        print(f"  {error.kind}: {error.status} {error.detail}")
    for item in missing[:20]:
        print(f"  missing: {item}")
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(report + "\n")
    passed = (
        server_errors == 0
        and not tally.failures
        and not missing
        and state["deliveries pending"] == 0
        and state["deliveries failed"] == 0
        and state["tasks waiting or running"] == 0
        and state["tasks failed"] == 0
    )
    print("LOAD TEST PASSED" if passed else "LOAD TEST FAILED")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
