"""Worker processes of the bulk generator.

A worker is spawned as a fresh interpreter that unpickles its arguments (demo.plan) before
running any code: this module must therefore import nothing that needs Django's app
registry at its top. The worker sets Django up, then generates batches of rows
(demo.generator) for the parent process to write.
"""

import os
import signal
import threading
import time
from typing import TYPE_CHECKING

import django

from demo.plan import BatchTask, BulkPlan

if TYPE_CHECKING:
    from demo.generator import Batch, BulkListingGenerator


# The generator of this worker process, built once by start_worker.
_generator: "BulkListingGenerator | None" = None
PARENT_CHECK_SECONDS = 1.0


def _exit_with_parent(parent_id: int) -> None:
    """Stop this worker when its parent is gone (killed), instead of idling forever."""
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent_id:
            os._exit(1)


def start_worker(plan: BulkPlan) -> None:
    """Initializer of a worker process: set Django up, then build the generator."""
    global _generator
    # Ctrl+C reaches every process of the terminal's group: the parent handles it, stops
    # handing out batches and shuts the workers down; they must not die mid-batch first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    django.setup()
    # Imported only now: the module defines models' rows and needs the app registry.
    from demo.generator import BulkListingGenerator

    _generator = BulkListingGenerator(plan=plan)


def generate_batch(task: BatchTask) -> "Batch":
    """Generate the batch `task` in this worker process."""
    if _generator is None:
        raise RuntimeError("start_worker did not run in this process")
    return _generator.batch(task=task)
