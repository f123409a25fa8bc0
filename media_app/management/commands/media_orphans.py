"""`manage.py media_orphans [--delete] [--min-age SECONDS]`: stray media files (D11)."""

import datetime

from django.core.management.base import BaseCommand

from media_app.cleanup import media_files_delete, media_orphans_find

# An upload writes its files a moment before its row commits; younger files are left alone.
DEFAULT_MIN_AGE_SECONDS = 3600


class Command(BaseCommand):
    """Report, and with --delete remove, files under properties/ that no row references.

    They are left behind when a storage deletion failed after a commit, when an upload's
    transaction was rolled back by an enclosing one, or when rows were deleted without the
    services (raw SQL, a bulk delete in a shell).
    """

    help = (
        "List files in media storage (under properties/) that no image or video references; "
        "with --delete, remove them."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--delete", action="store_true", help="Remove the orphaned files.")
        parser.add_argument(
            "--min-age",
            type=int,
            default=DEFAULT_MIN_AGE_SECONDS,
            metavar="SECONDS",
            help=(
                "Only files older than this count (default: 3600), so that uploads in "
                "progress are never touched."
            ),
        )

    def handle(self, *args, delete: bool, min_age: int, **options) -> None:
        orphans = media_orphans_find(older_than=datetime.timedelta(seconds=max(0, min_age)))
        for name in orphans:
            self.stdout.write(name)
        if not delete:
            self.stdout.write(f"{len(orphans)} orphaned file(s).")
            return
        deleted = media_files_delete(orphans)
        self.stdout.write(f"{len(orphans)} orphaned file(s), {deleted} deleted.")
