"""Entries that read a language's words (Python's, for releases not paired and imports that
found something else): they speak only where no other entry, and no Fault-Diag rule, reads the
line."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_ampenv

from ampenv.knowledge.failures import BY_ID, scan_lines


def _ids(*lines: str) -> list[str]:
    return [h.id for h in scan_lines(list(lines), "t")]


def test_python_words_alone_are_the_fallbacks_finding() -> None:
    assert _ids("TypeError: f() got an unexpected keyword argument 'x'") == ["python-api-drift"]
    assert _ids("ModuleNotFoundError: No module named 'vllm.lora.models'") == ["python-api-drift"]
    assert _ids("ImportError: cannot import name 'X' from 'vllm' (unknown location)") == [
        "python-module-shadowed"
    ]
    assert BY_ID["python-api-drift"].fallback and BY_ID["python-module-shadowed"].fallback


def test_a_line_a_package_entry_reads_is_that_entrys_alone() -> None:
    # torch_npu's own attribute, numpy's removed alias, a submodule of CANN's te
    for line, entry in (
        (
            "AttributeError: module 'torch_npu' has no attribute 'npu_geglu'",
            "torch-npu-unpaired-attr",
        ),
        ("AttributeError: module 'numpy' has no attribute 'float_'", None),
        ("ModuleNotFoundError: No module named 'tbe.common'", None),
    ):
        ids = _ids(line)
        assert ids and "python-api-drift" not in ids, (line, ids)
        assert entry is None or ids == [entry]


def test_a_fault_diag_rule_reads_before_the_fallback() -> None:
    # vllm-ascend's rule for a quantization config called with weights of another scheme
    line = (
        "TypeError: AscendCompressedTensorsConfig.__init__() missing 3 required positional "
        "arguments: 'target_scheme_map', 'ignore', and 'quant_format'"
    )
    ids = _ids("INFO vllm_ascend platform plugin loaded", line)
    assert ids and "python-api-drift" not in ids, ids
    assert ids[0].startswith("fault-diag-AISW_VLLM")


def test_private_submodules_and_dunders_are_not_an_api_a_release_lacks() -> None:
    # vLLM's healthy warning on NPU nodes: its CUDA extension is not built there
    assert (
        _ids(
            "Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")"
        )
        == []
    )
    # a package without __version__ is a bare folder of that name, not an older release
    assert _ids("AttributeError: module 'vllm' has no attribute '__version__'") == [
        "python-module-shadowed"
    ]


def test_a_call_a_logger_wrapped_is_read_and_the_finding_shows_its_line(tmp_path: Path) -> None:
    # vLLM's engine logs the exception's text without its class
    line = (
        "ERROR 03-20 11:08:38 [engine.py:448] Qwen2ForCausalLM.forward() got an unexpected "
        "keyword argument 'kv_caches'"
    )
    assert _ids(line) == ["python-api-drift"]
    log = tmp_path / "job.log"
    log.write_text(line + "\n", encoding="utf-8")
    ran = run_ampenv("doctor", "--only", "logs.errors", "--log", str(log), "-f", "json")
    (check,) = [c for c in json.loads(ran.stdout)["checks"] if c["id"] == "logs.errors"]
    # the meaning is Python's class of failure: the line says which call
    assert "forward() got an unexpected keyword argument 'kv_caches'" in check["summary"]


def test_a_program_that_logs_the_failure_and_goes_on_handled_it() -> None:
    # real healthy starts (vllm-ascend, vLLM, SGLang): a record below ERROR, an import a
    # program tries and does without, an extension not built for this machine
    for line in (
        "WARNING 06-28 08:28:13 camem.py:69] Failed to import vllm_ascend_C:No module named "
        "'vllm_ascend.vllm_ascend_C'",
        "ERROR 04-28 16:10:09 camem.py:69] Failed to import vllm_ascend_C:No module named "
        "'vllm_ascend.vllm_ascend_C'",
        "ERROR 05-07 10:21:11 [config.py:29] Failed to import Triton kernels. Please make sure "
        "your triton version is compatible. Error: No module named 'triton.language.target_info'",
        "[2026-03-13 21:35:18] Ignore import error when loading sglang.srt.models.glmasr: cannot "
        "import name 'GlmAsrConfig' from 'transformers' (/usr/lib/transformers/__init__.py)",
        "INFO 03-01 10:00:00 probe: module 'torch' has no attribute 'npu', falling back to CPU",
    ):
        assert _ids(line) == [], line
    # an exception raised with those words is a failure still
    raised = (
        "RuntimeError: Failed to import transformers.trainer because of the following error "
        "(look up to see its traceback): cannot import name 'find_tied_parameters' from "
        "'accelerate'"
    )
    assert _ids(raised) == ["python-api-drift"]
    # a repr of the exception reads as the exception
    assert _ids("error=TypeError(\"f() got an unexpected keyword argument 'x'\")") == [
        "python-api-drift"
    ]
