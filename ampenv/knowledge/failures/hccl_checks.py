"""HCCL's own verdicts on a communicator: what its ranks must agree on when it is created
(address family, TLS, super-node device ids, the collectives they call), the ranks that never
joined, what a link lacked (memory for its RoCE queue pairs), and the rank its heartbeat names
when one stops. Each line names the place to fix."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import KB, Failure, Source

DIAGNOSIS = (
    "hicann/hccl docs/zh/user_guide/fault_diagnosis/{}@09300b70df9a031339f08e5f2ca06d7bf294d009"
)


def _doc(page: str, section: str) -> Source:
    return Source(f"{DIAGNOSIS.format(page)} ({section})", "official")


# Gloo's interface on a host of several NICs
GLOO_IFNAME = (
    "export GLOO_SOCKET_IFNAME=<the interface of this node's address the others reach> (and "
    "HCCL_SOCKET_IFNAME the same) on every node; check `ip -4 addr` and that the nodes reach "
    "each other on it"
)

FAILURES = (
    Failure(
        id="hccl-op-retry-port-taken",
        mode="hccl",
        component="hccl",
        # operator retry's own connection to rank 0's server: "[OpRetryConnection][Init]
        # Connect to server failed, serverIp_[...] serverPort [60000]", after "Recv unmatched ack"
        patterns=(r"\[OpRetryConnection\]\[Init\] Connect to server failed",),
        codes=(),
        meaning="with HCCL's operator retry on (HCCL_OP_RETRY_ENABLE), a rank could not reach "
        "rank 0's retry server: its ports (60000-60015 by default) were bound by another "
        "process, or another service answered there ('Recv unmatched ack')",
        causes=(
            "the kernel handing HCCL's ports to other processes as ephemeral ports",
            "another service or job on the node listening on HCCL's ports",
        ),
        fix="reserve the ports: `sysctl -w net.ipv4.ip_local_reserved_ports=60000-60015`; if "
        "it persists, move HCCL to another range with HCCL_IF_BASE_PORT and reserve that too",
        confirm="env.hccl",
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha002/"
                "hccl/hcclug/hcclug_000036.html (connection failure with operator retry on)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="hccl-ip-family-mismatch",
        mode="hccl",
        component="hccl",
        patterns=(r"device ip family\[\d{1,2}\] is not same as others\[\d{1,2}\]",),
        codes=(),
        meaning="the ranks of one communicator reached each other over device NIC addresses of "
        "different IP families (2 = IPv4, 10 = IPv6), and HCCL's check of the collected rank "
        "table stopped the job",
        causes=(
            "some devices have an IPv4 address and others only IPv6 (HCCL takes a device's IPv4 "
            "address when it has one, else its IPv6 one)",
            "HCCL_SOCKET_FAMILY set differently on some ranks",
        ),
        fix="list each device's addresses on every server (`hccn_tool -i <dev> -ip -g`, "
        "`hccn_tool -i <dev> -ip -inet6 -g`) and give every device of the job the same family; "
        "set HCCL_SOCKET_FAMILY (AF_INET or AF_INET6) alike on every rank",
        confirm="env.hccl",
        sources=(
            _doc("cluster_info_verify_fail.md", "IP Family mismatch (EI0001)"),
            Source(
                "hicann/hccl docs/zh/user_guide/hccl_env/HCCL_SOCKET_FAMILY.md"
                "@09300b70df9a031339f08e5f2ca06d7bf294d009",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="hccl-tls-inconsistent",
        mode="hccl",
        component="hccl",
        patterns=(r"Value \w{1,16} for config \"tls\" is invalid",),
        codes=(),
        meaning="the device NICs of the ranks of one communicator do not agree on TLS (on for "
        "some, off for others); the line lists the ranks of each state, and HCCL stops at "
        "its check of the collected rank table (HDK 25.2.0 and later, root-info init)",
        causes=(
            "TLS switched on for the NPU NICs of some servers and off for others (after a "
            "repair, a re-imaged node, or one server configured by hand)",
            "TLS on everywhere but with different certificates on some devices",
        ),
        fix="read every device's TLS state on every server: `for i in $(seq 0 7); do hccn_tool "
        "-i $i -tls -g; done`; set one state for all (the doc advises on: `hccn_tool -i <dev> "
        "-tls -s enable 1`) and the same certificates, then restart the job",
        confirm=None,
        sources=(_doc("cluster_info_verify_fail.md", "TLS configuration not consistent (EI0016)"),),
        hints=("is invalid", "error"),
    ),
    Failure(
        id="hccl-super-device-id-duplicate",
        mode="hccl",
        component="hccl",
        patterns=(r"devices have same superDeviceId\[",),
        codes=(),
        meaning="two devices of one super-node (Atlas A3) report the same superDeviceId "
        "(SDID), the id that must be unique within a super-node, so HCCL's check of the rank "
        "table fails",
        causes=(
            "HCCL_LOGIC_SUPERPOD_ID grouping devices of different physical super-nodes into one "
            "logical super-node",
            "a super-node's hardware configuration",
        ),
        fix="read the SDIDs (`npu-smi info -t spod-info -i <id> -c <chip>` on each server) and "
        "set HCCL_LOGIC_SUPERPOD_ID so that no logical super-node holds two devices of the "
        "same SDID (or unset it); if one physical super-node shows a duplicate, its hardware "
        "configuration needs repair",
        confirm=None,
        sources=(_doc("cluster_info_verify_fail.md", "superDeviceId duplicated (EI0014)"),),
        hints=("error",),
    ),
    Failure(
        id="hccl-ranks-share-device",
        mode="hccl",
        component="hccl",
        # HCCL's check of the ranks of one server at root-info init (EI0015, HCCL_E_PARA)
        patterns=(r"has the same physical device ID ?\d{1,3} as (?:the )?rank ?\d{1,6}",),
        codes=(),
        meaning="two ranks of one server opened the same NPU (the line names the device and "
        "both ranks), so HCCL refuses to build the communicator: each rank needs a device of "
        "its own",
        causes=(
            "the ranks never set their device before the process group was made, so all use "
            "device 0 (no torch.npu.set_device(local_rank), or a launcher's code that binds "
            "CUDA and XPU devices only)",
            "ASCEND_RT_VISIBLE_DEVICES giving every rank the same single device",
        ),
        fix="bind each rank to its own NPU before init_process_group and before its first "
        "tensor: `torch.npu.set_device(int(os.environ['LOCAL_RANK']))` (or "
        "torch.accelerator.set_device_index); give each rank a distinct device in "
        "ASCEND_RT_VISIBLE_DEVICES if the launcher sets it per rank",
        confirm=None,
        sources=(
            Source(
                "HCCL's TopoInfoExchangeAgent::VerifyServerDevicePhysicID (the public file "
                "index's id 67337065096): EI0015 with HCCL_E_PARA",
                "official",
            ),
            Source(
                "https://github.com/pytorch/pytorch/issues/189989 (fixed by "
                "https://github.com/pytorch/pytorch/pull/189992: each rank bound to its device)",
                "maintainer",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="rank-table-file-unset",
        mode="hccl",
        component="hccl",
        # a launcher or HCCL's own test asking for the rank table before any rank starts
        patterns=(r"\bRANK_TABLE_FILE\b[^\n]{0,40}\bnot set\b",),
        codes=(),
        meaning="the job wants a rank table (the file that lists every rank's server and "
        "device) and RANK_TABLE_FILE is not set in its environment",
        causes=(
            "a launch that builds communicators from a rank table (MindSpore's and "
            "TensorFlow's, HCCL's tests) started without it exported in every rank's shell",
        ),
        fix="generate the rank table for the devices the job uses (MindSpore's hccl_tools.py, "
        "or the cluster's scheduler writes one) and `export RANK_TABLE_FILE=/path/to/"
        "rank_table.json` in every rank's environment; or launch without one (msrun, torchrun "
        "with HCCL's root info)",
        confirm="env.hccl",
        sources=(
            Source(
                "an FAQ of HCCL-VM, the HCCL simulator of CANN's university competitions (the "
                "public file index's id 58109246070): RANK_TABLE_FILE env not set",
                "report",
            ),
        ),
        hints=("not set",),
    ),
    Failure(
        id="hccl-collective-mismatch",
        mode="hccl",
        component="hccl",
        patterns=(r"\[ParameterConflict\]\s?CMD information \w{1,24} check fail",),
        codes=(),
        meaning="two ranks linking up for a collective are not calling the same one: HCCL "
        "compared the operator, tag, count or dtype each side issued and they differ (the line "
        "shows the local and the remote value)",
        causes=(
            "the training script taking a different path on some ranks (a collective inside a "
            "branch on the rank, a data-dependent skip, an uneven last batch)",
            "ranks running different versions of the script, its configuration or its data",
        ),
        fix="make every rank issue the same collectives in the same order: compare the local "
        "and remote tags the line prints, look for collectives inside rank-dependent branches, "
        "and check that all nodes run the same code, configuration and data",
        confirm=None,
        sources=(_doc("param_link_stage.md", "parameter consistency check (EI0005)"),),
        hints=("fail",),
    ),
    Failure(
        id="hccl-ranks-never-joined",
        mode="hccl",
        component="hccl",
        # the root's word to the ranks that did connect, naming those that did not
        patterns=(r"Failed to connect agent\[\s?\d",),
        codes=(),
        meaning="the root rank's topology exchange timed out: the ranks the line lists (or the "
        "difference between the ranks connected and those needed) never reached it",
        causes=(
            "those ranks were not started, died before the communicator's init, or called it "
            "much later than the others (past HCCL_CONNECT_TIMEOUT)",
            "those ranks cannot reach the root's host NIC and port (HCCL_SOCKET_IFNAME / "
            "HCCL_IF_IP, a firewall)",
        ),
        fix="go to the ranks the line names: check that they started and reached the "
        "communicator's init (their own logs), that they reach the root's host IP and port, "
        "and that HCCL_SOCKET_IFNAME picks the same network on every node; raise "
        "HCCL_CONNECT_TIMEOUT only if they merely start late",
        confirm="env.hccl",
        sources=(
            _doc("cluster_info_nego.md", "some ranks did not connect to the server (EI0015)"),
        ),
        hints=("fail",),
    ),
    Failure(
        id="hccl-rank-stuck",
        mode="hccl",
        component="hccl",
        patterns=(r"\[HeartbeatAbnormal\][^\n]{0,600}?ExceptionType:\s?\[Stuck Occurred\]",),
        codes=(),
        meaning="HCCL's heartbeat found a rank stuck: the node named as the Cluster Exception "
        "Location has a host process or a device task that stopped making progress",
        causes=(
            "the process on that node deadlocked or hangs (in data loading, a Python lock, a "
            "collective the others never call)",
            "a device task on that node that never finishes",
        ),
        fix="on the node the line names as the location, see where its process waits "
        "(`py-spy dump --pid <pid>`) and read its plog for a task that never finished; the "
        "other ranks' timeouts follow from it",
        confirm=None,
        sources=(_doc("task_exec_stage.md", "process stuck or heartbeat lost"),),
        hints=("abnormal",),
    ),
    Failure(
        id="hccp-qp-no-memory",
        mode="hccl",
        component="hccp",
        patterns=(
            # the device's RoCE driver and HCCP's host side, with ENOMEM (-12)
            r"init (?:mem )?pool failed, hal_alloc_buf failed ret ?= ?-12\b",
            r"\bcreate qp fail, ret\(-12\)",
        ),
        codes=(),
        meaning="HCCL's device-side process (HCCP) could not get device memory for the RoCE "
        "queue pairs of a link (-12, out of memory), so the link to the peer was not made "
        "(EI0009's 'Transport init error' follows)",
        causes=(
            "the device's memory taken before the links were made: by this job's model or "
            "cache, or by a leftover process on the card",
            "many links or deep queue pairs for the memory left (EI0011's QP depth)",
        ),
        fix="`npu-smi info`: stop leftover processes on the card; leave device memory for the "
        "links (a lower memory fraction or batch, communicators made before the model takes "
        "memory), a smaller HCCL_BUFFSIZE; then relaunch every rank",
        confirm="npu.devices",
        sources=(
            Source(
                "https://www.hiascend.com/forum/thread-0246172984876137283-1-1.html (EI0009: "
                "the RoCE driver's mem pool, ret -12)",
                "report",
            ),
            _doc("param_link_stage.md", "QP memory (EI0011)"),
        ),
        hints=("fail",),
    ),
    Failure(
        id="hccl-device-ip-not-set",
        mode="hccl",
        component="hccl",
        patterns=(r"'device_ip' is not set correctly,\s?must be set when multi Server",),
        codes=(),
        meaning="HCCL needs each device's NIC address (device_ip) for a job across servers "
        "(or with HCCL_INTRA_ROCE_ENABLE) and found none: the rank table has none, and in a "
        "container /etc/hccn.conf, where it reads them, is not there",
        causes=(
            "a container without the host's /etc/hccn.conf (CANN releases before HCCL asked "
            "hccn_tool itself)",
            "/etc/hccn.conf without the device's address",
        ),
        fix="mount the host's /etc/hccn.conf into the container (-v /etc/hccn.conf:/etc/"
        "hccn.conf:ro), or add the device's address to it (`hccn_tool -i <id> -ip -g` shows "
        "it), or put device_ip in the rank table; a newer CANN reads the address itself",
        confirm="env.hccl",
        sources=(
            Source(
                "cann/hixl wiki, HIXL troubleshooting handbook (2, error 2), citing "
                "https://gitcode.com/cann/hixl/issues/113",
                "maintainer",
            ),
        ),
        hints=("err",),  # (its message is a key of its own)
    ),
    Failure(
        id="hccl-super-device-id-missing",
        mode="hccl",
        component="hccp",
        # the driver asked for the peer's HCCS address by an unset super_device_id
        patterns=(r"get_vnic_ip_by_sdid fail! sdid:\s?0xffffffff",),
        codes=(),
        meaning="a link over HCCS (between the devices of an A3 super node) needs each device's "
        "super_device_id, and the rank table gave none (0xffffffff): the link is never set "
        "up and the ranks time out waiting for it",
        causes=("a rank table of version 1.0, without super_device_id, on an A3 super node",),
        fix="use a version 1.2 rank table with super_device_id (and super_pod_id) for every "
        "device: `npu-smi info -t spod-info -i <id> -c <chip>` shows a device's SDID",
        confirm="env.hccl",
        sources=(
            Source(
                "cann/hixl wiki, HIXL troubleshooting handbook (1, scenario 4), citing "
                "https://gitcode.com/cann/hixl/issues/105",
                "maintainer",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="rdma-memory-register-failed",
        mode="hccl",
        component="hccp",
        patterns=(r"\bra reg (?:global )?mr fail\b",),
        codes=(),
        meaning="registering memory with the device's RoCE NIC failed (for a link, a KV-cache "
        "transfer, a one-sided copy): the range given goes past the memory allocated, or the "
        "memory is of a kind the NIC cannot register",
        causes=(
            "a registered size larger than the allocation (rounded up past its end)",
            "host memory mapped with MallocPhysical registered for RoCE",
        ),
        fix="register no more than was allocated (align the size down inside the allocation) "
        "and only memory the NIC can register (device memory); the line names the address "
        "and size",
        confirm=None,
        sources=(
            Source(
                "cann/hixl wiki, HIXL troubleshooting handbook (2, error 1, scenario 2), citing "
                "https://gitcode.com/cann/hixl/issues/26",
                "maintainer",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="ranktable-ip-invalid",
        mode="hccl",
        component="hccl",
        # HCCL's check of a rank table's device_ip / eth ip (EI0004's reason)
        patterns=(r"ip in ranktable is not a valid ip address",),
        codes=(),
        meaning="an IP address in the rank table (a device_ip, an eth ip) is not an address at "
        "all: a placeholder (' ', '-.-.-.-') or an empty field, so HCCL refuses the table",
        causes=(
            "a rank table written by a tool that could not read the NPUs' NIC addresses (in a "
            "container without /etc/hccn.conf or hccn_tool), leaving placeholders",
            "a template's rank table (a platform's /etc/hccl_conf.json) used as it is",
        ),
        fix="write the rank table the job runs with: each device_ip from `hccn_tool -i <id> -ip "
        "-g` on its server; on one server leave device_ip out (or run without a rank table), "
        "and point RANK_TABLE_FILE at that file",
        confirm="env.hccl",
        sources=(
            Source(
                "HCCL's rank-table parser, UNIQUE_INFO_TYPE_DEVICE_IP (the public file index's id "
                "1908115347): EI0004 'The ip in ranktable is not a valid ip address'",
                "official",
            ),
            Source(
                "an AIStudio NPU runtime note (the public file index's id 61693676188): "
                "placeholder device_ip in /etc/hccl_conf.json, a per-job rank table",
                "report",
            ),
        ),
        hints=("err",),  # (its message is a key of its own, found by the "not " pass)
    ),
    Failure(
        id="hccp-ra-init-user",
        mode="hccl",
        component="hccp",
        # HCCP's RDMA agent refusing to start (19) for a user it cannot resolve
        patterns=(r"\bra init failed, return\[19\]",),
        codes=(),
        meaning="HCCP's RDMA agent (ra) could not start (19): the cause documented is the user "
        "the job runs as, since with more than one device (TP > 1) HCCL needs the process's "
        "UID to have an entry in /etc/passwd",
        causes=(
            "a container run as a non-root UID (runAsUser: 1000) that /etc/passwd does not list",
            "/etc/hccn.conf not readable by that user",
        ),
        fix="give the UID an entry: a derived image with `useradd --uid 1000 --gid 0 "
        "<name>` (or run as root), keep runAsUser/runAsGroup at that UID and group 0, and make "
        "/etc/hccn.conf readable to it",
        confirm="env.hccl",
        sources=(
            Source(
                "vllm-project/vllm-ascend docs/source/user_guide/deployment_guide/non_root_user.md"
                "@698d5bd1c138ef0f1eef5c593f0bd126b994651f",
                "maintainer",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="gloo-full-mesh-failed",
        mode="hccl",
        component="gloo",
        # torch.distributed's Gloo groups (the CPU side of an NPU job) connecting their ranks
        patterns=(r"Gloo connectFullMesh failed",),
        codes=(),
        meaning="torch.distributed's Gloo backend (the CPU process groups beside HCCL's) could "
        "not connect every rank to every other: on a host with several NICs it picked one the "
        "other ranks cannot reach, or in a large cluster the master could not take every "
        "rank's connection at once",
        causes=(
            "several network interfaces and no GLOO_SOCKET_IFNAME: Gloo takes the one the host "
            "name resolves to",
            "more bonded ports than Gloo handles (over 60 bond4 ports in the source's case)",
            "a large cluster: every card connects to the master at once and its listen backlog "
            "overflows",
        ),
        fix=GLOO_IFNAME + "; a large cluster: raise the backlogs on the master node "
        "(sysctl -w net.ipv4.tcp_max_syn_backlog=65536 net.core.netdev_max_backlog=65536, and "
        "net.core.somaxconn, which caps a listen backlog), or "
        "in MindSpeed replace the Gloo groups with HCCL's (--disable-gloo-group)",
        confirm="env.hccl",
        sources=(
            Source(
                "Huawei's one-case knowledge base, 'Gloo connectFullMesh failed' (the public "
                "file index's id 53954242675)",
                "official",
            ),
            Source(
                "Ascend/MindSpeed docs/zh/features/hccl-replace-gloo.md"
                "@028de58ca629d035185b00ff7d1eb7eff4f7fd48 (the master's backlogs; "
                "--disable-gloo-group)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="gloo-connect-retry",
        mode="hccl",
        component="gloo",
        # Gloo's TCP pair retrying a peer ("failed to connect, willRetry=1, retry=2,
        # retryLimit=3, rank=1, ... error=SO_ERROR: Connection refused")
        patterns=(r"failed to connect, willRetry=\d{1,3}, retry=\d{1,3}, retryLimit=\d{1,3}\b",),
        codes=(),
        meaning="Gloo (torch.distributed's CPU groups) retried its connection to a peer: where "
        "the job then failed, the address it tried is one this node cannot reach",
        causes=(
            "several network interfaces and no GLOO_SOCKET_IFNAME (MindIE's FAQ)",
            "the peer not listening yet: a retry that then connects is harmless",
        ),
        fix=GLOO_IFNAME,
        confirm="env.hccl",
        sources=(
            Source(
                "Ascend/MindIE-LLM docs/zh/faq/faq.md@8b4871ad31f592aa863f6255760e4934484d78e4 "
                "(Gloo's 'failed to connect ... Connection refused': GLOO_SOCKET_IFNAME)",
                "official",
            ),
        ),
        hints=("fail",),
        # a retry that connects is printed by healthy jobs too: a cause only beside a failure
        notice=True,
    ),
    Failure(
        id="hccn-conf-invalid",
        mode="hccl",
        component="hccn_tool",
        patterns=(r"Failed to check the route network segment in the config file",),
        codes=(),
        meaning="hccn_tool could not set a device NIC's address because /etc/hccn.conf, where it "
        "keeps the devices' addresses and routes, is missing or its entries are wrong",
        causes=(
            "/etc/hccn.conf missing (a driver or firmware upgrade, a new node)",
            "its address, netmask or route lines wrong or malformed",
        ),
        fix="create /etc/hccn.conf if it is missing (an empty file is valid: `touch "
        "/etc/hccn.conf`), or correct its lines; then set the address again (`hccn_tool -i ID "
        "-ip -s address A netmask M`) and check it (`hccn_tool -i ID -ip -g`); "
        "/var/log/hccn_tool/hccn.log says more",
        confirm=None,
        sources=(Source(f"{KB}, index id 54245639881 (Atlas 800 9000)", "official"),),
        hints=("fail", "hccn_tool"),
    ),
    Failure(
        id="hccl-plugin-init-failed",
        mode="hccl",
        component="GE",
        # MindSpore on Ascend: GE starting its plugins (HCCL's) at graph init
        patterns=(r"Init plugin so failed, ret = \d{1,12}",),
        codes=(),
        meaning="the graph engine could not start its plugins, HCCL's among them: in a "
        "distributed job most often HCCL's own start, from the rank table it was given",
        causes=(
            "the rank table (RANK_TABLE_FILE) wrong for this job: its servers, device ids or "
            "rank count",
            "RANK_TABLE_FILE, RANK_ID or DEVICE_ID not set (or set alike) for this process",
        ),
        fix="make the rank table again for the devices this job uses (MindSpore: its "
        "hccl_tools.py) and check RANK_TABLE_FILE, RANK_ID and DEVICE_ID in each process; "
        "ASCEND_SLOG_PRINT_TO_STDOUT=1 prints HCCL's own error",
        confirm="env.hccl",
        sources=(
            Source(
                "mindspore-ai/docs r1.8 docs/mindspore/source_en/faq/distributed_configure.md "
                "(Init plugin so failed, ret = 1343225860)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="device-plugin-device-ip",
        mode="hccl",
        component="device plugin",
        # MindCluster's Ascend Device Plugin, reading each NPU's address for the job's
        # annotations (hccl.json then stays "initializing")
        patterns=(r"\bGet device ip failed\b",),
        codes=(),
        # its WARN record is a probe the plugin goes on from
        judge=in_error_record,
        meaning="the Kubernetes device plugin could not read an NPU's device IP, so it writes "
        "no device addresses for the job and its hccl.json (the rank table) is never made",
        causes=("the NPUs' addresses never set with hccn_tool (a new node, a reset NIC)",),
        fix="set and check each NPU's address on the node (`hccn_tool -i <id> -ip -s address "
        "A netmask M`, `hccn_tool -i <id> -ip -g`), then restart the device plugin's pod",
        confirm=None,
        sources=(
            Source(
                "Ascend/mind-cluster docs/zh/faq.md@c5bc371b45aea0988fc16b2ce343e6fa1cc3e9f0 "
                "(hccl.json not made: the device plugin could not get the device IP)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="npu-optical-module-absent",
        mode="hccl",
        component="hccn",
        # hccn_tool -i N -optical -g: its status column of the NPU port's optical module (a
        # report's "not present" holds no error word: its key, in the pass for "not ")
        patterns=(r"\b(?-i:present\s{0,40}: not present)\b",),  # (Fault-Diag's own reading)
        codes=(),
        meaning="the NPU's network port has no optical module detected (hccn_tool's optical "
        "query): the port cannot link, and HCCL over it fails (no light, link down)",
        causes=(
            "the optical module missing, not seated, or failed",
            "a port cabled with a copper cable or a module the NPU does not detect",
            "a pod board (Board ID 0x30, 0x31, 0x32 or 0x34), whose ports have no optical "
            "modules: no fault (Fault-Diag skips it)",
        ),
        fix="a pod board (`npu-smi info -t board -i N`: Board ID 0x30, 0x31, 0x32, 0x34) has "
        "none: nothing to do; otherwise reseat or replace the optical module of that NPU's "
        "port (the -i N of the command), "
        "then check `hccn_tool -i N -optical -g` (present) and `hccn_tool -i N -link -g` (UP); "
        "if it stays absent, collect the NPU's logs with msnpureport for Huawei support",
        confirm="env.hccl",
        sources=(
            Source(
                "Ascend/mind-cluster docs/zh/faultdiag/ascend-faultdiag/03_quick_start/"
                "quick_start.md@22bb3d987bc0208c3eb7395e222b661276133c58 (Fault-Diag's "
                "Comp_Network_Custom_05: NPU optical module not detected)",
                "official",
            ),
            Source(
                "Ascend/mind-cluster ascend-faultdiag's npu_info parser (OpticalInfoParser: pod "
                "boards skipped), the public file index's id 22995307235",
                "official",
            ),
        ),
        hints=("error",),  # (its key "not present" is what a report holds)
    ),
)
