"""The figures of the Schemathesis run, printed at the end of the pytest session.

They are also written to artifacts/reliability/schemathesis-<database>.txt, which .ci/run
prints again at the very end of the run.
"""

from pathlib import Path

from django.db import connection

from tests.fuzz.tally import TALLY

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "reliability"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Cases generated, requests answered (by status class) and failures found."""
    if not TALLY.operations:
        return
    failures = [
        report
        for report in terminalreporter.stats.get("failed", [])
        if "tests/fuzz/" in report.nodeid
    ]
    roles = ", ".join(f"{role} {count}" for role, count in sorted(TALLY.cases.items()))
    classes = ", ".join(f"{name} {count}" for name, count in TALLY.status_classes().items())
    lines = [
        f"operations x roles tested: {len(TALLY.operations)}; "
        f"cases generated: {sum(TALLY.cases.values())} ({roles})",
        f"requests answered: {TALLY.requests} ({classes})",
        f"failures found: {len(failures)}",
        *(
            f"known bug tolerated: {operation}: {bug}"
            for operation, bug in sorted(TALLY.known_bugs.items())
        ),
    ]
    terminalreporter.write_sep("=", "Schemathesis run")
    for line in lines:
        terminalreporter.write_line(line)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    database = connection.vendor
    (ARTIFACTS / f"schemathesis-{database}.txt").write_text(
        f"schemathesis on {database}: " + "\n".join(lines) + "\n"
    )
