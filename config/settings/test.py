"""Test run: fast hashing, isolated media, same database choice as DATABASE_URL."""

import tempfile
from pathlib import Path

from .base import *  # noqa: F403
from .base import DATABASES, env, replica_database

DEBUG = False
SECRET_KEY = env("SECRET_KEY", default="test-only-key-not-secret-0123456789abcdef")
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="estate-test-media-"))

PASSWORD_HASHERS = ["config.hashers.CheapArgon2PasswordHasher"]

# The webhook tests deliver to a receiver on 127.0.0.1; the SSRF tests turn this off.
WEBHOOKS_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOKS_ALLOW_PRIVATE_TARGETS", default=True)

# The worker tests start `manage.py db_worker` as a subprocess, which must see the test
# database: on SQLite it is a file (an in-memory database is private to this process).
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.mkdtemp(prefix="estate-test-db-")) / "test.sqlite3")
    }

# The router's tests (tests/replicas) read through a replica: the standby of the machine's
# PostgreSQL (bench/replica.py, port 5433) unless DATABASE_REPLICA_URLS names others. As a
# test mirror it reads the primary's test database, which it receives by replication. The
# rest of the suite reads from the primary: routing is on only in the tests that turn it on.
if (
    DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    and "replica_1" not in DATABASES
):
    _primary = DATABASES["default"]
    DATABASES["replica_1"] = replica_database(
        env(
            "TEST_DATABASE_REPLICA_URL",
            default=f"postgres://{_primary['USER']}@127.0.0.1:5433/{_primary['NAME']}",
        )
    )
DATABASE_REPLICAS = []
