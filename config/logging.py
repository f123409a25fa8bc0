"""Log formatting: a failure is logged as its kind and place, never as a stack trace.

Tracebacks and exception messages can carry request data, SQL parameters or secrets, so
the logs get the exception class and the innermost file and line only.
"""

import logging


class NoTracebackFormatter(logging.Formatter):
    """Formats exc_info as one line: `ExceptionClass at path/to/file.py:123`."""

    def formatException(self, exc_info) -> str:
        exception_type, _exception, trace = exc_info
        while trace is not None and trace.tb_next is not None:
            trace = trace.tb_next
        where = f"{trace.tb_frame.f_code.co_filename}:{trace.tb_lineno}" if trace else "unknown"
        name = exception_type.__name__ if exception_type else "Exception"
        return f"{name} at {where}"

    def formatStack(self, stack_info) -> str:
        return ""
