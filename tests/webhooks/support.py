"""Webhook receivers on loopback, the in-process task runner, shapes and URLs of the tests."""

import collections
import dataclasses
import http.server
import json
import socket
import socketserver
import ssl
import threading
import time
import urllib.parse

from django.conf import settings
from django.tasks import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult
from djangorestframework_camel_case.render import CamelCaseJSONRenderer
from rest_framework.serializers import BaseSerializer

REGISTER_URL = "/api/v1/notifications/webhook/register"
WEBHOOKS_URL = "/api/v1/notifications/webhooks"
UNKNOWN_ID = "zzzzzzzzzzzzzzzzzzzzzzzzz"

REGISTRATION_KEYS = {"id", "url", "events", "active", "createdAt", "secret"}
ENDPOINT_KEYS = {"id", "url", "events", "active", "createdAt", "userId"}
DELIVERY_KEYS = {
    "id",
    "eventId",
    "eventType",
    "status",
    "attempts",
    "nextAttemptAt",
    "lastStatusCode",
    "lastError",
    "createdAt",
    "updatedAt",
    "attemptLog",
}
ATTEMPT_KEYS = {"attemptedAt", "statusCode", "durationMs", "errorKind"}
BODY_KEYS = {"id", "type", "timestamp", "data"}
# What every answer of the receiver carries in its body: it must never show up anywhere.
RECEIVER_BODY = b"receiver-private-body-0f3a9c"
# The host name of the https receivers' certificate (tests/webhooks/conftest.py).
HOST_NAME = "hooks.example.test"
# A secret in the Standard Webhooks form: whsec_ + base64 of 32 bytes.
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def webhook_url(endpoint_id: str) -> str:
    return f"{WEBHOOKS_URL}/{endpoint_id}"


def deliveries_url(endpoint_id: str) -> str:
    return f"{WEBHOOKS_URL}/{endpoint_id}/deliveries"


@dataclasses.dataclass(frozen=True)
class ReceivedRequest:
    """One request the receiver got: method, path, headers (lower-case names), body bytes."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)


class Receiver:
    """An HTTP server on 127.0.0.1, in a thread, that records every request it gets.

    It answers from a script (`answer(...)`: (status, headers) pairs, one per request, then
    200), after `delay` seconds, always with RECEIVER_BODY as the body.
    """

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.scheme = "https" if tls else "http"
        self.requests: list[ReceivedRequest] = []
        self.script: collections.deque[tuple[int, dict[str, str]]] = collections.deque()
        self.delay = 0.0
        self._lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {name.lower(): value for name, value in self.headers.items()}
                with receiver._lock:
                    receiver.requests.append(
                        ReceivedRequest(self.command, self.path, headers, body)
                    )
                    status, extra = receiver.script.popleft() if receiver.script else (200, {})
                time.sleep(receiver.delay)
                try:
                    self.send_response(status)
                    for name, value in extra.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(RECEIVER_BODY)))
                    self.end_headers()
                    self.wfile.write(RECEIVER_BODY)
                except OSError:
                    # The worker was killed mid-request: nobody reads the answer.
                    pass

            do_POST = do_GET = do_PUT = _handle

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def answer(self, *responses: tuple[int, dict[str, str]]) -> None:
        self.script.extend(responses)

    def received(self, path: str = "/hook") -> list[ReceivedRequest]:
        with self._lock:
            return [request for request in self.requests if request.path == path]

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class RawReceiver:
    """A receiver on 127.0.0.1 that answers every request with exactly the bytes it is given.

    It reads each request whole (recording it in `requests`), then sends `answer`: at once,
    or with `interval` set, one byte every `interval` seconds for `trickle_for` seconds and
    the rest at once, so that no single read of the client ever waits long. It then keeps
    the connection open until the client hangs up (at most HOLD_SECONDS).
    """

    HOLD_SECONDS = 10.0

    def __init__(
        self,
        answer: bytes,
        *,
        interval: float = 0.0,
        trickle_for: float = 0.0,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.scheme = "https" if tls else "http"
        self.answer = answer
        self.interval = interval
        self.trickle_for = trickle_for
        self.requests: list[ReceivedRequest] = []
        receiver = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                request_line = self.rfile.readline(65537).decode("latin-1")
                headers = {}
                while (line := self.rfile.readline(65537)) not in (b"\r\n", b"\n", b""):
                    name, _colon, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = self.rfile.read(int(headers.get("content-length") or 0))
                method, path, _version = request_line.split(" ", 2)
                receiver.requests.append(ReceivedRequest(method, path, headers, body))
                try:
                    receiver.send_answer(self.connection)
                    self.connection.settimeout(receiver.HOLD_SECONDS)
                    self.connection.recv(1)
                except OSError:
                    # The client hung up (or HOLD_SECONDS passed): nothing more to send.
                    pass

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def send_answer(self, connection: socket.socket) -> None:
        sent = 0
        if self.interval:
            stop = time.monotonic() + self.trickle_for
            while sent < len(self.answer) and time.monotonic() < stop:
                connection.sendall(self.answer[sent : sent + 1])
                sent += 1
                time.sleep(self.interval)
        connection.sendall(self.answer[sent:])

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def run_ready_tasks(*, limit: int = 200) -> list[DBTaskResult]:
    """Run the ready tasks of the database backend here, one by one, as db_worker does.

    The worker's own task runner is used; its loop is not, because it closes database
    connections between tasks, which would end a test's transaction. Tasks enqueued while
    running run too; deferred ones (run_after in the future) do not. A task that failed
    fails the test with its traceback.
    """
    worker = Worker(
        queue_names=["*"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
    ran = []
    for _ in range(limit):
        task = DBTaskResult.objects.ready().first()
        if task is None:
            break
        task.claim(worker.worker_id)
        worker.run_task(task)
        task.refresh_from_db()
        assert task.status == TaskResultStatus.SUCCESSFUL, task.traceback
        ran.append(task)
    return ran


class _SiteAddress:
    """Stands in for the request when a serializer makes absolute URLs outside of one."""

    def build_absolute_uri(self, location: str) -> str:
        return urllib.parse.urljoin(settings.SITE_URL, location)


def api_representation(serializer_class: type[BaseSerializer], instance) -> dict:
    """An object as the API writes it with this serializer (camelCase keys, JSON types only,
    media URLs on SITE_URL): what an event's payload must equal."""
    serializer = serializer_class(instance, context={"request": _SiteAddress()})
    return json.loads(CamelCaseJSONRenderer().render(serializer.data))
