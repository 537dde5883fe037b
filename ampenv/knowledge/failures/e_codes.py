"""CANN's E-codes ("E" + a module letter + four digits): their format, modules, CANN's own
table of them and its reference pages, and HCCL's rows of it."""

from __future__ import annotations

import functools
import json
from pathlib import Path

# CANN E-codes: "E" + a module letter + four digits; 0000-8999 a user error (the environment,
# parameters or usage), 9000-9999 an internal one (the lines around it say what).
E_CODE_FORMAT = (
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha002/API/"
    "codeopenapi/cann_base_api_0005.html (E-code format: level, module, number)"
)
ERROR_CODE_JSON = (
    "CANN conf/error_manager/error_code.json (errClass of each code; 8.1.RC1 as shipped, "
    "github.com/leideng/CANN-8.1.RC1@4332a0134a96cfea4a4f6673690a81075c1e4dfb)"
)
# module letter -> (mode, module); the module is the errClass CANN's table gives its codes
E_MODULES: dict[str, tuple[str, str]] = {
    "E1": ("compile-cache", "GE (the graph engine, ATC)"),
    "E2": ("compile-cache", "FE (the fusion engine)"),
    "E3": ("core-exception", "AI CPU"),
    "E4": ("compile-cache", "TE fusion (operator compilation)"),
    "E7": ("core-exception", "operator plugins"),
    "E8": ("cann-pairing", "vector operators and the OPP package"),
    "EB": ("compile-cache", "the TBE pass compiler"),
    "EC": ("compile-cache", "auto tune (AOE)"),
    "ED": ("compile-cache", "RL tune"),
    "EE": ("core-exception", "the runtime (RTS)"),
    "EF": ("compile-cache", "LX fusion and auto deploy"),
    "EH": ("core-exception", "ACL"),
    "EI": ("hccl", "HCCL (collective communication)"),
    "EJ": ("hccl", "HCCP (the device network process HCCL uses)"),
    "EK": ("core-exception", "profiling"),
    "EL": ("driver", "the driver (devices, device memory and resources)"),
    "EM": ("core-exception", "queue scheduling"),
    "EN": ("core-exception", "DVPP (media processing)"),
    "EO": ("compile-cache", "AMCT (model compression)"),
    "EZ": ("core-exception", "operators (public operators, aclnn)"),
}

# CANN's own table of every E-code (cann_error_codes.json: title, message, possible cause,
# solution), generated from the toolkit's conf/error_manager/error_code.json; read on demand.
E_TABLE_FILE = Path(__file__).with_name("cann_error_codes.json")


@functools.lru_cache(maxsize=1)
def cann_e_codes() -> tuple[str, dict[str, tuple[str, str, str, str]]]:
    """CANN's E-code table and where it comes from."""
    data = json.loads(E_TABLE_FILE.read_text(encoding="utf-8"))
    return data["source"], {code: tuple(row) for code, row in data["codes"].items()}


# CANN's error-code reference, a page a code (cann_error_pages.json: its title, the formats its
# message is printed from, an example, the causes, the solution, the page it comes from): newer
# than the table above (codes CANN added after 8.1.RC1, such as EL0019-EL0024 and EE1023-EE1026)
# and the message formats as CANN 8.5 and later print them.
E_PAGES_FILE = Path(__file__).with_name("cann_error_pages.json")
E_PAGES_SOURCE = (
    "CANN's error-code reference pages (hicann/docs troubleshooting/error-codes, hicann/runtime "
    "error_code_ref, hicann/hcomm error_codes): each code's page named with its commit"
)


@functools.lru_cache(maxsize=1)
def cann_e_pages() -> dict[str, dict]:
    """Each code's reference page: title, formats, examples, causes, solution, sources."""
    return json.loads(E_PAGES_FILE.read_text(encoding="utf-8"))["codes"]


def cann_e_row(code: str) -> tuple[str, str, str, str, tuple[str, ...]]:
    """An E-code's title, message, cause and solution as CANN's table and its reference page
    give them (the page's where both do: it is the newer), and where they come from."""
    source, table = cann_e_codes()
    title, message, cause, solution = table.get(code, ("", "", "", ""))
    sources = (source,) if any((title, cause, solution)) else ()
    page = cann_e_pages().get(code)
    if page:
        title = page["title"].replace("_", " ") or title
        cause = "; ".join(page["causes"]) or cause
        solution = page["solution"] or solution
        message = message or next(iter(page["formats"]), "")
        sources += tuple(page["sources"])
    return title, message, cause, solution, sources


def known_e_code(code: str) -> bool:
    """Whether CANN's table or its reference pages hold ``code``."""
    return code in cann_e_codes()[1] or code in cann_e_pages()


