"""The rendezvous before HCCL: the launcher's variables torch.distributed's env:// reads, its
store, through which the ranks exchange HCCL's root info, the master port it listens on, MPI,
through which HCCL Test (CANN's hccl_test, the collectives' bandwidth test a node's bring-up
runs) starts its ranks, and Ray's compiled graphs, through which vLLM's engine waits on its
workers across nodes."""

from __future__ import annotations

from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import Failure, Source

HCCL_TEST_FAQ = Source(
    "hicann/oam-tools docs/zh/hccl_test/faqs.md@ea0ce91e3a326ab6ae8a7c2caf88701343288f2b",
    "official",
)

FAILURES = (
    Failure(
        id="dist-store-unreachable",
        mode="hccl",
        component="torch.distributed",
        # c10d's client: "The client socket has timed out after 1800000ms while trying to
        # connect to (10.0.0.1, 38321)": the rendezvous store HCCL's root info goes through
        patterns=(r"The client socket has timed out after \d{1,10}ms while trying to connect to",),
        codes=(),
        meaning="a rank could not reach torch.distributed's store (MASTER_ADDR:MASTER_PORT), "
        "through which the ranks exchange HCCL's root info",
        causes=(
            "an address this worker cannot reach advertised for the master (Ray's node IP on "
            "another NIC, a container's internal address)",
            "the port closed by a firewall, or the master not started (or already gone)",
        ),
        fix="from the failing node try the address and port the line names (`nc -zv ADDR "
        "PORT`); set MASTER_ADDR to the master's reachable address (Ray: `ray start "
        "--node-ip-address=<reachable IP>`), pin the NICs (GLOO_SOCKET_IFNAME, "
        "HCCL_SOCKET_IFNAME) and open the port",
        confirm="dist.allreduce",
        sources=(Source("https://github.com/verl-project/verl/issues/849", "report"),),
        hints=("timeout",),
    ),
    Failure(
        id="master-port-in-use",
        mode="hccl",
        component="torch.distributed",
        patterns=(
            r"The server socket has failed to (?:bind to|listen on)[^\n]{0,160}"
            r"(?:Address already in use|any local network address)",
        ),
        codes=(),
        meaning="the rendezvous port (torchrun's MASTER_PORT) is taken on this host: a leftover "
        "process of an earlier job, or another job, holds it",
        causes=("a process of an interrupted job still alive", "two jobs on one MASTER_PORT"),
        fix="find and end the holder (`ss -ltnp | grep :<port>`), or start with another "
        "MASTER_PORT / --master_port",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch docs/zh/user_guide/troubleshooting/troubleshooting_cases/"
                "port_number_distributed_task_in_use.md@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="mpi-host-unresolved",
        mode="hccl",
        component="MPI",
        # MPICH's channel init: "MPID_nem_tcp_init(379)...: gethostbyname failed, HOST (errno 2)"
        # (the form of MPICH's error stack, FUNC(LINE)...: only: other programs print
        # "gethostbyname failed" too)
        patterns=(r"\b\w{1,60}\(\d{1,6}\)\.{0,80}: ?gethostbyname failed, [\w.-]{1,253} \(errno",),
        codes=(),
        meaning="MPI could not resolve a node's host name to an address, so its ranks (HCCL "
        "Test's among them) never start",
        causes=("the host name the line names missing from /etc/hosts (and from DNS)",),
        fix="add the node's address and the host name the line names to /etc/hosts on every "
        "node of the hostfile (`172.16.0.100 HOSTNAME`), then check with `getent hosts "
        "HOSTNAME`",
        confirm=None,
        sources=(HCCL_TEST_FAQ,),
        hints=("fail",),
    ),
    Failure(
        id="mpi-library-not-found",
        mode="hccl",
        component="MPI",
        # HCCL Test's binaries link MPI: "./all_reduce_test: error while loading shared
        # libraries: libmpi.so.12: cannot open shared object file" (MPICH's 12, Open MPI's 40)
        patterns=(r"(?<![\w.+-])libmpi\.so(?:\.[\d.]{1,20})?: cannot open shared object",),
        codes=(),
        meaning="MPI's library is not on the loader's path: HCCL Test's programs "
        "(all_reduce_test, ...) link MPI, which no CANN package installs",
        causes=("MPI installed where the loader does not look (/usr/local/mpich/lib)",),
        fix="put MPI's lib folder on the loader's path on every node "
        "(`export LD_LIBRARY_PATH=/usr/local/mpich/lib:$LD_LIBRARY_PATH`, or Open MPI's lib), "
        "or install the MPI HCCL Test was built with",
        confirm=None,
        sources=(HCCL_TEST_FAQ,),
        hints=("cannot",),
    ),
    Failure(
        id="ray-cgraph-timeout",
        mode="hccl",
        component="ray",
        # Ray's compiled graph (vLLM's Ray executor) giving up on a step's result
        patterns=(r"increase RAY_CGRAPH_get_timeout which is currently \d{1,9} seconds",),
        codes=(),
        meaning="a Ray compiled graph (vLLM's Ray executor) waited longer than its timeout for "
        "its workers' result: a step slower than the timeout (a large model across nodes, its "
        "first steps), or a worker hung",
        causes=(
            "a multi-node model whose step (with HCCL across nodes) takes longer than "
            "RAY_CGRAPH_get_timeout",
            "graph capture with tensor parallelism above 1 hanging a worker (an RL framework's "
            "FAQ: enforce_eager)",
            "a worker hung or died: the timeout only reports it",
        ),
        fix="raise RAY_CGRAPH_get_timeout above the seconds the message names (vLLM's Ray "
        "executor sets 300 where it is unset): export it in the environment of the process "
        "that starts the engine, before it imports ray; on NPUs raise HCCL_EXEC_TIMEOUT and "
        "HCCL_CONNECT_TIMEOUT to match (Huawei Cloud's guide: 700); if it still times out, "
        "run eager (enforce_eager=True / --enforce-eager) and read each worker node's log for "
        "the one that hung",
        confirm=None,
        sources=(
            Source(
                "https://support.huaweicloud.com/bestpractice-modelarts/modelarts_llm_infer_5908032"
                ".md (Ascend-vLLM FAQ, question 4: Ray across nodes)",
                "official",
            ),
            Source(
                "an RL framework's FAQ, index id 830133120 (tensor parallelism above 1: "
                "enforce_eager)",
                "maintainer",
            ),
        ),
        hints=("timeout",),
    ),
    Failure(
        id="launcher-variables-unset",
        mode="hccl",
        component="torch.distributed",
        # torch.distributed's env:// rendezvous (rendezvous.py _env_error): "Error initializing
        # torch.distributed using env:// rendezvous: environment variable RANK expected, but not
        # set", wrapped before "environment" by some loggers
        patterns=(
            r"environment variable (?:RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|LOCAL_RANK) "
            r"expected, but not set",
        ),
        codes=(),
        meaning="the process group was initialised from the environment (env://) in a process "
        "no launcher started: RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT are what torchrun "
        "(or the scheduler's launcher) sets for each process",
        causes=(
            "a distributed script or test run with python or pytest instead of torchrun",
            "a scheduler's job (Kubernetes, Slurm) whose entry point is not the launcher",
        ),
        fix="start it with the launcher: torchrun --nproc_per_node=<devices> script.py (tests: "
        "torchrun --nproc_per_node=N -m pytest ...); or set RANK, WORLD_SIZE, MASTER_ADDR and "
        "MASTER_PORT for every process yourself",
        confirm=None,
        sources=(
            Source(
                "a vLLM unit-test log's notes, section 4 (the public file index's id "
                "61561186270): run them under torchrun",
                "report",
            ),
            Source("https://pytorch.org/docs/stable/elastic/run.html (torchrun)", "official"),
        ),
        hints=("not set",),
        judge=in_error_record,  # a test suite's skip, a warning of a program that went on
    ),
)
