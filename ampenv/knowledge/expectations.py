"""What AMP should bring on each device class, as data with sources.

A *device class* is what decides whether AMP is worth judging and what it should give: a CPU with
native bf16 (AMX or avx512_bf16, aarch64 ``bf16``), a CPU that only emulates bf16, an Ascend chip
generation, a CUDA GPU with or without tensor cores. Each class carries the sizes of the smoke
training that show AMP's worth within certify's budget, the default thresholds (a site overrides
them in ``[checks."smoke.resnet50"]``), why, and where the figures come from.

Torch-free and import-light: the certify check classifies a CPU node from /proc/cpuinfo (read
through the probe, so a planted sysroot works) before any child starts; an accelerator is
classified again from what the child reports (the chip name, the compute capability).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

# /proc/cpuinfo flags that give native low-precision arithmetic ("bf16" is the aarch64 name).
CPU_BF16_FLAGS = ("amx_bf16", "avx512_bf16", "bf16")

# Published and measured anchors: ResNet50 training throughput, one device.
ANCHORS: dict[str, dict[str, Any]] = {
    "a100": {
        "what": "ResNet50 v1.5 training on one A100: 2470 img/s with AMP, 938 img/s in TF32 (2.6x)",
        "source": "NVIDIA/DeepLearningExamples: PyTorch/Classification/ConvNets/resnet50v1.5/"
        "README.md, training performance (as quoted in ampenv issue 15)",
    },
    "v100": {
        "what": "ResNet50 v1.5 training on one V100: 1200 img/s with AMP, 367 img/s in FP32 (3.3x)",
        "source": "NVIDIA/DeepLearningExamples: PyTorch/Classification/ConvNets/resnet50v1.5/"
        "README.md, training performance (as quoted in ampenv issue 15)",
    },
    "ascend910": {
        "what": "ResNet50 training on one Ascend 910 with apex O2: 1259.6 img/s",
        "source": "Ascend/ModelZoo-PyTorch: PyTorch/built-in/cv/classification/"
        "ResNet50_for_PyTorch/README.md (as quoted in ampenv issue 15)",
    },
    "cpu-amx": {
        "what": "ResNet50, batch 8, bf16 autocast vs fp32 on 2 cores with AMX and avx512_bf16, "
        "torch 2.13: 1.18x at 64 px, 1.66x at 112 px channels_last, 1.82x at 224 px, 2.43x at "
        "224 px channels_last; peak RSS at 224 px -32% (-41% above the resting model)",
        "source": "measured side by side with plain torch 2.13 (ampenv issue 15)",
    },
    "cpu-avx2": {
        "what": "ResNet50 bf16 autocast on a 2-core AVX2-only EPYC: 0.14x-0.35x the FP32 "
        "images/s (oneDNN has no bf16 kernels there: every bf16 op goes through conversions)",
        "source": "measured by ampenv certify on this project's AVX2-only machine (README, "
        "Benchmarks)",
    },
    "article": {
        "what": "the seed article's headline: AMP gives 1.8-2.5x and saves 40-60% of memory",
        "source": "the seed article of ampenv (design.md, README 'The truth about the seed "
        "article')",
    },
}


@dataclass(frozen=True)
class DeviceClass:
    """One device class: whether AMP's worth is judged there, and what it should be."""

    id: str
    backend: str
    title: str
    judged: bool  # False: speed and memory are reported, never judged (AMP not recommended)
    min_speedup: Optional[float]
    min_mem_reduction: Optional[float]
    why: str
    sizes: dict[str, Any] = field(default_factory=dict)  # the smoke run's shape on this class
    dtypes: tuple[str, ...] = ()  # the low-precision dtypes the class computes in natively
    anchors: tuple[str, ...] = ()  # keys of ANCHORS

    @property
    def sources(self) -> list[str]:
        return [ANCHORS[a]["source"] for a in self.anchors]

    def to_facts(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "judged": self.judged,
            "min_speedup": self.min_speedup,
            "min_mem_reduction": self.min_mem_reduction,
            "why": self.why,
            "anchors": [ANCHORS[a]["what"] for a in self.anchors],
        }


# Sizes. CPU with native bf16: 224 px, batch 8, channels_last is where the measurement
# shows 2.43x and -41% training memory in ~1 s per FP32 step on 2 cores; 2 warm-up steps (oneDNN
# builds its primitives and reorders the weights) and 5 timed ones keep the smoke near 20 s.
# Emulated bf16: the smallest run that still proves correctness (a bf16 sample-step costs seconds
# there whatever its size), 64 px keeps a 2x2 map at the last stage for BatchNorm, and no
# coverage step (one more emulated bf16 step, ~10 s, for a figure nobody acts on there).
_CPU_NATIVE_SIZES = {
    "image_size": 224,
    "batch_size": 8,
    "steps": 7,
    "warmup": 2,
    "channels_last": True,
}
_CPU_EMULATED_SIZES = {
    "image_size": 64,
    "batch_size": 2,
    "steps": 3,
    "warmup": 1,
    "channels_last": False,
    "coverage": False,
}
_DEVICE_SIZES = {"image_size": 224, "batch_size": 64, "steps": 30, "warmup": 5}
# channels_last on CUDA: cuDNN's tensor-core convolutions want NHWC (NVIDIA's ResNet50 recipe
# trains with --memory-format nhwc); Ascend keeps its own 5-D formats, so NPU stays NCHW.
_CUDA_SIZES = {**_DEVICE_SIZES, "channels_last": True}

