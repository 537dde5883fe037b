"""What a serving engine says of its own start and of the work it queued: a tokenizer file
saved by a newer tokenizers, a model the hub may not fetch (offline, not in the cache), an
engine not ready within the front end's wait, more ranks on a node than the devices its workers
see, and device memory that ran out in work launched before the call that reports it."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="tokenizer-file-too-new",
        mode="torch-pairing",  # the Python stack's releases against what the model was saved by
        component="tokenizers",
        # the Rust library's serde error, through transformers' and MindIE's tokenizer wrappers
        patterns=(
            r"data did not match any variant of untagged enum "
            r"(?:ModelWrapper|Py\w{1,40}Wrapper)\b",
        ),
        codes=(),
        meaning="the tokenizers library could not read the model's tokenizer.json: the file was "
        "saved by another tokenizers release than the one installed (a newer one, in a format "
        "this one lacks)",
        causes=(
            "tokenizers (pulled in by transformers) older than the release that saved the "
            "model: a serving image (MindIE, vLLM) pinning an older transformers than the "
            "fine-tuning environment (LLaMA-Factory) that wrote the tokenizer",
            "rarely the reverse: a newer release that no longer reads an old file",
        ),
        fix="upgrade tokenizers where the model is loaded to at least the release that saved it "
        "(`pip install -U tokenizers`, or the transformers release the model names; the Ascend "
        "forum's MindIE case: transformers 4.49.0), or save the tokenizer again with the "
        "release that loads it",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/forum/thread-02114178614542866094-1-1.html (MindIE 1.0, "
                "a LLaMA-Factory fine-tune; solved by transformers 4.49.0)",
                "report",
            ),
            Source(
                "https://github.com/huggingface/sentence-transformers/issues/1105 (nreimers: "
                "update the tokenizers package)",
                "maintainer",
            ),
            Source(
                "https://github.com/allenai/open-instruct/issues/738 (tokenizers 0.19.1 cannot "
                "load Tulu 3.1's tokenizer; confirmed by hamishivi)",
                "maintainer",
            ),
        ),
        hints=("exception",),
    ),
    Failure(
        id="hub-offline-not-cached",
        mode="cann-env",  # the node set up without what the job reads
        component="huggingface_hub",
        # huggingface_hub's LocalEntryNotFoundError ("... in the disk cache and outgoing traffic
        # has been disabled"), its snapshot_download's, and ModelScope's patch of it ("in the
        # cached path")
        patterns=(
            r"Cannot find [^\n]{0,160}outgoing traffic has been disabled",
            # snapshot_download's, raised offline only (the rest often wraps onto a next line)
            r"Cannot find an appropriate cached snapshot folder for",
        ),
        codes=(),
        meaning="the model hub's client looked only in its cache (HF_HUB_OFFLINE=1, "
        "TRANSFORMERS_OFFLINE=1, local_files_only=True, or a library that retries from the "
        "cache after the hub could not be reached) and the files asked for are not there",
        causes=(
            "a model never downloaded into this cache (another HF_HOME or cache_dir, another "
            "user, a fresh container)",
            "another revision or file than the one cached",
            "no route to the hub (a node without internet, a proxy): libraries such as "
            "faster-whisper then retry offline and report this",
        ),
        fix="download the model into the cache the job reads where the hub is reachable "
        "(`huggingface-cli download <model>` with the job's HF_HOME; ModelScope: `modelscope "
        "download`), or pass the model's local folder instead of its hub name; a node without "
        "internet: a mirror (HF_ENDPOINT) or a proxy; else let the job download: unset "
        "HF_HUB_OFFLINE / local_files_only",
        confirm=None,
        sources=(
            Source(
                "huggingface/huggingface_hub src/huggingface_hub/file_download.py "
                "(local_files_only: LocalEntryNotFoundError; the public file index's id "
                "158717666)",
                "official",
            ),
            Source(
                "vllm-project/vllm-ascend@7fe0469e279cc9446048809d90575efb8c960bde (PR #7179, "
                "offline model downloads, commit message)",
                "maintainer",
            ),
        ),
        hints=("cannot",),
        judge=in_error_record,  # a program that tried the cache first and then downloaded
    ),
    Failure(
        id="vllm-engine-not-ready",
        mode="core-exception",  # a timeout
        component="vllm",
        # vLLM's front end (v1/engine/core_client.py) waits VLLM_ENGINE_READY_TIMEOUT_S (600 s)
        patterns=(r"TimeoutError: Timed out waiting for engines to send initial message",),
        codes=(),
        meaning="vLLM's API server waited for its engine processes to report ready longer than "
        "VLLM_ENGINE_READY_TIMEOUT_S (600 s unless set) and gave up: the engines were still "
        "loading (a large model's weights, a slow disk, a graph compile), or one of them died "
        "before it could report",
        causes=(
            "loading the weights (many shards, network storage) or compiling graphs takes "
            "longer than the wait",
            "an engine process that failed at its start: its own error is above this line",
            "an engine that cannot reach the front end's address (several nodes with a wrong "
            "--data-parallel-address, a port nothing listens on): a longer wait does not help",
        ),
        fix="look above for an engine's own error first; none, and the engines log their "
        "loading: raise the wait, VLLM_ENGINE_READY_TIMEOUT_S=<seconds> (e.g. 1800) in the "
        "server's environment, or load faster (weights on local disk); engines on other nodes: "
        "check that they reach the address and ports the front end gave them",
        confirm=None,
        sources=(
            Source(
                "vllm-project/vllm-ascend@1f71da80eba7cefe4b4a9f459d00e5409678bbb7 (PR #7098, "
                "server start with a long weight load, commit message)",
                "maintainer",
            ),
        ),
        hints=("timeout",),
    ),
    Failure(
        id="oom-in-async-step",
        mode="device-memory",
        component="mindie",
        # torch_npu's and ATB's report through MindIE's model runner (MIE05E000005)
        patterns=(r"Device out of memory during a previous asynchronous step",),
        codes=(),
        meaning="device memory ran out in work queued earlier (a graph, a collective's set-up) "
        "and was reported at a later call: the call named is not the one that asked for the "
        "memory, and HCCL's buffers are as likely as the model's tensors",
        causes=(
            "HCCL_BUFFSIZE raised far above its default (200 MB): each communicator takes "
            "buffers of that size in device memory when it is set up",
            "a batch, prefill or context too large for the memory left after the weights",
        ),
        fix="find the first error: rerun with ASCEND_GLOBAL_LOG_LEVEL=3 "
        "ASCEND_SLOG_PRINT_TO_STDOUT=1; an HCCL_BUFFSIZE raised: set it back toward 200; "
        "otherwise lower maxBatchSize / maxPrefillTokens (or the context length)",
        confirm="npu.devices",
        sources=(
            Source(
                "Ascend/MindIE-LLM@a87dd31bc494e269a3a6cba9bb5dc0ec5d0180a1 (merge request "
                "Ascend/MindIE-LLM!481, test case 04: HCCL's communicator reported as an OOM, "
                "commit message)",
                "maintainer",
            ),
        ),
        hints=("out of memory",),
    ),
    Failure(
        id="vllm-world-over-visible-devices",
        mode="visible-devices",
        component="vllm",
        # vLLM's worker (and vllm-ascend's, which counts torch.npu.device_count(), or 0 where
        # torch.npu is not available) checks the ranks it runs on this node against the devices
        patterns=(
            r"AssertionError: local_world_size \(\d{1,6}\) must be less than or equal to the "
            r"number of visible devices \(\d{1,6}\)",
            # the older executors' (vLLM's V0 for GPUs, vllm-ascend's first for NPUs)
            r"Error: please (?:ensure that world_size \(\d{1,6}\) is less than than|set "
            r"tensor_parallel_size \(\d{1,6}\) to less than) max local (?:gpu|Ascend npu) count "
            r"\(\d{1,6}\)",
        ),
        codes=(),
        meaning="vLLM was asked to run more ranks on one node (tensor x pipeline parallel, or "
        "the data-parallel ranks placed there) than the devices its workers see on that node; "
        "(0): they see none at all (torch.npu not available)",
        causes=(
            "(0): ASCEND_RT_VISIBLE_DEVICES set empty or to ids this node does not have, a "
            "container started without the NPUs or the driver mounted, or torch_npu failing to "
            "initialise the device (the CANN environment not sourced in the worker)",
            "tensor_parallel_size x pipeline_parallel_size (x data_parallel_size_local) larger "
            "than the node's devices, or than the ids ASCEND_RT_VISIBLE_DEVICES lists",
            "several nodes meant, but each started as if the whole world ran on it (no "
            "--nnodes / --node-rank, or a Ray cluster that placed the ranks otherwise); with "
            "Ray, vllm-ascend releases of late 2025 checked the whole world against one node's "
            "devices",
        ),
        fix="count what a worker sees, in the job's environment: `python -c 'import torch, "
        "torch_npu; print(torch.npu.device_count())'` and `echo $ASCEND_RT_VISIBLE_DEVICES`; "
        "(0): unset ASCEND_RT_VISIBLE_DEVICES or list this node's ids (`npu-smi info`), start "
        "the container with the NPUs (/dev/davinciN, /dev/davinci_manager, /dev/devmm_svm, "
        "/dev/hisi_hdc) and the driver mounted, source the CANN set_env.sh in the worker's "
        "environment (`ampenv doctor --only npu.devices,env.npu`); fewer than the ranks: lower "
        "tensor_parallel_size x pipeline_parallel_size (and --data-parallel-size-local) to the "
        "devices of one node, or list more ids in ASCEND_RT_VISIBLE_DEVICES (not under Ray, "
        "which sets each worker's own); ranks over several nodes: --nnodes N --node-rank R on "
        "each (the mp backend), or a vllm-ascend release whose check skips Ray; vLLM inside a "
        "trainer (verl): the vLLM release that trainer release is made for",
        confirm="npu.devices",
        sources=(
            Source(
                "vllm-project/vllm-ascend vllm_ascend/worker/worker_v1.py _init_device (the "
                "public file index's id 51773839837)",
                "official",
            ),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/4456 (Ray multi-node, a "
                "release's check of the whole world on one node; fixed by PR #4457)",
                "maintainer",
            ),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/14628 (no device visible "
                "to the workers)",
                "report",
            ),
            Source(
                "https://github.com/vllm-project/vllm/issues/5790 (one GPU visible)", "maintainer"
            ),
            Source(
                "https://github.com/lasgroup/SDPO/issues/34 (verl with a vLLM release it was not "
                "made for)",
                "report",
            ),
        ),
        hints=("error",),
    ),
)
