"""The platform as a cluster on this machine (`make cluster`, `make cluster-stop`).

    python -m bench.cluster start [--seed] [--fresh]   start what is not running
    python -m bench.cluster stop                       stop it all
    python -m bench.cluster status                     what runs, where

The tiers (docs/deployment.md, "A cluster on one machine"):

- PostgreSQL: a primary of its own, Debian's cluster `<version> estate-primary` on port
  5440, and a streaming hot standby of it, `estate-standby` on 5441 (pg_basebackup through
  bench/replica.py), serving the public reads (DATABASE_REPLICA_URLS);
- Redis on 6390: the cache, the rate limits and the read-your-writes marks of every node;
- an S3-compatible server on 5450 (moto's server) holding the media;
- two web nodes, gunicorn with the production settings on 8801 and 8802, behind HAProxy on
  8800 (health checks on /healthz, idempotent requests retried on the other node);
- two task workers (`manage.py db_worker`, ids `cluster-worker-1` and `-2`).

The database is `estate` on the primary; `--fresh` drops and makes it again, `--seed` loads
the demo data (what is missing of it). Everything the processes write (logs, pid files,
HAProxy's configuration, static files, the secret key) is under var/cluster/.
Run as root, like the CI machine: the PostgreSQL clusters are Debian's.

The scale test (tests/load/scale.py) drives the same functions to kill and restart parts.
"""

import argparse
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import boto3
import psycopg
import redis

from bench import replica
from bench.servers import (
    balancer_configuration,
    gunicorn_command,
    require_free_port,
    wait_until_up,
)

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / "var" / "cluster"
PYTHON = sys.executable
HOST = "127.0.0.1"

PRIMARY = "estate-primary"
PRIMARY_PORT = 5440
STANDBY = replica.Standby(
    primary_port=PRIMARY_PORT, name="estate-standby", port=5441, slot="estate_cluster"
)
DATABASE = "estate"
REDIS_PORT = 6390
STORAGE_PORT = 5450
BUCKET = "estate-media"
BALANCER_PORT = 8800
BALANCER_STATS_PORT = 8809
WEB_PORTS = {"web-1": 8801, "web-2": 8802}
WORKERS = ("worker-1", "worker-2")
# Per web node: processes and threads (each thread holds a database connection).
WEB_PROCESSES = 2
WEB_THREADS = 4
# The primary's own settings: room for both nodes' pools, the workers and the standby.
PRIMARY_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "max_connections": "200",
    "shared_buffers": "512MB",
    "wal_level": "replica",
    "max_wal_senders": "10",
    "max_slot_wal_keep_size": "'2GB'",
}
PRIMARY_HBA = """\
# Made by bench/cluster.py: a cluster on one machine, reached on 127.0.0.1 only.
local all all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
"""


def log(message: str) -> None:
    print(f"[cluster] {message}", flush=True)


# --- Processes -------------------------------------------------------------------------------


def pid_file(name: str) -> Path:
    return STATE / f"{name}.pid"


def process_pid(name: str) -> int | None:
    """The pid of the cluster's process `name` when it runs, else None."""
    try:
        pid = int(pid_file(name).read_text())
        os.kill(pid, 0)
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    return pid


def spawn(name: str, command: list[str], environment: dict | None = None) -> int:
    """Start `command` as the cluster's process `name`, in its own process group (so that a
    kill reaches its children), its output in var/cluster/logs/<name>.log."""
    (STATE / "logs").mkdir(parents=True, exist_ok=True)
    with (STATE / "logs" / f"{name}.log").open("ab") as output:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    pid_file(name).write_text(str(process.pid))
    return process.pid


def group_alive(pid: int) -> bool:
    """Whether any process of the group `pid` leads is left (reaping the leader when it
    is this process's child, as the scale test's restarted parts are)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    return True


def process_signal(name: str, sent: signal.Signals, *, wait_seconds: float = 20) -> None:
    """Send `sent` to the process group of `name` (gunicorn's workers with their master);
    return once every process of it has ended (SIGKILL after `wait_seconds`)."""
    pid = process_pid(name)
    if pid is None:
        return
    try:
        os.killpg(pid, sent)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + wait_seconds
    while group_alive(pid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            deadline = time.monotonic() + wait_seconds
        time.sleep(0.02)
    pid_file(name).unlink(missing_ok=True)


# --- PostgreSQL ------------------------------------------------------------------------------


def postgres_version() -> str:
    """The newest PostgreSQL major version Debian has installed here."""
    versions = sorted(Path("/usr/lib/postgresql").iterdir(), key=lambda path: int(path.name))
    return versions[-1].name


def primary_ensure(version: str) -> None:
    """The cluster's own primary, made on first use, running, with the role `root`."""
    configuration = Path(f"/etc/postgresql/{version}/{PRIMARY}")
    if not replica.cluster_exists(version, PRIMARY):
        log(f"creating the PostgreSQL cluster {version} {PRIMARY} on port {PRIMARY_PORT}")
        replica.run("pg_createcluster", version, PRIMARY, "--port", str(PRIMARY_PORT))
        (configuration / "conf.d" / "cluster.conf").write_text(
            "# Made by bench/cluster.py.\n"
            + "".join(f"{name} = {value}\n" for name, value in PRIMARY_SETTINGS.items())
        )
        (configuration / "pg_hba.conf").write_text(PRIMARY_HBA)
    replica.cluster_control(version, "start", PRIMARY, check=False)
    deadline = time.monotonic() + 30
    while True:
        try:
            with psycopg.connect(
                host=HOST, port=PRIMARY_PORT, user="postgres", dbname="postgres", autocommit=True
            ) as server:
                if not server.execute("SELECT 1 FROM pg_roles WHERE rolname = 'root'").fetchone():
                    server.execute("CREATE ROLE root SUPERUSER LOGIN")
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise SystemExit(f"the primary on port {PRIMARY_PORT} did not start") from None
            time.sleep(0.5)


def database_ensure(*, fresh: bool) -> None:
    """The `estate` database on the primary (made again when `fresh`)."""
    with replica.connect(PRIMARY_PORT) as server:
        exists = server.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]
        ).fetchone()
        if exists and not fresh:
            return
        server.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        server.execute(f'CREATE DATABASE "{DATABASE}"')


