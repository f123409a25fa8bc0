"""`manage.py tasks_recover`: give back the tasks a killed worker left running."""

from django.conf import settings
from django.core.management.base import BaseCommand

from notifications.tasks import tasks_recover


class Command(BaseCommand):
    """Mark failed, and enqueue again, the tasks whose worker died while running them.

    Run it when a worker starts, with the worker's id (`--worker-id`): what still runs under
    that id was left by its previous process, since two running workers never share an id.
    Tasks running for longer than TASKS_RUNNING_TIMEOUT_SECONDS are given back as well.
    """

    help = "Give back the tasks a dead worker left running (run when a worker starts)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--worker-id",
            default="",
            help="The id of the worker about to start: its earlier process's tasks are lost.",
        )

    def handle(self, *args, worker_id: str, **options) -> None:
        recovered = tasks_recover(
            worker_id=worker_id, running_longer_than=settings.TASKS_RUNNING_TIMEOUT_SECONDS
        )
        self.stdout.write(f"{recovered} task(s) given back to the queue.")
