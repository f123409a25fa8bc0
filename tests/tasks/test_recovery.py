"""Tasks a dead worker left running are given back to the queue (tasks_recover)."""

import datetime

import pytest
from django.core.management import call_command
from django.tasks.base import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from notifications.email import email_compose
from notifications.tasks import email_enqueue, tasks_recover

pytestmark = pytest.mark.django_db


def a_queued_email(to: str) -> DBTaskResult:
    email_enqueue(
        email_compose(
            to=to,
            subject="Choose a new password",
            template="password_reset",
            context={"name": "Ana", "reset_url": "https://estate.example/reset/xyz/"},
        )
    )
    return DBTaskResult.objects.get(args_kwargs__args__0__to=to)


def claimed(result: DBTaskResult, worker_id: str, minutes_ago: float = 0) -> DBTaskResult:
    """The task as a worker leaves it when it dies mid-run: running, under its id."""
    result.claim(worker_id)
    DBTaskResult.objects.filter(pk=result.pk).update(
        started_at=timezone.now() - datetime.timedelta(minutes=minutes_ago)
    )
    result.refresh_from_db()
    return result


def test_a_task_running_under_a_restarted_workers_id_is_enqueued_again():
    # given a task that worker-1 was running when it was killed, and one of worker-2's
    lost = claimed(a_queued_email("ana@example.com"), "worker-1")
    other = claimed(a_queued_email("bob@example.com"), "worker-2")

    # when worker-1 starts again
    recovered = tasks_recover(worker_id="worker-1")

    # then its task is failed as lost and a new one, with the same email, waits to run;
    # worker-2's task is left running
    assert recovered == 1
    lost.refresh_from_db()
    assert lost.status == TaskResultStatus.FAILED
    assert lost.exception_class_path == "notifications.tasks.WorkerLost"
    again = DBTaskResult.objects.get(status=TaskResultStatus.READY)
    assert again.task_path == "notifications.tasks.email_send"
    assert again.args_kwargs == lost.args_kwargs
    other.refresh_from_db()
    assert other.status == TaskResultStatus.RUNNING


def test_a_task_running_past_the_timeout_is_enqueued_again_whoever_ran_it():
    # given a task running for an hour under a worker that never came back, and a recent one
    stale = claimed(a_queued_email("ana@example.com"), "gone", minutes_ago=60)
    recent = claimed(a_queued_email("bob@example.com"), "alive", minutes_ago=1)

    # when
    recovered = tasks_recover(running_longer_than=600)

    # then
    assert recovered == 1
    stale.refresh_from_db()
    recent.refresh_from_db()
    assert (stale.status, recent.status) == (TaskResultStatus.FAILED, TaskResultStatus.RUNNING)
    [again] = DBTaskResult.objects.filter(status=TaskResultStatus.READY)
    assert again.args_kwargs["args"][0]["to"] == "ana@example.com"


def test_the_command_gives_back_a_workers_tasks_and_says_how_many(capsys):
    # given
    claimed(a_queued_email("ana@example.com"), "worker-1")

    # when
    call_command("tasks_recover", "--worker-id", "worker-1")

    # then
    assert capsys.readouterr().out == "1 task(s) given back to the queue.\n"
    assert DBTaskResult.objects.filter(status=TaskResultStatus.READY).count() == 1


def test_nothing_running_means_nothing_changes():
    # given a task waiting to run
    waiting = a_queued_email("ana@example.com")

    # when
    recovered = tasks_recover(worker_id="worker-1", running_longer_than=0)

    # then
    assert recovered == 0
    assert list(DBTaskResult.objects.values_list("pk", "status")) == [
        (waiting.pk, TaskResultStatus.READY)
    ]
