"""Real apex / Ascend apex training loops, import changed only, trained on ampenv.amp and
compared with the same loop on torch.autocast + torch.amp.GradScaler (CPU, bf16)."""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path
from types import ModuleType

import pytest

LOOPS = Path(__file__).parent / "fixtures" / "amp_loops"
STEPS = 6

# (fixture, the script's options as amp.initialize / train() receive them, relative tolerance).
# O1 keeps fp32 weights as torch.autocast does: the two agree to rounding. O2 trains bf16
# weights against fp32 masters, which torch.amp does not do: a percent apart after a few steps.
CASES = [
    ("apex_simple", {"opt_level": "O1"}, 1e-4),
    ("apex_simple", {"opt_level": "O2", "loss_scale": 128.0, "combine_grad": True}, 3e-2),
    ("apex_dcgan", {"opt_level": "O1"}, 1e-3),
    ("apex_dcgan", {"opt_level": "O2"}, 3e-2),
    ("ascend_main_amp_npu", {"opt_level": "O2", "loss_scale": 128.0, "combine_grad": True}, 3e-2),
    ("ascend_main_amp_npu", {"opt_level": "O1", "loss_scale": None, "combine_grad": None}, 1e-3),
    ("transformers_run_glue", {"fp16_opt_level": "O1"}, 1e-3),
    ("transformers_run_glue", {"fp16_opt_level": "O2"}, 3e-2),
]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"amp_loop_{name}", LOOPS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("name", "options", "rtol"), CASES, ids=[f"{n}-{o}" for n, o, _ in CASES]
)
def test_loop_runs_unchanged_and_trains_like_torch_amp(
    name: str, options: dict, rtol: float
) -> None:
    loop = load(name)
    ours = loop.train(**loop.build(seed=0), steps=STEPS, **options)
    theirs = loop.reference(**loop.build(seed=0), steps=STEPS)
    assert all(math.isfinite(v) for v in ours) and len(ours) == len(theirs)
    assert ours != ours[:1] * len(ours)  # the loop trained
    assert ours == pytest.approx(theirs, rel=rtol, abs=rtol)


def test_every_loop_names_its_source() -> None:
    for path in LOOPS.glob("*.py"):
        text = path.read_text()
        assert re.search(r"^\S+/\S+ \S+\.py\s+@ [0-9a-f]{40}", text.split('"""')[1])
        assert "from ampenv import amp  # was: from apex import amp" in text
