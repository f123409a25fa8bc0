"""The benchmark's requests replayed in-process, one at a time: what a request costs.

    python -m bench.replay --size 1000000 --kinds clusters list    # after `make bench`

wrk's figures depend on everything else the machine runs: runs of the same code swing by
half. A request's CPU is steadier: this replays a kind's request file (written by
bench.run, under var/bench/<size>/) through the whole Django stack with
django.test.Client, in this process, against the benchmark's database, with the production
settings and the cache of public reads off, and prints for each kind the wall time (mean,
p50, p95) and the CPU per request of this process (Python) and of the PostgreSQL backend
that served it (read from /proc: the database must run on this machine), and the garbage
collector's time per request and its longest pause. The process loads the application as a
server process does (config.wsgi). Compare two versions of the code by replaying them in
turn, a few rounds each.

With --statements, a second pass over the same requests times each database call apart
(Django's execute_wrapper) and prints, for each kind, the statements that took the most
time: their shape (the statement with its literal values taken out), how many a request
runs and the milliseconds a request spends waiting for them. The timing adds its own cost,
so the first pass's figures are measured without it. With --slowest, each kind's slowest
requests of the round are printed too, with their wall time: where a kind's tail comes from.
"""

import argparse
import gc
import heapq
import os
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

from bench.run import add_database_arguments

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Replayed:
    """One kind's replay: wall time per request (ms), and CPU per request (ms) of this
    process and of the PostgreSQL backend (None on another database)."""

    requests: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    python_cpu_ms: float
    database_cpu_ms: float | None
    # The slowest requests, slowest first: wall time (ms) and path (replay's `slowest`).
    slowest: tuple[tuple[float, str], ...] = ()
    # The garbage collector's time per request (ms), and its longest collection (ms).
    collector_ms: float = 0.0
    longest_collection_ms: float = 0.0