def clusters_stop(version: str) -> None:
    for name in (STANDBY.name, PRIMARY):
        if replica.cluster_exists(version, name):
            replica.cluster_control(version, "stop", name, check=False)


# --- The settings every node and worker reads -------------------------------------------------


def environment_of_cluster() -> dict:
    """The environment of the web nodes, workers and management commands: production
    settings pointed at the cluster's parts. The secret key is made once and kept in
    var/cluster/secret-key (readable by its owner only), so that sessions and signed links
    outlive a restart."""
    STATE.mkdir(parents=True, exist_ok=True)
    secret_file = STATE / "secret-key"
    if not secret_file.exists():
        secret_file.touch(mode=0o600)
        secret_file.write_text(secrets.token_urlsafe(50))
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secret_file.read_text().strip(),
        "DATABASE_URL": f"postgres://root@{HOST}:{PRIMARY_PORT}/{DATABASE}",
        "DATABASE_REPLICA_URLS": f"postgres://root@{HOST}:{STANDBY.port}/{DATABASE}",
        "DATABASE_POOL_MAX_SIZE": str(WEB_THREADS),
        "REDIS_URL": f"redis://{HOST}:{REDIS_PORT}/0",
        "AWS_STORAGE_BUCKET_NAME": BUCKET,
        "AWS_S3_ENDPOINT_URL": f"http://{HOST}:{STORAGE_PORT}",
        "AWS_S3_REGION_NAME": "us-east-1",
        "AWS_ACCESS_KEY_ID": "cluster",
        "AWS_SECRET_ACCESS_KEY": "cluster",
        # Listing photos are public: plain URLs, the same in every answer (a signed URL
        # would differ from one answer to the next, and expire inside a cached one).
        "AWS_QUERYSTRING_AUTH": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SITE_URL": f"http://{HOST}:{BALANCER_PORT}",
        # HAProxy speaks plain HTTP on this machine and adds X-Forwarded-For.
        "SECURE_SSL_REDIRECT": "false",
        "NUM_PROXIES": "1",
        "STATIC_ROOT": str(STATE / "static"),
        "EMAIL_FILE_PATH": str(STATE / "mail"),
    }


def manage(environment: dict, *arguments: str) -> None:
    subprocess.run(
        [PYTHON, str(ROOT / "manage.py"), *arguments],
        check=True,
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
    )


# --- Redis, the S3 server, the web nodes, HAProxy, the workers ---------------------------------


def redis_start() -> None:
    if process_pid("redis") is None:
        require_free_port(REDIS_PORT)
        spawn(
            "redis",
            ["redis-server", "--bind", HOST, "--port", str(REDIS_PORT), "--save", "",
             "--appendonly", "no"],
        )  # fmt: skip
    deadline = time.monotonic() + 10
    while True:
        try:
            redis.Redis(host=HOST, port=REDIS_PORT).ping()
            return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise SystemExit(f"Redis did not start on port {REDIS_PORT}") from None
            time.sleep(0.2)