CPU_NATIVE = DeviceClass(
    "cpu-native-bf16",
    "cpu",
    "CPU with native bf16",
    True,
    1.5,
    0.25,
    "the CPU computes bf16 natively (AMX or avx512_bf16): AMP should train ResNet50 1.5x+ "
    "faster than FP32 in a quarter less training memory",
    sizes=_CPU_NATIVE_SIZES,
    dtypes=("bfloat16",),
    anchors=("cpu-amx",),
)
CPU_EMULATED = DeviceClass(
    "cpu-emulated-bf16",
    "cpu",
    "CPU without native bf16",
    False,
    None,
    None,
    "AMP is not recommended on this CPU: it has no avx512_bf16, amx_bf16 or bf16 flag, so bf16 "
    "is emulated through fp32 and trains slower than FP32; only correctness is judged",
    sizes=_CPU_EMULATED_SIZES,
    anchors=("cpu-avx2",),
)
NPU_CLASSES = {
    "910A": DeviceClass(
        "npu-910a",
        "npu",
        "Ascend 910A (fp16 only)",
        True,
        1.8,
        0.40,
        "the 910A computes in fp16 (no bf16): O2 fp16 against HF32-free FP32",
        sizes=_DEVICE_SIZES,
        dtypes=("float16",),
        anchors=("ascend910", "article"),
    ),
    "910B": DeviceClass(
        "npu-910b",
        "npu",
        "Ascend 910B / Atlas A2 (bf16 and fp16)",
        True,
        1.8,
        0.40,
        "Atlas A2 computes in bf16 and fp16: O2 against FP32 with HF32 off",
        sizes=_DEVICE_SIZES,
        dtypes=("float16", "bfloat16"),
        anchors=("ascend910", "article"),
    ),
    "A3": DeviceClass(
        "npu-a3",
        "npu",
        "Ascend Atlas A3 (bf16 and fp16)",
        True,
        1.8,
        0.40,
        "Atlas A3 computes in bf16 and fp16: O2 against FP32 with HF32 off",
        sizes=_DEVICE_SIZES,
        dtypes=("float16", "bfloat16"),
        anchors=("ascend910", "article"),
    ),
}
NPU_UNKNOWN = DeviceClass(
    "npu-unknown",
    "npu",
    "Ascend chip not recognised",
    True,
    1.8,
    0.40,
    "an Ascend training chip computes in fp16: the article's 1.8x and 40% apply",
    sizes=_DEVICE_SIZES,
    dtypes=("float16",),
    anchors=("ascend910", "article"),
)
CUDA_TENSOR_CORES = DeviceClass(
    "cuda-tensor-cores",
    "cuda",
    "CUDA GPU with tensor cores (compute capability 7.0+)",
    True,
    1.8,
    0.40,
    "tensor cores run fp16 (and bf16 from 8.0) several times faster than FP32: NVIDIA measures "
    "2.6x over TF32 on A100 and 3.3x over FP32 on V100 for ResNet50",
    sizes=_CUDA_SIZES,
    dtypes=("float16", "bfloat16"),
    anchors=("a100", "v100"),
)
CUDA_NO_TENSOR_CORES = DeviceClass(
    "cuda-no-tensor-cores",
    "cuda",
    "CUDA GPU without tensor cores (compute capability below 7.0)",
    False,
    None,
    None,
    "AMP is not recommended on this GPU: without tensor cores (compute capability below 7.0) "
    "fp16 brings little speed; only correctness is judged",
    sizes=_CUDA_SIZES,
    dtypes=("float16",),
)
CUDA_UNKNOWN = DeviceClass(
    "cuda-unknown",
    "cuda",
    "CUDA GPU (compute capability not known)",
    True,
    1.8,
    0.40,
    "a training GPU is expected to have tensor cores",
    sizes=_CUDA_SIZES,
    dtypes=("float16",),
    anchors=("a100", "v100"),
)
CLASSES = (
    CPU_NATIVE,
    CPU_EMULATED,
    *NPU_CLASSES.values(),
    NPU_UNKNOWN,
    CUDA_TENSOR_CORES,
    CUDA_NO_TENSOR_CORES,
    CUDA_UNKNOWN,
)


def native_bf16_flags(flags: Optional[frozenset[str]]) -> list[str]:
    return sorted(set(flags or ()).intersection(CPU_BF16_FLAGS))


def classify_cpu(flags: Optional[frozenset[str]]) -> DeviceClass:
    """Native bf16 when /proc/cpuinfo lists one of CPU_BF16_FLAGS; unreadable flags count as
    emulated (the cautious answer: AMP is then reported, not promised)."""
    return CPU_NATIVE if native_bf16_flags(flags) else CPU_EMULATED


def classify_cuda(capability: Optional[str]) -> DeviceClass:
    m = re.fullmatch(r"(?:sm_?)?(\d+)\.?(\d)", capability or "")
    if m is None:
        return CUDA_UNKNOWN
    return CUDA_TENSOR_CORES if int(m.group(1)) >= 7 else CUDA_NO_TENSOR_CORES


def classify_npu(chip: Optional[str]) -> DeviceClass:
    from ampenv.probe import chips  # torch-free; imported late to keep this module light

    return NPU_CLASSES.get(chips.family(chip), NPU_UNKNOWN)


def classify(
    backend: str, chip: Optional[str] = None, cpu_flags: Optional[frozenset[str]] = None
) -> DeviceClass:
    """The device class of a node: CPU from its flags, NPU from its chip name, CUDA from its
    compute capability ("8.0")."""
    if backend == "cpu":
        return classify_cpu(cpu_flags)
    if backend == "cuda":
        return classify_cuda(chip)
    if backend == "npu":
        return classify_npu(chip)
    raise ValueError(f"no device class for backend {backend!r}")


def by_id(class_id: str) -> Optional[DeviceClass]:
    return next((c for c in CLASSES if c.id == class_id), None)
