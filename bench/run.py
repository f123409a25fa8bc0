"""The API benchmark: seed, serve with gunicorn and production settings, load with wrk, report.

    python -m bench.run --size 10000          # minutes
    python -m bench.run --size 1000000        # about 10 min of seeding the first time

(`make bench SIZE=...` runs it with the project's virtual environment.)

1. A PostgreSQL database `estate_bench_<size>` is seeded once with `seed_demo --properties`
   (kept for later runs; `--reseed` starts over) and vacuumed and analysed.
2. bench/prepare.py makes the benchmark's customers (favorites, notifications, tokens) and
   samples listing ids, categories and prices.
3. The platform runs under gunicorn with config.settings.production; the raw baseline
   (bench/raw_app.py: hand-written SQL, orjson) under the same gunicorn settings. The cache
   of public reads (listings.cache) is on as in production, and empty at the start;
   `--no-cache` turns it off to measure every request against the database.
4. wrk (Debian's package) drives each request kind with 8 connections for --duration
   seconds, requests drawn at random from a file of paths made from a fixed seed; the list
   kinds also against the raw baseline. Then the whole mix together.
5. A table of requests per second and p50 / p95 / p99 per kind, and the platform-to-raw
   ratio, is printed and written to var/bench/results-<size>[-no-cache].json and .md.
"""

import argparse
import json
import math
import os
import platform
import random
import secrets
import shutil
import subprocess
import sys
import time
import unicodedata
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import psycopg
import redis

from bench.servers import balancer, gunicorn, stop, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SEED = 20_261_122
TYPES = ["house", "apartment", "land", "office", "commercial", "hotel", "development"]
SORTS = ["price", "-price", "createdAt", "-createdAt", "area", "-area"]
WORDS = ["pool", "garden", "balcony", "terrace", "lift", "duplex", "studio", "premises"]
# How the mix weighs each kind (a portal's traffic is mostly search pages and listings).
MIX = {
    "list": 45,
    "deep page": 3,
    "text search": 10,
    "bbox search": 10,
    "polygon search": 2,
    "clusters": 8,
    "detail": 25,
    "favorites": 4,
    "notifications": 3,
    "places": 5,
}
LIST_KINDS = ("list", "deep page", "text search", "bbox search", "polygon search")
# Spain as a whole-country map shows it (the seeded towns lie in it).
COUNTRY_BOX = (-10.0, 35.5, 4.5, 44.0)


def log(message: str) -> None:
    print(f"[bench] {message}", flush=True)


# --- The database ------------------------------------------------------------------------