def storage_start(environment: dict) -> None:
    if process_pid("s3") is None:
        require_free_port(STORAGE_PORT)
        spawn("s3", [str(Path(PYTHON).parent / "moto_server"), "-H", HOST, "-p", str(STORAGE_PORT)])
    wait_until_up(f"http://{HOST}:{STORAGE_PORT}/moto-api/")
    client = boto3.client(
        "s3",
        endpoint_url=environment["AWS_S3_ENDPOINT_URL"],
        region_name=environment["AWS_S3_REGION_NAME"],
        aws_access_key_id=environment["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=environment["AWS_SECRET_ACCESS_KEY"],
    )
    if BUCKET not in {bucket["Name"] for bucket in client.list_buckets()["Buckets"]}:
        client.create_bucket(Bucket=BUCKET)


def web_start(name: str, environment: dict) -> None:
    """The web node `name` (gunicorn, production settings) on its port, once it answers."""
    port = WEB_PORTS[name]
    if process_pid(name) is None:
        require_free_port(port)
        command = gunicorn_command(
            "config.wsgi", port=port, workers=WEB_PROCESSES, threads=WEB_THREADS
        )
        spawn(name, command, environment)
    wait_until_up(f"http://{HOST}:{port}/healthz")


def worker_start(name: str, environment: dict, *, recover: bool = True) -> None:
    """The task worker `name`: first (unless not `recover`) the tasks its previous process
    left running are given back (tasks_recover with its worker id) and due deliveries are
    swept, then it works (docs/deployment.md)."""
    if process_pid(name) is not None:
        return
    worker_id = f"cluster-{name}"
    if recover:
        manage(environment, "tasks_recover", "--worker-id", worker_id)
        manage(environment, "webhooks_sweep")
    spawn(
        name,
        [PYTHON, str(ROOT / "manage.py"), "db_worker", "--no-reload", "--worker-id", worker_id,
         "--verbosity", "0"],
        environment,
    )  # fmt: skip


def balancer_start() -> None:
    if process_pid("haproxy") is not None:
        return
    require_free_port(BALANCER_PORT)
    path = STATE / "haproxy.cfg"
    path.write_text(
        balancer_configuration(port=BALANCER_PORT, nodes=WEB_PORTS, stats_port=BALANCER_STATS_PORT)
    )
    replica.run("haproxy", "-c", "-q", "-f", str(path))
    spawn("haproxy", ["haproxy", "-db", "-f", str(path)])
    wait_until_up(f"http://{HOST}:{BALANCER_PORT}/healthz")


# --- The commands ----------------------------------------------------------------------------


def start(*, seed: bool = False, fresh: bool = False, environment: dict | None = None) -> dict:
    """Start every part that is not running; returns the environment of the nodes.

    `environment` adds to (or overrides) the cluster's settings, for the scale test.
    """
    STATE.mkdir(parents=True, exist_ok=True)
    version = postgres_version()
    primary_ensure(version)
    database_ensure(fresh=fresh)
    replica.ensure(STANDBY)
    environment = {**environment_of_cluster(), **(environment or {})}
    redis_start()
    if fresh:
        redis.Redis(host=HOST, port=REDIS_PORT).flushall()
    storage_start(environment)
    log("migrating the database and collecting static files")
    manage(environment, "migrate", "-v", "0")
    manage(environment, "collectstatic", "--noinput", "-v", "0")
    if seed:
        # seed_demo adds only what is missing.
        log("loading the demo data")
        manage(environment, "seed_demo")
    for name in WEB_PORTS:
        web_start(name, environment)
    for name in WORKERS:
        worker_start(name, environment)
    balancer_start()
    return environment


def stop() -> None:
    """Stop every part: the balancer first, then the nodes, the workers and the servers."""
    for name in ("haproxy", *WEB_PORTS, *WORKERS, "s3", "redis"):
        if process_pid(name) is not None:
            log(f"stopping {name}")
        process_signal(name, signal.SIGTERM)
    log("stopping the PostgreSQL primary and standby")
    clusters_stop(postgres_version())


def status() -> list[str]:
    """One line per part: its name, where it listens, and whether it runs."""
    lines = []
    for name, port in (
        ("haproxy", BALANCER_PORT), *WEB_PORTS.items(), ("s3", STORAGE_PORT),
        ("redis", REDIS_PORT),
    ):  # fmt: skip
        state = "running" if process_pid(name) else "stopped"
        lines.append(f"{name:10} {HOST}:{port:<6} {state}")
    for name in WORKERS:
        lines.append(f"{name:10} {'':16} {'running' if process_pid(name) else 'stopped'}")
    for name, port in ((PRIMARY, PRIMARY_PORT), (STANDBY.name, STANDBY.port)):
        try:
            with replica.connect(port) as server:
                recovery = server.execute("SELECT pg_is_in_recovery()").fetchone()[0]
            state = "running (standby)" if recovery else "running (primary)"
        except psycopg.OperationalError:
            state = "stopped"
        lines.append(f"{name:10} {HOST}:{port:<6} {state}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["start", "stop", "status"])
    parser.add_argument("--seed", action="store_true", help="load the demo data once")
    parser.add_argument("--fresh", action="store_true", help="start from an empty database")
    arguments = parser.parse_args()
    if arguments.command == "start":
        start(seed=arguments.seed, fresh=arguments.fresh)
        print("\n".join(status()))
        log(
            f"serving on http://{HOST}:{BALANCER_PORT}/ (HAProxy's statistics: "
            f"http://{HOST}:{BALANCER_STATS_PORT}/); `make cluster-stop` ends it"
        )
    elif arguments.command == "stop":
        stop()
    else:
        print("\n".join(status()))


if __name__ == "__main__":
    sys.exit(main())
