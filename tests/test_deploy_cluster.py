"""Scale-out, shown with real processes: two services sharing a real three-node Redis Cluster
(a miss on one is a hit on the other), still answering, correctly and promptly, when a cluster
node dies (before and after the other nodes declare the cluster failed), and hitting again
once the node is back. Needs ``redis-server`` and ``redis-cli`` (``.ci/run`` installs them): without
them these tests fail, they do not skip."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis.asyncio.cluster import RedisCluster as ClusterClient
from redis.asyncio.connection import SSLConnection

from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.cache import redis_client
from canasta_referee.service.settings import Settings

from .servers import RedisCluster, RedisServer, Service

# the in-process tier off: every hit must come from the cluster
SHARED = {"CACHE_SIZE": "0", "REDIS_OPS": "legal-actions,check,score", "REDIS_TIMEOUT": "0.2",
          "REDIS_BREAKER_FAILURES": "2", "REDIS_BREAKER_SECONDS": "0.5"}
# several states (keys in different hash slots, so on different nodes)
BODIES = [{"state": {**EXAMPLE_STATE, "scores": [n, 7 * n]}} for n in range(1, 9)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisCluster]:
    c = RedisCluster(3).start()
    try:
        yield c
    finally:
        c.stop()


def keys(node: RedisServer) -> list[str]:
    out = subprocess.run(["redis-cli", "-p", str(node.port), "--scan"], capture_output=True,
                         text=True, timeout=5, check=True).stdout
    return out.split()


def total_keys(cluster: RedisCluster) -> int:
    return sum(len(keys(n)) for n in cluster.nodes if n.proc is not None)


def wait_keys(cluster: RedisCluster, n: int, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while total_keys(cluster) < n:
        assert time.monotonic() < deadline, "the first service's write never reached the cluster"
        time.sleep(0.02)


def post(client: httpx.Client, body: Any, path: str = "/v1/legal-actions") -> httpx.Response:
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    return r


def test_two_services_share_a_cluster_and_survive_a_dead_node(cluster: RedisCluster) -> None:
    a = Service({**SHARED, "REDIS_URL": cluster.url}).start()
    b = Service({**SHARED, "REDIS_URL": cluster.url}).start()
    try:
        with httpx.Client(base_url=a.url, timeout=5) as ca, \
                httpx.Client(base_url=b.url, timeout=5) as cb:
            expected = {}
            for i, body in enumerate(BODIES):
                before = total_keys(cluster)
                first = post(ca, body)
                assert first.headers["x-cache"] == "miss"
                wait_keys(cluster, before + 1)  # the write to the cluster is asynchronous
                second = post(cb, body)
                assert second.headers["x-cache"] == "hit", f"body {i}"
                assert second.json() == first.json()
                expected[i] = first.json()
            metrics = cb.get("/metrics").text
            assert 'canasta_cache_hits_total{op="legal-actions",tier="redis"} 8.0' in metrics
            assert ca.get("/readyz").json()["cache"]["redis"] == "ok"

            # kill (SIGKILL) the node holding the most of our keys: some answers live there
            victim = max(cluster.nodes, key=lambda n: len(keys(n)))
            assert keys(victim)
            victim.kill()
            started = time.monotonic()
            deadline = started + 15
            seen_fail = False
            rounds = 0
            # until the survivors have noticed (cluster_state:fail) and a round after that
            while rounds < 2 or not seen_fail:
                for i, body in enumerate(BODIES):
                    for client in (ca, cb):
                        t = time.monotonic()
                        r = post(client, body)
                        assert r.json() == expected[i]
                        assert time.monotonic() - t < 1.0, "an answer waited on the dead node"
                rounds += 1
                seen_fail = seen_fail or any(
                    RedisCluster.state(n) == "fail" for n in cluster.nodes if n.proc is not None)
                assert time.monotonic() < deadline, "the survivors never declared the cluster failed"
                time.sleep(0.1)
            for client in (ca, cb):
                ready = client.get("/readyz")
                assert ready.status_code == 200 and ready.json()["ready"] is True
                assert 'canasta_redis_errors_total{op="legal-actions"}' in client.get(
                    "/metrics").text

            # the node back (same port and node file, its data lost): both hit again, soon
            victim.start()
            deadline = time.monotonic() + 15
            while not all(RedisCluster.state(n) == "ok" for n in cluster.nodes):
                assert time.monotonic() < deadline, "the cluster did not heal"
                time.sleep(0.05)
            pending = {(i, c) for i in range(len(BODIES)) for c in (0, 1)}
            while pending:  # answers lost with the node are computed and stored again
                assert time.monotonic() < deadline, f"no hits again: {sorted(pending)}"
                for i, c in sorted(pending):
                    r = post((ca, cb)[c], BODIES[i])
                    assert r.json() == expected[i]
                    if r.headers["x-cache"] == "hit":
                        pending.discard((i, c))
                time.sleep(0.05)
            assert ca.get("/readyz").json()["degraded"] is False
    finally:
        a.stop()
        b.stop()


def test_a_batch_reads_and_writes_its_group_across_the_nodes(cluster: RedisCluster) -> None:
    """A batch's operations looked up together (``MGET`` split by node: redis-py's
    ``mget_nonatomic``) and written together (a cluster pipeline) on keys of every node: a
    batch of misses on one service is a batch of hits on the other, with the same answers."""
    operations = [{"op": "legal-actions", "body": {"state": {**EXAMPLE_STATE,
                                                             "scores": [100 + n, n]}}}
                  for n in range(16)]
    a = Service({**SHARED, "REDIS_URL": cluster.url}).start()
    b = Service({**SHARED, "REDIS_URL": cluster.url}).start()
    try:
        before = total_keys(cluster)
        with httpx.Client(base_url=a.url, timeout=5) as ca, \
                httpx.Client(base_url=b.url, timeout=5) as cb:
            first = post(ca, {"operations": operations}, "/v1/batch")
            assert first.headers["x-cache"] == ", ".join(["miss"] * 16)
            assert total_keys(cluster) == before + 16  # written before the batch is answered
            assert all(keys(node) for node in cluster.nodes)  # (the keys are on every node)
            second = post(cb, {"operations": operations}, "/v1/batch")
        assert second.headers["x-cache"] == ", ".join(["hit"] * 16)
        assert second.content == first.content
    finally:
        a.stop()
        b.stop()


def test_redis_url_names_a_cluster_or_is_refused_at_start() -> None:
    for url in ("redis+cluster://h:7000", "rediss+cluster://u:pw@h:7000/0",
                "REDIS+CLUSTER://h:7000/"):
        assert Settings(redis_url=url).checked().redis_is_cluster
    assert Settings(redis_url="redis://h:7000", redis_cluster=True).redis_is_cluster
    assert not Settings(redis_url="rediss://h:6380/2").checked().redis_is_cluster
    tls = redis_client(Settings(redis_url="rediss+cluster://u:pw@h:7000"))
    assert isinstance(tls, ClusterClient)
    assert tls.connection_kwargs["connection_class"] is SSLConnection
    assert (tls.connection_kwargs["username"], tls.connection_kwargs["password"]) == ("u", "pw")
    for bad in ("redis+cluster://h:7000/1", "http://h:6379", "h:6379"):
        with pytest.raises(ValueError):
            Settings.from_env({"REDIS_URL": bad})
    assert Settings.from_env({"GRACEFUL_TIMEOUT": "7"}).graceful_timeout == 7
    with pytest.raises(ValueError):
        Settings.from_env({"GRACEFUL_TIMEOUT": "-1"})
