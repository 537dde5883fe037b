"""What the host's or the container's limits refuse a job: the shared memory its processes
pass data through, the files and sockets a process may hold open, the entropy its keys are
made of, the ports it binds, the device nodes its user may open."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="shared-memory-too-small",
        mode="container-devices",
        component="container",
        # MindIE's check of /dev/shm (MIE04E120407), "Available shared memory size is not enough"
        patterns=(
            r"Shared memory available is not enough on the filesystem",
            r"Available shared memory size is not enough",
            # PyTorch's DataLoader workers and vLLM's processes pass tensors through /dev/shm
            r"Error: unable to open shared memory object",
        ),
        codes=("MIE04E120407",),
        # MindIE logs it at ERROR; a WARNING is a check it passed or retried
        judge=in_error_record,
        meaning="the container's /dev/shm is too small for the job: MindIE passes requests and "
        "responses between its processes through shared memory (PyTorch's DataLoader workers "
        "and vLLM's processes pass tensors so), and Docker gives a container 64 MB unless "
        "told otherwise",
        causes=("a container started without --shm-size (Docker's default /dev/shm is 64 MB)",),
        fix="start the container with a larger /dev/shm: docker run --shm-size=<several GB> "
        "(Kubernetes: an emptyDir volume with medium: Memory mounted at /dev/shm); `df -h "
        "/dev/shm` shows its size",
        confirm="host.resources",
        sources=(
            Source("https://www.hiascend.com/forum/thread-02101179372557937167-1-1.html", "report"),
        ),
        hints=("err",),
    ),
    Failure(
        id="open-files-limit",
        mode="container-devices",
        component="container",
        # Python's OSError for EMFILE: a process over its open-file limit (RLIMIT_NOFILE); a
        # multi-NPU job holds sockets, pipes and shared memory for every rank and worker
        patterns=(r"\[Errno 24\] Too many open files",),
        codes=(),
        judge=in_error_record,  # a WARNING or INFO record: a program that retried
        meaning="a process of the job reached its open-file limit (each rank, worker and "
        "collective holds sockets, pipes and shared-memory files); a container's default is "
        "1024",
        causes=(
            "a container or a shell started with the default limit (ulimit -n 1024)",
            "a systemd service or a Kubernetes pod without a raised LimitNOFILE / nofile",
        ),
        fix="raise the limit where the job starts: docker run --ulimit nofile=65536:65536, or "
        "`ulimit -n 65536` in the launching shell (persistent: /etc/security/limits.conf, a "
        "service's LimitNOFILE=65536); `ulimit -n` in the job's environment shows it",
        confirm="host.resources",
        sources=(
            Source(
                "alibaba/ROLL docs_roll/docs/User Guides/Hardware Support/ascend_npu_faq.md"
                "@5a6932a7258ac6f5601f455c8fb107e189a849a7 (ulimit Too Low)",
                "official",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="host-entropy-low",
        mode="container-devices",
        component="host",
        # MindIE's service generating its certificates and keys from the kernel's entropy pool
        patterns=(r"failed to read random number from system",),
        codes=(),
        meaning="the host's entropy pool ran too low for the service to make its keys: MindIE's "
        "PD-separated deployment generates certificates when its Server pod starts, and a "
        "compute node without a hardware random source starves it",
        causes=("a compute node (or VM) with little entropy and no entropy daemon",),
        fix="install and start haveged on the compute nodes (yum install haveged or apt install "
        "haveged; systemctl enable --now haveged) to keep the pool near 4096; `cat "
        "/proc/sys/kernel/random/entropy_avail` shows it",
        confirm=None,
        sources=(
            Source(
                "Ascend/MindIE-Motor docs/zh/user_guide/service_deployment/"
                "pd_separation_service_deployment.md@5dfb024e45feec2e947f12d0af72b79b24edff53 "
                "(certificates: haveged)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="port-in-use",
        mode="hccl",
        component="host",
        # Python's OSError for EADDRINUSE and ZeroMQ's ("zmq.error.ZMQError: Address already in
        # use (addr='tcp://...')"); torch's rendezvous port has an entry of its own
        patterns=(
            r"Error: (?:\[Errno 98\] )?Address already in use",
            # asyncio's, as uvicorn logs it for an API server (vLLM's, MindIE's front ends)
            r"\[Errno 98\] error while attempting to bind on address \([^\n]{0,120}\): address "
            r"already in use",
        ),
        codes=(),
        judge=in_error_record,
        meaning="a process of the job could not bind a port another process already holds: a "
        "leftover process of an earlier run, another job on the node, or a component that "
        "picks ports from a range the configured port falls in",
        causes=(
            "a process of an interrupted run still alive on the port",
            "two services (or two jobs) configured with one port",
            "a port inside a range another component takes at random (vLLM-Ascend's Mooncake "
            "AscendDirectTransport: 20000 up to 20000 + 1000 x the NPUs of the node)",
            "no port named (a bind to port 0): the host's ephemeral ports are used up or "
            "reserved (net.ipv4.ip_local_port_range)",
        ),
        fix="find the holder: `ss -ltnp | grep :<port>` with the port the job was given (the "
        "line or its configuration); end it, or configure a port nothing else takes, outside "
        "other components' ranges (vLLM-Ascend with Mooncake: a kv_port below 20000 or past its "
        "range); no port given: `ss -s` and `sysctl net.ipv4.ip_local_port_range`",
        confirm=None,
        sources=(
            Source(
                "vllm-project/vllm-ascend@c08364f761d756f7d37ba42b19b01d199e85001e (PR #6455, "
                "kv_port and AscendDirectTransport's port range, commit message)",
                "maintainer",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="device-query-denied",
        mode="container-devices",
        component="runtime",
        patterns=(
            r"Call halGetDeviceInfo failed: drvRet=4\b",
            r"PermissionError: \[Errno (?:13\] Permission denied|1\] Operation not permitted): "
            r"'/dev/(?:davinci(?:\d|_manager)|devmm_svm|hisi_hdc)",
        ),
        codes=(),
        meaning="the runtime could not query the device through the driver (halGetDeviceInfo, "
        "drvRet=4; aclInit's 507008 follows), or the program could not open its device node "
        "(/dev/davinci*: Permission denied): this user may not use the device, or it is not up",
        causes=(
            "the user running the program not in the driver's run-user group (HwHiAiUser by "
            "default), so its device nodes and driver files are closed to it",
            "the device not started (its firmware or driver not up)",
            "a container whose device rules do not allow the node (docker run --device)",
        ),
        fix="run as a member of the driver's group (`usermod -aG HwHiAiUser <user>`, then log "
        "in again; a container run with --user: --group-add <that group's gid>) or as root; "
        "in a container refused with 'Operation not permitted': pass the nodes (--device "
        "/dev/davinciN --device /dev/davinci_manager --device /dev/devmm_svm --device "
        "/dev/hisi_hdc); check the device is up: `npu-smi info`",
        confirm="npu.device_nodes",
        sources=(
            Source(
                "hicann/docs docs/troubleshooting/zh/acl_init_permission_denied.md"
                "@c94cf50db06875e8676294422073d21318b183fb",
                "official",
            ),
            Source(
                "https://github.com/ascend-ai-coding/awesome-ascend-skills/blob/"
                "62a4ecbb198a7bef51e04d5278cad484a5545219/skills/inference/diffusers-ascend/"
                "diffusers-ascend-env-setup/references/troubleshooting.md (5, permissions)",
                "report",
            ),
        ),
        hints=("fail", "error"),
    ),
)
