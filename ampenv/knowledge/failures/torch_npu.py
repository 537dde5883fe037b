"""torch_npu against torch and the Python stack around it (triton, torchvision, CUDA builds, an
interpreter built without its own C modules)."""

from __future__ import annotations

import re

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import CLASS, KB, Failure, Source

# Python's warnings ("pandas/compat/__init__.py:84: UserWarning: ..."): the program goes on
_WARNING = re.compile(r"\b\w{0,40}Warning: ?$")


def _not_a_python_warning(m: re.Match[str]) -> bool:
    return _WARNING.search(m.string, 0, m.start()) is None


PAIR_FIX = (
    'pip install "torch==X.Y.*" "torch-npu==<the release paired with that torch and the '
    'installed CANN>" (the Ascend/pytorch README table; `ampenv doctor --only python.stack` '
    "names it)"
)
# _ZNK / _ZNV / _ZNR: a const, volatile or ref-qualified member function of the same namespaces.
TORCH_SYMBOLS = r"_ZN[KVRO]{0,3}(?:3c10|2at|5torch|5caffe2|4c10d)"
# torch_npu's own C++ namespaces: an extension linking them was built against one torch_npu.
TORCH_NPU_SYMBOLS = r"_ZN[KVRO]{0,3}(?:7c10_npu|6at_npu|9torch_npu|6op_api|9op_plugin)"

