"""`manage.py webhooks_deliveries [--status S] [--retry ID]`: webhook deliveries (D12)."""

from django.core.management.base import BaseCommand, CommandError

from config.errors import DomainError
from notifications.delivery import delivery_attempt, delivery_retry_now
from notifications.models import DeliveryStatus, WebhookDelivery
from notifications.tasks import deliveries_enqueue

# How many deliveries the listing shows at most, newest first.
DEFAULT_LIMIT = 100


class Command(BaseCommand):
    """List pending and failed deliveries; with --retry, attempt one delivery at once.

    The listing never shows a response body or a secret: only status codes and error kinds.
    """

    help = (
        "List webhook deliveries that are pending or failed (or --status succeeded / all); "
        "with --retry ID, attempt that delivery now, in this process."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--status",
            choices=["pending", "failed", "succeeded", "all"],
            help="Only deliveries with this status (default: pending and failed).",
        )
        parser.add_argument(
            "--limit",
            type=int,
            default=DEFAULT_LIMIT,
            help=f"Show at most this many, newest first (default: {DEFAULT_LIMIT}).",
        )
        parser.add_argument(
            "--retry",
            metavar="ID",
            help="Attempt this pending or failed delivery now and print what became of it.",
        )

    def handle(self, *args, status: str | None, limit: int, retry: str | None, **options):
        if retry:
            self._retry(retry)
            return
        deliveries = WebhookDelivery.objects.select_related("endpoint", "event").defer(
            "event__payload"
        )
        if status is None:
            deliveries = deliveries.filter(
                status__in=[DeliveryStatus.PENDING, DeliveryStatus.FAILED]
            )
        elif status != "all":
            deliveries = deliveries.filter(status=status)
        shown = list(deliveries.order_by("-created_at", "-id")[: max(0, limit)])
        for delivery in shown:
            self.stdout.write(
                f"{delivery.id}  {delivery.status:<9}  {delivery.event.type:<23}  "
                f"attempts={delivery.attempts}  last={delivery.last_status_code or '-'}"
                f"/{delivery.last_error or '-'}  next={_moment(delivery.next_attempt_at)}  "
                f"{delivery.endpoint.url}"
            )
        self.stdout.write(f"{len(shown)} delivery(ies).")

    def _retry(self, delivery_id: str) -> None:
        delivery = WebhookDelivery.objects.filter(pk=delivery_id).first()
        if delivery is None:
            raise CommandError(f"No webhook delivery has the id {delivery_id}.")
        try:
            # Due now, attempted here rather than by the worker, so the answer is printed.
            delivery_retry_now(delivery=delivery, enqueue=None)
        except DomainError as error:
            raise CommandError(error.detail) from error
        status = delivery_attempt(delivery_id=delivery.pk, enqueue=deliveries_enqueue)
        delivery.refresh_from_db()
        self.stdout.write(
            f"{delivery.id}: {status} after attempt {delivery.attempts} "
            f"(status code {delivery.last_status_code or '-'}, "
            f"error {delivery.last_error or '-'})."
        )


def _moment(value) -> str:
    return value.isoformat(timespec="seconds") if value else "-"
