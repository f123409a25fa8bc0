"""A streaming hot standby of the machine's PostgreSQL, on the same machine (`make replica`).

    python -m bench.replica            make sure the standby runs and streams (idempotent)
    python -m bench.replica --remove   stop it and drop it, with its replication slot

The primary is the machine's cluster on 127.0.0.1:5432 (Debian's postgresql package, user
root, trust). The standby is a second Debian cluster, `<version> replica` on port 5433,
whose data directory is a base backup of the primary (pg_basebackup -R: it follows the
primary through the replication slot `estate_replica`). Run as root, like the CI machine.

A standby that is running and streaming is left as it is; a stopped one is started; one
that does not stream once started (its WAL was lost, it was promoted, its files are
broken) is dropped and made again from a new base backup. The primary gains what
replication needs and nothing else: a `replication` line for 127.0.0.1 in pg_hba.conf, and
a bound on the WAL its slots may keep (max_slot_wal_keep_size, when it has none), so that
a standby left stopped cannot fill the disk.

The router's tests (tests/replicas) run this when the standby is missing. `make cluster`
(bench/cluster.py) makes its own primary and standby with the same functions (Standby).
"""

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

HOST = "127.0.0.1"
USER = "root"
# What the primary's slots may hold back for a stopped standby; past it the standby is
# given up (and this script makes it again).
SLOT_WAL_LIMIT = "2GB"
# Hot standby refuses to start with fewer of these than the primary has.
MATCHED_SETTINGS = (
    "max_connections",
    "max_worker_processes",
    "max_wal_senders",
    "max_prepared_transactions",
    "max_locks_per_transaction",
)
# The standby's own memory: the base backup brings the primary's ALTER SYSTEM settings
# (postgresql.auto.conf), sized for one server on the machine, not two.
STANDBY_SETTINGS = {"shared_buffers": "256MB"}


@dataclass(frozen=True)
class Standby:
    """A standby of the primary on `primary_port`: Debian's cluster `name` on `port`,
    following the primary through the replication slot `slot`."""

    primary_port: int = 5432
    name: str = "replica"
    port: int = 5433
    slot: str = "estate_replica"


# The machine's standby (`make replica`, the router's tests); `make cluster` has its own.
MACHINE = Standby()


def log(message: str) -> None:
    print(f"[replica] {message}", flush=True)


def run(*command: str) -> str:
    """Run a command, stop with its output if it fails; its standard output."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def connect(port: int, dbname: str = "postgres") -> psycopg.Connection:
    return psycopg.connect(
        host=HOST, port=port, user=USER, dbname=dbname, autocommit=True, connect_timeout=3
    )


def primary_version(primary_port: int = MACHINE.primary_port) -> str:
    """The major version of the cluster on the primary's port (pg_lsclusters)."""
    for line in run("pg_lsclusters", "--no-header").splitlines():
        version, _name, port, *_rest = line.split()
        if int(port) == primary_port:
            return version
    raise SystemExit(f"no PostgreSQL cluster on port {primary_port} (pg_lsclusters)")


def cluster_exists(version: str, name: str) -> bool:
    return Path(f"/etc/postgresql/{version}/{name}").is_dir()


def primary_allows_replication(standby: Standby) -> None:
    """A trusted `replication` line for 127.0.0.1 in the primary's pg_hba.conf, and a bound
    on the WAL its slots keep; the configuration is reloaded when either changed."""
    with connect(standby.primary_port) as primary:
        hba_file = Path(primary.execute("SHOW hba_file").fetchone()[0])
        changed = False
        lines = hba_file.read_text().splitlines()
        if not any(line.split()[:2] == ["host", "replication"] for line in lines if line):
            log(f"allowing replication from {HOST} in {hba_file}")
            hba_file.write_text("\n".join([*lines, f"host replication all {HOST}/32 trust", ""]))
            changed = True
        if primary.execute("SHOW max_slot_wal_keep_size").fetchone()[0] == "-1":
            log(f"bounding the WAL replication slots keep to {SLOT_WAL_LIMIT}")
            primary.execute(f"ALTER SYSTEM SET max_slot_wal_keep_size = '{SLOT_WAL_LIMIT}'")
            changed = True
        if changed:
            primary.execute("SELECT pg_reload_conf()")


def standby_trusts_as_primary(version: str, standby: Standby) -> None:
    """The standby's pg_hba.conf the primary's (pg_createcluster writes one asking for
    passwords), reloaded when it changed."""
    with connect(standby.primary_port) as primary:
        rules = Path(primary.execute("SHOW hba_file").fetchone()[0]).read_text()
    standby_hba = Path(f"/etc/postgresql/{version}/{standby.name}/pg_hba.conf")
    if standby_hba.read_text() != rules:
        log(f"giving the standby the primary's pg_hba.conf ({standby_hba})")
        standby_hba.write_text(rules)
        # A standby not started yet reads it when it starts.
        cluster_control(version, "reload", standby.name, check=False)


