"""NPUs in a cluster's schedulers: Kubernetes' NPU resources, Volcano's scheduling of them, HAMi's
virtual NPUs."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="hami-vnpu-config-missing",
        mode="container-devices",
        component="hami",
        # HAMi's Ascend device plugin: "load config failed, error is can not find vnpu config
        # for chip 910B4-1"
        patterns=(r"can not find vnpu config for chip \S{1,60}",),
        codes=(),
        meaning="HAMi's Ascend device plugin has no vNPU template for the chip name the driver "
        "reports, so it exits and the node advertises no NPU",
        causes=("a chip variant (910B4-1, ...) newer than the plugin's device-config.yaml",),
        fix="add a vnpu entry for that chip name to the plugin's device-config ConfigMap (from "
        "the template of its closest chip, with its memory and AI Core counts), or upgrade to a "
        "plugin release that lists it; then restart the plugin's pods",
        confirm="npu.devices",
        sources=(
            Source(
                "https://github.com/Project-HAMi/volcano-vgpu-device-plugin/issues/51", "report"
            ),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="volcano-npu-count-mismatch",
        mode="container-devices",
        component="volcano",
        # Volcano's Ascend scheduler plugin: "all nodes are unavailable: 1 node annotations(7)
        # not same node idle(8)"
        patterns=(r"node annotations\(\d{1,4}\) not same node idle\(\d{1,4}\)",),
        codes=(),
        meaning="Volcano refused the node: the NPUs the Ascend Device Plugin publishes for it "
        "(its annotations) do not add up to the node's idle NPUs",
        causes=(
            "an NPU the device plugin dropped as unhealthy, or a device plugin that did not "
            "see a change (a driver reinstall, a device reset)",
            "a device plugin deployed with the YAML of another chip type",
        ),
        fix="check `npu-smi info` on the node for an unhealthy NPU; read the device plugin "
        "pod's log and restart it (with the YAML for this chip), then submit again",
        confirm="npu.devices",
        sources=(
            Source(
                "https://hiascend.com/document/caselibrary/detail/topic_0000001324820153",
                "official",
            ),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="volcano-not-installed",
        mode="container-devices",
        component="volcano",
        # MindCluster's Ascend Operator watching Volcano's jobs: "Failed to watch *v1alpha1.Job:
        # the server could not find the requested resource (get jobs.batch.volcano.sh)"
        patterns=(
            r"Failed to (?:watch|list) \*v1alpha1\.Job: [^\n]{0,120}could not find the "
            r"requested resource \(get jobs\.batch\.volcano\.sh\)",
        ),
        codes=(),
        meaning="the cluster has no Volcano: its job resource (jobs.batch.volcano.sh) is not "
        "defined, so MindCluster's Ascend Operator cannot watch the jobs it schedules",
        causes=("Volcano not installed, or installed after the operator started",),
        fix="install Volcano (MindCluster's Volcano package for this release); the operator's "
        "errors stop once the resource exists: `kubectl get crd jobs.batch.volcano.sh`",
        confirm=None,
        sources=(
            Source(
                "Ascend/mind-cluster docs/zh/scheduling/faq.md"
                "@27179ad1b2600aa65035834e592887c48716b39e (Failed to watch *v1alpha1.Job)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="k8s-npu-resource-insufficient",
        mode="container-devices",
        component="kubernetes",
        patterns=(r"\bInsufficient huawei\.com/Ascend[\w-]{0,40}",),
        codes=(),
        meaning="the Kubernetes scheduler found no node with enough of the NPU resource the pod "
        "asks for (devices, or HAMi's device memory or cores) left to allocate",
        causes=(
            "the Ascend device plugin (or HAMi's ascend-device-plugin) not running on the node, "
            "so the node advertises none of the resource",
            "the resource the pod asks for is named differently from what the plugin "
            "advertises (chip name, -memory / -core suffixes), or more than one node has",
            "other pods hold the devices",
        ),
        fix="kubectl describe node <node> | grep huawei.com/Ascend (allocatable and allocated); "
        "check that the device plugin's DaemonSet pod runs on that node and read its log; ask "
        "for a resource name and amount the node advertises",
        confirm=None,
        sources=(Source("https://github.com/Project-HAMi/HAMi/issues/1413", "report"),),
        hints=("insufficient",),
    ),
)
