"""Background tasks of notifications: webhook deliveries and email (Django's tasks framework).

The worker (`manage.py db_worker`, docs/deployment.md) runs them. With the database backend
a task enqueued inside a transaction is a row of that transaction: it commits with the
change that caused it, or disappears with it.
"""

import datetime
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db import transaction
from django.tasks import task
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks_db import DatabaseBackend
from django_tasks_db.models import DBTaskResult

from notifications.delivery import deliveries_sweep, deliveries_sweep_now_and_then, delivery_attempt
from notifications.email import Email, email_deliver, email_retry_after


@task()
def webhook_deliver(delivery_id: str) -> str:
    """Make the due attempt of one webhook delivery; returns what became of it.

    Safe to run twice or late: an attempt is made only while the delivery is pending and
    due, and taking it moves its due time forward, so one worker at a time attempts it.
    """
    outcome = delivery_attempt(delivery_id=delivery_id, enqueue=deliveries_enqueue)
    # The safety nets run after deliveries, at most once a sweep interval per process.
    if deliveries_sweep_now_and_then(enqueue=deliveries_enqueue):
        tasks_recover(running_longer_than=settings.TASKS_RUNNING_TIMEOUT_SECONDS)
    return outcome


@task()
def webhooks_sweep() -> int:
    """Enqueue again the due deliveries that no task is about to attempt; returns how many."""
    return deliveries_sweep(enqueue=deliveries_enqueue)


def deliveries_enqueue(
    delivery_ids: Iterable[str], *, run_after: datetime.datetime | None = None
) -> None:
    """Enqueue one webhook_deliver task per delivery, to run now or at `run_after`.

    The database backend writes the task rows in the caller's transaction, which is what
    makes a crash right after the commit lose nothing. Other backends (Redis) cannot join
    the transaction, so their tasks are enqueued once it commits; a crash in between is
    caught by the sweep. A backend that cannot defer leaves retries to the sweep too.
    """
    delivery_ids = list(delivery_ids)
    if not delivery_ids:
        return
    backend = webhook_deliver.get_backend()
    if run_after is not None and not backend.supports_defer:
        return
    deliver = webhook_deliver if run_after is None else webhook_deliver.using(run_after=run_after)

    def enqueue() -> None:
        for delivery_id in delivery_ids:
            deliver.enqueue(delivery_id)

    with_the_transaction(backend, enqueue)


def with_the_transaction(backend, enqueue: Callable[[], None]) -> None:
    """Run `enqueue` so that its tasks commit with the caller's transaction: at once on the
    database backend, whose task rows are part of it; once it commits on the others, which
    cannot join it."""
    if isinstance(backend, DatabaseBackend):
        enqueue()
    else:
        transaction.on_commit(enqueue)


@task()
def email_send(email: Email, attempt: int = 1) -> str:
    """Send one email; a failed attempt is tried again after the next delay of
    EMAIL_RETRY_SCHEDULE, and given up (logged) after the last one. Returns "sent",
    "retrying" or "failed"."""
    if email_deliver(email, attempt=attempt):
        return "sent"
    run_after = email_retry_after(email, attempt=attempt)
    if run_after is None:
        return "failed"
    if email_send.get_backend().supports_defer:
        email_send.using(run_after=run_after).enqueue(email, attempt + 1)
    else:
        email_send.enqueue(email, attempt + 1)
    return "retrying"


def email_enqueue(email: Email) -> None:
    """Queue an email for the worker, with the transaction of the change that caused it."""
    with_the_transaction(email_send.get_backend(), lambda: email_send.enqueue(email))


class WorkerLost(Exception):
    """The worker of a task ended, or went silent, while it ran the task."""


@transaction.atomic
def tasks_recover(*, worker_id: str = "", running_longer_than: float | None = None) -> int:
    """Give back the tasks of the database backend whose worker died while running them;
    returns how many.

    A task is lost when it is still running under `worker_id` (a worker that starts under
    the id of one that was killed: ids are unique among running workers), or has been
    running for more than `running_longer_than` seconds (a worker that never came back;
    TASKS_RUNNING_TIMEOUT_SECONDS is far longer than any task here takes). Each lost task is
    marked failed (WorkerLost) and enqueued again, to run now with the same arguments. The
    tasks are safe to run again: a webhook delivery is attempted only while due (and sent
    with its event's id, which receivers deduplicate), an email is sent with its own
    Message-ID, alerts and digests are made once, the views' batches are flushed once.
    """
    running = DBTaskResult.objects.running().select_for_update(skip_locked=True)
    cutoff = (
        timezone.now() - datetime.timedelta(seconds=running_longer_than)
        if running_longer_than is not None
        else None
    )
    lost = [
        result
        for result in running
        if (worker_id and result.worker_ids and result.worker_ids[-1] == worker_id)
        or (cutoff is not None and result.started_at is not None and result.started_at < cutoff)
    ]
    for result in lost:
        workers = ", ".join(result.worker_ids) or "unknown"
        result.set_failed(WorkerLost(f"given back by tasks_recover (worker {workers})"))
        again = import_string(result.task_path).using(
            priority=result.priority, queue_name=result.queue_name, backend=result.backend_name
        )
        again.enqueue(*result.args_kwargs["args"], **result.args_kwargs["kwargs"])
    return len(lost)
