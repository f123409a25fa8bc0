"""The cluster's balancer configuration (bench/servers.py), checked by HAProxy itself."""

import subprocess

from bench.servers import balancer_configuration


def test_the_balancer_configuration_is_valid_for_haproxy(tmp_path):
    # given the configuration for two nodes
    path = tmp_path / "haproxy.cfg"
    path.write_text(
        balancer_configuration(
            port=8900, nodes={"web-1": 8901, "web-2": 8902}, stats_port=8901 + 100
        )
    )

    # when HAProxy checks it
    checked = subprocess.run(  # noqa: S603 (a fixed command)
        ["haproxy", "-c", "-f", str(path)],  # noqa: S607 (Debian's haproxy, on PATH)
        capture_output=True,
        text=True,
        check=False,
    )

    # then it is valid
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_balancer_checks_both_nodes_and_retries_only_idempotent_requests():
    # when
    configuration = balancer_configuration(
        port=8900, nodes={"web-1": 8901, "web-2": 8902}, stats_port=8901 + 100
    )

    # then each node is health-checked, and a request a node took is sent again elsewhere
    # only when its method is idempotent
    lines = [line.strip() for line in configuration.splitlines()]
    assert "server web-1 127.0.0.1:8901 check" in lines
    assert "server web-2 127.0.0.1:8902 check" in lines
    assert "bind 127.0.0.1:8900" in lines
    assert "http-check send meth GET uri /healthz hdr Host 127.0.0.1" in lines
    assert "retry-on conn-failure empty-response response-timeout 502 503 504" in lines
    assert "http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS" in lines
    assert "option redispatch 1" in lines
