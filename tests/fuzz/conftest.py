"""The figures of the Schemathesis run, printed at the end of the pytest session."""

from tests.fuzz.tally import TALLY


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
    terminalreporter.write_sep("=", "Schemathesis run")
    terminalreporter.write_line(
        f"operations x roles tested: {len(TALLY.operations)}; "
        f"cases generated: {sum(TALLY.cases.values())} ({roles})"
    )
    terminalreporter.write_line(f"requests answered: {TALLY.requests} ({classes})")
    terminalreporter.write_line(f"failures found: {len(failures)}")
    for operation, bug in sorted(TALLY.known_bugs.items()):
        terminalreporter.write_line(f"known bug tolerated: {operation}: {bug}")