def cann_e_formats() -> dict[str, tuple[str, ...]]:
    """The formats each E-code's message is printed from: the table's and its page's."""
    merged: dict[str, dict[str, None]] = {}
    for code, row in cann_e_codes()[1].items():
        if row[1]:
            merged.setdefault(code, {})[row[1]] = None
    for code, page in cann_e_pages().items():
        for fmt in page["formats"]:
            merged.setdefault(code, {})[fmt] = None
    return {code: tuple(fmts) for code, fmts in merged.items()}


# HCCL's and HCCP's own E-codes (CANN's error table for them: title, message, cause, solution),
# for the codes no curated entry has.
E_TABLE_SOURCE = (
    "CANN's error tables registered with REG_FORMAT_ERROR_MSG (errTitle, ErrMessage, Possible "
    "Cause, Solution): hicann/hcomm for HCCL/HCCP, the ops repositories' op_common/log/log.cpp "
    "for operators"
)
E_CODES: dict[str, tuple[str, str, str]] = {
    # code: (title, cause, solution); "" where the table says N/A
    "EI0003": (
        "Invalid_Argument_Collective_Communication_Operator",
        "a collective was called with an invalid argument",
        "call it again with a valid argument (the message names the parameter)",
    ),
    "EI0004": (
        "Config_Error_Ranktable_Configuration",
        "the ranktable or a rank in it is invalid",
        "fix the ranktable file so it matches the cluster that runs (devices, IPs, rank ids)",
    ),
    "EI0005": (
        "Inconsistent_Collective_Communication_Arguments_Between_Ranks",
        "ranks called the same collective with different arguments",
        "make every rank run the same script and ranktable (counts, dtypes and order of "
        "collectives must agree)",
    ),
    "EI0007": (
        "Resource_Error",
        "HCCL could not allocate memory or a notify register: resources exhausted",
        "free device memory or resources (fewer communicators, a smaller HCCL_BUFFSIZE)",
    ),
    "EI0008": (
        "Package_Error_Incorrect_HCCL_Version",
        "the ranks run different HCCL (CANN) versions",
        "install the same CANN release on every node",
    ),
    "EI0010": (
        "Communication_Error_P2P",
        "peer-to-peer communication between devices failed",
        "check the device is healthy; CANN suggests export HCCL_INTRA_ROCE_ENABLE=1",
    ),
    "EI0011": (
        "Resource_Error_Insufficient_Device_Memory",
        "HCCL could not allocate the device memory it needs",
        "stop other processes on the device and leave HCCL room (a lower memory share for the "
        "model, a smaller HCCL_BUFFSIZE)",
    ),
    "EI0012": (
        "Execution_Error_SDMA",
        "an SDMA copy of a collective failed: a broken link, a peer that exited, or a buffer "
        "not allocated / freed too early",
        "check the peer rank for an earlier exit; check the links; check the collective's "
        "buffers are allocated and alive until it completes",
    ),
    "EI0013": (
        "Execution_Error_ROCE_CQE",
        "an error completion on RoCE: the network between two devices broke, or the peer "
        "process exited first",
        "check the network ports between the two devices (hccn_tool -i <id> -link -g) and "
        "whether the peer process exited first",
    ),
    "EI0016": ("Config_Error", "an HCCL configuration value is invalid", ""),
    "EI0017": ("Config_Error_Ranktable", "a field is missing from the ranktable", ""),
    "EJ0004": ("Invalid_Argument_IP_Address", "an IP address HCCP was given is invalid", ""),
    "EZ3002": (
        "Unsupported_Operator",
        "the operator information library does not support this operator as specified",
        "check the OPP (kernels) package matches CANN and the chip; else keep the operator out "
        "of the model or ask for its support",
    ),
    "EZ3003": (
        "Unsupported_Operator",
        "no operator kernel or engine supports the operator: OPP not installed properly (for a "
        "custom operator: its package, or ASCEND_CUSTOM_OPP_PATH), or the operator unsupported "
        "here",
        "check the OPP component (the kernels package of this CANN and chip) is installed "
        "properly; a custom operator: install its package (custom_opp_*.run) and set "
        "ASCEND_CUSTOM_OPP_PATH to where it went; `ampenv doctor --only cann.toolkit`",
    ),
    "E70003": (
        "Not_Supported_Format",
        "an operator input has a dtype the operator does not take (the message lists the ones "
        "it does)",
        "cast the input to a listed dtype (on 910A / 310P: float16 instead of bfloat16)",
    ),
    "E80001": (
        "Invalid_Config_Value",
        "the OPP package's configuration file lacks an entry",
        "reinstall the OPP (kernels) package of this CANN",
    ),
}
