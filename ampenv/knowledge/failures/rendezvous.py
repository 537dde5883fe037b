"""The rendezvous before HCCL: torch.distributed's store, through which the ranks exchange
HCCL's root info, and the master port it listens on."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

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
)
