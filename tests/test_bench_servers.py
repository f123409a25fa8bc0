"""How the benchmark and the load test start their servers (bench/servers.py)."""

import socket
import urllib.request

import pytest

from bench.servers import free_port, gunicorn, require_free_port, stop, wait_until_up


def hello(environ, start_response):
    """A WSGI application answering every request with "hello"."""
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello"]


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
