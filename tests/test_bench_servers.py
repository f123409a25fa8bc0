"""How the benchmark and the load test start their servers (bench/servers.py)."""

import http.client
import os
import socket
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.run import SERVING
from bench.servers import free_port, gunicorn, require_free_port, stop, wait_until_up


def hello(environ, start_response):
    """A WSGI application answering every request with "hello"."""
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello"]


# The requests slow_process_id is answering in this process, and the most it has seen at once.
_answering = {"now": 0, "most": 0}
_answering_lock = threading.Lock()


def slow_process_id(environ, start_response):
    """A WSGI application answering, after a fifth of a second, with its process's id and the
    most requests it has answered at once."""
    with _answering_lock:
        _answering["now"] += 1
        _answering["most"] = max(_answering["most"], _answering["now"])
    time.sleep(0.2)
    with _answering_lock:
        _answering["now"] -= 1
        most = _answering["most"]
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [f"{os.getpid()} {most}".encode()]


def test_no_server_is_started_on_a_port_something_already_listens_on():
    # given something listening on a port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        # when a server is asked for on it, then the run stops and says why
        with pytest.raises(SystemExit, match=f"port {port} is in use"):
            gunicorn("config.wsgi", port=port, workers=1, threads=1, environment={})


def test_a_port_nothing_listens_on_is_free():
    # given a port that was bound, then let go
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as earlier:
        earlier.bind(("127.0.0.1", 0))
        port = earlier.getsockname()[1]

    # when / then it may be served on
    require_free_port(port)


def test_two_servers_side_by_side_both_serve_and_open_no_control_socket(tmp_path):
    # given two servers started for one user (as the benchmark's platform and baseline are)
    environment = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    ports = [free_port(), free_port()]
    app = "tests.test_bench_servers:hello"
    servers = [
        gunicorn(app, port=port, workers=1, threads=1, environment=environment) for port in ports
    ]
    try:
        # when both have come up
        for port in ports:
            wait_until_up(f"http://127.0.0.1:{port}/")

        # then each answers, and neither made gunicorn's per-user control socket
        for port in ports:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                assert (response.status, response.read()) == (200, b"hello")
        assert not (tmp_path / ".gunicorn").exists()
    finally:
        for server in servers:
            stop(server)


def test_the_benchmark_gives_each_request_to_a_free_thread(tmp_path):
    # given a server of two workers, served as the benchmark serves the platform
    environment = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    workers = 2
    server = gunicorn(
        "tests.test_bench_servers:slow_process_id",
        port=port,
        workers=workers,
        environment=environment,
        **SERVING,
    )
    clients = workers * SERVING["threads"]
    try:
        wait_until_up(url)

        # when as many clients as the workers have threads ask at once, each on an HTTP/1.1
        # connection of its own that it would keep open
        def ask(_client: int) -> tuple[str, str | None]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", "/")
                response = connection.getresponse()
                return response.read().decode(), response.getheader("Connection")
            finally:
                connection.close()

        with ThreadPoolExecutor(max_workers=clients) as pool:
            answers = list(pool.map(ask, range(clients)))

        # then each worker took as many as it has threads and answered them at once, and
        # closed each connection after its response: no worker holds a connection while
        # another has a thread free
        processes = [answer.split()[0] for answer, _connection in answers]
        assert [processes.count(process) for process in set(processes)] == [
            SERVING["threads"]
        ] * workers, answers
        assert {answer.split()[1] for answer, _connection in answers} == {
            str(SERVING["threads"])
        }, answers
        assert [connection for _answer, connection in answers] == ["close"] * clients
    finally:
        stop(server)
