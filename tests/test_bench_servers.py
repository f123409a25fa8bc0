"""How the benchmark and the load test start their servers (bench/servers.py)."""

import socket

import pytest

from bench.servers import gunicorn, require_free_port


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
