"""``/metrics`` carries the worker process's own figures (docs/operations.md, "Metrics"): its CPU
time, memory and file descriptors, the garbage collector's runs and the interpreter. Against a
real server; each figure is checked against what the kernel says of that process
(``/proc/PID``), not against the metrics library."""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import httpx

from canasta_referee.schema.models import EXAMPLE_STATE

from .test_connections import rss, service


def scrape(url: str) -> dict[str, float]:
    """Every sample of a ``/metrics`` exposition: ``name{labels}`` → value."""
    text = httpx.get(url + "/metrics", timeout=30).text
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def test_process_figures_are_the_servers_own() -> None:
    before = time.time()
    with service() as svc:
        assert svc.proc is not None
        pid = svc.proc.pid
        with httpx.Client(base_url=svc.url, timeout=30) as client:
            for i in range(50):  # misses: work enough to show in the CPU time
                state = {**EXAMPLE_STATE, "scores": [i, -150]}
                assert client.post("/v1/legal-actions", json={"state": state}).status_code == 200
        m = scrape(svc.url)
        proc = Path(f"/proc/{pid}")
        resident = rss(svc)
        ticks = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
        fds = len(os.listdir(proc / "fd"))
    assert abs(m["process_resident_memory_bytes"] - resident) <= 0.1 * resident
    assert 0 < m["process_cpu_seconds_total"] <= cpu + 0.05
    assert m["process_cpu_seconds_total"] >= cpu - 0.5  # the scrape and the stop came after it
    assert abs(m["process_open_fds"] - fds) <= 2  # the scrape's own connection came and went
    assert m["process_open_fds"] < m["process_max_fds"]
    assert before - 1 <= m["process_start_time_seconds"] <= time.time()
    for generation in "012":
        assert m[f'python_gc_collections_total{{generation="{generation}"}}'] >= 0
        assert m[f'python_gc_objects_uncollectable_total{{generation="{generation}"}}'] == 0
    # the full collection before start-up objects are frozen (service/app.py's lifespan)
    assert m['python_gc_collections_total{generation="2"}'] >= 1
    info = [k for k in m if k.startswith("python_info{")]
    assert len(info) == 1 and f'version="{platform.python_version()}"' in info[0]
    assert 'implementation="CPython"' in info[0] and m[info[0]] == 1
