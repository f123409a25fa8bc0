"""What the fuzz run did: cases generated, requests the API answered, failures found.

The tests and the application add to one module-level Tally; tests/fuzz/conftest.py prints
it at the end of the run.
"""

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Tally:
    """Counts of one pytest session's Schemathesis run."""

    # Cases Schemathesis generated and the test sent, per role.
    cases: Counter[str] = field(default_factory=Counter)
    # Every request the WSGI application answered (the checks' own probes included), by status.
    statuses: Counter[int] = field(default_factory=Counter)
    # Operations and roles that were tested, as "role METHOD /path".
    operations: set[str] = field(default_factory=set)
    # Operations whose known bug the run tolerates, with the bug (see docs/reliability.md).
    known_bugs: dict[str, str] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        """All requests the API answered during the run."""
        return sum(self.statuses.values())

    def status_classes(self) -> dict[str, int]:
        """Answers grouped as 2xx, 3xx, 4xx, 5xx."""
        classes: Counter[str] = Counter()
        for status, count in self.statuses.items():
            classes[f"{status // 100}xx"] += count
        return dict(sorted(classes.items()))


TALLY = Tally()
