"""HCCL: link setup, collectives that time out, and the dead rank behind them."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, FACTS, KB, Failure, Source, code, code_hints

FIRST_RANK = (
    "find the rank that failed first (its plog has the earliest error) and fix that; raise "
    "HCCL_EXEC_TIMEOUT only for genuine skew between ranks"
)
CONNECT = (
    "check the other ranks for an earlier error; if they only started late, raise "
    "HCCL_CONNECT_TIMEOUT (120-7200 s, e.g. export HCCL_CONNECT_TIMEOUT=1200); check the "
    "network: `ampenv doctor --only env.hccl`, `hccn_tool -i <dev> -link -g`, HCCL_IF_IP"
)

FAILURES = (
    Failure(
        id="hccl-env-invalid",
        mode="hccl",
        component="hccl",
        # EI0001's message; HCCL_IF_IP wants "ip[%ifname]", a port variable a number in range
        # (the space is \s so that the message's longest fixed text, its key, is "is invalid")
        patterns=(
            # (not CANN's "Value [v] for environment variable [ASCEND_...] is invalid")
            r"(?<!for )Environment\svariable \[[A-Za-z][A-Za-z0-9_]{1,60}\] is invalid",
            # EI0001 for a NIC name the host (or container) does not have
            r"by HCCL_SOCKET_IFNAME, but not found in the environment",
            # the parser's own line before EI0001: "HCCL_RDMA_SL[1000] is invalid. except: [0, 7]"
            r"\bHCCL_[A-Z0-9_]{2,40}\[[^\]\n]{0,80}\] is invalid\. except",
        ),
        codes=("EI0001",),
        meaning="HCCL refused an environment variable's value (the message names the variable "
        "and the form it wants)",
        causes=(
            "a launcher or model script exporting a value for another host or network "
            "(DrivingSDK's BEVFusion env_npu.sh: HCCL_IF_IP)",
            "a typo or a value out of range",
        ),
        fix="unset the variable or give it the form the message asks for (HCCL_IF_IP: an IP "
        "address of this host; HCCL_SOCKET_IFNAME: an interface it has, `ip -br addr`); "
        "`ampenv doctor --only env.hccl` reads every HCCL variable",
        confirm="env.hccl",
        sources=(
            Source(
                "CANN 8.1.RC1 conf/error_manager/error_code.json (EI0001: Environment variable "
                "[%s] is invalid. Reason: %s.)",
                "official",
            ),
            Source(
                "Ascend/DrivingSDK model_examples/BEVFusion/README.md"
                "@e667017eb751b614c128c9c81812634cae362ee4 (FAQ: HCCL_IF_IP is invalid)",
                "official",
            ),
            Source(
                "hicann/hccl docs/zh/user_guide/fault_diagnosis/env_config_error_EI0001.md"
                "@09300b70df9a031339f08e5f2ca06d7bf294d009",
                "official",
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="hccl-socket-timeout",
        mode="hccl",
        component="hccl",
        patterns=(r"\bEI0006\b", r"Getting socket times out"),
        codes=("EI0006",),
        meaning="HCCL link setup timed out: a remote rank did not connect in time",
        causes=(
            "a remote rank failed or hung before it connected",
            "ranks started further apart than HCCL_CONNECT_TIMEOUT (120 s by default)",
            "no route between the ranks (subnet, TLS settings differ)",
        ),
        fix=CONNECT,
        confirm="env.hccl",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/5461", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/486", "report"),
            Source("https://github.com/vllm-project/afd-plugin/issues/229", "report"),
            Source(
                "shared/reference/ascend-facts.md §4 (HCCL_CONNECT_TIMEOUT, 120-7200 s)", "official"
            ),
        ),
        hints=("times out", "error"),
    ),
    Failure(
        id="hccl-link-establish",
        mode="hccl",
        component="hccl",
        patterns=(
            r"\[LinkEstablish\]wait socket establish timeout",
            r"Wait links establish completed failed",
            r"socket establish timeout",
            r"wait all socket establish \d{1,6} second failed",
            # HCCL's table of the links it could not make (comm_base.cc)
            r"_{5,}LINK_ERROR_INFO_{5,}",
            # the link of a collective to the peer the line names (EI0006's stage)
            r"\[InitChannelStage\]\[Timeout\]Transport init error",
        ),
        codes=(),
        meaning="HCCL could not establish its links to the listed peers within "
        "HCCL_CONNECT_TIMEOUT",
        causes=(
            "a peer rank not started or dead",
            "ports blocked or the wrong interface (HCCL_IF_IP / HCCL_SOCKET_IFNAME)",
            "the NPU NICs of the servers configured differently: TLS on one and off on another "
            "(`hccn_tool -i <id> -tls -g` on every server must agree)",
            "the two ends over different links: one over RoCE (HCCL_INTRA_ROCE_ENABLE=1), the "
            "other over HCCS (set it the same on both)",
        ),
        fix=CONNECT,
        confirm="env.hccl",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/9447", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/1955", "report"),
            Source(
                "https://hiascend.com/document/detail/zh/canncommercial/80RC3/developmentguide/"
                "hccl/hcclug/hcclug_000055.html (LINK_ERROR_INFO, TLS not consistent)",
                "official",
            ),
            Source(
                "hicann/cann-learning-hub tutorials/hixl_development/04_troubleshooting_and_perf_"
                "optimization/04.02_typical_issue_troubleshoot.ipynb"
                "@63d9c63af62961d907c4adfb2c7977c8a5307cef (RoCE on one end, HCCS on the other)",
                "official",
            ),
            Source(
                "shared/reference/ascend-facts.md §4 (HCCL_CONNECT_TIMEOUT, 120-7200 s)", "official"
            ),
        ),
        hints=("timeout", "fail", "error"),
    ),
    Failure(
        id="hccl-transport-init",
        mode="hccl",
        component="hccl",
        patterns=(r"\bEI0009\b[^\n]{0,80}Transport init error", r"\[Create\]\[DestLink\]"),
        codes=("EI0009",),
        meaning="HCCL could not create the transport link to a peer rank",
        causes=("the peer NPU or rank failed first", "network between the devices"),
        fix="check the rank named as dst_rank for an earlier error; then the links: "
        "`hccn_tool -i <dev> -link -g`",
        confirm="env.hccl",
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/3162", "report"),),
        hints=("error",),
    ),
    Failure(
        id="hccl-notify-wait-timeout",
        mode="hccl",
        component="hccl",
        patterns=(
            r"\bEI0002\b",
            r"wait execution of the Notify register times out",
            r"timeout occurs when the Notify register waits for execution",  # hcomm's words
            r"notify wait timeout occurred during task execution",
            # HCCL's heartbeat: the rank named as the exception's location stopped answering
            r"ExceptionType:\[Heartbeat Lost Occurred\]",
            # the runtime's side of it (PrintErrorInfoForNotifyWaitTask), printed with EI0002
            # or alone in a plog; Fault-Diag's AISW_CANN_Runtime_021 reads the same words
            r"\bNotify wait execute failed, device_id=",
        ),
        codes=("EI0002",),
        meaning="a collective waited for a remote rank that never arrived (HCCL_EXEC_TIMEOUT); "
        "the remote rank it names is the one to look at",
        causes=(
            "the remote rank died or failed earlier",
            "the remote rank is slower than the timeout (data or load imbalance)",
            "ranks running different numbers of steps",
        ),
        fix=FIRST_RANK + " (the line names it: remote rank: [N])",
        confirm="env.hccl",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/3413", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/12487", "report"),
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850alpha002/"
                "hccl/hcclug/hcclug_000055.html (heartbeat lost: the location's process exited or "
                "its network dropped)",
                "official",
            ),
        ),
        hints=("times out", "timeout", "error", "exception", "fail"),
    ),
    Failure(
        id="hccp-init-failed",
        mode="hccl",
        component="hccp",
        patterns=(r"\bEJ0001\b", r"Failed to initialize the HCCP process"),
        codes=("EJ0001",),
        meaning="HCCL's device-side process (HCCP) could not start: the previous training "
        "process on this device is probably still alive",
        causes=("a previous job's processes not yet exited",),
        fix="stop the previous job (`npu-smi info` process table; kill its pids), wait 10 s, "
        "start again",
        confirm="npu.devices",
        sources=(Source("https://github.com/hiyouga/LlamaFactory/issues/3839", "report"),),
        hints=("fail", "error"),
    ),
    Failure(
        id="hccl-port-down",
        mode="hccl",
        component="hccp",
        patterns=(r"\bEJ0002\b", r"The network port is down"),
        codes=("EJ0002",),
        meaning="HCCL found this NPU's network port (its RoCE NIC) down when it set up RDMA, so "
        "the communicator could not start",
        causes=(
            "the port's link is down: cable, optical module or switch port",
            "the NPU's NIC has no IP configured (hccn_tool)",
        ),
        fix="check every NPU's port: `for i in {0..7}; do hccn_tool -i $i -link -g; done` "
        "(link UP), then `-optical -g`, `-ip -g`, `-lldp -g`; `ampenv doctor --only env.hccl`",
        confirm="env.hccl",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/1815", "report"),
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/900/maintenref/"
                "troubleshooting/atlaserrorcode_15_0381.html (EI0009: hccn_tool port checks)",
                "official",
            ),
        ),
        hints=("error", "port is down"),
    ),
    Failure(
        id="hccl-device-id-error",
        mode="hccl",
        component="hccl",
        patterns=(r"rtGetDeviceIndexByPhyId execute failed", r"GetDeviceIndexByPhyId\]"),
        codes=(),
        meaning="HCCL could not map a physical device id to a logical one when building the "
        "communicator",
        causes=(
            "a CANN bug fixed in CANN 8.1.RC1 (per the report)",
            "ASCEND_RT_VISIBLE_DEVICES not matching the ranks' devices",
        ),
        fix="upgrade CANN (the reporter's fix: 8.1.RC1) and check ASCEND_RT_VISIBLE_DEVICES",
        confirm="env.npu",
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/672", "report"),),
        hints=("fail", "error"),
    ),
    Failure(
        id="hccl-root-info-init",
        mode="hccl",
        component="hccl",
        patterns=(
            # hcclCommInitRootInfo, hcclCommInitRootInfoConfig (and the same retyped in titles)
            r"HCCL function error ?: ?hcclCommIni\w{0,12}Root\w{0,12}",
            r"HcclCommInitRootInfo(?:Config)? fail",
            # the root rank's HcclGetRootInfo, and torch_npu's "<call>(args), error code is N"
            r"\b(?:hcclCommInitRootInfo(?:Config)?|HcclGetRootInfo)\([^)\n]{0,60}\),? error "
            r"code is \d{1,3}\b",
            r"\bHCCL get root info failed",
            # the root's topology exchange: fewer ranks connected than the world size
            r"topo ?exchange server get socket timeout",
            # ... and a rank's side of it: it never reached the root's host NIC and port
            r"topo ?exchange agent get socket timeout",
        ),
        codes=("EI0015",),
        meaning="creating the HCCL communicator from the root info failed (EI0015: not every "
        "rank reached the root within HCCL_CONNECT_TIMEOUT, or this rank's socket to it timed "
        "out); the E-code lines next to it and HCCL's return code say why "
        "(1 parameter, 2 null pointer, 4 internal, 7 unavailable, 9 timeout, 11/12 TCP/RoCE "
        "connect, 19 network)",
        causes=(
            "a rank that never created the communicator, or unreachable or dead at init (the "
            "host network to the root, HCCL_IF_IP, ports)",
            "the launch configuration: world size, ranks per node, master address or device ids "
            "not agreeing between nodes (return code 1; vllm-ascend#11542 maintainer asked for "
            "the launch script)",
            "HCCL itself not working on this node or chip (gpustack#2021 maintainer on 310P: run "
            "CANN's HCCL test)",
            "device id mapping errors",
            "the host NIC port HCCL listens on already taken by another job on this host "
            "(EJ0003 next to it: see hccl-port-in-use)",
            "the NPUs still held by the processes of a killed or earlier job, or by workers "
            "started before it (`npu-smi info` lists them; two reports: EI0015 after a kill -9, "
            "error 15 with vLLM's workers holding the cards)",
            "too little device memory left for the communicators, about 300 MB a card each "
            "(MindSpore's FAQ: error 2 under OpenMPI, fixed by a lower variable_memory_max_size)",
        ),
        fix="read the E-code after it and HCCL's return code; end the processes `npu-smi info` "
        "lists on the job's NPUs; check the launch script (world size, ranks per node, master "
        "address) and HCCL_IF_IP / HCCL_SOCKET_IFNAME (raise HCCL_CONNECT_TIMEOUT for slow "
        "starts), "
        "`ampenv doctor --only env.hccl`; then test HCCL alone with CANN's hccl_test "
        "(all_reduce_test) on the same devices; error 2 with the devices' memory nearly full: "
        "leave HCCL room (MindSpore: a lower variable_memory_max_size)",
        confirm="env.hccl",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/397", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/2712", "report"),
            Source("https://github.com/gpustack/gpustack/issues/2021", "maintainer"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/11542", "maintainer"),
            Source("https://github.com/hicann/hccl docs/api/context/HcclResult.md", "official"),
            Source("https://github.com/xLLM-AI/xllm/issues/350", "report"),
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/850/commlib/hcclug/"
                "hcclug_000036.html (topo exchange timeout: ranks that never connected)",
                "official",
            ),
            Source(
                "https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/API/hcclug/"
                "hcclug_000037.html (topo exchange agent get socket timeout)",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/3196", "report"),
            Source("index id 58511660259 (LoRA notes: EI0015 after a kill -9)", "report"),
            Source("index id 56171010235 (PyPTO notes: workers holding the cards)", "report"),
            Source(
                "mindspore-ai/docs r1.8 docs/mindspore/source_en/faq/distributed_configure.md "
                "(HcclCommInitRootInfo error 2: device memory for HCCL)",
                "official",
            ),
        ),
        hints=("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="hccl-port-in-use",
        mode="hccl",
        component="hccl",
        patterns=(
            r"\bEJ0003\b",
            r"Failed to bind the IP port",
            r"Failed to enable listening for the (?:host|NPU) network adapter socket",  # EI0019/20
            r"host nic listen start failed, port\[\d{1,5}\]",
            r"listen on ip\[[^\]\n]{1,60}\] and (?:specific )?port\[\d{1,5}\] fail",
            # EI0019 (Communication_Error_Bind_IP_Port): "Cannot bind IF. ip is ***, port is
            # 60000, bind fail. Reason: The IP and port have been bound already."
            r"Cannot bind IF\b[^\n]{0,120}\bbind fail",
        ),
        codes=("EJ0003", "EI0019", "EI0020"),
        meaning="HCCL could not listen on its port (the host NIC's, or EI0020: the NPU NIC's): "
        "the IP and port are bound already, most often by another job (or a leftover process) "
        "on the same host",
        causes=(
            "two jobs on one host using the same HCCL ports (60000-60015/60031 by default; "
            "vllm-ascend#405: two vLLM servers, vllm-ascend#4725: prefill and decode on one "
            "machine)",
            "a previous run's process still holding the port",
            "HCCL_IF_IP set to an address this host does not have",
        ),
        fix="find the holder of the port the line names: `ss -ltnp | grep :<port>`; stop it, or "
        "give each job on the host its own ports: a distinct HCCL_IF_BASE_PORT per job (HCCL "
        "takes 16 or 32 ports from it) and reserve them (sysctl -w "
        "net.ipv4.ip_local_reserved_ports=<base>-<base+31>); the NPU NIC's port (EI0020, "
        "16666 by default, shared by the host's containers): HCCL_NPU_SOCKET_PORT_RANGE=auto "
        "or a free range per job; check HCCL_IF_IP (`ampenv doctor --only env.hccl`)",
        confirm="env.hccl",
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/en/canncommercial/850/maintenref/envvar/"
                "envref_07_0074.html (HCCL_IF_BASE_PORT: 32 ports from 60000; ensure they are "
                "not occupied)",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/405", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/4725", "report"),
            Source(
                "ascend-gha-runners/docs docs/error-types-zh.md (HCCL 通信端口被占用: EI0019, "
                "Cannot bind IF)",
                "report",
            ),
            Source(
                "hcomm's error registry, EI0020 Communication_Error_Bind_IP_Port (the public "
                "file index's id 52202443630): HCCL_NPU_SOCKET_PORT_RANGE",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="ranktable-device-ip-mismatch",
        mode="hccl",
        component="hccp",
        patterns=(
            r"\bra_rdev_init_check_ip\(\d{1,6}\) ?: ?\[check\]\[ip\] ?fail",
            # the same refusal as HCCL reports it (TensorFlow migration FAQ: ret -17)
            # (HCCP prints "ret(-17)", the FAQ "ret [-17]"; -67 is a port that is down)
            r"\bra rdev init failed, ret ?[\[(] ?[-\u2013]17[\])]",
        ),
        codes=(),
        meaning="a device_ip in the rank table is not the IP configured on that NPU's network "
        "port, so HCCP refused to start its RDMA device",
        causes=(
            "a rank table written by hand or for other nodes",
            "NPU port IPs changed (hccn_tool) after the table was made",
        ),
        fix="read each NPU's port IP on every node (`for i in 0 1 2 3 4 5 6 7; do hccn_tool -i "
        "$i -ip -g; done`) and correct device_ip in the rank table, or generate it again",
        confirm="env.hccl",
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/en/TensorFlowCommercial/800/migration/"
                "tfmigr1/tfmigr1_000141.html (ra rdev init failed, ret [-17])",
                "official",
            ),
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha001/"
                "hccl/hcclug/hcclug_000042.html",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="hccl-ranktable-path",
        mode="hccl",
        component="hccl",
        # "[InitGroupStage][RanktableConfig]errNo[0x0000000005010001] path /ranktable.json is
        # not a valid real path"
        patterns=(
            r"(?:\[RanktableConfig\][^\n]{0,100}\bpath|\bRanktableRealPath:) \S{1,300} is not "
            r"a valid real path",
        ),
        codes=(),
        meaning="HCCL could not open the rank table: the path it was given (RANK_TABLE_FILE, or "
        "the communicator's argument) does not exist here or is not readable",
        causes=(
            "RANK_TABLE_FILE naming a file of another node or a path not mounted into the "
            "container",
            "a rank table this user may not read",
        ),
        fix="point RANK_TABLE_FILE at the rank table as this process sees it (mount it into the "
        'container), readable by the job\'s user: `ls -l "$RANK_TABLE_FILE"`',
        confirm="env.hccl",
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/850/commlib/hcclug/"
                "hcclug_000041.html (EI0004: not a valid real path)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="hccl-ranktable-invalid",
        mode="hccl",
        component="hccl",
        patterns=(
            r"\bEI0014\b",
            # a field the check refused, named with its value: "super_device_id[] is invalid"
            r"\[RanktableCheck\][^\n]{0,80}?\b[a-z][a-z_]{1,40}\[[^\]\n]{0,80}\] is invalid",
            # the parser's: "errNo[0x...]json object property value of Name[super_pod_id] is
            # not string!" (a 1.2 rank table without the field)
            r"errNo\[[^\]\n]{1,24}\]json object property value of Name\[[a-z_]{1,40}\] is not",
        ),
        codes=("EI0014",),
        meaning="HCCL rejected the rank table (RANK_TABLE_FILE or a mounted "
        "/etc/hccl_rootinfo.json): wrong format or version for this chip, or a field it "
        "names empty or wrong",
        causes=(
            "a rank table of another chip generation (1.0 = A2, 1.2 = A3, 2.0 = A5)",
            "a field left empty or wrong for this product (super_device_id on Atlas A3)",
        ),
        fix="regenerate the ranktable for this cluster (fill the field the line names, in the "
        "format of this product's rank table), or unset RANK_TABLE_FILE / remove the stale "
        "mounted one",
        confirm="env.hccl",
        sources=(
            Source("https://github.com/gpustack/runtime/pull/27", "report"),
            Source(
                "hicann/hccl docs/zh/user_guide/fault_diagnosis/rank_table_load_fail.md"
                "@09300b70df9a031339f08e5f2ca06d7bf294d009 (rank table field wrong, EI0004)",
                "official",
            ),
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850alpha002/"
                "hccl/hcclug/hcclug_000042.html (a 1.2 rank table without super_pod_id)",
                "official",
            ),
        ),
        hints=("error", "errno"),
    ),
    Failure(
        id="hccl-comm-not-created",
        mode="hccl",
        component="mindspore",
        patterns=(r"The pointer\[hccl_comm\] is null",),
        codes=(),
        meaning="MindSpore ran a collective (a broadcast, an all-reduce) before this process "
        "had an HCCL communicator: the communication group was never initialised here",
        causes=(
            "mindspore.communication.init() not called (or called after the first collective)",
            "the job not launched as a distributed one (msrun / mpirun, or RANK_TABLE_FILE and "
            "RANK_ID), so init() made no HCCL group",
        ),
        fix="call mindspore.communication.init() before any collective, and launch every rank "
        "with msrun (or mpirun, or a rank table with RANK_ID per process)",
        confirm=None,
        sources=(
            Source(
                "https://github.com/mindspore-lab/mindyolo/pull/182 (a broadcast before the "
                "group existed)",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="hccl-exec-timeout",
        mode="hccl",
        component="hccl",
        patterns=(
            r"hccl fftsplus (?:task )?timeout",
            r"\brt\w{2,40} execut(?:e|ion) failed, reason=\[?task timeout\b",
            code("107020"),
            # the device's own report: a stream waited for an event no one recorded
            r"event wait timeout occurred during task execution",
            # HCCL's own task-execution stage ("[TaskExecStage][Timeout][HOST]Task run failed")
            r"\[TaskExecStage\]\[Timeout\]",
        ),
        codes=("107020",),
        meaning="an HCCL collective task (or a stream's wait on an event that another stream or "
        "rank was to record) timed out on the device (HCCL_EXEC_TIMEOUT, 1836 s by default): a "
        "rank died, hangs, or the ranks drifted apart",
        causes=("a rank died or hangs", "ranks out of step (data imbalance)"),
        fix=FIRST_RANK,
        confirm="env.hccl",
        sources=(
            Source("https://github.com/hiyouga/LlamaFactory/issues/5347", "report"),
            Source("https://github.com/InternLM/lmdeploy/issues/3354", "report"),
            Source(FACTS + " §4 HCCL_EXEC_TIMEOUT (envref_07_0078)", "official"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/14214", "report"),
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/850/commlib/hcclug/"
                "hcclug_000025.html ([TaskExecStage][Timeout])",
                "official",
            ),
        ),
        hints=code_hints("timeout", "error"),
        rank=CLASS,
    ),
    Failure(
        id="hccl-watchdog-timeout",
        mode="hccl",
        component="torch_npu",
        patterns=(
            r"Watchdog caught collective operation timeout: WorkHCCL",
            r"HCCL watchdog thread terminated",
            r"Some HCCL operations have failed or timed out",
        ),
        codes=(),
        meaning="torch_npu's watchdog gave up on a collective (the process group timeout): a "
        "rank died, hangs, or the ranks drifted apart",
        causes=("a rank died or hangs", "a timeout shorter than genuine skew"),
        fix=FIRST_RANK + "; the process group timeout is init_process_group(timeout=...)",
        confirm="env.hccl",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/382", "report"),
            Source(
                "vllm-project/vllm-ascend#382; InternLM/lmdeploy#3354 (fftsplus timeout)", "report"
            ),
        ),
        hints=("timeout", "fail", "watchdog"),
        rank=CLASS,
    ),
    Failure(
        id="hccl-dtype-unsupported",
        mode="dtype",
        component="hccl",
        patterns=(
            r"HCCL [\w &]{1,60}: Unsupported data type \S{1,40}",
            r"Unsupported data type for HCCL process group",  # torch_npu's map lacks it
        ),
        codes=(),
        meaning="a collective was given a tensor of a dtype HCCL does not reduce or move: "
        "uint8 and bool (at::kByte/at::kBool), uint16/32/64, and before Atlas A5 float64",
        causes=(
            "a flag or mask all-reduced as a ByteTensor or bool (DeepSpeed's overflow check "
            "before its NPU fix)",
            "a float64 tensor in a collective (numpy-born values, torch.double defaults)",
            "uint8 model buffers that DDP broadcasts, on torch_npu 1.8.1 (no uint8 yet)",
        ),
        fix="cast before the collective and back after: bool/uint8 flags as int32 "
        "(t.int(), e.g. an overflow flag as IntTensor), float64 as float32; or upgrade the "
        "framework whose NPU port already does; DDP's uint8 buffers: cast them "
        "(b.data = b.data.int()) before wrapping, or broadcast_buffers=False",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/distributed/ProcessGroupHCCL.cpp "
                "checkSupportedDataType and HCCLUtils.cpp getHcclDataType, "
                "github.com/Ascend/pytorch@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source(
                "wangshuai09/Notebook QA/Error.md@1dde65b641956f59535106ab12f2e63d8ccfde94"
                " (DeepSpeed's overflow ByteTensor made an IntTensor)",
                "report",
            ),
            Source(f"{KB}, index id 53772299369 (uint8 buffers)", "official"),
        ),
        hints=("err", "unsupport"),
    ),
    Failure(
        id="hccn-tool-missing",
        mode="hccl",
        component="driver",
        patterns=(r"\bhccn_tool: (?:command )?not found",),
        codes=(),
        meaning="hccn_tool, the driver's tool for the NPUs' network ports, is not on PATH: a "
        "rank table generator (MindFormers' hccl_tools.py, a launcher) cannot read the "
        "devices' IPs",
        causes=(
            "PATH lacks the driver's tools (/usr/local/Ascend/driver/tools), or a container "
            "started without the host's driver mounted",
            "a card without RoCE ports (Atlas 300I Pro / Duo, 310P): there are no device IPs "
            "for a rank table",
        ),
        fix="ls /usr/local/Ascend/driver/tools/hccn_tool; add that directory to PATH (or mount "
        "/usr/local/Ascend/driver into the container); on a card without RoCE ports launch "
        "without a device-IP rank table (msrun / torchrun set up the ranks themselves)",
        confirm="npu.driver",
        sources=(Source("https://github.com/mindspore-ai/mindspore/issues/252", "report"),),
        hints=("hccn_tool",),
    ),
    Failure(
        id="hccl-buffsize-too-small",
        mode="hccl",
        component="hccl",
        # the MC2 operators' tiling (MoeDistributeDispatch/Combine) checks its window:
        # "HCCL_BUFFSIZE is too SMALL, ... NEEDED_HCCL_BUFFSIZE(...) = 305MB, HCCL_BUFFSIZE=200MB."
        # the tiling's own figures follow (a FAQ or a note quoting the words does not hold them)
        patterns=(
            # (an A3's hierarchical dispatch names its expert-parallel window: "HCCL_BUFFSIZE_EP
            # is too SMALL, maxBs = 64, ... = 600MB, HCCL_BUFFSIZE=256MB.")
            r"HCCL_BUFFSIZE(?:_EP)? is too SMALL, (?:maxBs|realBs|should larger than) ",
            # torch_npu's own check of the value (MB)
            r"Error: HCCL_BUFFSIZE should be positive",
        ),
        codes=(),
        meaning="a communicating operator (MoE dispatch/combine, the MC2 fused operators) needs "
        "a larger HCCL window than HCCL_BUFFSIZE gives (200 MB by default): its tiling fails "
        "(561002, EZ9999) before any data moves",
        causes=(
            "HCCL_BUFFSIZE left at its default for a MoE model whose batch, hidden size and "
            "experts per rank need more (the line prints the size it needs)",
        ),
        fix="export HCCL_BUFFSIZE=<MB> at least the NEEDED_HCCL_BUFFSIZE the line prints (e.g. "
        "1024) on every rank before the job starts, or lower the max batch size or the experts "
        "per rank; `ampenv doctor --only env.hccl`",
        confirm="env.hccl",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/pull/5287", "maintainer"),
            Source(
                "https://gitcode.com/cann/cann-recipes-infer models/glm_5_2/README.md (FAQ: "
                "'HCCL_BUFFSIZE is too SMALL': export the size it needs, the same on all ranks)",
                "official",
            ),
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha003/"
                "maintenref/envvar/envref_07_0080.html (HCCL_BUFFSIZE, in MB, 200 by default)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="mooncake-ascend-direct-connect",
        mode="hccl",
        component="mooncake (ascend_direct, CANN's ADXL)",
        # Mooncake's AscendDirect transport moves the KV cache device to device through CANN's
        # ADXL engine: "ascend_direct_transport.cpp:820] Failed to connect to target:
        # 172.17.0.16:25482, status: 103900"
        patterns=(
            r"ascend_direct_transport\.cpp:\d{1,6}\] Failed to connect to target: [^\s,]{1,80}, "
            r"status: \d{1,9}",
            r"ascend_direct_transport\.cpp:\d{1,6}\] Connect timeout to: [^\s,]{1,80}, you can "
            r"increase the timeout",
            r"Failed to initialize AdxlEngine, status: \d{1,9}",
        ),
        codes=(),
        meaning="Mooncake's AscendDirect transport (CANN's ADXL engine, device to device) could "
        "not connect to the peer's NPU, so the KV cache of a prefill/decode pair was not moved",
        causes=(
            "a CANN older than 8.3.RC1 (no ADXL), or the connector not told to use it "
            '("use_ascend_direct": true missing from kv_connector_extra_config; vllm-ascend#5635)',
            "the NPUs of the two nodes cannot reach each other over the device network, or the "
            "link takes longer than ASCEND_CONNECT_TIMEOUT to come up (vllm-ascend#7401)",
        ),
        fix="on both nodes: CANN 8.3.RC1 or newer and "
        '"use_ascend_direct": true in kv_connector_extra_config (vllm-ascend\'s Mooncake '
        "PD-disaggregation guide); check the device network between them: `hccn_tool -i <dev> "
        "-ping -g address <the peer NPU's IP>`; for 'Connect timeout', raise "
        "ASCEND_CONNECT_TIMEOUT on every node",
        confirm=None,
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/5635", "maintainer"),
            Source("https://github.com/kvcache-ai/Mooncake/pull/740", "maintainer"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/7401", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/4866", "report"),
            Source("https://github.com/kvcache-ai/Mooncake/pull/857", "report"),
        ),
        hints=("fail", "timeout"),
    ),
)