def database_cpu_seconds() -> float | None:
    """CPU time so far of the PostgreSQL backend of the default connection, from /proc."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    # Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted after the command name.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def send(client, lines: list[str], *, seed: int = 1) -> list[float]:
    """Send each request line (a path, then optionally a tab and a bearer token) once, in
    order, each from an address of its own, as bench/requests.lua sends them; the wall time
    of each (ms). Raises RuntimeError naming the first line not answered 200."""
    addresses = random.Random(seed)
    walls = []
    for line in lines:
        path, _, token = line.partition("\t")
        octets = (addresses.randrange(256), addresses.randrange(256), addresses.randrange(1, 255))
        headers = {"HTTP_X_FORWARDED_FOR": "10.{}.{}.{}".format(*octets)}
        if token:
            headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        started = time.perf_counter()
        response = client.get(path, **headers)
        walls.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{path} answered {response.status_code}")
    return walls


class CollectionTimer:
    """The garbage collector's collections while it is registered (gc.callbacks): their
    total and longest wall time, in seconds."""

    def __init__(self):
        self.total = 0.0
        self.longest = 0.0
        self.started = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        duration = time.perf_counter() - self.started
        self.total += duration
        self.longest = max(self.longest, duration)


def replay(client, lines: list[str], *, seed: int = 1, slowest: int = 0) -> Replayed:
    """Send the request lines (send) and read what they cost: their wall times, the CPU
    this process and its PostgreSQL backend spent on them and the garbage collector's
    time; and the `slowest` requests."""
    collections = CollectionTimer()
    database_before = database_cpu_seconds()
    python_before = time.process_time()
    gc.callbacks.append(collections)
    try:
        walls = send(client, lines, seed=seed)
    finally:
        gc.callbacks.remove(collections)
    python = time.process_time() - python_before
    database_after = database_cpu_seconds()
    count = len(walls)
    paths = [line.partition("\t")[0] for line in lines]
    slowest_requests = tuple(heapq.nlargest(slowest, zip(walls, paths, strict=True)))
    walls.sort()
    return Replayed(
        requests=count,
        mean_ms=statistics.mean(walls),
        p50_ms=walls[count // 2],
        p95_ms=walls[int(count * 0.95)],
        python_cpu_ms=python * 1000 / count,
        database_cpu_ms=(
            None if database_before is None else (database_after - database_before) * 1000 / count
        ),
        slowest=slowest_requests,
        collector_ms=collections.total * 1000 / count,
        longest_collection_ms=collections.longest * 1000,
    )


@dataclass(frozen=True, slots=True)
class StatementTime:
    """The statements of one shape a replay ran: how many a request, and the wall time a
    request spent in them (ms), from the call to its return."""

    shape: str
    per_request: float
    ms_per_request: float


# Quoted literals ('Madrid', '{1,2}'), savepoint names and numbers not part of a name.
LITERAL = re.compile(r"'(?:[^']|'')*'")
SAVEPOINT = re.compile(r'"s\d+_x\d+"')
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?\b")


def statement_shape(sql: str) -> str:
    """A statement with its literal values taken out and its white space folded, on one
    line, so that the statements a kind's requests run group by what they do rather than
    by the values they were given."""
    unquoted = " ".join(LITERAL.sub("?", sql).split())
    return NUMBER.sub("N", SAVEPOINT.sub('"savepoint"', unquoted))


def statement_times(client, lines: list[str], *, seed: int = 1) -> list[StatementTime]:
    """Send the request lines (send) timing each database call, and sum the calls by
    statement_shape: the shapes that took the most time first."""
    calls: dict[str, list] = defaultdict(lambda: [0, 0.0])

    def timed(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            entry = calls[statement_shape(sql)]
            entry[0] += 1
            entry[1] += time.perf_counter() - started

    with connection.execute_wrapper(timed):
        count = len(send(client, lines, seed=seed))
    times = [
        StatementTime(shape, number / count, seconds * 1000 / count)
        for shape, (number, seconds) in calls.items()
    ]
    return sorted(times, key=lambda each: (-each.ms_per_request, each.shape))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_database_arguments(parser)
    parser.add_argument("--kinds", nargs="+", default=["list"], help="request kinds, as bench")
    parser.add_argument("--requests", type=int, default=1000, help="of each kind's file, at most")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--statements",
        type=int,
        default=0,
        metavar="N",
        help="then print the N statement shapes that took each kind's requests the most time",
    )
    parser.add_argument(
        "--slowest",
        type=int,
        default=0,
        metavar="N",
        help="print each kind's N slowest requests of the round, with their wall time",
    )
    arguments = parser.parse_args()
    directory = ROOT / "var" / "bench" / str(arguments.size)
    files = {kind: directory / f"{kind.replace(' ', '-')}.txt" for kind in arguments.kinds}
    missing = [str(path) for path in files.values() if not path.exists()]
    if missing:
        raise SystemExit(f"no request file {', '.join(missing)}: run make bench SIZE=... first")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DATABASE_URL=f"{arguments.server.rstrip('/')}/estate_bench_{arguments.size}",
        SECRET_KEY="replay-" + "x" * 50,
        ALLOWED_HOSTS="localhost",
        SECURE_SSL_REDIRECT="false",
        SECURE_HSTS_SECONDS="0",
        PUBLIC_READ_CACHE_SECONDS="0",
        REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7"),
        # One connection, so that one backend serves every request and its CPU is theirs.
        DATABASE_POOL_MIN_SIZE="1",
        DATABASE_POOL_MAX_SIZE="1",
        # The address each request comes from is the forwarded one, as behind gunicorn.
        NUM_PROXIES="1",
    )
    sys.path.insert(0, str(ROOT))
    from django.test import Client

    # Loaded as a server process loads it: its URLs, and what it keeps frozen (config.wsgi).
    import config.wsgi  # noqa: F401

    client = Client(HTTP_HOST="localhost", HTTP_ACCEPT="application/json")
    for round_number in range(1, arguments.rounds + 1):
        for kind, path in files.items():
            lines = [line for line in path.read_text().splitlines() if line]
            lines = lines[: arguments.requests]
            # The first requests warm this process's caches and the connection.
            replay(client, lines[:20], seed=round_number)
            result = replay(client, lines, seed=round_number, slowest=arguments.slowest)
            database = "" if result.database_cpu_ms is None else f" + {result.database_cpu_ms:.2f}"
            print(
                f"round {round_number} {kind}: {result.requests} requests, mean"
                f" {result.mean_ms:.2f} ms, p50 {result.p50_ms:.2f}, p95 {result.p95_ms:.2f};"
                f" CPU a request {result.python_cpu_ms:.2f} ms Python{database} PostgreSQL;"
                f" garbage collector {result.collector_ms:.3f} ms a request, its longest"
                f" pause {result.longest_collection_ms:.1f} ms",
                flush=True,
            )
            for wall, path in result.slowest:
                print(f"  {wall:8.2f} ms  {path}", flush=True)
            if arguments.statements:
                times = statement_times(client, lines, seed=round_number)
                print(
                    f"  statements: {sum(each.per_request for each in times):.2f} a request,"
                    f" {sum(each.ms_per_request for each in times):.2f} ms a request,"
                    f" {len(times)} shapes; the slowest:",
                    flush=True,
                )
                for each in times[: arguments.statements]:
                    print(
                        f"  {each.ms_per_request:6.2f} ms a request, {each.per_request:5.2f}"
                        f" a request: {each.shape[:160]}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
