"""`manage.py webhooks_sweep`: the webhook safety net, run when a worker starts (D12)."""

from django.core.management.base import BaseCommand

from notifications.delivery import deliveries_sweep
from notifications.tasks import deliveries_enqueue


class Command(BaseCommand):
    """Enqueue a task for every pending webhook delivery that is due and overdue.

    Run before starting workers (`make run` does): deliveries whose task was lost are
    attempted at once. Enqueueing a delivery that already has its task is harmless: the
    second task finds it taken or settled and does nothing.
    """

    help = "Enqueue every due pending webhook delivery again (run when a worker starts)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--overdue",
            type=float,
            default=0.0,
            metavar="SECONDS",
            help="Only deliveries due for at least this long (default: 0, every due one).",
        )

    def handle(self, *args, overdue: float, **options) -> None:
        enqueued = deliveries_sweep(enqueue=deliveries_enqueue, overdue_seconds=max(0.0, overdue))
        self.stdout.write(f"{enqueued} due webhook delivery(ies) enqueued.")
