"""The WSGI application the fuzz tests send their cases to."""

from django.core.handlers.wsgi import WSGIHandler
from django.db import DatabaseError, connection, transaction

from tests.fuzz.tally import TALLY


class FuzzedApplication(WSGIHandler):
    """Django's WSGI application, noting every answer, each request in a savepoint.

    A subclass rather than a wrapper, so that Schemathesis still recognises a Django
    application (it reads the literal values of the routed views as candidate inputs).

    A fuzz test runs in one database transaction, rolled back at its end. In production each
    request has a transaction of its own, so a database error a request answers (a value out
    of range is a 400) costs the next request nothing; in one shared PostgreSQL transaction
    it would abort every statement after it. So each request gets a savepoint, released when
    the transaction is still sound, rolled back to when it is not.
    """

    def __call__(self, environ, start_response):
        def noting_start_response(status, headers, exc_info=None):
            TALLY.statuses[int(status.split(" ", 1)[0])] += 1
            return start_response(status, headers, exc_info)

        if not connection.in_atomic_block:
            return super().__call__(environ, noting_start_response)
        savepoint = transaction.savepoint_create()
        response = super().__call__(environ, noting_start_response)
        try:
            transaction.savepoint_commit(savepoint)
        except DatabaseError:
            transaction.savepoint_rollback(savepoint)
        return response