FAILURES = (
    Failure(
        id="npu-helper-version",
        mode="torch-pairing",
        component="python",
        # Hugging Face libraries' NPU helpers, imported by the projects built on them
        patterns=(
            r"cannot import name '(?:is_npu_available|is_torch_npu_available|is_npu_bf16_available)"
            r"' from '(?:accelerate|transformers)\b",
            r"cannot import name '(?:index_first_axis|pad_input|unpad_input|rearrange)' from "
            r"'transformers\.integrations\.npu_flash_attention'",
        ),
        codes=(),
        meaning="a project imports an NPU helper from accelerate or transformers that the "
        "installed release does not hold: the helper is newer than that release (accelerate's "
        "is_npu_available came in 0.21), or the release moved it (transformers' releases after "
        "4.55.0 moved npu_flash_attention's index_first_axis, pad_input and unpad_input to "
        "modeling_flash_attention_utils)",
        causes=(
            "accelerate or transformers older than the project needs (a requirements file that "
            "pins an old one, or another environment's package found first)",
            "transformers newer than the project was written for (a helper it moved)",
        ),
        fix="install the accelerate and transformers releases the project asks for: `pip show "
        "accelerate transformers` in the same Python, then `pip install -U 'accelerate>=0.21'` "
        "(or the project's pin: sentence-transformers needs transformers >= 4.41), or for a "
        "moved helper update the project (verl's fix: its PR 3596) or pin transformers to the "
        "last release that held it (4.55.0)",
        confirm="python.stack",
        sources=(
            Source("https://github.com/huggingface/peft/pull/892", "maintainer"),
            Source(
                "https://github.com/huggingface/sentence-transformers/issues/3143", "maintainer"
            ),
            Source("https://github.com/verl-project/verl/pull/3596", "maintainer"),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="torch-npu-not-imported",
        mode="torch-pairing",
        component="torch_npu",
        # c10/core/Device.cpp: the device types torch knows, and the string it could not parse
        patterns=(
            r"(?i:error)[^\n]{0,200}?Expected one of [^\n]{0,400}device type at start of device "
            r"string: npu\b",
            # torch itself has no `npu` attribute: torch_npu adds it when imported
            r"module 'torch' has no attribute 'npu'",
            # code that names torch_npu where its import was skipped or swallowed (a tool's
            # try/except around it: msprobe's kernel dump)
            r"\bNameError\s?[:：]\s?name 'torch_npu' is not defined",
        ),
        codes=(),
        # an INFO or WARNING line saying so is a library probing for the NPU and going on
        judge=in_error_record,
        meaning="torch does not know the NPU (the 'npu' device, torch.npu): torch_npu, which "
        "registers it, was not imported in this process (or is not installed, or failed to "
        "load)",
        causes=(
            "the program uses 'npu' without importing torch_npu (torch before 2.5 does not load "
            "it on its own; from 2.5 only an installed torch_npu is loaded, and "
            "TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns that off)",
            "torch_npu not installed in this Python, or its import failed earlier in the log",
            "NPU code run on a machine without the NPU stack (a GPU or CPU node)",
        ),
        fix="import torch_npu before the first 'npu' device string or torch.npu call (in the "
        "entry script, and in each file a worker or a test collector imports first), or rely "
        "on torch >= 2.5 loading it: `pip show torch-npu` in the same Python; then `python -c "
        '"import torch, torch_npu; print(torch.npu.is_available())"` names what fails; code '
        "meant for other machines too guards it with hasattr(torch, 'npu')",
        confirm="python.stack",
        sources=(
            Source("pytorch/pytorch c10/core/Device.cpp (parse_type: device string)", "official"),
            Source(
                "https://github.com/opendatalab/MinerU/issues/2665 (MinerU on a 910B: 'npu' "
                "rejected, torch_npu not imported)",
                "report",
            ),
            Source(
                "Ascend/mstt debug/accuracy_tools/msprobe/docs/zh/faq.md (its kernel dump "
                "without torch_npu installed: NameError of torch_npu)",
                "official",
            ),
            Source(
                "a triton-ascend tutorial's exercise (the public file index's id 63027293454): "
                "torch.npu before and after import torch_npu",
                "report",
            ),
            Source(
                "a PyPTO kernels project's conftest.py (the public file index's id "
                "69556091335): torch_npu imported at the top, else collection fails so",
                "report",
            ),
        ),
        hints=("error", "no attribute"),
    ),
    Failure(
        id="half-on-cpu",
        mode="torch-pairing",
        component="torch",
        # ATen's dispatch message for a dtype a CPU kernel lacks ("addmm_impl_cpu_",
        # "slow_conv2d_cpu"): the tensors are on the CPU, whatever the node holds
        patterns=(r"\"\w{1,60}_cpu_?\" not implemented for '(?:Half|BFloat16|ComplexHalf)'",),
        codes=(),
        meaning="a half-precision operator ran on the CPU, which has no kernel for it in this "
        "torch: the model or its inputs are on the CPU, not on the NPU",
        causes=(
            "torch_npu not installed or not imported, so the script's device choice fell back "
            "to the CPU (`cuda if torch.cuda.is_available() else cpu` is always the CPU on an "
            "NPU node)",
            "the model loaded in half precision but never moved to the NPU (no .to(device), a "
            "device_map the framework does not apply to the NPU), or inputs made on the CPU",
            "a run meant for the CPU loading half-precision weights",
        ),
        fix='`python -c "import torch, torch_npu; print(torch.npu.is_available())"` in the '
        "job's Python (install or import torch_npu if it fails); move the model and its inputs "
        "to the NPU: `model.to('npu:0')`, or `from torch_npu.contrib import transfer_to_npu` "
        "at the top of a script that asks for cuda; a run meant for the CPU loads the model "
        "in float32 (`model.float()`)",
        confirm="python.stack",
        sources=(
            Source(
                "https://github.com/deepseek-ai/Janus/issues/200 (a 910A: the error gone once "
                "torch-npu was installed)",
                "report",
            ),
            Source("https://github.com/zai-org/VisualGLM-6B/issues/30", "maintainer"),
            Source("https://github.com/huggingface/transformers/issues/27769", "maintainer"),
        ),
        hints=("not implemented",),
    ),
    Failure(
        id="torch-npu-undefined-symbol",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(
            rf"libtorch_npu\.so[\w.]{{0,12}}:? undefined symbol: {TORCH_SYMBOLS}\w{{0,400}}",
        ),
        codes=(),
        meaning="torch_npu was built for another torch (another release, or the other C++ "
        "ABI): a torch symbol it links against is missing from the installed torch",
        causes=(
            "torch upgraded or downgraded without its paired torch_npu",
            "torch_npu (or torch) built from source with the other C++ ABI "
            "(_GLIBCXX_USE_CXX11_ABI 0 against 1): the missing name then holds std::string "
            "(basic_string, __cxx11, or Ss in the old ABI's spelling)",
        ),
        fix=PAIR_FIX + "; a source build: compare the ABIs (python -c 'import torch; "
        "print(torch.compiled_with_cxx11_abi())', GLIBCXX_USE_CXX11_ABI in torch_npu's "
        "build/compile_commands.json) and rebuild torch_npu with export "
        "_GLIBCXX_USE_CXX11_ABI=<1 if True, else 0>",
        confirm="python.stack",
        sources=(
            Source("https://github.com/Ascend/pytorch/issues/35", "maintainer"),
            Source(
                "Ascend/pytorch docs/zh/developer_notes/operator_dispatch/"
                "compilation_optimization/compilation_optimization_faq.md"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (an undefined symbol with "
                "basic_string in it: the C++11 ABI differs)",
                "official",
            ),
            Source(
                "shared/reference/ascend-facts.md §3 (torch_npu X.Y needs torch X.Y)", "official"
            ),
        ),
        hints=("undefined symbol",),
    ),
    Failure(
        id="torch-backend-autoload",
        mode="torch-pairing",
        component="torch",
        patterns=(r"Failed to load the backend extension: torch_npu",),
        codes=(),
        meaning="torch >= 2.5 imports torch_npu on `import torch` and that import failed; the "
        "lines before it name the reason (a missing CANN library, an unpaired torch_npu)",
        causes=(
            "CANN environment not sourced",
            "torch_npu not paired with torch",
            "torch_npu installed in an environment meant for CPU or CUDA only",
            "a library path exported for another tool that shadows what torch_npu loads (the "
            "driver's lib64 exported globally for npu-smi; a system libstdc++ before conda's)",
        ),
        fix='python -c "import torch_npu" shows the cause; for CPU-only use of this environment: '
        "export TORCH_DEVICE_BACKEND_AUTOLOAD=0",
        confirm="python.stack",
        sources=(
            Source("pytorch/pytorch torch/__init__.py _import_device_backends", "official"),
            Source("https://github.com/flashserve/flash-linear-attention-npu/issues/2", "report"),
        ),
        hints=("fail",),
        rank=CLASS,
    ),
    Failure(
        id="triton-install-broken",
        mode="torch-pairing",
        component="triton-ascend",
        # torch._dynamo and vLLM import triton when a "triton" package is present; the
        # triton-ascend wheel ships the whole triton/ namespace, so a half-removed one breaks
        # `import torch` itself (through the torch_npu autoload)
        patterns=(
            r"module 'triton' has no attribute '(?:language|jit|runtime|compiler)'",
            r"No module named 'triton\._C\.libtriton\.ascend'",
            r"'triton\._C\.libtriton' is not a package",
            # a half-installed tree, or upstream triton's backends beside triton-ascend's
            r"cannot import name '\w{1,40}' from 'triton(?:\.backends\.compiler)?' \(",
            r"cannot import name '\w{1,40}' from 'triton\.backends\.compiler'",
        ),
        codes=(),
        meaning="the triton package in this environment is broken: it imports without its "
        "parts (on Ascend, triton and triton-ascend install into the same triton/ directory, "
        "so removing or installing one over the other leaves such a triton)",
        causes=(
            "upstream triton uninstalled after triton-ascend (vllm-ascend#7790: `pip uninstall "
            "triton` took triton-ascend's files with it)",
            "upstream triton installed over triton-ascend (triton-ascend#395: its libtriton "
            "extension replaced triton-ascend's package directory)",
            "elsewhere (CUDA, CPU): an interrupted or mixed install of triton and pytorch-triton",
        ),
        fix="on Ascend, remove both and reinstall triton-ascend alone: pip uninstall -y triton "
        "triton-ascend && pip install triton-ascend==<the release paired with your CANN and "
        "vllm-ascend>, after anything that pulls in upstream triton; elsewhere: pip uninstall "
        "-y triton pytorch-triton (until neither imports), then install the triton your torch "
        "names (pip show torch: Requires)",
        confirm="python.stack",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/pull/7790", "maintainer"),
            Source("https://github.com/triton-lang/triton-ascend/pull/395", "maintainer"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/12954", "maintainer"),
        ),
        hints=("no attribute", "no module named", "cannot"),
    ),
    Failure(
        id="torch-npu-unpaired-attr",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(
            r"module '(?:torch_npu|torch\.npu)(?:\.[\w.]{1,60})?' has no attribute '\w{1,80}'",
        ),
        codes=(),
        meaning="code expects a torch_npu API this torch_npu lacks: either the torch_npu release "
        "does not match torch (or the framework calling it), or torch, torch_npu and the "
        "framework are paired and the API was moved, renamed or removed in this torch_npu "
        "release (or is newer than it)",
        causes=(
            "a torch_npu older or newer than the one paired with torch or the framework",
            "the API moved or is gone in this torch_npu release: a code change, not a reinstall "
            "(ascend-pytorch#53: torch_npu.npu.profile; the maintainer pointed to the profiling "
            "API documented for that release)",
            "an operator this torch_npu release does not ship (ascend-pytorch#23: npu_geglu)",
        ),
        fix="check the pairing first: `ampenv doctor --only python.stack`; if torch and torch_npu "
        "are not paired: " + PAIR_FIX + "; if they are paired, the API moved or is missing in "
        "this release: change the code to the API the torch_npu documentation of this release "
        "gives (Ascend/pytorch docs, API list), or install the torch_npu release the code was "
        "written for",
        confirm="python.stack",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/340", "maintainer"),
            Source("https://github.com/flashserve/flash-linear-attention-npu/issues/2", "report"),
            Source("https://github.com/Ascend/pytorch/issues/53", "maintainer"),
            Source("https://github.com/Ascend/pytorch/issues/23", "maintainer"),
        ),
        hints=("no attribute",),
    ),
    Failure(
        id="torch-npu-wheel-not-found",
        mode="torch-pairing",
        component="pip",
        patterns=(
            r"No matching distribution found for torch[-_]npu\b",
            # pip's line before it, pasted alone
            r"Could not find a version that satisfies the requirement torch[-_]npu\b",
            # a wheel file built for another Python or architecture
            r"torch[-_]npu\S{0,200}\.whl is not a supported wheel on this platform",
        ),
        codes=(),
        meaning="pip found no torch_npu wheel for this Python and platform: each release is built "
        "for a few Python versions (and x86_64 / aarch64 Linux only), and some mirrors do not "
        "carry it; a wheel file given by name was built for another Python or architecture",
        causes=(
            "a Python version the release has no wheel for (torch-npu 2.1.0: cp38-cp310), or a "
            "wheel built (ci/build.sh --python=3.x) or downloaded for another Python",
            "a package index or mirror without torch-npu",
            "a version string that does not exist (torch-npu==X.Y.Z.postN: the Ascend/pytorch "
            "releases list them)",
        ),
        fix="pick the torch_npu release paired with your torch and CANN, in a Python it has "
        "wheels for; install from PyPI (pip install torch-npu==<release> -i "
        "https://pypi.org/simple) or the wheel from the Ascend/pytorch releases (its cpXY and "
        "arch in the file name: this Python's); a wheel you build: bash ci/build.sh "
        "--python=<this Python's 3.x>",
        confirm="python.stack",
        sources=(
            Source("https://github.com/Ascend/pytorch/issues/18", "report"),
            Source(
                "Ascend/pytorch docs/zh/installation_guide/faq.md"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (not a supported wheel)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="torch-npu-not-installed",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(
            r"No module named '?torch_npu'?(?![.\w])",
            # DeepSpeed's NPU accelerator (DS_ACCELERATOR=npu), which imports it
            r"Error: NPU_Accelerator requires torch_npu, which is not installed",
        ),
        codes=(),
        meaning="this Python has no torch_npu: it is not installed in the environment that runs, "
        "or another interpreter runs than the one it was installed into",
        causes=(
            "torch-npu never installed in this venv / conda env / image",
            "a second Python on PATH (python vs python3, a venv not activated)",
        ),
        fix="`python -m pip show torch-npu` with the same python that fails; install the release "
        'paired with torch and CANN: pip install "torch-npu==<the release paired with torch>" '
        "(`ampenv doctor --only python.stack` names it)",
        confirm="python.stack",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/166", "report"),
            Source(
                "deepspeedai/DeepSpeed accelerator/real_accelerator.py"
                "@edaa7221267243c7be7fb49c5d5f5c4fb97b4641",
                "official",
            ),
        ),
        hints=("no module named", "error"),
    ),
    Failure(
        id="torch-npu-python-deps",
        mode="torch-pairing",
        component="torch_npu",
        # read through the Python-module family: the module torch_npu's own file imported
        patterns=(),
        codes=(),
        meaning="torch_npu's import needs a Python package this environment lacks (PyYAML or "
        "numpy): torch_npu's own requirements, which older wheels did not declare, so pip "
        "did not install them; from torch 2.6 it shows inside `import torch`, as the backend "
        "autoload's failure",
        causes=(
            "a torch_npu wheel that does not declare its requirements (2.7.1 and older), "
            "installed into a fresh environment",
            "the package removed or shadowed after torch_npu was installed",
        ),
        fix="install what torch_npu imports: pip install pyyaml numpy (numpy < 2 for torch_npu "
        "releases built against numpy 1); then `python -c 'import torch, torch_npu'`",
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/pytorch requirements.txt (pyyaml) and torch_npu 2.13.0's METADATA "
                "(Requires-Dist: numpy, pyyaml)",
                "official",
            ),
            Source(
                "an Ascend verification log, issue 1 (the public file index's id 67264106926): "
                "torch-npu 2.7.1 without pyyaml",
                "report",
            ),
        ),
        hints=(),
    ),
    Failure(
        id="npu-in-forked-subprocess",
        mode="torch-pairing",
        component="torch_npu",
        # torch_npu's _lazy_init in a child forked after the parent initialised the NPU
        patterns=(r"Cannot re-initialize NPU in forked subprocess",),
        codes=(),
        meaning="a process forked from one that had initialised the NPU tried to use it: the NPU "
        "runtime does not survive fork, so torch_npu refuses",
        causes=(
            "multiprocessing's default start method (fork on Linux): DataLoader workers, a "
            "process pool or a server's workers (vLLM's) touching the NPU",
            "the parent using the NPU before it starts its workers",
        ),
        fix="start workers with spawn: multiprocessing.set_start_method('spawn') (DataLoader: "
        "multiprocessing_context='spawn'; vLLM: VLLM_WORKER_MULTIPROC_METHOD=spawn), or keep "
        "NPU work out of forked children and out of the parent before it forks",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/npu/__init__.py@9e73e708ab9350d203475609f36f8a43f6a0c2ab "
                "(_lazy_init)",
                "official",
            ),
            Source(
                "a CosyVoice-on-910B4 deployment document, pitfall 6 (the public file index's id "
                "55330978430): VLLM_WORKER_MULTIPROC_METHOD=spawn",
                "report",
            ),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="two-accelerators",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(r"Two accelerators cannot be used at the same time(?: in PyTorch)?: \w{1,20}",),
        codes=(),
        meaning="torch_npu claims PyTorch's one accelerator slot at import and found it taken: "
        "by a CUDA (or other) build of torch ('npu and cuda'), or by torch_npu itself, registered "
        "twice ('npu and npu')",
        causes=(
            "torch is a CUDA build: torch_npu needs the CPU build of torch",
            "torch_npu imported twice: torch's backend autoload and an extension that loads "
            "libtorch_npu first",
        ),
        fix="'npu and cuda': reinstall the CPU build of the same torch "
        "(pip install torch==<version> --index-url https://download.pytorch.org/whl/cpu); "
        "'npu and npu': export TORCH_DEVICE_BACKEND_AUTOLOAD=0 and `import torch_npu` before "
        "the extension",
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/__init__.py _check_device_conflict (message literal)",
                "official",
            ),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="cuda-build-installed",
        mode="torch-pairing",
        component="torch",
        # an import that failed, not torchvision's warning that its image extension did not
        # load (healthy runs print that one)
        patterns=(
            r"(?:OSError|ImportError): [^\n]{0,300}?\blib(?:torch_cuda|c10_cuda)\.so[\w.]{0,20}: "
            r"cannot open shared object",
        ),
        codes=(),
        meaning="a CUDA build of torch, or of a library built on it (torchvision, torchaudio, an "
        "extension's wheel), is installed on an NPU node: it needs libtorch_cuda.so, which the "
        "CPU build of torch that torch_npu pairs with does not have",
        causes=(
            "torch or its companions installed from the default index (a CUDA build) instead of "
            "the CPU wheels",
            "torchvision or torchaudio of a CUDA build beside a CPU torch",
        ),
        fix="pip uninstall torch torchvision torchaudio, then install the CPU builds of the "
        "versions torch_npu pairs with: pip install torch==<v> torchvision==<v> torchaudio==<v> "
        "--index-url https://download.pytorch.org/whl/cpu",
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/AgentSDK docs/zh/aura/07_faq.md@2e9d735102ddb398dd3ce71eed6a80485e619037",
                "official",
            ),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="torch-npu-pip-conflict",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(r"(?:torch[-_]npu|vllm[-_]ascend) \S{1,40} depends on torch==\S{1,40}",),
        codes=(),
        meaning="pip cannot install torch_npu (or a package built on it) with the torch asked "
        "for: each torch_npu release pins one torch release, on x86_64 its CPU build (+cpu), "
        "and another requirement pins a different torch (a plain torch==X from PyPI, an extra, "
        "vLLM's CUDA build)",
        causes=(
            "torch asked for from PyPI (the CUDA build) where torch_npu needs torch==X+cpu",
            "another package pins a torch release torch_npu has no build for",
        ),
        fix="install the paired torch first from the CPU index (pip install torch==<v>+cpu "
        "--index-url https://download.pytorch.org/whl/cpu), then the torch_npu of the same "
        "release; install what pins another torch without its pin (pip install --no-deps, an "
        "extra left out; vLLM built with VLLM_TARGET_DEVICE=empty)",
        confirm="python.stack",
        sources=(
            Source("https://github.com/hiyouga/LlamaFactory/issues/5763", "report"),
            Source("https://github.com/flagos-ai/FlagTree/issues/537", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/9225", "report"),
        ),
        hints=("depends on torch",),
    ),
    Failure(
        id="task-queue-relayed-error",
        mode="core-exception",
        component="torch_npu",
        # an old torch_npu's task queue thread, dying on an operator's failure it relays
        patterns=(r"\bHelpACLExecute\b",),
        codes=(),
        meaning="an operator launched through torch_npu's task queue failed on the queue's own "
        "thread (HelpACLExecute, in torch_npu 1.x): the error it relays names no operator, "
        "and the Python stack is not where it failed",
        causes=(
            "the operator's own failure (its parameters or inputs, an operator the CANN "
            "release lacks): the plog and a synchronous rerun name it",
        ),
        fix="rerun with `export ASCEND_LAUNCH_BLOCKING=1` (operators run synchronously, the "
        "failing one raises with its own stack), and read the first ERROR of the plog "
        "(~/ascend/log/debug/plog, or /var/log/npu/slog/host-0 on old releases; "
        "ASCEND_GLOBAL_LOG_LEVEL=3, ASCEND_SLOG_PRINT_TO_STDOUT=1 print it)",
        confirm=None,
        sources=(
            Source(f"{KB}, index id 54193777819 (task queue hides the error)", "official"),
            Source(f"{KB}, index id 53849510170 (ret = 500000)", "official"),
        ),
        hints=("error", "ret"),
    ),
    Failure(
        id="torch-cpu-wheel-not-on-pypi",
        mode="torch-pairing",
        component="pip",
        # torch_npu's x86_64 wheels require torch's CPU build by its local version
        patterns=(r"No matching distribution found for torch==[\w.]{1,20}\+cpu\b",),
        codes=(),
        meaning="pip could not install the torch that torch_npu requires: torch_npu's x86_64 "
        "wheels pin torch's CPU build (torch==X.Y.Z+cpu), which PyPI does not carry, only "
        "PyTorch's own CPU index",
        causes=("torch_npu installed into an environment without that torch, from PyPI alone",),
        fix="install that torch first from PyTorch's CPU index, then torch_npu: pip install "
        '"torch==X.Y.Z+cpu" --index-url https://download.pytorch.org/whl/cpu, then pip '
        'install "torch-npu==X.Y.Z" (or give pip that index with --extra-index-url)',
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/triton-ascend docs/zh/installation_guide.md"
                "@eeb030e7bb71f8a251c5d378dbe2977e8b8dbb83 (安装torch_npu)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="python-built-incomplete",
        mode="cann-env",
        component="python",
        # its modules are the python-module family's (installs.json: python-build); a build
        # script's words for a Python without _lzma (pandas warns so and goes on: a mention)
        patterns=(r"Could not import the lzma module",),
        judge=_not_a_python_warning,
        codes=(),
        meaning="this Python lacks a C module of its own standard library (_ctypes, _ssl, "
        "_bz2, _lzma, _sqlite3, zlib): it was built from source before the library's headers "
        "were installed, or another interpreter's standard library is first on its path",
        causes=(
            "a Python compiled without the headers its modules need (libffi for _ctypes, "
            "OpenSSL for _ssl, bzip2, xz, SQLite, zlib), as a source build on a fresh node is",
            "two interpreters mixed: PATH, PYTHONPATH or LD_LIBRARY_PATH naming another "
            "Python's library (_struct, always built, is missing only so)",
        ),
        fix="install the headers (Ubuntu/Debian: libffi-dev libssl-dev libbz2-dev liblzma-dev "
        "libsqlite3-dev zlib1g-dev; openEuler/CentOS: libffi-devel openssl-devel bzip2-devel "
        "xz-devel sqlite-devel zlib-devel), then rebuild and reinstall that Python (./configure "
        "--enable-shared && make && make install) or use a packaged one; two interpreters "
        "mixed: run the one the job's packages are for, its paths first in PATH and PYTHONPATH; "
        "check: python3 -c 'import ctypes, ssl, bz2, lzma, sqlite3, zlib'",
        confirm="python.stack",
        sources=(
            Source(
                "python/devguide getting-started/setup-building.rst"
                "@b28b06616e2a233d42a7d68bea8d554fd253439f (Install dependencies)",
                "official",
            ),
            Source(
                "https://www.hiascend.com/document/detail/en/ModelZoo/pytorchframework/ptes/"
                "ptes_00008.html (the dependencies checked before Python is installed)",
                "official",
            ),
            Source("index id 181683507 (CentOS 7: _ctypes without libffi-devel)", "report"),
            Source(
                "hicann/tensorflow tf_adapter/README.md@82957b92d1ade2f48ca51dda811f0baec23b04c7 "
                "(FAQ 2: Could not import the lzma module)",
                "official",
            ),
        ),
        hints=("no module named",),
    ),
    Failure(
        id="fused-optimizer-set-to-none",
        mode="torch-pairing",
        component="torch_npu",
        # torch_npu's NpuFused* optimizers keep every gradient in one combined buffer: their
        # zero_grad raises for set_to_none=True (their own default is False)
        patterns=(r"set_to_none is not supported(?: in fused optimizers)?",),
        codes=(),
        meaning="a torch_npu fused optimizer (NpuFusedAdamW, NpuFusedSGD, ...) was asked to "
        "drop its gradients (zero_grad(set_to_none=True)): it keeps them in one combined "
        "buffer and can only zero them",
        causes=(
            "a training loop or a trainer that calls zero_grad(set_to_none=True), as code "
            "written for torch's optimizers (whose default it is since torch 2.0) does",
        ),
        fix="call optimizer.zero_grad(set_to_none=False) (a trainer: its option for it), or use "
        "the torch optimizer (torch.optim.AdamW(..., foreach=True)) instead of the NpuFused one",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/optim/npu_fused_optim_base.py"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (zero_grad)",
                "official",
            ),
            Source(
                "github.com/mindspore-lab/mindspore-skills torch-npu-debugger/references/"
                "issue_patterns.md@bc95b42981432592030f7e2f2d137cb7250d6060 (section 12)",
                "report",
            ),
        ),
        hints=("not support",),
    ),
)
