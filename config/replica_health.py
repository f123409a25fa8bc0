"""Whether a read replica may serve reads: it answers, and it is no further behind the
primary than DATABASE_REPLICA_MAX_LAG_SECONDS (docs/deployment.md, "Read replicas").

How far behind: a replica that has replayed all the WAL it has received is as current as
the primary allows it to know (an idle primary sends nothing new; no reader can be shown
something it lacks): 0 seconds. One with received WAL still to replay is as old as the
last transaction it replayed, `now() - pg_last_xact_replay_timestamp()`: while replay is
paused, or slower than the primary's writes, that grows. A server that is not in recovery
(a promoted standby no longer follows the primary) or whose WAL receiver has not started
cannot say, and is left out like one that does not answer.

Each process keeps a replica's verdict for DATABASE_REPLICA_CHECK_SECONDS, so that only
the first request after that pays the check (one query, or the connection's timeout
when the replica is down).
"""

import logging
import random
import time

from django.conf import settings
from django.db import DatabaseError, connections

logger = logging.getLogger(__name__)

LAG_QUERY = """
SELECT pg_is_in_recovery(),
       pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn(),
       EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())
"""

# alias -> (healthy, until when that holds, on time.monotonic()). Threads of a process may
# check the same replica at once; each writes a whole verdict, so the last one stays.
VERDICTS: dict[str, tuple[bool, float]] = {}


def replica_lag(alias: str) -> float | None:
    """Seconds the replica `alias` is behind the primary; None when it cannot tell (down,
    not a standby, not streaming, or WAL waiting with no transaction replayed yet)."""
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute(LAG_QUERY)
            row = cursor.fetchone()
    except DatabaseError as error:
        logger.debug("replica %s did not answer: %s", alias, error)
        # The next check connects afresh, rather than through a connection that failed.
        connections[alias].close()
        return None
    return lag_of(*row)


def lag_of(in_recovery: bool, caught_up: bool | None, since_last_replay) -> float | None:
    """The lag LAG_QUERY's row says (replica_lag), for any client that ran it."""
    if not in_recovery or caught_up is None:
        return None
    if caught_up:
        return 0.0
    if since_last_replay is None:
        return None
    return max(0.0, float(since_last_replay))


def replica_is_healthy(alias: str) -> bool:
    """Whether `alias` answers within DATABASE_REPLICA_MAX_LAG_SECONDS of the primary, as
    this process last found, at most DATABASE_REPLICA_CHECK_SECONDS ago."""
    now = time.monotonic()
    known = VERDICTS.get(alias)
    if known is not None and known[1] > now:
        return known[0]
    lag = replica_lag(alias)
    healthy = lag is not None and lag <= settings.DATABASE_REPLICA_MAX_LAG_SECONDS
    VERDICTS[alias] = (healthy, now + settings.DATABASE_REPLICA_CHECK_SECONDS)
    if known is None or known[0] != healthy:
        if healthy:
            logger.info("replica %s serves reads (%.1f s behind)", alias, lag)
        else:
            logger.warning(
                "replica %s left out: %s",
                alias,
                "no answer or not streaming" if lag is None else f"{lag:.1f} s behind",
            )
    return healthy


def healthy_replica() -> str | None:
    """A replica that may serve reads, drawn at random among the healthy ones to spread
    them; None when none is."""
    replicas = list(settings.DATABASE_REPLICAS)
    random.shuffle(replicas)
    return next((alias for alias in replicas if replica_is_healthy(alias)), None)
