"""The official code tables, as rows: a code, its name where the table gives one, its meaning.

Meanings are short restatements of the tables' own words (the sources below); a code's fix comes
from the class it belongs to (``codes.py``) unless its row names a fix of its own there.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

# CANN aclError (acl_base.h), the runtime codes ACL passes through (rt_error_codes.h), the GE
# codes it passes through (ge_error_codes.h) and the aclnn operator API codes. Rule of the
# table: 1xxxxx the caller's environment or code, 2xxxxx resources or a call this hardware does
# not support, 3xxxxx business state (queues), 5xxxxx internal software or hardware faults.
ACL_SOURCES = (
    "CANN include/acl/acl_base.h, include/acl/error_codes/rt_error_codes.h and ge_error_codes.h "
    "(aclError; the CANN application development guide's table of return codes)",
    "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
    "@05900fb636a88234b887aa9130e51dcf1bbc7226",
)
ACL: dict[str, tuple[str, str]] = {
    "100000": ("ACL_ERROR_INVALID_PARAM", "parameter verification failed"),
    "100001": ("ACL_ERROR_UNINITIALIZE", "ACL not initialised (aclInit not called first)"),
    "100002": ("ACL_ERROR_REPEAT_INITIALIZE", "repeated initialisation or loading"),
    "100003": ("ACL_ERROR_INVALID_FILE", "invalid file: missing or not accessible"),
    "100004": ("ACL_ERROR_WRITE_FILE", "failed to write a file (path or permission)"),
    "100005": ("ACL_ERROR_INVALID_FILE_SIZE", "invalid file size"),
    "100006": ("ACL_ERROR_PARSE_FILE", "failed to parse a file"),
    "100007": ("ACL_ERROR_FILE_MISSING_ATTR", "a file lacks parameters"),
    "100008": ("ACL_ERROR_FILE_ATTR_INVALID", "invalid parameter in a file"),
    "100009": ("ACL_ERROR_INVALID_DUMP_CONFIG", "invalid dump configuration"),
    "100010": ("ACL_ERROR_INVALID_PROFILING_CONFIG", "invalid profiling configuration"),
    "100011": ("ACL_ERROR_INVALID_MODEL_ID", "invalid model id"),
    "100012": (
        "ACL_ERROR_DESERIALIZE_MODEL",
        "model deserialisation failed (built by another version)",
    ),
    "100013": ("ACL_ERROR_PARSE_MODEL", "model parse failed (built by another version)"),
    "100014": ("ACL_ERROR_READ_MODEL_FAILURE", "failed to read the model file"),
    "100015": ("ACL_ERROR_MODEL_SIZE_INVALID", "invalid model size"),
    "100016": (
        "ACL_ERROR_MODEL_MISSING_ATTR",
        "the model lacks parameters (built by another version)",
    ),
    "100017": ("ACL_ERROR_MODEL_INPUT_NOT_MATCH", "model input does not match"),
    "100018": ("ACL_ERROR_MODEL_OUTPUT_NOT_MATCH", "model output does not match"),
    "100019": ("ACL_ERROR_MODEL_NOT_DYNAMIC", "the model is not dynamic"),
    "100020": ("ACL_ERROR_OP_TYPE_NOT_MATCH", "single-operator type does not match"),
    "100021": ("ACL_ERROR_OP_INPUT_NOT_MATCH", "single-operator inputs do not match"),
    "100022": ("ACL_ERROR_OP_OUTPUT_NOT_MATCH", "single-operator outputs do not match"),
    "100023": ("ACL_ERROR_OP_ATTR_NOT_MATCH", "single-operator attributes do not match"),
    "100024": ("ACL_ERROR_OP_NOT_FOUND", "operator not found: this operator type is not supported"),
    "100025": ("ACL_ERROR_OP_LOAD_FAILED", "operator load failed (built by another version)"),
    "100026": ("ACL_ERROR_UNSUPPORTED_DATA_TYPE", "unsupported data type"),
    "100027": ("ACL_ERROR_FORMAT_NOT_MATCH", "tensor format does not match"),
    "100028": (
        "ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED",
        "no kernel selector registered for the operator",
    ),
    "100029": ("ACL_ERROR_KERNEL_NOT_FOUND", "operator kernel not registered"),
    "100030": ("ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED", "kernel selector registered twice"),
    "100031": ("ACL_ERROR_KERNEL_ALREADY_REGISTERED", "operator kernel registered twice"),
    "100032": ("ACL_ERROR_INVALID_QUEUE_ID", "invalid queue id"),
    "100033": ("ACL_ERROR_REPEAT_SUBSCRIBE", "stream subscribed twice"),
    "100034": ("ACL_ERROR_STREAM_NOT_SUBSCRIBE", "stream not subscribed"),
    "100035": ("ACL_ERROR_THREAD_NOT_SUBSCRIBE", "thread not subscribed"),
    "100036": ("ACL_ERROR_WAIT_CALLBACK_TIMEOUT", "waiting for a callback timed out"),
    "100037": ("ACL_ERROR_REPEAT_FINALIZE", "repeated finalisation"),
    "100038": ("ACL_ERROR_NOT_STATIC_AIPP", "static AIPP configuration missing"),
    "100039": (
        "ACL_ERROR_COMPILING_STUB_MODE",
        "the libraries loaded are CANN's compile stubs, not the runtime libraries",
    ),
    "100040": ("ACL_ERROR_GROUP_NOT_SET", "group not set"),
    "100041": ("ACL_ERROR_GROUP_NOT_CREATE", "group not created"),
    "100042": ("ACL_ERROR_PROF_ALREADY_RUN", "a profiling task already runs"),
    "100043": ("ACL_ERROR_PROF_NOT_RUN", "profiling not initialised"),
    "100044": ("ACL_ERROR_DUMP_ALREADY_RUN", "a dump task already runs"),
    "100045": ("ACL_ERROR_DUMP_NOT_RUN", "dump not initialised"),
    "148046": ("ACL_ERROR_PROF_REPEAT_SUBSCRIBE", "model subscribed twice for profiling"),
    "148047": ("ACL_ERROR_PROF_API_CONFLICT", "two profiling interfaces used together"),
    "148048": ("ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG", "invalid operator cache ageing setting"),
    "148049": ("ACL_ERROR_INVALID_OPP_PATH", "ASCEND_OPP_PATH is not set or wrong"),
    "148050": ("ACL_ERROR_OP_UNSUPPORTED_DYNAMIC", "the operator does not support dynamic shapes"),
    "148051": ("ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED", "related resources not released"),
    "148052": ("ACL_ERROR_UNSUPPORTED_JPEG", "JPEG encoding not supported by JPEGD"),
    "148053": ("ACL_ERROR_INVALID_BUNDLE_MODEL_ID", "invalid bundle model id"),
    "200000": ("ACL_ERROR_BAD_ALLOC", "memory allocation failed"),
    "200001": ("ACL_ERROR_API_NOT_SUPPORT", "interface not supported"),
    "200002": ("ACL_ERROR_INVALID_DEVICE", "invalid device"),
    "200003": ("ACL_ERROR_MEMORY_ADDRESS_UNALIGNED", "memory address not aligned"),
    "200004": ("ACL_ERROR_RESOURCE_NOT_MATCH", "stream/context resources do not match"),
    "200005": ("ACL_ERROR_INVALID_RESOURCE_HANDLE", "invalid (destroyed or busy) resource handle"),
    "200006": ("ACL_ERROR_FEATURE_UNSUPPORTED", "feature not supported"),
    "200007": ("ACL_ERROR_PROF_MODULES_UNSUPPORTED", "unsupported profiling configuration"),
    "300000": ("ACL_ERROR_STORAGE_OVER_LIMIT", "storage limit exceeded"),
    "107000": ("ACL_ERROR_RT_PARAM_INVALID", "runtime parameter verification failed"),
    "107002": (
        "ACL_ERROR_RT_CONTEXT_NULL",
        "no current context (set_device/set_context not called)",
    ),
    "107003": ("ACL_ERROR_RT_STREAM_CONTEXT", "stream not in the current context"),
    "107004": ("ACL_ERROR_RT_MODEL_CONTEXT", "model not in the current context"),
    "107005": ("ACL_ERROR_RT_STREAM_MODEL", "stream not in the model"),
    "107006": ("ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID", "invalid event timestamp"),
    "107007": ("ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL", "event timestamp reversed"),
    "107008": ("ACL_ERROR_RT_ADDR_UNALIGNED", "memory address not aligned"),
    "107009": ("ACL_ERROR_RT_FILE_OPEN", "failed to open a file"),
    "107010": ("ACL_ERROR_RT_FILE_WRITE", "failed to write a file"),
    "107011": ("ACL_ERROR_RT_STREAM_SUBSCRIBE", "stream not subscribed, or subscribed twice"),
    "107012": ("ACL_ERROR_RT_THREAD_SUBSCRIBE", "thread not subscribed, or subscribed twice"),
    "107013": ("ACL_ERROR_RT_GROUP_NOT_SET", "group not set"),
    "107014": ("ACL_ERROR_RT_GROUP_NOT_CREATE", "group not created"),
    "107015": ("ACL_ERROR_RT_STREAM_NO_CB_REG", "callback stream not registered to a thread"),
    "107016": ("ACL_ERROR_RT_INVALID_MEMORY_TYPE", "invalid memory type"),
    "107017": ("ACL_ERROR_RT_INVALID_HANDLE", "invalid resource handle"),
    "107018": ("ACL_ERROR_RT_INVALID_MALLOC_TYPE", "invalid memory allocation type"),
    "107019": ("ACL_ERROR_RT_WAIT_TIMEOUT", "wait timed out"),
    "107021": ("ACL_ERROR_RT_SYSPARAMOPT_NOT_SET", "context system parameter not set"),
    "107022": ("ACL_ERROR_RT_DEVICE_TASK_ABORT", "a device task abort conflicts with other calls"),
    "107023": ("ACL_ERROR_RT_STREAM_ABORT", "the stream's tasks are being cleared"),
    "107024": ("ACL_ERROR_RT_CAPTURE_DEPENDENCY", "captured event wait without its record"),
    "107025": ("ACL_ERROR_RT_STREAM_UNJOINED", "a captured stream was not joined back"),
    "107026": ("ACL_ERROR_RT_MODEL_CAPTURED", "the model is already being captured"),
    "107027": ("ACL_ERROR_RT_STREAM_CAPTURED", "the stream is already being captured"),
    "107028": ("ACL_ERROR_RT_EVENT_CAPTURED", "the event is already being captured"),
    "107029": ("ACL_ERROR_RT_STREAM_NOT_CAPTURED", "the stream is not being captured"),
    "107030": ("ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT", "not allowed in this capture mode"),
    "107031": ("ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT", "the default stream used while capturing"),
    "107032": ("ACL_ERROR_STREAM_CAPTURE_CONFLICT", "event and stream in different captures"),
    "107033": ("ACL_ERROR_STREAM_TASK_GROUP_STATUS", "task group state invalid"),
    "107034": ("ACL_ERROR_STREAM_TASK_GROUP_INTR", "task group recording interrupted"),
    "107036": ("ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED", "capture ended without its begin"),
    "107037": ("ACL_ERROR_RT_MODEL_RUNNING", "the model is running and cannot be destroyed"),
    "107038": ("ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD", "capture ended on another thread"),
    "207002": ("ACL_ERROR_RT_MEMORY_FREE", "memory free failed"),
    "207003": ("ACL_ERROR_RT_AICORE_OVER_FLOW", "AI Core arithmetic overflow in an operator"),
    "207005": ("ACL_ERROR_RT_RESOURCE_ALLOC_FAIL", "resource (stream etc.) allocation failed"),
    "207006": ("ACL_ERROR_RT_NO_PERMISSION", "no permission for the device"),
    "207007": ("ACL_ERROR_RT_NO_EVENT_RESOURCE", "out of events"),
    "207008": ("ACL_ERROR_RT_NO_STREAM_RESOURCE", "out of streams"),
    "207009": ("ACL_ERROR_RT_NO_NOTIFY_RESOURCE", "out of notify resources"),
    "207010": ("ACL_ERROR_RT_NO_MODEL_RESOURCE", "out of model resources"),
    "207011": ("ACL_ERROR_RT_NO_CDQ_RESOURCE", "runtime internal resources exhausted"),
    "207012": ("ACL_ERROR_RT_OVER_LIMIT", "too many queues"),
    "207013": ("ACL_ERROR_RT_QUEUE_EMPTY", "queue empty"),
    "207014": ("ACL_ERROR_RT_QUEUE_FULL", "queue full"),
    "207015": ("ACL_ERROR_RT_REPEATED_INIT", "queue initialised twice"),
    "207016": ("ACL_ERROR_RT_AIVEC_OVER_FLOW", "vector core arithmetic overflow in an operator"),
    "207017": ("ACL_ERROR_RT_OVER_FLOW", "arithmetic overflow (not of one core type)"),
    "207019": (
        "ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP",
        "this driver cannot update the operator (the driver is too old)",
    ),
    "507002": ("ACL_ERROR_RT_STREAM_TASK_FULL", "stream task queue full"),
    "507003": ("ACL_ERROR_RT_STREAM_TASK_EMPTY", "stream task queue empty"),
    "507004": ("ACL_ERROR_RT_STREAM_NOT_COMPLETE", "stream tasks not complete"),
    "507005": ("ACL_ERROR_RT_END_OF_SEQUENCE", "AI CPU task sequence ended"),
    "507006": ("ACL_ERROR_RT_EVENT_NOT_COMPLETE", "event not complete"),
    "507007": ("ACL_ERROR_RT_CONTEXT_RELEASE_ERROR", "context release failed"),
    "507008": ("ACL_ERROR_RT_SOC_VERSION", "failed to get the SoC version"),
    "507009": ("ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT", "task type not supported"),
    "507010": ("ACL_ERROR_RT_LOST_HEARTBEAT", "the device's task scheduler lost its heartbeat"),
    "507011": ("ACL_ERROR_RT_MODEL_EXECUTE", "model execution failed"),
    "507012": ("ACL_ERROR_RT_REPORT_TIMEOUT", "no message from the task scheduler in time"),
    "507016": ("ACL_ERROR_RT_AICORE_TRAP_EXCEPTION", "AI Core trap exception"),
    "507019": ("ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR", "AI CPU gave no response after a data dump"),
    "507020": ("ACL_ERROR_RT_AICPU_MODEL_RSP_ERR", "AI CPU gave no response after a model"),
    "507021": ("ACL_ERROR_RT_PROFILING_ERROR", "profiling failed"),
    "507022": ("ACL_ERROR_RT_IPC_ERROR", "inter-process communication failed"),
    "507023": ("ACL_ERROR_RT_MODEL_ABORT_NORMAL", "the model was aborted"),
    "507024": ("ACL_ERROR_RT_KERNEL_UNREGISTERING", "the kernel is being unregistered"),
    "507025": ("ACL_ERROR_RT_RINGBUFFER_NOT_INIT", "ring buffer not initialised"),
    "507026": ("ACL_ERROR_RT_RINGBUFFER_NO_DATA", "ring buffer empty"),
    "507027": ("ACL_ERROR_RT_KERNEL_LOOKUP", "kernel not registered in the runtime"),
    "507028": ("ACL_ERROR_RT_KERNEL_DUPLICATE", "kernel registered twice"),
    "507029": ("ACL_ERROR_RT_DEBUG_REGISTER_FAIL", "debug registration failed"),
    "507030": ("ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL", "debug unregistration failed"),
    "507031": ("ACL_ERROR_RT_LABEL_CONTEXT", "label not in the current context"),
    "507032": ("ACL_ERROR_RT_PROGRAM_USE_OUT", "too many programs registered"),
    "507037": ("ACL_ERROR_RT_CDQ_BATCH_ABNORMAL", "runtime internal allocation failed"),
    "507038": ("ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR", "die mode cannot change"),
    "507039": ("ACL_ERROR_RT_DIE_SET_ERROR", "a die set in single-die mode"),
    "507040": ("ACL_ERROR_RT_INVALID_DIEID", "invalid die id"),
    "507041": ("ACL_ERROR_RT_DIE_MODE_NOT_SET", "die mode not set"),
    "507047": ("ACL_ERROR_RT_EVENT_SYNC_TIMEOUT", "event synchronisation timed out"),
    "507049": ("ACL_ERROR_RT_FFTS_PLUS_EXCEPTION", "internal (FFTS+) task exception"),
    "507050": ("ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION", "internal (FFTS+) task trap exception"),
    "507051": ("ACL_ERROR_RT_SEND_MSG", "message send failed while enqueuing data"),
    "507052": ("ACL_ERROR_RT_COPY_DATA", "memory copy failed while enqueuing data"),
    "507053": (
        "ACL_ERROR_RT_DEVICE_MEM_ERROR",
        "uncorrectable (UCE) device memory error at a virtual address",
    ),
    "507054": ("ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR", "HBM multi-bit ECC error"),
    "507055": (
        "ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR",
        "a peer device's memory may have an uncorrectable error",
    ),
    "507056": ("ACL_ERROR_RT_LINK_ERROR", "the link between two devices broke"),
    "507057": (
        "ACL_ERROR_RT_SUSPECT_REMOTE_ERROR",
        "a peer device's memory fault, or an out-of-bounds access on this one",
    ),
    "507900": ("ACL_ERROR_RT_AICPU_INTERNAL_ERROR", "AI CPU internal error"),
    "507901": ("ACL_ERROR_RT_SOCKET_CLOSE", "host-device (HDC) session disconnected"),
    "507902": ("ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR", "AI CPU scheduling failed"),
    "507903": ("ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED", "model capture invalidated"),
    "507910": ("ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "host memory already registered"),
    "507911": ("ACL_ERROR_HOST_MEMORY_NOT_REGISTERED", "host memory was never registered"),
    "145000": ("ACL_ERROR_GE_PARAM_INVALID", "graph engine parameter verification failed"),
    "145001": ("ACL_ERROR_GE_EXEC_NOT_INIT", "graph engine not initialised"),
    "145002": ("ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID", "invalid model path"),
    "145003": ("ACL_ERROR_GE_EXEC_MODEL_ID_INVALID", "invalid model id"),
    "145006": ("ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID", "invalid model size"),
    "145007": ("ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID", "invalid model memory address"),
    "145008": ("ACL_ERROR_GE_EXEC_MODEL_QUEUE_ID_INVALID", "invalid queue id"),
    "145009": ("ACL_ERROR_GE_EXEC_LOAD_MODEL_REPEATED", "model loaded twice"),
    "145011": ("ACL_ERROR_GE_DYNAMIC_INPUT_ADDR_INVALID", "invalid dynamic input address"),
    "145012": ("ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID", "invalid dynamic input length"),
    "145013": ("ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID", "invalid dynamic batch size"),
    "145014": ("ACL_ERROR_GE_AIPP_BATCH_EMPTY", "invalid AIPP batch size"),
    "145015": ("ACL_ERROR_GE_AIPP_NOT_EXIST", "AIPP not configured"),
    "145016": ("ACL_ERROR_GE_AIPP_MODE_INVALID", "invalid AIPP mode"),
    "145017": ("ACL_ERROR_GE_OP_TASK_TYPE_INVALID", "invalid task type"),
    "145018": ("ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID", "invalid operator kernel type"),
    "145019": (
        "ACL_ERROR_GE_PLGMGR_PATH_INVALID",
        "a plugin .so cannot be loaded (deleted, or LD_LIBRARY_PATH wrong)",
    ),
    "145020": ("ACL_ERROR_GE_FORMAT_INVALID", "invalid tensor format"),
    "145021": ("ACL_ERROR_GE_SHAPE_INVALID", "invalid tensor shape"),
    "145022": ("ACL_ERROR_GE_DATATYPE_INVALID", "invalid tensor data type"),
    "245000": ("ACL_ERROR_GE_MEMORY_ALLOCATION", "graph engine memory allocation failed"),
    "245001": ("ACL_ERROR_GE_MEMORY_OPERATE_FAILED", "memory initialisation or copy failed"),
    "245002": ("ACL_ERROR_GE_DEVICE_MEMORY_ALLOCATION_FAILED", "device memory exhausted"),
    "345102": ("ACL_ERROR_GE_SUBHEALTHY", "sub-healthy after a redeployment"),
    "345103": ("ACL_ERROR_GE_USER_RAISE_EXCEPTION", "a user function raised"),
    "345104": ("ACL_ERROR_GE_DATA_NOT_ALIGNED", "data not aligned (an output missing)"),
    "545000": ("ACL_ERROR_GE_INTERNAL_ERROR", "graph engine internal error"),
    "545001": ("ACL_ERROR_GE_LOAD_MODEL", "internal model load failed"),
    "545002": ("ACL_ERROR_GE_EXEC_LOAD_MODEL_PARTITION_FAILED", "internal model load failed"),
    "545003": ("ACL_ERROR_GE_EXEC_LOAD_WEIGHT_PARTITION_FAILED", "model weights load failed"),
    "545004": ("ACL_ERROR_GE_EXEC_LOAD_TASK_PARTITION_FAILED", "model tasks load failed"),
    "545005": ("ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED", "model kernels load failed"),
    "545006": ("ACL_ERROR_GE_EXEC_RELEASE_MODEL_DATA", "model memory release failed"),
    "545007": ("ACL_ERROR_GE_COMMAND_HANDLE", "internal command failed"),
    "545008": ("ACL_ERROR_GE_GET_TENSOR_INFO", "tensor data retrieval failed"),
    "545009": ("ACL_ERROR_GE_UNLOAD_MODEL", "model unload failed"),
    "545601": ("ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT", "model execution timed out"),
    "545602": ("ACL_ERROR_GE_REDEPLOYING", "redeployment in progress"),
    "161001": ("ACLNN_ERR_PARAM_NULLPTR", "aclnn: a null pointer argument"),
    "161002": ("ACLNN_ERR_PARAM_INVALID", "aclnn: invalid argument (dtype, shape, format)"),
    "361001": ("ACLNN_ERR_RUNTIME_ERROR", "aclnn: an NPU runtime call failed"),
    "561108": ("ACLNN_ERR_INNER_LOAD_JSON_FAILED", "aclnn: failed to load an operator kernel JSON"),
    "561112": (
        "ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND",
        "aclnn: the operator binary kernel package is not installed",
    ),
}

# The names of the codes an entry of their own explains (so the table above holds no row for
# them): a log printing the name alone (onnxruntime's "CANN failure 500002:
# ACL_ERROR_GE_FAILURE") is read by that entry too.
OWNED_NAMES_SOURCE = (
    "CANN 8.1.RC1 include/acl/error_codes/rt_error_codes.h, include/acl/acl_base.h and "
    "include/aclnn/opdev/op_errno.h (github.com/leideng/CANN-8.1.RC1"
    "@551ed27c29284929bbdc2239e929ddfedfdf0b8b)"
)
OWNED_NAMES = {
    "107001": "ACL_ERROR_RT_INVALID_DEVICEID",
    "107020": "ACL_ERROR_RT_TASK_TIMEOUT",
    "207000": "ACL_ERROR_RT_FEATURE_NOT_SUPPORT",
    "207001": "ACL_ERROR_RT_MEMORY_ALLOCATION",
    "207004": "ACL_ERROR_RT_NO_DEVICE",
    "207018": "ACL_ERROR_RT_DEVICE_OOM",
    "500000": "ACL_ERROR_INTERNAL_ERROR",
    "500001": "ACL_ERROR_FAILURE",
    "500002": "ACL_ERROR_GE_FAILURE",
    "500003": "ACL_ERROR_RT_FAILURE",
    "500004": "ACL_ERROR_DRV_FAILURE",
    "500005": "ACL_ERROR_PROFILING_FAILURE",
    "507000": "ACL_ERROR_RT_INTERNAL_ERROR",
    "507001": "ACL_ERROR_RT_TS_ERROR",
    "507013": "ACL_ERROR_RT_SYS_DMA",
    "507014": "ACL_ERROR_RT_AICORE_TIMEOUT",
    "507015": "ACL_ERROR_RT_AICORE_EXCEPTION",
    "507017": "ACL_ERROR_RT_AICPU_TIMEOUT",
    "507018": "ACL_ERROR_RT_AICPU_EXCEPTION",
    "507033": "ACL_ERROR_RT_DEV_SETUP_ERROR",
    "507034": "ACL_ERROR_RT_VECTOR_CORE_TIMEOUT",
    "507035": "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION",
    "507036": "ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION",
    "507042": "ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW",
    "507043": "ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW",
    "507044": "ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW",
    "507045": "ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW",
    "507046": "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT",
    "507048": "ACL_ERROR_RT_FFTS_PLUS_TIMEOUT",
    "507899": "ACL_ERROR_RT_DRV_INTERNAL_ERROR",
    "561000": "ACLNN_ERR_INNER",
    "561001": "ACLNN_ERR_INNER_INFERSHAPE_ERROR",
    "561002": "ACLNN_ERR_INNER_TILING_ERROR",
    "561003": "ACLNN_ERR_INNER_FIND_KERNEL_ERROR",
    "561101": "ACLNN_ERR_INNER_CREATE_EXECUTOR",
    "561102": "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR",
    "561103": "ACLNN_ERR_INNER_NULLPTR",
    "561107": "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND",
}
ACL_BY_NAME = {
    **{name: code for code, (name, _) in ACL.items()},
    **{name: code for code, name in OWNED_NAMES.items()},
}

# HcclResult (hccl_types.h), as torch_npu prints it: "HCCL function error: <call>, error code is N".
HCCL_SOURCES = (
    "CANN include/hccl/hccl_types.h (HcclResult, with the HCCL API reference's notes)",
    "Ascend/pytorch torch_npu/csrc/distributed/HCCLUtils.hpp (HCCL_CHECK_ERROR)",
)
HCCL: dict[str, tuple[str, str]] = {
    "1": ("HCCL_E_PARA", "a parameter is wrong (rank count, rank id or device for this rank)"),
    "2": ("HCCL_E_PTR", "a null pointer"),
    "3": ("HCCL_E_MEMORY", "memory error (registration or allocation)"),
    "4": ("HCCL_E_INTERNAL", "HCCL internal error"),
    "5": ("HCCL_E_NOT_SUPPORT", "feature not supported (on this chip, topology or CANN)"),
    "6": ("HCCL_E_NOT_FOUND", "a resource was not found (network interface, device IP, ranktable)"),
    "7": ("HCCL_E_UNAVAIL", "a resource is unavailable (the port is bound, the device is busy)"),
    "8": ("HCCL_E_SYSCALL", "a system call failed (check the initialisation parameters)"),
    "9": ("HCCL_E_TIMEOUT", "timed out"),
    "10": ("HCCL_E_OPEN_FILE_FAILURE", "a file (ranktable) cannot be opened"),
    "11": ("HCCL_E_TCP_CONNECT", "TCP connection failed (ports and reachability of both ends)"),
    "12": ("HCCL_E_ROCE_CONNECT", "RoCE connection failed (device NIC ports and links)"),
    "13": ("HCCL_E_TCP_TRANSFER", "TCP transfer failed"),
    "14": ("HCCL_E_ROCE_TRANSFER", "RoCE transfer failed"),
    "15": ("HCCL_E_RUNTIME", "a runtime call failed"),
    "16": ("HCCL_E_DRV", "a driver call failed"),
    "17": ("HCCL_E_PROFILING", "a profiling call failed"),
    "18": ("HCCL_E_CCE", "a CCE call failed"),
    "19": ("HCCL_E_NETWORK", "a network call failed (device NIC, HCCL_IF_IP, HCCL_SOCKET_IFNAME)"),
    "20": ("HCCL_E_AGAIN", "try again"),
    "21": ("HCCL_E_REMOTE", "an error completion from the remote end"),
    "22": ("HCCL_E_SUSPENDING", "the communicator is suspending"),
    "23": ("HCCL_E_OPRETRY_FAIL", "operator retry failed"),
    "24": ("HCCL_E_OOM", "out of memory"),
}

# The driver's return codes (drvError_t), which its hal*/drv* calls return and DSMI, the runtime and
# the tools log as drvRet, drvRetCode or err: each code's name (the header gives few more words).
DRV_SOURCES = (
    "CANN 8.1.RC1 driver/include/ascend_hal_error.h (drvError_t), "
    "github.com/leideng/CANN-8.1.RC1@551ed27c29284929bbdc2239e929ddfedfdf0b8b",
)
DRV: dict[str, str] = {
    "1": "DRV_ERROR_NO_DEVICE",
    "2": "DRV_ERROR_INVALID_DEVICE",
    "3": "DRV_ERROR_INVALID_VALUE",
    "4": "DRV_ERROR_INVALID_HANDLE",
    "5": "DRV_ERROR_INVALID_MALLOC_TYPE",
    "6": "DRV_ERROR_OUT_OF_MEMORY",
    "7": "DRV_ERROR_INNER_ERR",
    "8": "DRV_ERROR_PARA_ERROR",
    "9": "DRV_ERROR_UNINIT",
    "10": "DRV_ERROR_REPEATED_INIT",
    "11": "DRV_ERROR_NOT_EXIST",
    "12": "DRV_ERROR_REPEATED_USERD",
    "13": "DRV_ERROR_BUSY",
    "14": "DRV_ERROR_NO_RESOURCES",
    "15": "DRV_ERROR_OUT_OF_CMD_SLOT",
    "16": "DRV_ERROR_WAIT_TIMEOUT",
    "17": "DRV_ERROR_IOCRL_FAIL",
    "18": "DRV_ERROR_SOCKET_CREATE",
    "19": "DRV_ERROR_SOCKET_CONNECT",
    "20": "DRV_ERROR_SOCKET_BIND",
    "21": "DRV_ERROR_SOCKET_LISTEN",
    "22": "DRV_ERROR_SOCKET_ACCEPT",
    "23": "DRV_ERROR_CLIENT_BUSY",
    "24": "DRV_ERROR_SOCKET_SET",
    "25": "DRV_ERROR_SOCKET_CLOSE",
    "26": "DRV_ERROR_RECV_MESG",
    "27": "DRV_ERROR_SEND_MESG",
    "28": "DRV_ERROR_SERVER_BUSY",
    "29": "DRV_ERROR_CONFIG_READ_FAIL",
    "30": "DRV_ERROR_STATUS_FAIL",
    "31": "DRV_ERROR_SERVER_CREATE_FAIL",
    "32": "DRV_ERROR_WAIT_INTERRUPT",
    "33": "DRV_ERROR_BUS_DOWN",
    "34": "DRV_ERROR_DEVICE_NOT_READY",
    "35": "DRV_ERROR_REMOTE_NOT_LISTEN",
    "36": "DRV_ERROR_NON_BLOCK",
    "37": "DRV_ERROR_OVER_LIMIT",
    "38": "DRV_ERROR_FILE_OPS",
    "39": "DRV_ERROR_MBIND_FAIL",
    "40": "DRV_ERROR_MALLOC_FAIL",
    "41": "DRV_ERROR_REPEATED_SUBSCRIBED",
    "42": "DRV_ERROR_PROCESS_EXIT",
    "43": "DRV_ERROR_DEV_PROCESS_HANG",
    "44": "DRV_ERROR_REMOTE_NO_SESSION",
    "45": "DRV_ERROR_HOT_RESET_IN_PROGRESS",
    "46": "DRV_ERROR_OPER_NOT_PERMITTED",
    "47": "DRV_ERROR_NO_EVENT_RESOURCES",
    "48": "DRV_ERROR_NO_STREAM_RESOURCES",
    "49": "DRV_ERROR_NO_NOTIFY_RESOURCES",
    "50": "DRV_ERROR_NO_MODEL_RESOURCES",
    "51": "DRV_ERROR_TRY_AGAIN",
    "52": "DRV_ERROR_DST_PATH_ILLEGAL",
    "53": "DRV_ERROR_OPEN_FAILED",
    "54": "DRV_ERROR_NO_FREE_SPACE",
    "55": "DRV_ERROR_LOCAL_ABNORMAL_FILE",
    "56": "DRV_ERROR_DST_PERMISSION_DENIED",
    "57": "DRV_ERROR_DST_NO_SUCH_FILE",
    "58": "DRV_ERROR_MEMORY_OPT_FAIL",
    "59": "DRV_ERROR_RUNTIME_ON_OTHER_PLAT",
    "60": "DRV_ERROR_SQID_FULL",
    "61": "DRV_ERROR_SERVER_HAS_BEEN_CREATED",
    "62": "DRV_ERROR_NO_PROCESS",
    "63": "DRV_ERROR_NO_SUBSCRIBE_THREAD",
    "64": "DRV_ERROR_NON_SCHED_GRP_MUL_THREAD",
    "65": "DRV_ERROR_NO_GROUP",
    "66": "DRV_ERROR_GROUP_EXIST",
    "67": "DRV_ERROR_THREAD_EXCEEDS_SPEC",
    "68": "DRV_ERROR_THREAD_NOT_RUNNIG",
    "69": "DRV_ERROR_PROCESS_NOT_MATCH",
    "70": "DRV_ERROR_EVENT_NOT_MATCH",
    "71": "DRV_ERROR_PROCESS_REPEAT_ADD",
    "72": "DRV_ERROR_GROUP_NON_SCHED",
    "73": "DRV_ERROR_NO_EVENT",
    "74": "DRV_ERROR_COPY_USER_FAIL",
    "75": "DRV_ERROR_QUEUE_EMPTY",
    "76": "DRV_ERROR_QUEUE_FULL",
    "77": "DRV_ERROR_RUN_IN_ILLEGAL_CPU",
    "78": "DRV_ERROR_SUBSCRIBE_THREAD_TIMEOUT",
    "79": "DRV_ERROR_BAD_ADDRESS",
    "80": "DRV_ERROR_DST_FILE_IS_BEING_WRITTEN",
    "81": "DRV_ERROR_EPOLL_CLOSE",
    "82": "DRV_ERROR_CDQ_ABNORMAL",
    "83": "DRV_ERROR_CDQ_NOT_EXIST",
    "84": "DRV_ERROR_NO_CDQ_RESOURCES",
    "85": "DRV_ERROR_CDQ_QUIT",
    "86": "DRV_ERROR_PARTITION_NOT_RIGHT",
    "87": "DRV_ERROR_RESOURCE_OCCUPIED",
    "88": "DRV_ERROR_PERMISSION",
    "89": "DRV_ERROR_RESUME",
    "90": "DEV_ERROR_UNAUTHORIZED_ACCESS_DEVICE",
    "91": "DEV_ERROR_BIST_HW_ERR",
    "92": "DEV_ERROR_BIST_SW_ERR",
    "93": "DEV_ERROR_DUP_CONFIG",
    "94": "DRV_ERROR_POWER_OP_FAIL",
    "65534": "DRV_ERROR_NOT_SUPPORT",
}

# DCMI return codes (DCMI API reference, "return codes"), as "dcmi ... ret is -80xx" prints them.
DCMI_SOURCES = (
    "verylucky01/driver docs/zh/Ascend_910_93_DCMI_API/Ascend_910_93_DCMI_API/return_codes.md"
    "@04370735071371c28a9ae26fc9e7d9455cf490c3 (DCMI API reference)",
)
DCMI: dict[str, tuple[str, str]] = {
    "-8001": ("DCMI_ERR_CODE_INVALID_PARAMETER", "invalid parameter"),
    "-8002": ("DCMI_ERR_CODE_OPER_NOT_PERMITTED", "operation not permitted for this user"),
    "-8003": ("DCMI_ERR_CODE_MEM_OPERATE_FAIL", "memory operation failed (user-space memory)"),
    "-8004": ("DCMI_ERR_CODE_SECURE_FUN_FAIL", "secure function failed"),
    "-8006": ("DCMI_ERR_CODE_TIME_OUT", "the device did not answer in time"),
    "-8007": ("DCMI_ERR_CODE_INVALID_DEVICE_ID", "invalid device id"),
    "-8008": ("DCMI_ERR_CODE_DEVICE_NOT_EXIST", "the device does not exist or is not running"),
    "-8009": ("DCMI_ERR_CODE_IOCTL_FAIL", "an ioctl to the driver failed"),
    "-8010": ("DCMI_ERR_CODE_SEND_MSG_FAIL", "sending a message to the device failed"),
    "-8011": ("DCMI_ERR_CODE_RECV_MSG_FAIL", "receiving a message from the device failed"),
    "-8012": ("DCMI_ERR_CODE_NOT_REDAY", "the device is not ready yet"),
    "-8013": ("DCMI_ERR_CODE_NOT_SUPPORT_IN_CONTAINER", "not supported inside a container"),
    "-8015": ("DCMI_ERR_CODE_RESET_FAIL", "device reset failed"),
    "-8016": ("DCMI_ERR_CODE_ABORT_OPERATE", "device reset cancelled"),
    "-8017": ("DCMI_ERR_CODE_IS_UPGRADING", "the device is upgrading"),
    "-8023": ("DCMI_ERR_CODE_CONFIG_INFO_NOT_EXIST", "the configuration queried does not exist"),
    "-8255": ("DCMI_ERR_CODE_NOT_SUPPORT", "not supported by this device"),
}

# torch_npu's own codes, "ERR<submodule:2><code:3>" (NPUException.h: SubModule, ErrCode).
TORCH_NPU_SOURCES = (
    "Ascend/pytorch torch_npu/csrc/core/npu/NPUException.h (SubModule, ErrCode, formatErrorCode)",
)
TORCH_NPU_SUBMODULES = {"00": "PTA", "01": "OPS", "02": "DIST", "03": "GRAPH", "04": "PROF"}
TORCH_NPU: dict[str, tuple[str, str]] = {
    "001": ("PARAM", "invalid parameter"),
    "002": ("TYPE", "invalid type"),
    "003": ("VALUE", "invalid value"),
    "004": ("PTR", "invalid pointer"),
    "005": ("INTERNAL", "internal error"),
    "006": ("MEMORY", "memory error"),
    "007": ("NOT_SUPPORT", "feature not supported"),
    "008": ("NOT_FOUND", "resource not found"),
    "009": ("UNAVAIL", "resource unavailable"),
    "010": ("SYSCALL", "a system call failed"),
    "011": ("TIMEOUT", "timed out"),
    "012": ("PERMISSION", "permission denied"),
    "100": ("ACL", "an ACL (CANN runtime) call failed"),
    "200": ("HCCL", "an HCCL call failed"),
    "300": ("GE", "a graph engine call failed"),
}

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
    "EI0015": (
        "Ranktable_Detect_Failed",
        "collecting the cluster from the root info failed: a rank did not create the "
        "communicator, or the host network cannot reach the root",
        "check every rank creates the communicator; the host network to the root node; "
        "HCCL_SOCKET_IFNAME on every node; raise HCCL_CONNECT_TIMEOUT for slow starts",
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
        "no operator kernel or engine supports the operator: OPP not installed properly, or the "
        "operator unsupported here",
        "check the OPP component (the kernels package of this CANN and chip) is installed "
        "properly; `ampenv doctor --only cann.toolkit`",
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
