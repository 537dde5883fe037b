"""The small device interface behind the bundled AMP.

Everything device-specific that amp needs goes through an `AmpDevice`: the torch device, the chip
(which decides the low-precision dtypes) and, for chips that saturate instead of producing inf
(Ascend 910A), the hardware overflow flag. Tests pass a fake object with the same attributes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, Union, runtime_checkable

import torch

from ampenv.probe import chips

FP16 = "float16"
BF16 = "bfloat16"
LOW_PRECISION = {FP16: torch.float16, BF16: torch.bfloat16}

# CPU flags (/proc/cpuinfo) that give native low-precision arithmetic; "bf16" is the aarch64 name.
_CPU_BF16_FLAGS = ("amx_bf16", "avx512_bf16", "bf16")
_CPU_FP16_FLAGS = ("amx_fp16", "avx512_fp16")


@runtime_checkable
class AmpDevice(Protocol):
    """What the scaler and amp.initialize need from a device."""

    device: torch.device
    chip: str | None  # "Ascend910B3", a CUDA compute capability "8.0", None on CPU
    saturation_mode: bool  # fp16 overflow saturates to ±65504: only the overflow flag sees it

    def clear_overflow_flag(self) -> None: ...

    def overflow_flag(self) -> torch.Tensor:
        """A 0-dim float32 tensor on the device: 1.0 if an overflow happened since the clear."""
        ...


@dataclass(frozen=True)
class TorchDevice:
    """The real device; torch_npu is imported only for npu devices."""

    device: torch.device
    chip: str | None = None
    saturation_mode: bool = False

    @classmethod
    def of(cls, device: str | torch.device) -> TorchDevice:
        device = torch.device(device)
        if device.type == "npu":
            import torch_npu  # only present on Ascend nodes

            index = device.index if device.index is not None else torch.npu.current_device()
            saturating = not torch_npu.npu.utils.is_support_inf_nan()
            return cls(device, torch.npu.get_device_name(index), saturating)
        if device.type == "cuda":
            major, minor = torch.cuda.get_device_capability(device)
            return cls(device, f"{major}.{minor}")
        return cls(device)

    # The float-status register exists only in saturation mode; torch_npu's own helpers read it
    # with `.cpu()` (a host sync), so the flag is kept on the device here.
    def clear_overflow_flag(self) -> None:
        import torch_npu

        torch_npu.npu_clear_float_status(torch.zeros(8, device=self.device))

    def overflow_flag(self) -> torch.Tensor:
        import torch_npu

        status = torch_npu.npu_get_float_status(torch.zeros(8, device=self.device))
        return (status[0] != 0).float()


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


DeviceLike = Union[str, torch.device, AmpDevice]


def as_amp_device(device: DeviceLike) -> AmpDevice:
    return device if isinstance(device, AmpDevice) else TorchDevice.of(device)


def _row(supported: bool | None, native: bool | None, reason: str) -> dict:
    return {"supported": supported, "native": native, "reason": reason}


def _npu_rows(chip: str | None) -> dict[str, dict]:
    generation = chips.family(chip)
    names = {"910A": "Ascend 910A (first generation)", "910B": "Atlas A2 (910B)", "A3": "Atlas A3"}
    if generation not in names:
        return {
            FP16: _row(True, True, "every Ascend training chip computes in fp16"),
            BF16: _row(
                None, None, f"chip {chip!r} not recognised: bf16 needs Atlas A2/A3 (910B, 910_93)"
            ),
        }
    rows = {}
    for dtype, short in ((FP16, "fp16"), (BF16, "bf16")):
        has = bool(chips.computes_in(chip, dtype))
        rows[dtype] = _row(
            has, has, f"{names[generation]} {'computes in' if has else 'has no'} {short}"
        )
    return rows


def _cuda_rows(chip: str | None) -> dict[str, dict]:
    match = re.fullmatch(r"(?:sm_?)?(\d+)\.?(\d)", chip or "")
    if match is None:
        return {
            FP16: _row(True, None, "fp16 runs on every CUDA GPU; compute capability not given"),
            BF16: _row(None, None, "bf16 is native from compute capability 8.0; not given"),
        }
    cc = (int(match.group(1)), int(match.group(2)))
    fp16_native = cc >= (7, 0)
    return {
        FP16: _row(
            True,
            fp16_native,
            "fp16 tensor cores" if fp16_native else f"sm_{cc[0]}{cc[1]} has no fp16 tensor cores",
        ),
        BF16: _row(
            True,
            cc >= (8, 0),
            "bf16 tensor cores"
            if cc >= (8, 0)
            else f"sm_{cc[0]}{cc[1]} emulates bf16 (native from sm_80): slower than fp16",
        ),
    }


def _cpu_rows(cpu_flags: Iterable[str] | None) -> dict[str, dict]:
    if cpu_flags is None:
        return {
            BF16: _row(True, None, "bf16 autocast works on every CPU; CPU flags not given"),
            FP16: _row(
                True,
                None,
                "fp16 autocast works, but without avx512_fp16/amx_fp16 fp16 "
                "convolutions run ~20x slower than fp32; CPU flags not given",
            ),
        }
    flags = set(cpu_flags)
    bf16 = sorted(flags.intersection(_CPU_BF16_FLAGS))
    fp16 = sorted(flags.intersection(_CPU_FP16_FLAGS))
    return {
        BF16: _row(
            True,
            bool(bf16),
            f"native bf16 ({', '.join(bf16)})"
            if bf16
            else "emulated: no avx512_bf16/amx_bf16, bf16 goes through fp32 and may not beat it",
        ),
        FP16: _row(
            True,
            bool(fp16),
            f"native fp16 ({', '.join(fp16)})"
            if fp16
            else "works, but without avx512_fp16/amx_fp16 fp16 convolutions run ~20x slower "
            "than fp32",
        ),
    }


_DEFAULT = {"cpu": BF16, "cuda": FP16, "npu": FP16}


def supported_dtypes(
    device_type: str, chip_name: str | None = None, cpu_flags: Iterable[str] | None = None
) -> dict:
    """Which low-precision dtypes `device_type` supports, which amp uses by default, and why.

    `chip_name`: the Ascend chip (npu) or the compute capability "8.0" (cuda); `cpu_flags`: the
    flags of /proc/cpuinfo (cpu). JSON-serialisable; `supported`/`native` are None when unknown.
    """
    if device_type == "npu":
        rows = _npu_rows(chip_name)
    elif device_type == "cuda":
        rows = _cuda_rows(chip_name)
    elif device_type == "cpu":
        rows = _cpu_rows(cpu_flags)
    else:
        raise ValueError(f"ampenv.amp supports cpu, cuda and npu devices, not {device_type!r}")
    default = _DEFAULT[device_type]
    for name, row in rows.items():
        row["recommended"] = name == default and row["native"] is not False
    return {"device_type": device_type, "chip": chip_name, "default": default, "dtypes": rows}


def choose_dtype(device: AmpDevice, requested: torch.dtype | None = None) -> torch.dtype:
    """The low-precision dtype for `device`: its default, or `requested` if the chip has it."""
    table = supported_dtypes(device.device.type, device.chip)
    if requested is None:
        return LOW_PRECISION[table["default"]]
    names = {dtype: name for name, dtype in LOW_PRECISION.items()}
    if requested not in names:
        raise ValueError(f"dtype must be torch.float16 or torch.bfloat16, not {requested}")
    row = table["dtypes"][names[requested]]
    if row["supported"] is False:
        raise ValueError(f"{names[requested]} is not available on this device: {row['reason']}")
    return requested
