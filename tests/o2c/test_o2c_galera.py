"""SD-Parallel-style o2c on a 3-node MariaDB Galera cluster of the test's own: users
round-robin over the nodes, per-node figures, the business invariants across the cluster;
a mixed run's freshness across the nodes; a node that is down is one line; a node killed
mid-run stops the run, which keeps every measurement."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from galera_cluster import Cluster, galera_cluster, missing

from dbbench.cli import main
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine
from dbbench.errors import ExitCode
from dbbench.reports.o2c.metrics import summarize
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.o2c.studies import per_node

FAST = ["--think", "0.05", "--rampup", "0.5", "--progress", "60"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with _loaded_cluster() as c:
        yield c


@contextlib.contextmanager
def _loaded_cluster() -> Iterator[Cluster]:
    """A 3-node cluster with SF 0.01 loaded through node 1 (replicated to the others)."""
    why = missing()
    if why is not None:
        if os.environ.get("DBBENCH_REQUIRE_SERVERS") == "1":
            pytest.fail(f"a Galera cluster cannot start here: {why}")
        pytest.skip(f"a Galera cluster cannot start here: {why}")
    with galera_cluster(3) as c:
        engine = open_engine(c.nodes[0].url)
        try:
            load_database(engine, 0.01, jobs=1)
        finally:
            engine.close()
        yield c


def _nodes(cluster: Cluster) -> list[str]:
    return [arg for node in cluster.nodes for arg in ("-e", node.url)]


def test_users_round_robin_over_three_nodes(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = cluster.nodes[0].url
    # the TPC-H data arrived on every node
    counts = {cluster.sql(n, "SELECT COUNT(*) FROM tpch.orders") for n in cluster.nodes}
    assert counts == {"15000"}
    assert main(["o2c", "prepare", "-e", first, "--users", "30"]) == 0
    out = tmp_path / "run.json"
    args = ["o2c", "run", *_nodes(cluster), "-u", "30", "--steady", "3", *FAST, "-o", str(out)]
    assert main(args) in (0, ExitCode.INVALID_RUN)
    captured = capsys.readouterr()
    assert "Per database node" in captured.out
    (probe,) = O2CResult.read(out).probes
    assert probe.nodes == [n.url for n in cluster.nodes]
    nodes = per_node(probe)
    assert [n.users for n in nodes] == [10, 10, 10]
    assert all(n.steps > 0 for n in nodes)  # every node served its users
    total = summarize(probe, 1.0)
    assert sum(n.steps for n in nodes) == total.steps
    assert sum(n.errors for n in nodes) == total.errors
    # the invariants hold across the cluster, read on another node than the one prepared
    assert main(["o2c", "check", "-e", cluster.nodes[2].url]) == 0
    assert main(["o2c", "cleanup", "-e", first]) == 0


def test_mixed_freshness_across_nodes(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dbbench mixed on the cluster: the users round-robin over the three nodes, the query
    streams and the freshness probe on node 2, so most invoices it waits for were
    committed on another node: the freshness is the replication lag (p50/p99/max)."""
    from dbbench.reports.mixed.metrics import freshness_summary
    from dbbench.reports.mixed.model import MixedResult

    first = cluster.nodes[0].url
    assert main(["o2c", "prepare", "-e", first, "--users", "6"]) == 0
    out = tmp_path / "mixed"
    args = ["mixed", "run", *_nodes(cluster), "--analytics-node", "2", "-u", "6", "-S", "1",
            "--think", "0", "--rampup", "0.1", "--steady", "1", "--progress", "60",
            "--freshness", "0.05", "-o", str(out)]  # fmt: skip
    assert main(args) in (0, ExitCode.INVALID_RUN)
    assert "analytics node" in capsys.readouterr().out
    result = MixedResult.read(out / "result.json")
    assert result.config["analytics_node"] == 2
    (mixed,) = [p for p in result.points if p.role == "mixed"]
    assert mixed.status == "complete" and mixed.o2c is not None, mixed.errors
    nodes = per_node(mixed.o2c)
    assert [n.users for n in nodes] == [2, 2, 2] and all(n.steps > 0 for n in nodes)
    assert mixed.freshness is not None and mixed.freshness.node == cluster.nodes[1].url
    fresh = freshness_summary(mixed)
    assert fresh is not None and fresh.reads > 0 and fresh.seen > 0 and fresh.errors == 0
    assert 0 <= fresh.p50 <= fresh.p99 <= fresh.max < 60
    assert main(["o2c", "check", "-e", cluster.nodes[2].url]) == 0
    assert main(["o2c", "cleanup", "-e", first]) == 0


def test_node_study_on_one_two_and_three_nodes(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = cluster.nodes[0].url
    assert main(["o2c", "prepare", "-e", first, "--users", "40"]) == 0
    out = tmp_path / "study"
    args = [
        "o2c", "scale-nodes", *_nodes(cluster), "-u", "5", "--max-users", "10",
        "--max-probes", "2", "--steady", "1.5", "--confirm-steady", "1.5", "--rt-limit", "5",
        *FAST, "-o", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "Scaling by database nodes" in text
    study = O2CResult.read(out / "nodes.json")
    assert study.kind == "nodes"
    assert [max(1, len(p.nodes)) for p in study.probes] == [1, 2, 3]
    assert all(p.role == "confirmation" for p in study.probes)  # each count was confirmed
    assert len(study.config["limited_by"]) == 3  # what ended each size's search is named
    assert "limited by" in text
    for k in (1, 2, 3):  # every cluster size's search is kept
        assert O2CResult.read(out / f"nodes-{k}.json").kind == "search"
    lines = text.splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("nodes  users found"))
    row = lines[header + 2]  # under the rule: the one-node row (numbers right-aligned)
    assert row.split()[0] == "1", row
    assert " 1.00 " in f" {row} "  # the one-node row is the reference
    assert main(["o2c", "cleanup", "-e", first]) == 0


def test_a_node_down_is_one_line_naming_it(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as s:  # a closed port on loopback
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    down = f"mysql+pymysql://root@127.0.0.1:{closed}/tpch"
    args = ["o2c", "run", "-e", cluster.nodes[0].url, "-e", down, "-u", "2", *FAST]
    assert main(args) == ExitCode.USER_ERROR
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"node 2 ({down}) is not reachable" in err, err


def test_a_node_killed_mid_run_stops_it_and_keeps_the_measurements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _loaded_cluster() as c:
        assert main(["o2c", "prepare", "-e", c.nodes[0].url, "--users", "30"]) == 0
        out = tmp_path / "run.json"
        journal = tmp_path / "run.json.steps.csv"

        def kill_when_measuring() -> None:  # once steps are journaled (a busy host is slow)
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                if journal.is_file() and journal.stat().st_size > 2000:
                    break
                time.sleep(0.1)
            c.nodes[2].kill()

        killer = threading.Thread(target=kill_when_measuring)
        killer.start()
        started = time.monotonic()
        args = ["o2c", "run", *_nodes(c), "-u", "30", "--steady", "60", *FAST, "-o", str(out)]
        code = main(args)
        killer.join()
        assert code == ExitCode.INVALID_RUN
        assert time.monotonic() - started < 45  # it stopped; it did not sit out the window
        (probe,) = O2CResult.read(out).probes
        assert probe.status == "failed"
        assert any("the server went away" in e for e in probe.errors)
        assert sum(probe.steps.ok) > 30  # what was measured before the kill is kept
        capsys.readouterr()
        # the survivors still form a consistent cluster: no half order, no lost posting
        assert main(["o2c", "check", "-e", c.nodes[0].url]) == 0
