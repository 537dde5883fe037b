"""Python's own words for code and a library of releases not made for each other: a call with
an argument the installed function does not take, an attribute or a submodule the installed
release lacks, and an import that found something else than the package (a source checkout, a
file named like it); and the loader's
words for a shared library it cannot find, where no package's entry names the library.

These are the frameworks' pairings above torch_npu (vllm beside vllm-ascend, transformers
beside MindSpeed or LLaMA-Factory, torch beside vllm) in the words every Python program prints,
so the entries are fallbacks: where a package's own entry reads the line (torch_npu's
attributes, triton's, numpy's removed aliases, a module CANN installs) or a Fault-Diag rule
does, that reading stands alone. A program that logs the failure and goes on (a record below
ERROR, "Failed to import ...", "Ignore import error ...", a test pytest skipped) handled it: a
mention.
"""

from __future__ import annotations

import re

from ampenv.knowledge.failures.lines import below_error
from ampenv.knowledge.failures.model import CLASS, Failure, Source

# What comes before a call Python names in its TypeError: the exception's own ": " (or a repr's
# "('"), or a logger's ERROR record up to its "] " ("ERROR 03-20 11:08:38 [engine.py:448] ").
# From each "error" in a line one place is tried, a few letters long: a line of "error" words
# costs no more than its length.
CALLED = r"error\b(?::\s?|\(['\"]| [\d\s:.,/-]{0,40}\[[^\n\]]{1,80}\]\s)"
# A callable as Python names it: "f", "Cls.__init__", "check.<locals>.wrapped_fn", read once
# (the look-ahead takes the whole name; no shorter one is tried)
CALLABLE = r"(?=(?P<call>[\w.<>]{1,120}))(?P=call)\(\)"
# A module as Python quotes it ('vllm.distributed.parallel_state'), read once: the look-ahead
# takes the whole name, and no shorter one is tried where the quote does not follow
MODULE = r"(?=(?P<mod>[\w.]{1,120}))(?P=mod)"
# A dotted module of public names ('vllm.lora.models'): its package was found, the submodule
# was not. A private segment ('vllm._C') or an extension's name ('vllm_ascend.vllm_ascend_C')
# is a compiled module not built or not found, which says nothing of a release's API; so is a
# public name inside a private package (pandas._libs.interval), or a module a frozen bundle
# left out (torch._inductor.fx_passes.serialized_patterns under PyInstaller).
DOTTED = r"(?=(?P<dotted>(?:[A-Za-z]\w{0,60}\.){1,6}[A-Za-z]\w{0,60}))(?P=dotted)(?<!_C)"
# A program saying it goes on without what it failed to import (apex's "Using Python
# fallback", and on its own line "Original ImportError was: ..."), pytest skipping a test that
# needs it (unless an exception it raised says so first: transformers' "RuntimeError: Failed to
# import transformers.trainer ...")
GOES_ON = re.compile(
    r"\b(?:failed to|could not) import\b|\bignor\w{0,3} import error|\bfall(?:ing)? ?back\b"
    r"|\bskipped\b|\bOriginal ImportError was\b",
    re.I,
)
RAISED = re.compile(r"\b\w{1,60}(?:Error|Exception):")
# A library the loader did not find, but CUDA's and NVIDIA's (on an NPU node a CUDA build of a
# package wants them: installing them is not the fix) and torch's own (an extension imported
# before torch, or built against another torch)
_OTHER_LIBRARY = (
    r"(?!lib(?:cu(?!rl)|nv|nccl|c10|torch)[\w.-]{0,100}\.so)[\w.+-]{1,120}\.so[\w.]{0,20}: "
    r"cannot open shared object file"
)


def unhandled(m: re.Match[str]) -> bool:
    """Whether the line of ``m`` is a failure, not a program logging one and going on."""
    if below_error(m.string, m.start()):
        return False
    goes_on = GOES_ON.search(m.string, 0, m.start())
    return goes_on is None or RAISED.search(m.string, 0, goes_on.start()) is not None


