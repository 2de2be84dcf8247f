"""deploy/kubernetes/ is valid for the API server and consistent with the image and the bridge.

The schemas are the Kubernetes API's own, shipped in `kubernetes-validate` (no
cluster, no network), checked strictly so a misspelt field is an error. The
rest ties the files to facts owned elsewhere: the settings the bridge reads,
the image's user and port, the policy file's rules.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from sqlalchemy.engine import make_url

from bot.config import Settings
from bot.policy.file import load_policy
from tests.ship.manifests import KUBERNETES, documents, image_port, image_user, setting_names

# the oldest Kubernetes still supported upstream when this was written, and the newest known
VERSIONS = ("1.31", kubernetes_validate.latest_version())
MANIFESTS = sorted(p for p in KUBERNETES.glob("*.yaml") if p.name != "kustomization.yaml")


def _one(kind: str, name: str | None = None) -> dict[str, Any]:
    found = [
        doc
        for path in MANIFESTS
        for doc in documents(path)
        if doc["kind"] == kind and (name is None or doc["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"{kind} {name or ''}: {len(found)} found"
    return found[0]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_manifest_is_valid_against_the_api_schemas(path: Path, version: str) -> None:
    for doc in documents(path):
        kubernetes_validate.validate(doc, version, strict=True)


def test_a_misspelt_field_would_be_caught() -> None:
    deployment = copy.deepcopy(_one("Deployment"))
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[-1], strict=True)


def test_kustomize_applies_every_manifest_but_the_secret_example() -> None:
    (kustomization,) = documents(KUBERNETES / "kustomization.yaml")
    listed = set(kustomization["resources"])
    assert listed == {p.name for p in MANIFESTS} - {"secret.example.yaml"}


def test_the_deployment_runs_two_hardened_replicas_with_probes() -> None:
    deployment = _one("Deployment")
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    assert spec["replicas"] == 2
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == image_user()
    secret_volume = next(v for v in pod["volumes"] if "secret" in v)["secret"]
    if not secret_volume["defaultMode"] & 0o004:  # not world-readable: the group must be ours
        assert secret_volume["defaultMode"] & 0o040
        assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsGroup"]
    for container in pod["initContainers"] + pod["containers"]:
        security = container["securityContext"]
        assert security["readOnlyRootFilesystem"] is True
        assert security["allowPrivilegeEscalation"] is False
        assert {"requests", "limits"} <= container["resources"].keys()
    (bridge,) = pod["containers"]
    assert bridge["args"] == ["run"]
    assert bridge["ports"][0]["containerPort"] == image_port()
    assert bridge["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert bridge["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert pod["initContainers"][0]["args"] == ["db", "upgrade"]
    labels = spec["template"]["metadata"]["labels"]
    for selector in (
        spec["selector"]["matchLabels"],
        _one("Service")["spec"]["selector"],
        _one("PodDisruptionBudget")["spec"]["selector"]["matchLabels"],
    ):
        assert selector.items() <= labels.items()
    assert _one("PodDisruptionBudget")["spec"]["minAvailable"] == 1
    assert _one("Service")["spec"]["ports"][0]["targetPort"] == "http"


def test_settings_are_names_the_bridge_reads_and_secrets_are_mounted_files() -> None:
    pod = _one("Deployment")["spec"]["template"]["spec"]
    settings = _one("ConfigMap", "novo-slack-settings")["data"]
    known = setting_names()
    assert set(settings) <= known, set(settings) - known
    secret_keys = set(_one("Secret")["stringData"])
    secret_volume = next(v for v in pod["volumes"] if "secret" in v)
    for container in pod["initContainers"] + pod["containers"]:
        mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
        env = {e["name"]: e["value"] for e in container["env"]}
        assert set(env) <= known, set(env) - known
        assert all(name.endswith("_FILE") for name in env), "a secret as a plain variable"
        for path in env.values():
            folder, _, key = path.rpartition("/")
            assert folder == mounts[secret_volume["name"]] and key in secret_keys, path
        assert settings["NOVO_SLACK_CONFIG"].startswith(mounts["policy"] + "/")
        # a subPath mount is never updated: the policy would not follow its ConfigMap
        assert not any("subPath" in m for m in container["volumeMounts"])
    assert make_url(settings["NOVO_SLACK_DB"]).password is None, "a password in the ConfigMap"


def test_the_policy_in_the_configmap_is_one_the_bridge_accepts(tmp_path: Path) -> None:
    settings = _one("ConfigMap", "novo-slack-settings")["data"]
    policy = _one("ConfigMap", "novo-slack-policy")["data"]
    key = settings["NOVO_SLACK_CONFIG"].rpartition("/")[2]
    written = tmp_path / key
    written.write_text(policy[key], encoding="utf-8")
    assert load_policy(written).rules


def test_metrics_are_scraped_on_their_own_port_which_only_prometheus_reaches() -> None:
    template = _one("Deployment")["spec"]["template"]
    bridge = template["spec"]["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in bridge["ports"]}
    metrics_port = Settings.model_fields["metrics_port"].default
    assert ports == {"http": image_port(), "metrics": metrics_port}
    assert template["metadata"]["annotations"]["prometheus.io/port"] == str(metrics_port)
    service = {p["name"]: p["targetPort"] for p in _one("Service")["spec"]["ports"]}
    assert service == {"http": "http", "metrics": "metrics"}
    # the probes ask the Slack port, whose /readyz tells only ready or not
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert bridge[probe]["httpGet"]["port"] == "http"

    policy = _one("NetworkPolicy")["spec"]
    assert policy["podSelector"]["matchLabels"].items() <= template["metadata"]["labels"].items()
    assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
    # each port in from one place, and the two places differ
    sources = {
        port["port"]: json.dumps(rule["from"], sort_keys=True)
        for rule in policy["ingress"]
        for port in rule["ports"]
    }
    assert set(sources) == {"http", "metrics"} and sources["http"] != sources["metrics"]
    allowed_out = {(p["port"], p["protocol"]) for rule in policy["egress"] for p in rule["ports"]}
    assert allowed_out == {(53, "UDP"), (53, "TCP"), (5432, "TCP"), (443, "TCP")}
    assert make_url(_one("ConfigMap", "novo-slack-settings")["data"]["NOVO_SLACK_DB"]).port == 5432
