"""Run requests at the same moment, for the race tests on PostgreSQL."""

import threading
from collections.abc import Callable, Sequence

from django.db import connection

RELEASE_TIMEOUT_SECONDS = 30
JOIN_TIMEOUT_SECONDS = 120


def run_at_once[Result](actions: Sequence[Callable[[], Result]]) -> list[Result]:
    """Run each action in its own thread, all released together; return their results in order.

    Each thread uses, then closes, its own database connection, as concurrent requests to
    the server would. A failure in any thread is raised here, in the test's thread.
    """
    barrier = threading.Barrier(len(actions))
    results: list[Result | None] = [None] * len(actions)
    failures: list[BaseException] = []

    def run(index: int, action: Callable[[], Result]) -> None:
        try:
            barrier.wait(timeout=RELEASE_TIMEOUT_SECONDS)
            results[index] = action()
        except BaseException as error:  # re-raised by the test's thread below
            failures.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(index, action)) for index, action in enumerate(actions)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOIN_TIMEOUT_SECONDS)
    if failures:
        raise failures[0]
    stuck = [thread.name for thread in threads if thread.is_alive()]
    assert stuck == [], f"threads still running: {stuck}"
    return results  # type: ignore[return-value]