FAILURES: tuple[Failure, ...] = (
    Failure(
        id="python-api-drift",
        mode="torch-pairing",
        component="python packages",
        patterns=(
            CALLED + CALLABLE + r" got an unexpected keyword argument '?\w{1,80}",
            CALLED
            + CALLABLE
            + r" takes (?:from \d{1,2} to )?\d{1,2} positional arguments? but \d{1,2} (?:were|was)"
            r" given",
            CALLED + CALLABLE + r" missing \d{1,2} required (?:positional|keyword-only) "
            r"arguments?:",
            rf"(?<!initialized )\bmodule '{MODULE}' has no attribute '(?!__)\w{{1,80}}'",
            # a class that lost a method (transformers 4.43 took LlamaAttention._init_rope)
            r"\btype object '\w{1,80}' has no attribute '(?!__)\w{1,80}'",
            rf"cannot import name '\w{{1,80}}' from '{MODULE}'(?! \(unknown location\))",
            rf"No module named '{DOTTED}'(?!;)",
        ),
        codes=(),
        meaning="code calls a library's API in a form the installed release of that library "
        "does not have (an argument, a function, an attribute or a submodule it lacks): the "
        "calling code was written for an older or a newer release of it",
        causes=(
            "the calling package and the library are releases not made for each other: a "
            "framework pinned to one release beside another that pip, an image or a later "
            "upgrade installed (vllm beside vllm-ascend, transformers beside MindSpeed, "
            "LLaMA-Factory or PaddleSpeech, torch beside vllm)",
            "the API moved, was renamed or was removed in the installed release (vllm 0.13 "
            "moved vllm.lora.models and renamed get_tensor_model_parallel_group), and the "
            "calling code is older or newer than that release",
            "the name is not the installed library at all: a file or folder of the job named "
            "like it (the library's __file__ shows where it is; python-module-shadowed)",
            "the calling code's own mistake, where it is the job's code and no release pairs it",
        ),
        fix="find the caller (the traceback's last frame above the error) and the library that "
        'defines what the line names: `pip show <library>`, `python -c "import <library>; '
        'print(<library>.__version__, <library>.__file__)"`; install the library release the '
        "caller pins (its requirements or setup.py, the recipe's version table): `pip install "
        '"<library>==<the pinned release>"`, or the caller\'s release made for the installed '
        "library; where both are pinned and paired, change the call to the API the installed "
        "release documents",
        confirm=None,
        sources=(
            Source("https://docs.python.org/3/library/exceptions.html", "official"),
            Source(
                "GitHub linmumu009/llin-rl-dpo, file id 55955309379 (transformers 5.13 under a "
                "MindSpeed-MM recipe pinned to 5.2.0: create_causal_mask's cache_position)",
                "report",
            ),
            Source(
                "https://ai.gitcode.com/weixin_74291055/qwen3-asr-1.7b-ascend (qwen-asr passing "
                "multimodal_config to a vllm-ascend release without it)",
                "report",
            ),
            Source("https://github.com/PaddlePaddle/PaddleSpeech/issues/4125", "report"),
            Source("https://github.com/vllm-project/vllm/issues/3249", "maintainer"),
            Source("https://github.com/McGill-NLP/llm2vec/issues/87", "maintainer"),
            Source("https://github.com/IEIT-Yuan/Yuan-2.0/issues/123", "maintainer"),
            Source("https://github.com/chaidiscovery/chai-lab/issues/138", "maintainer"),
            Source(
                "https://github.com/huggingface/sentence-transformers/issues/2560", "maintainer"
            ),
            Source(
                "https://github.com/huggingface/accelerate/pull/3196 (transformers.deepspeed "
                "moved in transformers 4.46)",
                "maintainer",
            ),
            Source("https://github.com/tile-ai/tilelang-ascend/issues/1121", "report"),
            Source(
                "easyr1's NPU patterns catalogue, index id 51770230308 (NPU-CP-002: "
                "vllm.lora.models moved in vllm 0.13; NPU-CP-004: get_tensor_model_parallel_group "
                "renamed)",
                "report",
            ),
        ),
        hints=("error", "no attribute", "cannot", "no module named"),
        rank=CLASS,
        fallback=True,
        judge=unhandled,
    ),
    Failure(
        id="torch-npu-source-tree",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(
            # the built extension, or torch's version.py that only a build writes ("; 'torch'
            # is not a package" after it is a file named torch.py, not this)
            r"No module named '(?:torch(?:_npu)?\._C|torch\.version)'(?!;)",
            # torch's own check: its _C is a folder, the checkout's or the wheel's stubs
            r"Failed to load PyTorch C extensions",
        ),
        codes=(),
        meaning="Python imported a torch_npu (or torch) without its built extension: a source "
        "checkout (the current directory, or one on PYTHONPATH), an install that is broken, "
        "or an interpreter the wheel was not built for",
        causes=(
            "python started inside the Ascend/pytorch (or PyTorch) checkout, or a test run from "
            "it: its torch_npu/ (torch/) folder hides the installed package",
            "an install without its extension (interrupted, or files copied by hand)",
            "another interpreter than the wheel's (another Python version, a free-threaded or "
            "GraalPy build, an embedded Python): its extension does not load",
        ),
        fix="see where it came from: the traceback's frames, or `python -c 'import sys, torch; "
        "print(sys.version, torch.__file__)'`; a checkout: cd to another directory and run "
        "python again (or take it off PYTHONPATH); an install: reinstall the wheel for this "
        "interpreter, `python -m pip install --force-reinstall --no-deps torch==<release>` "
        "(the CPU wheel torch_npu pairs with: --index-url https://download.pytorch.org/whl/cpu; "
        "torch-npu likewise) with the Python that runs the job",
        confirm="python.stack",
        sources=(
            Source("https://github.com/Ascend/pytorch/issues/24", "maintainer"),
            Source("https://github.com/pytorch/pytorch/issues/788", "maintainer"),
            Source(
                "https://github.com/pytorch/pytorch/issues/574 (a wheel renamed for another "
                "Python)",
                "maintainer",
            ),
            Source(
                "pytorch/pytorch torch/__init__.py (its check of torch._C's __file__, the "
                "public file index's id 65677262)",
                "official",
            ),
            Source(
                "computing-infra/pytorch-infra docs/npu-test-plan.md"
                "@60fee41a06931dd2f069c9082deea041b4223361 (question 9: tests importing the "
                "PyTorch checkout's torch)",
                "report",
            ),
        ),
        hints=("no module named", "fail"),
        judge=unhandled,
    ),
    Failure(
        id="python-module-shadowed",
        mode="torch-pairing",
        component="python packages",
        patterns=(
            rf"No module named '{DOTTED}'; '{MODULE}' is not a package",
            rf"cannot import name '\w{{1,80}}' from '{MODULE}' \(unknown location\)",
            # a module without its dunders ('vllm' without __version__) is a bare folder
            rf"(?<!initialized )\bmodule '{MODULE}' has no attribute '__\w{{1,40}}__'",
            # the module being imported imports itself: a script named like the package
            rf"cannot import name '\w{{1,80}}' from partially initialized module '{MODULE}'",
            rf"\bpartially initialized module '{MODULE}' has no attribute '\w{{1,80}}'",
        ),
        codes=(),
        meaning="an import found something else than the installed package under its name: a "
        "plain module where the package should be ('... is not a package'), a folder without "
        "the package's files ('unknown location', no __version__), or the file being run "
        "importing itself ('partially initialized'), earlier on sys.path",
        causes=(
            "a file or folder named like the package in the working directory or the job's "
            "folder (logging.py, a checkout's vllm/ or a leftover folder), which Python finds "
            "before site-packages",
            "two distributions installing the same name over each other (triton and "
            "triton-ascend), or an uninstall that left a folder behind",
            "a circular import inside the code run (two of its modules importing each other at "
            "their tops)",
        ),
        fix='find what Python imports under the name: `python -c "import <name>; print('
        "<name>.__spec__)\"` from the job's working directory; rename or move a file or folder "
        "of the job named like the package; where site-packages holds a leftover folder, `pip "
        "uninstall <package>`, remove what stays, and install it again",
        confirm=None,
        sources=(
            Source("https://docs.python.org/3/reference/import.html", "official"),
            Source(
                "https://www.hiascend.com/forum/thread-02113175834572430130-1-1.html (a folder "
                "named logging in the working directory shadowing Python's own)",
                "report",
            ),
            Source("https://github.com/hiyouga/LlamaFactory/issues/6261", "maintainer"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/527", "maintainer"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/718", "maintainer"),
            Source("https://github.com/vllm-project/vllm/issues/1367", "maintainer"),
            Source("https://github.com/ml-explore/mlx/issues/1069", "maintainer"),
            Source(
                "https://github.com/pnnx/pnnx/issues/153 (a script pnnx.py importing itself)",
                "report",
            ),
        ),
        hints=("no module named", "cannot", "no attribute"),
        rank=CLASS,
        fallback=True,
        judge=unhandled,
    ),
    Failure(
        id="python-release-refused",
        mode="torch-pairing",
        component="python packages",
        patterns=(
            # transformers' require_version, which LLaMA-Factory and others call at import, and
            # transformers too old for a model's config ("model type `qwen3_vl` but ..."), each
            # read with its exception's name (their words alone would be keys of their own)
            r"Error: [\w.-]{1,60}[<>=!~][^\n]{0,300}? is required for a normal functioning of "
            r"this module, but found [\w.-]{1,60}==[\w.+-]{1,40}",
            r"Error: The checkpoint you are trying to load has model type `[\w.-]{1,60}` but "
            r"Transformers does not recognize this architecture",
            # a Llama 3.1 config (rope_type 'llama3') read by a transformers before 4.43, whose
            # check knew only {type, factor}
            r"Error: [`']rope_scaling[`'] must be a dictionary with two fields, [`']type[`'] and "
            r"[`']factor[`'], got \{",
        ),
        codes=(),
        meaning="a library refused the installed release of a package: outside the range the "
        "calling framework requires (its version check at import), or a transformers too old to "
        "know the model being loaded",
        causes=(
            "a framework pinned to one range of transformers (LLaMA-Factory, MindSpeed) beside "
            "a release a later pip install brought",
            "a model newer than the installed transformers (its model card names the release "
            "that added it)",
        ),
        fix="install a release in the range the line prints (`pip install "
        '"transformers>=A,<=B"`), or the framework\'s release made for the installed one '
        "(LLaMA-Factory 0.9.4 for transformers 4.57: `pip install llamafactory==<release>`); "
        "for a model newer than transformers (a model type it does not know, a rope_scaling it "
        "refuses), the transformers release its model card names (Llama 3.1: 4.43 or later), "
        "then check the frameworks above it still accept that release",
        confirm=None,
        sources=(
            Source(
                "huggingface/transformers src/transformers/utils/versions.py (require_version's "
                "message)",
                "official",
            ),
            Source(
                "https://support.huaweicloud.com/bestpractice-modelarts/modelarts_llm_infer_91237"
                ".html (Llama 3.1 on Ascend-vLLM: upgrade transformers to 4.43.1)",
                "official",
            ),
            Source(
                "jinyuchen724/jinyuchen AI/autoDl-ascend.md"
                "@af03ce745c9fcb1fccfdf674c19e64d7c83a03ab "
                "(LLaMA-Factory on a 910B3: transformers 4.57.3 against a checkout pinned to "
                "4.49, and Qwen3-VL under an older transformers)",
                "report",
            ),
        ),
        hints=("error",),
        rank=CLASS,
        judge=unhandled,
    ),
    Failure(
        id="deepspeed-config-refused",
        mode="torch-pairing",
        component="deepspeed",
        # DeepSpeed's config models (pydantic); the field and the reason follow on the next lines
        patterns=(r"\d{1,3} validation errors? for DeepSpeed\w{0,40}Config\b",),
        codes=(),
        meaning="DeepSpeed's validation of its config refused a field (the lines below name it "
        "and why): a value of the wrong type, or a key this DeepSpeed release does not know",
        causes=(
            "stage3_prefetch_bucket_size left at 'auto': transformers fills it as "
            "0.9 x hidden_size^2, a float, which DeepSpeed releases after 0.14 refuse "
            "(int_from_float)",
            "a key of another DeepSpeed release, or a note added inside zero_optimization "
            "(extra inputs are not permitted)",
        ),
        fix="write the field the next lines name as DeepSpeed wants it: an integer for "
        "stage3_prefetch_bucket_size (e.g. int(0.9 * hidden_size**2)) in place of 'auto', or "
        "pin deepspeed==0.14.* as ms-swift's FAQ does; remove keys this release does not know",
        confirm=None,
        sources=(
            Source(
                "https://support.huaweicloud.com/bestpractice-modelarts/modelarts_mllm_train_91253"
                ".html (Qwen-VL on NPUs: an integer stage3_prefetch_bucket_size)",
                "official",
            ),
            Source(
                "modelscope/ms-swift FAQ, index id 773837283 (Q13: deepspeed 0.14.*)",
                "maintainer",
            ),
            Source(
                "a training repository's config test, index id 66141534373 (a note key inside "
                "zero_optimization: extra_forbidden)",
                "report",
            ),
        ),
        hints=("error",),
        judge=unhandled,
    ),
    Failure(
        id="torch-zero-dim-index",
        mode="torch-pairing",
        component="torch",
        # PyTorch 0.4 made a loss a 0-dim tensor: code of before indexes it (loss.data[0])
        patterns=(r"IndexError: invalid index of a 0-dim tensor",),
        codes=(),
        meaning="code written for PyTorch before 0.4 indexes a 0-dim tensor (a loss or a "
        "metric: loss.data[0]), which PyTorch 0.4 and newer refuse",
        causes=("a training script of PyTorch 0.3's time, run or migrated as it was",),
        fix="read the number with .item(): loss.data[0] becomes loss.item() (in C++: "
        "tensor.item<T>())",
        confirm=None,
        sources=(
            Source(
                "Ascend/mstt msfmktransplt/README.md@99c2e0f990a17d328f487062acc9c490f7f6ff26 "
                "(FAQ, table 8 row 3; read from the mirror xiaobingling93-pixel/Ascend-mstt)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="torchvision-unpaired",
        mode="torch-pairing",
        component="torchvision",
        patterns=(
            # torchvision's own check (torchvision/extension.py) of its compiled ops
            r"Error: Couldn't load custom C\+\+ ops\. This can happen if your PyTorch",
            # the dispatcher's, where they never registered: torchvision::nms first (its
            # detection models' and mmcv's); "\s": read in the pass for "not "
            r"operator\storchvision::\w{1,60} does not exist",
        ),
        codes=(),
        meaning="torchvision's compiled operators do not load: it was built for another torch "
        "than the one installed (on Ascend, most often after torch was pinned to the release "
        "torch_npu pairs with)",
        causes=("a torchvision wheel of another torch release",),
        fix="install the torchvision release paired with the installed torch (torch 2.1 - "
        "torchvision 0.16, 2.4 - 0.19, 2.6 - 0.21, ...), with `pip install --no-deps` so pip "
        "does not replace the torch that torch_npu is paired with",
        confirm="python.stack",
        sources=(
            Source("pytorch/vision torchvision/extension.py (_assert_has_ops)", "official"),
            Source("https://www.hiascend.com/forum/thread-0213116150727616010-1-1.html", "report"),
            Source(
                "modelscope/ms-swift@cd88e624291c8540bf3734dbf4dc99f29a00f4b0 (torch and "
                "torchvision of other releases: operator torchvision::nms does not exist)",
                "maintainer",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="mmcv-ops-missing",
        mode="torch-pairing",
        component="mmcv",
        # mmcv's compiled operators: the lite package lacks them, and two packages clash
        patterns=(r"No module named '?mmcv\._ext\b",),
        codes=(),
        meaning="mmcv's compiled operators (mmcv._ext) are not in the mmcv that was imported: "
        "the lite package (mmcv before 2.0, mmcv-lite since) is installed, both packages are "
        "and the lite one won, or mmcv was built without its operators",
        causes=(
            "mmcv and mmcv-full (or mmcv-lite and mmcv) installed side by side, or another "
            "mmcv first on PYTHONPATH",
            "a source build without MMCV_WITH_OPS=1 (on an NPU: without FORCE_NPU=1)",
        ),
        fix="keep one mmcv: `pip list | grep mmcv`, uninstall them all, install the full one "
        "for this torch (an NPU: from source, MMCV_WITH_OPS=1 FORCE_NPU=1 python setup.py "
        "install); `python -c 'import mmcv, mmcv._ext; print(mmcv.__file__)'` checks it",
        confirm=None,
        sources=(
            Source(
                "https://github.com/open-mmlab/mmcv/blob/v1.5.0/docs/en/get_started/"
                "installation.md (do not install both versions)",
                "official",
            ),
            Source(
                "Ascend/modelzoo built-in/PyTorch/Official/cv/image_object_detection/"
                "YoloV3_ID1790_for_PyTorch/README.md@2dd5843f9d92b5578a4a86def146872b6780ba5a "
                "(No module named 'mmcv._ext')",
                "official",
            ),
        ),
        hints=("no module named",),
    ),
    Failure(
        id="python-distribution-missing",
        mode="cann-env",
        component="python packages",
        # setuptools' pkg_resources checking a console script's requirements at its start
        # (its requirement may carry versions: 'prompt-toolkit<2.0.0,>=1.0.0')
        patterns=(
            r"The '[\w.-]{1,80}(?:[<>=!~][^'\n]{0,80})?' distribution was not found and is "
            r"required by",
        ),
        codes=(),
        meaning="a program's entry point checked the packages it requires (pkg_resources) and "
        "one is not installed in the Python that runs it",
        causes=(
            "the package left out of the environment, or installed in another Python",
            "the package installed at a version outside the requirement the line quotes",
        ),
        fix="install the distribution the line names into that Python, at the versions it "
        "names (`python -m pip install '<requirement as quoted>'`, e.g. protobuf), then start "
        "the program again; `pip check` lists the rest",
        confirm=None,
        sources=(
            Source(
                "Ascend/ModelZoo-PyTorch PyTorch/built-in/autonoumous_driving/OpenPCDet/"
                "README.md@415a03cb168fa14c33bb83de92ef99d56b48da02 (FAQ: protobuf; the mirror "
                "xiaobingling93-pixel/Ascend-ModelZoo-PyTorch)",
                "official",
            ),
        ),
        hints=("not found",),
    ),
    Failure(
        id="mindspeed-ascend-coc-refused",
        mode="torch-pairing",
        component="mindspeed",
        # MindSpeed's and MindSpeed-LLM's argument checks: Ascend CoC (computation and
        # communication overlap) runs with the local transformer only
        patterns=(r"(?:transformer engine|tp-2d) does not support ascend coc\b",),
        codes=(),
        meaning="MindSpeed refused its arguments: --use-ascend-coc (overlapping computation "
        "and communication) is on with a transformer implementation or a tensor-parallel mode "
        "it does not run with (Transformer Engine's layers, 2-D tensor parallelism)",
        causes=(
            "a MindSpeed-LLM release whose default --transformer-impl is transformer_engine "
            "(master dropped the local default), with a launch script written for one that "
            "defaulted to local",
            "--use-ascend-coc beside --tp-2d",
        ),
        fix="add --transformer-impl local to the launch script (Transformer Engine's case), or "
        "drop --use-ascend-coc (or --tp-2d)",
        confirm=None,
        sources=(
            Source(
                "Ascend/MindSpeed-LLM mindspeed_llm/features_manager/megatron_basic/"
                "transformer_engine_basic.py@c77308a14bfcb1aa7ca61da9c1aa24a893cb1b91 "
                "(validate_args)",
                "official",
            ),
            Source(
                "github.com/mindspore-lab/mindspore-skills skills/mindspore-ops-debugger/scripts/"
                "gitcode_cases.json@689c1efd17c38a586ede6d89a55de6048bb3ea21 (MindSpore issue "
                "42183: --transformer-impl local)",
                "maintainer",
            ),
        ),
        hints=("not support",),
    ),
    Failure(
        id="shared-library-not-found",
        mode="cann-env",
        component="loader",
        # raised (an import's error, a program the loader refused to start); not a warning of a
        # program that goes on without the library (torchvision's image extension, Open MPI's
        # components: "unable to open ...: libpbs.so.0: cannot open ... (ignored)")
        patterns=(
            r"(?:ImportError|OSError): (?:[^\n]{0,200}?: )?" + _OTHER_LIBRARY,
            r"(?i:e)rror while loading shared libraries: " + _OTHER_LIBRARY,
        ),
        codes=(),
        meaning="the dynamic loader found no file of the library's name on its search path "
        "(LD_LIBRARY_PATH, the program's rpath, ldconfig's cache): it is not installed, or it "
        "is in a folder the loader does not search",
        causes=(
            "installed in a folder not on the loader's path (/usr/local/lib without ldconfig, "
            "a package's own lib folder whose set_env.sh was not sourced)",
            "the package or OS library that ships it not installed",
        ),
        fix="find it: `ldconfig -p | grep <library>`, `find / -name '<library>*' 2>/dev/null`; "
        "found: add its folder to LD_LIBRARY_PATH (or to /etc/ld.so.conf.d/ and run "
        "ldconfig), or source the set_env.sh of the package it belongs to; not found: install "
        "the package that ships it (`yum provides '*/<library>'`, `apt-file search "
        "<library>`); libGL.so.1 for OpenCV's cv2 on a host without a display: pip uninstall "
        "opencv-python, pip install opencv-python-headless",
        confirm=None,
        sources=(
            Source("https://man7.org/linux/man-pages/man8/ld.so.8.html", "official"),
            Source(
                "InternLM/xtuner docs/en/get_started/installation.md"
                "@b934f462095c1e750229de35367c50ae36caa786 (FAQ 1: libGL.so.1)",
                "official",
            ),
            Source(
                "https://github.com/vllm-project/vllm-ascend/pull/6976 (Mooncake's "
                "ascend_transport.so: /usr/local/lib added to LD_LIBRARY_PATH)",
                "maintainer",
            ),
        ),
        hints=("cannot",),
        rank=CLASS,
        fallback=True,
    ),
    Failure(
        id="shared-library-other-build",
        mode="cann-env",
        component="dynamic loader (ld.so)",
        # ld.so's "relocation error: <object>: symbol <name> version <V> not defined in file
        # <library> with link time reference"
        # (as dlopen words it in Python's ImportError: "symbol X, version V"; libstdc++'s
        # GLIBCXX and CXXABI versions are a C++ runtime too old, libstdcxx-too-old's)
        patterns=(
            r"symbol [^\s,]{1,200},?(?: version (?!GLIBCXX_|CXXABI_)\S{1,80})? not defined in "
            r"file \S{1,200} with\slink\stime\sreference",
        ),
        codes=(),
        meaning="a program found another build of a shared library than the one it was linked "
        "with: the copy the loader took first lacks a symbol (or its version) the program "
        "needs, most often a folder earlier on LD_LIBRARY_PATH (a CANN set_env.sh, a conda "
        "environment, an image's own libraries) holding its own copy",
        causes=(
            "LD_LIBRARY_PATH puts a folder with another copy of the library before the "
            "system's (an image's or an SDK's libssl, libcurl, libstdc++)",
            "a library replaced by another release after the program was built",
        ),
        fix="`ldd <program> | grep <library>` shows the copy it loads; put the system's "
        "folders first for that program (export LD_LIBRARY_PATH=/usr/lib64:/usr/lib:"
        "$LD_LIBRARY_PATH, or run it with `env -u LD_LIBRARY_PATH`), or take the foreign copy "
        "out of the folder that comes first; where the copy found is the system's own and "
        "older than the one the program was built with, the program needs the newer library "
        "(or a build for this system)",
        confirm=None,
        sources=(
            Source("https://man7.org/linux/man-pages/man8/ld.so.8.html", "official"),
            Source(
                "https://github.com/lincenying/ai-fae/blob/43bc9da1a3d79dfa75aca409524a63a3c7f4b78f/"
                "ok_YOLOV5_for_PyTorch_v7.0训练(910b).md (git's libcurl in a CANN image: "
                "/usr/lib64 and /usr/lib put first)",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="pkg-resources-removed",
        mode="torch-pairing",  # releases not made for each other: setuptools and its callers
        component="setuptools",
        patterns=(
            r"(?:ModuleNotFound|Import)Error: No module named \\?['\"]?pkg_resources(?![\w.])",
            # "from pkg_resources import packaging" (torch 1.13's and 2.0's cpp_extension, CLIP,
            # stable-diffusion-webui) under setuptools 70 and later
            r"cannot import name 'packaging' from 'pkg_resources'",
        ),
        codes=(),
        judge=unhandled,
        meaning="code imports pkg_resources, which setuptools 82.0.0 (February 2026) removed "
        "(or pkg_resources.packaging, which setuptools 70 dropped): "
        "the environment has a setuptools that no longer ships it (or none at all), and the "
        "importing package (torchair in torch_npu, a framework, a tool) was written for an "
        "older one",
        causes=(
            "setuptools upgraded to 82 or later (pip install -U setuptools, a fresh image)",
            "setuptools not installed in that Python (a venv created without it)",
            "code that imports pkg_resources.packaging (torch 1.13's and 2.0's cpp_extension, "
            "CLIP) under setuptools 70 or later",
        ),
        fix='pip install "setuptools<82" in the Python that runs the job (torch_npu\'s '
        'torchair was run with 80.9; for pkg_resources.packaging: "setuptools<70"), '
        "or a release of the importing package that uses importlib.metadata instead; in pip's "
        "own build of a package (setup.py, Getting requirements to build wheel) the isolated "
        "build environment takes the newest setuptools: pin it there, or install the pinned "
        "one and build with pip install --no-build-isolation <package>",
        confirm="python.stack",
        sources=(
            Source("https://setuptools.pypa.io/en/stable/history.html#v82-0-0", "official"),
            Source("https://github.com/pre-commit/pre-commit/issues/3621", "report"),
            Source(
                "https://github.com/AUTOMATIC1111/stable-diffusion-webui/pull/15882 "
                "(pkg_resources.packaging: setuptools pinned to 69.5.1)",
                "maintainer",
            ),
            Source(
                "Z-MU-Z/verl-ascend-qwen35-lab docs/ascend_qwen35_lab/"
                "FALLBACK_DEBUG_TIMELINE_20260408.md (torchair under setuptools 82.0.1)",
                "report",
            ),
        ),
        hints=("no module named",),
    ),
    Failure(
        id="python-module-missing",
        mode="cann-env",
        component="python packages",
        # a top-level module no package's entry names (a dotted one is a release's API, above;
        # a private one is an interpreter's or a package's internals: setuptools' .pth hook
        # "_distutils_hack" that Python skips, a stdlib extension python-built-incomplete names)
        patterns=(
            r"(?:ModuleNotFound|Import)Error: No module named \\?['\"]?[A-Za-z]\w{0,60}"
            r"(?![\w.])",
            # an exception's message that gives a missing module as its reason (torch's DCP:
            # "ZStandard extension is unavailable because no module named 'zstandard'"), in
            # its case: a handled import's "import error: No module named 'triton'" is none, and
            # a registry's "X has no module named 'y'" names none of Python's
            r"(?-i:[A-Z]\w{0,60}(?:Error|Exception): [^\n]{0,200}\bbecause no module named) "
            r"'[A-Za-z]\w{0,60}'",
        ),
        codes=(),
        meaning="the Python that ran the job found no module of that name: the package that "
        "provides it is not installed in that interpreter, or it is the project's own module "
        "(a source tree, a compiled extension) that was not installed or built",
        causes=(
            "the package not installed in the interpreter the job ran (another venv or conda "
            "environment, another Python first on PATH, an image without it)",
            "a module of the project itself, or its compiled extension, not installed or not "
            "built (a CUDA-only extension has no NPU build)",
        ),
        fix="install the package that provides it into the Python that ran the job: `python -m "
        "pip install <package>` with that interpreter (`python -c 'import sys; "
        "print(sys.executable)'`); the package's name may differ from the module's (yaml: "
        "PyYAML, cv2: opencv-python-headless, sklearn: scikit-learn, PIL: Pillow); a module of "
        "the project itself: install or build the project (`pip install -e .`) or put its "
        "folder on PYTHONPATH; a CUDA-only extension: the project's pure-PyTorch or NPU "
        "variant; in pip's build of a package (Getting requirements to build wheel) it is the "
        "build's isolated environment that lacks it (torch): pip install --no-build-isolation",
        confirm=None,
        sources=(
            Source("https://docs.python.org/3/library/exceptions.html", "official"),
            Source(
                "https://github.com/lincenying/ai-fae/blob/43bc9da1a3d79dfa75aca409524a63a3c7f4b78f/"
                "CANN安装.md (a CANN container without scipy: pip install scipy)",
                "report",
            ),
            Source(
                "Ascend/op-plugin examples/cpp_extension/README.md (FAQ 2: the example's "
                "extension not installed)",
                "official",
            ),
        ),
        hints=("no module named",),
        rank=CLASS,
        fallback=True,
        judge=unhandled,
    ),
)