def database_ready(server_url: str, name: str, size: int, reseed: bool) -> str:
    """The URL of a database seeded with `size` listings, made if needed."""
    url = f"{server_url.rstrip('/')}/{name}"
    with psycopg.connect(f"{server_url.rstrip('/')}/postgres", autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and reseed:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            exists = None
        if not exists:
            admin.execute(f'CREATE DATABASE "{name}"')
    environment = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
    }
    manage = [PYTHON, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v", "0"], check=True, env=environment)
    with psycopg.connect(url, autocommit=True) as connection:
        count = connection.execute("SELECT count(*) FROM listings_property").fetchone()[0]
    if count < size:
        log(f"seeding {size - count:,} listings into {name} (first run only)")
        started = time.monotonic()
        subprocess.run(
            [*manage, "seed_demo", "--properties", str(size - count)], check=True, env=environment
        )
        log(f"seeded in {time.monotonic() - started:.0f} s")
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("VACUUM ANALYZE")
    elif count > size:
        log(f"{name} holds {count:,} listings, more than {size:,}: use --reseed")
    else:
        # A migration may have built indexes on expressions since the last run, which the
        # planner has no statistics of until the table is analysed again, or rebuilt a table
        # kept from the listings, whose old rows stay until a vacuum (autovacuum may be off,
        # as on the CI's machines). With nothing to clear, 4 s at 1,000,000 listings.
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("VACUUM ANALYZE")
    return url


# How the platform and the baseline are served (bench.servers.gunicorn): a worker process per
# core (--workers), of two threads, each holding one connection at a time, which a worker
# takes only when a thread is free and closes after its response (no keep-alive). Each
# request then goes to a free thread, as behind HAProxy, which opens a connection to a node
# for each request. Kept alive, wrk's connections stayed for the whole run with whichever
# workers accepted them first, at times all with one: half the machine was measured (text
# search at 61 to 65 req/s in three of five runs, one core idle; 108 to 125 in five of five
# one connection at a time). Two processes of two threads keep four requests in flight, as
# four processes of one thread did, with fewer processes for 2 cores to switch between
# (PostgreSQL's backends run there too): a list request cost gunicorn 3.25 ms of CPU against
# 3.4 to 3.8, and in three alternating runs of make bench SIZE=1000000 --no-cache the mix and
# seven other kinds answered more requests a second in every round, the map kinds within the
# rounds' swing (docs/performance.md, "Two threads a process against one").
THREADS = 2
SERVING = {"threads": THREADS, "keep_alive_seconds": 0, "worker_connections": THREADS}


# What the list and detail requests read: loaded into PostgreSQL's buffers before measuring.
WARM_TABLES = ("listings_property", "listings_type_specific_record", "media_app_image")


def add_database_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark database's arguments, as every bench module takes them: --size, its
    listings (the database estate_bench_<size>), and --server."""
    parser.add_argument("--size", type=int, default=10_000, help="listings (default 10000)")
    parser.add_argument(
        "--server",
        default=os.environ.get("BENCH_DATABASE_SERVER", "postgres://root@127.0.0.1:5432"),
        help="PostgreSQL server URL, without a database name",
    )


def seeded_database(arguments: argparse.Namespace) -> str:
    """The URL of the benchmark database of --size listings on --server, made if needed."""
    return database_ready(
        arguments.server, f"estate_bench_{arguments.size}", arguments.size, reseed=False
    )


def warm_database(url: str) -> str:
    """Load the listing tables and their indexes into PostgreSQL's shared buffers (as far as
    they hold them), as a running service has them; return shared_buffers.

    A benchmark that starts from a cold database measures the disk: on a machine whose
    operating system keeps little of the files in memory, pages outside PostgreSQL's own
    buffers are read from the disk again and again (docs/performance.md).
    """
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        relations = connection.execute(
            "SELECT c.oid::regclass::text FROM pg_class c"
            " LEFT JOIN pg_index i ON i.indexrelid = c.oid"
            " WHERE c.oid = ANY(%s::regclass[]) OR i.indrelid = ANY(%s::regclass[])"
            " ORDER BY c.relkind DESC, pg_relation_size(c.oid)",
            [list(WARM_TABLES), list(WARM_TABLES)],
        ).fetchall()
        started = time.monotonic()
        for (relation,) in relations:
            connection.execute("SELECT pg_prewarm(%s::regclass)", [relation])
        log(f"warmed {len(relations)} tables and indexes in {time.monotonic() - started:.0f} s")
        return connection.execute("SHOW shared_buffers").fetchone()[0]


def prepare(url: str) -> dict:
    environment = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
    }
    output = subprocess.run(
        [PYTHON, str(ROOT / "bench" / "prepare.py")],
        check=True,
        env=environment,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(output)


# --- The request files ---------------------------------------------------------------------


def list_query(rng: random.Random, data: dict) -> dict:
    """Random filters as a visitor combines them: a few at a time, pages 1 to 5."""
    query: dict[str, object] = {}
    transaction_type = rng.choice(["SALE", "RENT"])
    if rng.random() < 0.6:
        query["transactionType"] = transaction_type
    if rng.random() < 0.5:
        query["type"] = rng.choice(TYPES[:2] * 3 + TYPES)
    if rng.random() < 0.5:
        query["municipality"] = rng.choice(data["towns"][:30])["name"]
    prices = data["prices"][transaction_type]
    if rng.random() < 0.4:
        low = prices[int(len(prices) * rng.uniform(0.05, 0.5))]
        query["minPrice"] = int(low)
    if rng.random() < 0.4:
        high = prices[int(len(prices) * rng.uniform(0.5, 0.95))]
        query["maxPrice"] = max(int(high), int(query.get("minPrice", 0)))
    if query.get("type") in ("house", "apartment") and rng.random() < 0.5:
        query["minBedrooms"] = rng.randint(1, 4)
    if rng.random() < 0.1:
        query["categoryId"] = rng.choice(data["categoryIds"])
    if rng.random() < 0.3:
        query["sort"] = rng.choice(SORTS)
    query["page"] = rng.randint(1, 5)
    query["limit"] = 10
    return query


def bbox_query(rng: random.Random, data: dict) -> dict:
    """A map view around a town: a few kilometres across, sometimes with a filter."""
    town = rng.choice(data["towns"])
    half = rng.uniform(0.01, 0.05)
    latitude = town["latitude"] + rng.uniform(-0.02, 0.02)
    longitude = town["longitude"] + rng.uniform(-0.02, 0.02)
    box = [longitude - half, latitude - half, longitude + half, latitude + half]
    query: dict[str, object] = {"bbox": ",".join(f"{value:.5f}" for value in box)}
    if rng.random() < 0.5:
        query["transactionType"] = rng.choice(["SALE", "RENT"])
    query["page"] = rng.randint(1, 3)
    query["limit"] = 10
    return query


def polygon_query(rng: random.Random, data: dict) -> dict:
    """An area drawn round part of a town: 4 to 12 vertices, each seen from the centre in
    turn (its edges never cross), a few kilometres across, sometimes with a filter."""
    town = rng.choice(data["towns"])
    latitude = town["latitude"] + rng.uniform(-0.02, 0.02)
    longitude = town["longitude"] + rng.uniform(-0.02, 0.02)
    count = rng.randint(4, 12)
    sector = 2 * math.pi / count
    points = []
    for index in range(count):
        angle = index * sector + rng.uniform(0, 0.4 * sector)
        radius = rng.uniform(0.01, 0.05)
        points.append((longitude + radius * math.cos(angle), latitude + radius * math.sin(angle)))
    points.append(points[0])
    query: dict[str, object] = {
        "polygon": ",".join(f"{value:.5f}" for point in points for value in point)
    }
    if rng.random() < 0.5:
        query["transactionType"] = rng.choice(["SALE", "RENT"])
    query["page"] = rng.randint(1, 3)
    query["limit"] = 10
    return query


def clusters_query(rng: random.Random, data: dict) -> dict:
    """A map's clusters: the whole country zoomed out (a third of them) or a town's view,
    sometimes with a filter."""
    if rng.random() < 1 / 3:
        zoom = rng.choice([5, 6])
        box = COUNTRY_BOX
    else:
        zoom = rng.randint(11, 14)
        town = rng.choice(data["towns"])
        # The map's view: about 1,000 x 600 pixels at this zoom.
        half_width = 1000 / 2 * 360 / (256 * 2**zoom)
        half_height = half_width * 0.6
        latitude = town["latitude"] + rng.uniform(-0.02, 0.02)
        longitude = town["longitude"] + rng.uniform(-0.02, 0.02)
        box = (
            longitude - half_width,
            latitude - half_height,
            longitude + half_width,
            latitude + half_height,
        )
    query: dict[str, object] = {"zoom": zoom, "bbox": ",".join(f"{value:.5f}" for value in box)}
    if rng.random() < 0.4:
        query["transactionType"] = rng.choice(["SALE", "RENT"])
    return query


def text_query(rng: random.Random, data: dict) -> dict:
    words = [rng.choice(WORDS)]
    if rng.random() < 0.7:
        words.append(rng.choice(data["towns"][:30])["name"].split()[0])
    return {"q": " ".join(words), "page": rng.randint(1, 3), "limit": 10}


def places_query(rng: random.Random, data: dict) -> dict:
    """What a visitor has typed in the search box: a town's first letters, sometimes in
    small letters without accents, sometimes with one letter wrong."""
    name = rng.choice(data["towns"])["name"]
    text = name[: rng.randint(1, min(len(name), 8))]
    if rng.random() < 0.3:
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    if len(text) >= 4 and rng.random() < 0.2:
        wrong = rng.randrange(1, len(text))
        text = text[:wrong] + rng.choice("aeiou") + text[wrong + 1 :]
    return {"q": text}


def request_files(directory: Path, data: dict, size: int) -> dict[str, Path]:
    """One file of request lines per kind, and one of the mix, from the fixed seed."""
    rng = random.Random(SEED)
    properties = "/api/v1/properties"
    deep_pages = max(1, min(1000, size // 10 // 2))
    lines: dict[str, list[str]] = {
        "list": [f"{properties}?{urlencode(list_query(rng, data))}" for _ in range(3000)],
        "deep page": [
            f"{properties}?{urlencode({'page': rng.randint(deep_pages // 2, deep_pages)})}"
            for _ in range(500)
        ],
        "text search": [f"{properties}?{urlencode(text_query(rng, data))}" for _ in range(1000)],
        "bbox search": [f"{properties}?{urlencode(bbox_query(rng, data))}" for _ in range(1000)],
        "polygon search": [
            f"{properties}?{urlencode(polygon_query(rng, data))}" for _ in range(1000)
        ],
        "clusters": [
            f"{properties}/clusters?{urlencode(clusters_query(rng, data))}" for _ in range(1000)
        ],
        "detail": [f"{properties}/{listing}" for listing in data["listingIds"]],
        "favorites": [f"/api/v1/favorites\t{token}" for token in data["tokens"]],
        "notifications": [
            f"/api/v1/notifications?page={rng.randint(1, 2)}\t{token}" for token in data["tokens"]
        ],
        "places": [f"/api/v1/places?{urlencode(places_query(rng, data))}" for _ in range(1000)],
    }
    mix = []
    for kind, weight in MIX.items():
        mix += [rng.choice(lines[kind]) for _ in range(weight * 40)]
    lines["mix"] = mix
    directory.mkdir(parents=True, exist_ok=True)
    files = {}
    for kind, kind_lines in lines.items():
        path = directory / f"{kind.replace(' ', '-')}.txt"
        path.write_text("\n".join(kind_lines) + "\n")
        files[kind] = path
    return files


# --- The servers ---------------------------------------------------------------------------


# --- Load ------------------------------------------------------------------------------------


def wrk(base: str, file: Path, *, seconds: int, connections: int) -> dict:
    """One wrk run; its numbers as the dictionary bench/requests.lua prints."""
    command = [
        "wrk",
        "--threads",
        "2",
        "--connections",
        str(connections),
        "--duration",
        f"{seconds}s",
        "--timeout",
        "10s",
        "--script",
        str(ROOT / "bench" / "requests.lua"),
        base,
        "--",
        str(file),
        str(SEED),
    ]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result = json.loads(output.strip().splitlines()[-1])
    result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
    result["errors"] = sum(value for key, value in result.items() if key.startswith("errors_"))
    return result


def check_responses(base: str, files: dict[str, Path]) -> None:
    """Before timing anything: a sample of every kind answers 200 (wrk counts the rest)."""
    for kind, file in files.items():
        for line in file.read_text().splitlines()[:5]:
            path, _, token = line.partition("\t")
            request = urllib.request.Request(base + path)
            if token:
                request.add_header("Authorization", f"Bearer {token}")
            with urllib.request.urlopen(request, timeout=30) as response:
                if response.status != 200:
                    raise SystemExit(f"{kind}: {path} answered {response.status}")


def wait_for_idle_database(url: str, seconds: float = 120) -> None:
    """Wait until the database runs no query of a previous run.

    wrk stops sending at its deadline, but slow queries it started go on in the servers; the
    next kind would be measured against them. They are waited for, then cancelled.
    """
    name = url.rsplit("/", 1)[-1]
    deadline = time.monotonic() + seconds
    with psycopg.connect(url, autocommit=True) as connection:
        while True:
            busy = connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND state = 'active'"
                " AND pid <> pg_backend_pid()",
                [name],
            ).fetchone()[0]
            if not busy:
                return
            if time.monotonic() > deadline:
                connection.execute(
                    "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = %s"
                    " AND state = 'active' AND pid <> pg_backend_pid()",
                    [name],
                )
                return
            time.sleep(0.5)


def milliseconds(microseconds: float) -> str:
    return f"{microseconds / 1000:.1f}"


def summary(result: dict) -> str:
    return f"{result['rps']:.0f} req/s, p95 {milliseconds(result['p95_us'])} ms"


def report(size: int, results: dict, raw: dict, settings: dict) -> str:
    lines = [
        f"### {size:,} listings",
        "",
        f"{settings['connections']} connections, {settings['seconds']} s per kind, "
        f"gunicorn {settings['workers']} workers of {SERVING['threads']} threads"
        + (f" on each of {settings['nodes']} nodes behind HAProxy" if settings.get("nodes") else "")
        + ", cache of public reads "
        f"{settings['cache']}; {settings['machine']}",
        "",
        "| Request kind | req/s | p50 ms | p95 ms | p99 ms | errors | raw req/s | raw p50 ms "
        "| raw p95 ms | platform / raw (p50) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, result in results.items():
        row = [
            kind,
            f"{result['rps']:.0f}",
            milliseconds(result["p50_us"]),
            milliseconds(result["p95_us"]),
            milliseconds(result["p99_us"]),
            str(result["errors"]),
        ]
        if kind in raw:
            baseline = raw[kind]
            row += [
                f"{baseline['rps']:.0f}",
                milliseconds(baseline["p50_us"]),
                milliseconds(baseline["p95_us"]),
                f"{result['p50_us'] / baseline['p50_us']:.2f}x" if baseline["p50_us"] else "n/a",
            ]
        else:
            row += ["", "", "", ""]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_database_arguments(parser)
    parser.add_argument("--seconds", type=int, default=15, help="seconds per kind (default 15)")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="gunicorn's worker processes, of SERVING's threads each (default: one a CPU)",
    )
    parser.add_argument("--kinds", nargs="*", help="only these kinds (default: all)")
    parser.add_argument("--reseed", action="store_true", help="drop and seed the database again")
    parser.add_argument("--port", type=int, default=8710)
    parser.add_argument(
        "--nodes",
        type=int,
        default=0,
        help="serve the platform from this many gunicorn nodes (of --workers each) behind"
        " HAProxy, as `make cluster` does (default 0: gunicorn alone)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="serve every request from the database (PUBLIC_READ_CACHE_SECONDS=0)",
    )
    arguments = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: apt-get install wrk (Debian's package)")

    url = database_ready(
        arguments.server, f"estate_bench_{arguments.size}", arguments.size, arguments.reseed
    )
    data = prepare(url)
    directory = ROOT / "var" / "bench" / str(arguments.size)
    files = request_files(directory, data, arguments.size)
    kinds = arguments.kinds or [*MIX, "mix"]

    # Every run starts with an empty cache: no page is served from an earlier run.
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
    redis.Redis.from_url(redis_url).flushdb()
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DATABASE_URL": url,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_HSTS_SECONDS": "0",
        "REDIS_URL": redis_url,
        # On by default, as in production (listings.cache); --no-cache measures the database.
        "PUBLIC_READ_CACHE_SECONDS": "0" if arguments.no_cache else "60",
        # bench/requests.lua sends each request from a random address through one proxy,
        # as real visitors come; the limits stay the production ones.
        "NUM_PROXIES": "2" if arguments.nodes else "1",
        "DATABASE_POOL_MAX_SIZE": "4",
        "PYTHONPATH": str(ROOT),
    }
    platform_base = f"http://127.0.0.1:{arguments.port}"
    raw_base = f"http://127.0.0.1:{arguments.port + 1}"
    serving = {**SERVING, "workers": arguments.workers, "environment": environment}
    servers = [gunicorn("bench.raw_app:application", port=arguments.port + 1, **serving)]
    if arguments.nodes:
        # The nodes on the ports after the baseline's, HAProxy on the platform's port.
        nodes = {
            f"web-{number}": arguments.port + 1 + number for number in range(1, arguments.nodes + 1)
        }
        servers += [gunicorn("config.wsgi", port=port, **serving) for port in nodes.values()]
        for port in nodes.values():
            wait_until_up(f"http://127.0.0.1:{port}/healthz")
        servers.append(balancer(port=arguments.port, nodes=nodes))
    else:
        servers.append(gunicorn("config.wsgi", port=arguments.port, **serving))
    results: dict[str, dict] = {}
    raw: dict[str, dict] = {}
    try:
        shared_buffers = warm_database(url)
        wait_until_up(f"{platform_base}/healthz")
        wait_until_up(f"{raw_base}/api/v1/properties")
        check_responses(platform_base, files)
        settings = {
            "connections": arguments.connections,
            "seconds": arguments.seconds,
            "workers": arguments.workers,
            "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, Python "
            f"{platform.python_version()}, PostgreSQL shared_buffers {shared_buffers}",
            "cache": "off" if arguments.no_cache else "on",
            "nodes": arguments.nodes,
        }
        for kind in kinds:
            wait_for_idle_database(url)
            wrk(platform_base, files[kind], seconds=3, connections=arguments.connections)
            results[kind] = wrk(
                platform_base,
                files[kind],
                seconds=arguments.seconds,
                connections=arguments.connections,
            )
            log(f"{kind}: {summary(results[kind])}")
            if kind in LIST_KINDS:
                wait_for_idle_database(url)
                wrk(raw_base, files[kind], seconds=3, connections=arguments.connections)
                raw[kind] = wrk(
                    raw_base,
                    files[kind],
                    seconds=arguments.seconds,
                    connections=arguments.connections,
                )
                log(f"{kind} (raw): {summary(raw[kind])}")
    finally:
        for server in servers:
            stop(server)
    table = report(arguments.size, results, raw, settings)
    print()
    print(table)
    name = f"results-{arguments.size}" + ("-no-cache" if arguments.no_cache else "")
    (ROOT / "var" / "bench" / f"{name}.md").write_text(table)
    (ROOT / "var" / "bench" / f"{name}.json").write_text(
        json.dumps({"settings": settings, "platform": results, "raw": raw}, indent=2)
    )
    if any(result["errors"] for result in results.values()):
        raise SystemExit("some requests failed (see the errors column)")


if __name__ == "__main__":
    main()