def standby_streams(seconds: float, standby: Standby = MACHINE) -> bool:
    """Whether the standby answers, in recovery, with its WAL receiver streaming from the
    primary, within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with connect(standby.port) as server:
                in_recovery = server.execute("SELECT pg_is_in_recovery()").fetchone()[0]
                receiver = server.execute("SELECT status FROM pg_stat_wal_receiver").fetchone()
                if not in_recovery:
                    return False
                if receiver and receiver[0] == "streaming":
                    return True
        except psycopg.OperationalError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)


def replay_resumed(standby: Standby) -> None:
    """The standby applying what it receives again, if a test left its replay paused."""
    with connect(standby.port) as server:
        if server.execute("SELECT pg_is_wal_replay_paused()").fetchone()[0]:
            log("resuming the standby's paused replay")
            server.execute("SELECT pg_wal_replay_resume()")


def cluster_control(
    version: str, action: str, name: str = MACHINE.name, *, check: bool = True
) -> None:
    """pg_ctlcluster's `action` (start, stop, reload) on the cluster `name`, whatever the
    init system; a failure stops the run unless not `check` (a cluster already in that
    state, or not running to reload)."""
    command = ["pg_ctlcluster", "--skip-systemctl-redirect", version, name, action]
    if check:
        run(*command)
    else:
        subprocess.run(command, capture_output=True, check=False)


def remove(version: str, standby: Standby = MACHINE) -> None:
    """Stop and drop the standby's cluster, and its slot on the primary."""
    if cluster_exists(version, standby.name):
        log(f"dropping the cluster {version} {standby.name}")
        run("pg_dropcluster", "--stop", version, standby.name)
    with connect(standby.primary_port) as primary:
        primary.execute(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
            " WHERE slot_name = %s AND NOT active",
            [standby.slot],
        )


def create(version: str, standby: Standby) -> None:
    """A new cluster whose data directory is a base backup of the primary, following it
    through the slot."""
    log(f"creating the cluster {version} {standby.name} on port {standby.port}")
    run("pg_createcluster", version, standby.name, "--port", str(standby.port))
    configuration = Path(f"/etc/postgresql/{version}/{standby.name}")
    data = Path(f"/var/lib/postgresql/{version}/{standby.name}")
    with connect(standby.primary_port) as primary:
        matched = {name: primary.execute(f"SHOW {name}").fetchone()[0] for name in MATCHED_SETTINGS}
    (configuration / "conf.d" / "standby.conf").write_text(
        "# Made by bench/replica.py: at least the primary's values, as hot standby needs.\n"
        + "".join(f"{name} = {value}\n" for name, value in matched.items())
    )
    # pg_createcluster's own database files give way to the primary's.
    run("find", str(data), "-mindepth", "1", "-delete")
    log("copying the primary (pg_basebackup); this takes a while on a large cluster")
    run(
        "runuser", "-u", "postgres", "--",
        "pg_basebackup", "-h", HOST, "-p", str(standby.primary_port), "-U", USER,
        "-D", str(data), "-R", "-X", "stream", "--create-slot", "--slot", standby.slot,
        "--checkpoint", "fast",
    )  # fmt: skip
    with (data / "postgresql.auto.conf").open("a") as auto:
        auto.write("# The standby's own (bench/replica.py), after the primary's.\n")
        auto.writelines(f"{name} = '{value}'\n" for name, value in STANDBY_SETTINGS.items())


def ensure(standby: Standby = MACHINE) -> None:
    """A running, streaming standby, whatever state it was left in."""
    version = primary_version(standby.primary_port)
    primary_allows_replication(standby)
    if cluster_exists(version, standby.name):
        standby_trusts_as_primary(version, standby)
        if standby_streams(seconds=1, standby=standby):
            replay_resumed(standby)
            log(f"the standby on port {standby.port} is streaming")
            return
        log("the standby is not streaming; starting it")
        cluster_control(version, "start", standby.name, check=False)
        if standby_streams(seconds=30, standby=standby):
            log(f"the standby on port {standby.port} is streaming")
            return
        log("the standby does not stream once started: making it again")
    remove(version, standby)
    create(version, standby)
    standby_trusts_as_primary(version, standby)
    cluster_control(version, "start", standby.name)
    if not standby_streams(seconds=120, standby=standby):
        raise SystemExit(
            f"the new standby does not stream: see /var/log/postgresql/"
            f"postgresql-{version}-{standby.name}.log"
        )
    log(f"the standby on port {standby.port} is streaming")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--remove", action="store_true", help="stop and drop the standby")
    arguments = parser.parse_args()
    if arguments.remove:
        remove(primary_version())
    else:
        ensure()


if __name__ == "__main__":
    sys.exit(main())
