"""The deployment files, parsed and checked against the app: deploy/Dockerfile, deploy/compose.yaml
and the Kubernetes manifests of deploy/k8s (probes on real routes, ports on the app's port,
selectors matching labels, the HPA and PDB aimed at the Deployment, settings that exist and
parse). Docker and Kubernetes are not needed: the files are read, not applied."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from canasta_referee.service.budget import budget, for_workers, kernel_send_bound, report
from canasta_referee.service.settings import DOCS, Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
PORT = Settings().port


# --- helpers ------------------------------------------------------------------------------------


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text = (pending + line).strip()
        pending = ""
        word, _, rest = text.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    steps = dockerfile()
    last = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last:]


def docker_env(steps: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in steps:
        if word == "ENV":
            env.update(dict(re.findall(r"(\w+)=(\S+)", rest)))
    return env


def get_routes() -> set[str]:
    """Paths the app answers to GET."""
    from canasta_referee.service.app import create_app

    app = create_app(Settings(log_level="warning"))
    return {r.path for r in app.routes if "GET" in (getattr(r, "methods", None) or ())}


def manifests() -> dict[tuple[str, str], dict[str, Any]]:
    """Every Kubernetes object of deploy/k8s by (kind, name)."""
    objects: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is None:
                continue
            assert {"apiVersion", "kind", "metadata"} <= set(doc), path.name
            key = (doc["kind"], doc["metadata"]["name"])
            assert key not in objects, f"{key} twice"
            objects[key] = doc
    return objects


def settings_from(env: dict[str, Any]) -> Settings:
    """The settings these variables give; they must all exist (and parse)."""
    unknown = set(env) - set(DOCS)
    assert not unknown, f"not settings of the service: {sorted(unknown)}"
    return Settings.from_env({k: str(v) for k, v in env.items()})


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def only_container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]  # type: ignore[no-any-return]


# --- Dockerfile ---------------------------------------------------------------------------------


def test_dockerfile_is_multi_stage_small_and_builds_the_compiled_engine() -> None:
    steps = dockerfile()
    froms = [rest for word, rest in steps if word == "FROM"]
    assert len(froms) >= 2, "multi-stage: a build stage and a runtime stage"
    args = dict(re.findall(r"(\w+)=(\S+)", " ".join(rest for w, rest in steps if w == "ARG")))
    base = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), ""), froms[-1].split()[0])
    assert re.search(r"slim|alpine|distroless", base), f"runtime base image not small: {base}"
    build_stage, runtime = steps[:len(steps) - len(final_stage())], final_stage()
    runs = [rest for word, rest in build_stage if word == "RUN"]
    assert any("gcc" in r and "libc6-dev" in r for r in runs), "a C compiler for mypyc"
    assert not any("gcc" in rest for word, rest in runtime if word == "RUN"), "no compiler at run time"
    # `pip install .` (a wheel: setup.py compiles the engine) into the venv, from the copied sources
    install = next(i for i, r in enumerate(runs) if re.search(r"/opt/venv/bin/pip install \.(\s|$)", r))
    copied = {src for word, rest in build_stage if word == "COPY" for src in rest.split()[:-1]}
    assert {"pyproject.toml", "setup.py", "engine"} <= copied
    assert "CANASTA_REFEREE_PURE" not in docker_env(build_stage), "the build must compile"
    # then the check that fails the build unless the venv's engine is the compiled one
    check = next(r for r in runs[install + 1:] if "bench/compiled.py --check" in r)
    command = shlex.split(check)
    assert command[:2] == ["/opt/venv/bin/python", "-I"], "the venv's engine, not the sources'"
    # the same command fails on the Python engine (this checkout's)
    proc = subprocess.run([sys.executable, *command[2:]], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert proc.returncode == 1 and proc.stdout.startswith("engine: python"), proc.stdout
    # the runtime stage: the venv, nothing ahead of it on the path
    assert [rest for word, rest in runtime if word == "COPY"] == ["--from=build /opt/venv /opt/venv"]
    env = docker_env(runtime)
    assert env["PATH"].split(":")[0] == "/opt/venv/bin" and "PYTHONPATH" not in env
    for word, rest in steps:  # every COPY from the context names something that exists
        if word == "COPY" and not rest.startswith("--from"):
            for src in rest.split()[:-1]:
                assert (ROOT / src).exists(), src


def test_dockerfile_runs_as_non_root_on_the_apps_port_with_a_healthcheck() -> None:
    runtime = final_stage()
    words = dict(runtime)
    user = words["USER"].split(":")[0]
    assert user not in ("", "root", "0")
    assert words["EXPOSE"].split("/")[0] == str(PORT)
    env = docker_env(runtime)
    assert env["PORT"] == str(PORT) and env["HOST"] == "0.0.0.0"
    settings_from({k: v for k, v in env.items() if k in DOCS})
    health = words["HEALTHCHECK"]
    assert "/healthz" in health and "/healthz" in get_routes()
    assert words["STOPSIGNAL"] == "SIGTERM"
    cmd = json.loads(words["CMD"])  # exec form: the server is PID 1 and gets the signal
    assert cmd[:2] == ["canasta-referee", "serve"]


# --- compose ------------------------------------------------------------------------------------


def test_compose_runs_the_service_with_redis() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    referee, redis = services["referee"], services["redis"]
    build = referee["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    env = referee["environment"]
    settings = settings_from(env)
    assert settings.host == "0.0.0.0"
    host_port, container_port = referee["ports"][0].split(":")
    assert int(container_port) == settings.port
    url = re.match(r"redis://([\w-]+):(\d+)/\d+$", settings.redis_url)
    assert url and url.group(1) in services and url.group(1) == "redis"
    assert "/healthz" in " ".join(referee["healthcheck"]["test"])
    assert f"{settings.port}/healthz" in " ".join(referee["healthcheck"]["test"])
    assert "redis-cli" in redis["healthcheck"]["test"]
    grace = int(referee["stop_grace_period"].rstrip("s"))
    assert referee["stop_signal"] == "SIGTERM" and grace > settings.graceful_timeout


# --- Kubernetes ---------------------------------------------------------------------------------


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk


def test_manifests_are_valid_kubernetes_objects() -> None:
    """Strict schema validation (no unknown fields) against Kubernetes 1.30's API schemas,
    offline (kubernetes-validate bundles them)."""
    import kubernetes_validate

    objects = manifests()
    assert {kind for kind, _ in objects} == {"ConfigMap", "Deployment", "Service",
                                             "HorizontalPodAutoscaler", "PodDisruptionBudget"}
    for (kind, name), doc in objects.items():
        try:
            kubernetes_validate.validate(doc, "1.30.0", strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{kind} {name}: {exc.message}")


def test_deployment_probes_ports_and_resources_match_the_app() -> None:
    objects = manifests()
    deployment = objects[("Deployment", "canasta-referee")]
    assert deployment["apiVersion"] == "apps/v1"
    spec = deployment["spec"]
    pod = spec["template"]
    assert matches(spec["selector"]["matchLabels"], pod["metadata"]["labels"])
    container = only_container(deployment)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    config = objects[("ConfigMap", container["envFrom"][0]["configMapRef"]["name"])]["data"]
    settings = settings_from({**config, **env})
    assert ports["http"] == settings.port == PORT
    assert settings.host == "0.0.0.0"
    routes = get_routes()
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz"),
                        ("startupProbe", "/healthz")):
        get = container[probe]["httpGet"]
        assert get["path"] == path and path in routes, probe
        assert get["port"] in ports or get["port"] == settings.port, probe
    resources = container["resources"]
    for kind in ("cpu", "memory"):
        assert kind in resources["requests"] and kind in resources["limits"]
    assert quantity(resources["requests"]["memory"]) <= quantity(resources["limits"]["memory"])
    assert quantity(resources["requests"]["cpu"]) <= quantity(resources["limits"]["cpu"])
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    assert pod["spec"]["terminationGracePeriodSeconds"] > int(pre_stop[1]) + \
        settings.graceful_timeout, "the grace period covers preStop and the graceful shutdown"


def quantity(value: str | int | float) -> float:
    """A Kubernetes quantity (500m, 1, 160Mi, 1Gi) as a number."""
    text = str(value)
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
    for unit, factor in units.items():
        if text.endswith(unit):
            return float(text[:-len(unit)]) * factor
    return float(text)


def test_pods_run_as_non_root() -> None:
    objects = manifests()
    for name in ("canasta-referee", "canasta-redis"):
        pod = objects[("Deployment", name)]["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] != 0
        container = pod["containers"][0]["securityContext"]
        assert container["allowPrivilegeEscalation"] is False
        assert container["readOnlyRootFilesystem"] is True
        assert container["capabilities"]["drop"] == ["ALL"]


def test_service_hpa_and_pdb_aim_at_the_deployment() -> None:
    objects = manifests()
    deployment = objects[("Deployment", "canasta-referee")]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    ports = {p["name"]: p["containerPort"] for p in only_container(deployment)["ports"]}

    service = objects[("Service", "canasta-referee")]
    assert matches(service["spec"]["selector"], labels)
    assert all(p["targetPort"] in ports or p["targetPort"] in ports.values()
               for p in service["spec"]["ports"])

    hpa = objects[("HorizontalPodAutoscaler", "canasta-referee")]
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        deployment["apiVersion"], "Deployment", deployment["metadata"]["name"])
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    assert hpa["spec"]["minReplicas"] >= 2, "one replica could not be disrupted safely"
    cpu = hpa["spec"]["metrics"][0]["resource"]
    assert cpu["name"] == "cpu" and 0 < cpu["target"]["averageUtilization"] <= 100
    assert "cpu" in only_container(deployment)["resources"]["requests"], "HPA needs a request"

    pdb = objects[("PodDisruptionBudget", "canasta-referee")]
    assert pdb["apiVersion"] == "policy/v1"
    assert matches(pdb["spec"]["selector"]["matchLabels"], labels)
    assert ("maxUnavailable" in pdb["spec"]) != ("minAvailable" in pdb["spec"])


def test_redis_service_is_what_redis_url_names() -> None:
    objects = manifests()
    redis = objects[("Deployment", "canasta-redis")]
    service = objects[("Service", "canasta-redis")]
    assert matches(service["spec"]["selector"], redis["spec"]["template"]["metadata"]["labels"])
    assert matches(redis["spec"]["selector"]["matchLabels"],
                   redis["spec"]["template"]["metadata"]["labels"])
    args = " ".join(only_container(redis)["args"])
    assert "--maxmemory-policy allkeys-lru" in args and "--appendonly no" in args
    url = objects[("ConfigMap", "canasta-referee")]["data"]["REDIS_URL"]
    m = re.match(r"redis://([\w-]+):(\d+)/0$", url)
    assert m and m.group(1) == "canasta-redis"
    assert int(m.group(2)) in [p["port"] for p in service["spec"]["ports"]]


@pytest.mark.parametrize("doc", ["deploy/README.md", "docs/operations.md"])
def test_docs_say_how_to_name_a_redis_cluster(doc: str) -> None:
    text = (ROOT / doc).read_text()
    assert "redis+cluster://" in text and "REDIS_CLUSTER" in text


# --- memory budget (issue 17) -------------------------------------------------------------------

#: the settings the memory budget depends on: the manifests set each, so the budget they were
#: sized for does not move with the code's defaults
MEMORY_SETTINGS = ("MAX_BODY_BYTES", "MAX_PROBLEMS", "MAX_LEGAL_ACTIONS", "CACHE_SIZE",
                   "CACHE_MAX_BYTES", "CACHE_MAX_ENTRY_BYTES", "MAX_IN_FLIGHT",
                   "MAX_AUDIT_BODY_BYTES", "MAX_BATCH_BODY_BYTES", "MAX_BULK_IN_FLIGHT",
                   "MAX_BULK_ANSWER_BYTES", "MAX_UNSENT_BYTES", "MAX_CONNECTIONS",
                   "SEND_BUFFER_BYTES", "REDIS_MAX_CONNECTIONS", "WORKERS")


def compose_bytes(value: str) -> float:
    """A Compose memory size (``640m``, ``1g``, ``512k``, bytes) as a number of bytes."""
    text = str(value).lower().rstrip("b")
    factor = {"k": 2**10, "m": 2**20, "g": 2**30}.get(text[-1:], 1)
    return float(text[:-1] if factor > 1 else text) * factor


def test_kubernetes_memory_covers_the_budget_of_its_settings() -> None:
    """The pod's memory limit covers a worker's whole budget (``service.budget``, with the
    requests in flight it assumes) and the kernel's send buffers of its connections, bounded
    (in the pod's cgroup too), and its request covers a worker with a full in-process tier
    and one computation: the sizes docs/operations.md, "Memory budget", explains."""
    objects = manifests()
    container = only_container(objects[("Deployment", "canasta-referee")])
    config = objects[("ConfigMap", "canasta-referee")]["data"]
    assert set(MEMORY_SETTINGS) <= set(config), "the manifests fix every memory setting"
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    settings = settings_from({**config, **env})
    assert settings.workers == 1
    b = budget(settings)
    memory = container["resources"]
    kernel = kernel_send_bound(settings)
    assert kernel is not None, "SEND_BUFFER_BYTES bounds what the kernel holds for clients"
    assert quantity(memory["limits"]["memory"]) >= for_workers(settings) + kernel
    assert for_workers(settings) == b.total
    assert quantity(memory["requests"]["memory"]) >= b.baseline + b.cache + b.compute
    # and the bounds are real ones: a tier bounded by bytes, answers capped
    assert 0 < settings.cache_max_bytes <= quantity(memory["limits"]["memory"]) / 4
    assert settings.cache_max_entry_bytes < settings.cache_max_bytes / 100


def test_compose_memory_limit_covers_the_budget_of_its_workers() -> None:
    referee = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["referee"]
    env = referee["environment"]
    assert set(MEMORY_SETTINGS) <= set(env)
    settings = settings_from(env)
    assert settings.workers == 2
    kernel = kernel_send_bound(settings)
    assert kernel is not None
    assert compose_bytes(referee["mem_limit"]) >= for_workers(settings) + 2 * kernel


def test_operations_doc_quotes_the_budget_of_the_kubernetes_settings() -> None:
    """docs/operations.md shows what ``python -m canasta_referee.service.budget`` prints for the ConfigMap's
    settings, and names every setting the budget depends on."""
    config = manifests()[("ConfigMap", "canasta-referee")]["data"]
    doc = (ROOT / "docs" / "operations.md").read_text()
    section = doc.split("## Memory budget", 1)[1].split("\n## ", 1)[0]
    printed = report(settings_from(config))
    assert printed in section, f"paste into docs/operations.md:\n{printed}"
    for name in MEMORY_SETTINGS[:-1]:
        assert f"`{name}`" in section, name
    proc = subprocess.run([sys.executable, "-m", "canasta_referee.service.budget"], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT),
                                          **{k: str(v) for k, v in config.items()}}, timeout=60)
    assert proc.returncode == 0 and proc.stdout == printed, proc.stderr
