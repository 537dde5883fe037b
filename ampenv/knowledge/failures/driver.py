"""The driver, firmware and HDK, and visible device ids."""

from __future__ import annotations

from ampenv.knowledge.failures.containers import MOUNTS
from ampenv.knowledge.failures.model import CLASS, FACTS, Failure, Source, code, code_hints

PYTORCH = "Ascend/pytorch {}@9e73e708ab9350d203475609f36f8a43f6a0c2ab"

FAILURES = (
    Failure(
        id="driver-dkms-env-check",
        mode="driver",
        component="driver",
        # the installer's own "[ERROR]" record (another module's DKMS, or a title, is not the
        # NPU driver's)
        patterns=(
            r"\bDrv_dkms_env_check failed\b",
            r"\[ERROR\]\s?[^\n]{0,300}?\bdkms install failed\b",
            # the compiler's own error in the driver's module sources, as DKMS builds them
            # ("kvmdt.c:62: error: "MIN" redefined", in Chinese "错误：")
            r"/dkms/davinci_ascend/[^\n]{1,300}?:\d{1,6}:(?:\d{1,4}:)? (?:error|错误)[:：]",
        ),
        codes=(),
        meaning="the NPU driver's installer could not build its kernel module with DKMS for this "
        "kernel: DKMS, gcc or the kernel's headers missing (its environment check), or the "
        "build itself failed",
        causes=(
            "an OS kernel the driver package does not list (a kernel updated since the last "
            "driver install)",
            "dkms, gcc or the headers of the running kernel (kernel-devel / linux-headers) not "
            "installed",
            "the leftovers of an earlier failed build (/var/lib/dkms/davinci_ascend), or a gcc "
            "other than the one the kernel was built with",
        ),
        fix="compare `uname -r` with the kernels the driver release supports; install dkms, gcc "
        "and the headers of `uname -r` (yum install kernel-devel-$(uname -r) / apt install "
        "linux-headers-$(uname -r)); read the build's own log "
        "(/var/lib/dkms/davinci_ascend/<version>/build/make.log, and "
        "/var/log/ascend_seclog/ascend_install.log); remove a failed build with `dkms remove "
        "davinci_ascend/<version> --all`, then run the driver's .run --full again",
        confirm="npu.driver",
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/601/troublemanagement/"
                "troubleshooting/troubleshooting_0053.html",
                "official",
            ),
            Source(
                "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha001/"
                "softwareinst/instg/instg_0066.html (Dkms install failed)",
                "official",
            ),
            Source(
                "a 910B driver 25.5.1 install record on openEuler 24.03 SP3 (kernel 6.6 defines "
                "MIN and ALIGN_DOWN), index id 52668737407",
                "report",
            ),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="driver-build-libelf",
        mode="driver",
        component="driver",
        # the kernel's own Makefile, building the driver's modules out of tree (DKMS, or a
        # driver built from source on an OS the package does not list)
        patterns=(r"Cannot generate ORC metadata for CONFIG_UNWINDER_ORC=y",),
        codes=(),
        meaning="the NPU driver's kernel modules could not be built: the running kernel uses "
        "the ORC unwinder, whose build step needs libelf's development files, which are not "
        "installed",
        causes=("libelf's development package missing on a host that builds kernel modules",),
        fix="install it (`yum install elfutils-libelf-devel` / `apt install libelf-dev`), then "
        "install the driver again (its .run --full as root)",
        confirm="npu.driver",
        sources=(
            Source("torvalds/linux Makefile (the ORC unwinder's libelf check)", "official"),
            Source(
                "https://www.hiascend.com/forum/thread-0216176695113092037-1-1.html (the 310 "
                "driver adapted to another OS: install elfutils-libelf-devel)",
                "report",
            ),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="driver-build-kernel-headers",
        mode="driver",
        component="driver",
        # a kernel module's build (hicann/driver's build.sh, DKMS) looking for the kernel's
        # build tree: "/lib/modules/<uname -r>/build: No Such file or directory."
        patterns=(r"/lib/modules/[^/\s]{1,100}/build: No such file or directory",),
        codes=(),
        meaning="a kernel module build (the NPU driver's, or any other module's) found no "
        "headers for the kernel it builds for (/lib/modules/<kernel>/build is missing)",
        causes=(
            "no linux-headers (kernel-devel) package of the running kernel (`uname -r`)",
            "a build aimed at another kernel than the one installed",
        ),
        fix="install the headers of the kernel the line names (`apt install -y "
        "linux-headers-$(uname -r)`; openEuler/CentOS: `yum install kernel-devel-$(uname -r)`); "
        "the NPU driver's source build can take another kernel's tree instead (`bash build.sh "
        "--make_clean`, then `bash build.sh --pkg --soc=<soc> -k <kernel source path>`)",
        confirm="npu.driver",
        sources=(
            Source(
                "hicann/driver docs/zh/FAQ.md@999c25d7406900c7c55e747bbc59a8817f8d5650 "
                "(questions 3 and 8)",
                "official",
            ),
        ),
        # the line holds no error word: found by the path (a search for "no such file or
        # directory" made every such line of a log a candidate, 5-6x slower on a flood of them)
        hints=(),
        # (its slashes escaped as some JSON writers do; "No such" in it: `file`'s listing of
        # "/lib/modules/<x>/build: symbolic link to ..." is no candidate)
        anchor=r"lib\\?/modules\\?/[^/\\\s]{1,100}\\?/build(?::|：) ?[Nn]o [Ss]uch",
    ),
    Failure(
        id="driver-internal-error",
        mode="driver",
        component="driver",
        patterns=(code("507899"), r"reason=\[?driver error:internal error"),
        codes=("507899",),
        meaning="driver internal error, usually a cascade after an earlier device fault or a "
        "driver that does not support what CANN asks of it",
        causes=(
            "an earlier device fault (look for the first error in the plog)",
            "a driver older than the CANN release needs (one third-party note: CANN 9.0.0 IPC "
            "keys rejected by drivers older than 26.0.rc1) [unconfirmed]",
            "no usable device (sandbox, permissions); at aclInit in a container with "
            "'EL0005 Resource_Busy': the devices passed in without the privileges the driver "
            "wants (a porting KB: --device alone, fixed by --privileged)",
        ),
        fix="find the first error earlier in the plog; `npu-smi info -t health -i N`; check the "
        "driver against the CANN release notes (`ampenv doctor --only npu.driver`); in a "
        "container, start it with Ascend Docker Runtime or --privileged",
        confirm="npu.driver",
        sources=(
            Source(FACTS + " §6 (rt_error_codes.h 507899)", "official"),
            Source("https://github.com/hw-native-sys/simpler/pull/890", "report"),
            Source("index id 55067485258 (a porting KB: EL0005 without --privileged)", "report"),
        ),
        hints=code_hints("fail", "error"),
        rank=CLASS,
    ),
    Failure(
        id="graph-capture-resources",
        mode="driver",
        component="runtime",
        patterns=(
            r"\[SqCqManage\]Alloc sq cq fail",
            # vllm-ascend's own readings of a capture's failure (acl_graph.py)
            r"ACL graph capture failed with (?:an old Ascend HDK/CANN stack|a known "
            r"stream-resource exhaustion signature)",
            # torch_npu's capture call failing with 207005 (resource allocation) or 207008 (no
            # stream left: EL0009)
            r"AclmdlRICaptureBegin\([^)\n]{0,80}\), error code is 20700[58]",
        ),
        codes=(),
        meaning="capturing an ACL graph (torch.npu.graph, vLLM's graph mode) could not get the "
        "streams and their submission/completion queues it needs",
        causes=(
            "more captured graphs (streams) than the device has queues for: many capture sizes, "
            "or several engines sharing one device (vllm-ascend's own advice: fewer sizes)",
            "with 'Alloc sq cq fail': an HDK older than 25.5.1 or a CANN not matching it "
            "(vllm-ascend reads that line as this signature)",
        ),
        fix="capture fewer sizes (vLLM: compilation_config cudagraph_capture_sizes, a smaller "
        "max_cudagraph_capture_size, or full-graph mode), one engine per device, or run without "
        "graph mode (--enforce-eager); where the log says 'Alloc sq cq fail', upgrade the HDK to "
        "25.5.1 or later with its paired CANN (`ampenv doctor --only npu.driver`)",
        confirm="npu.driver",
        sources=(
            Source(
                "vllm-project/vllm-ascend vllm_ascend/compilation/acl_graph.py"
                "@182b75ea84ff13ece27b57391331ef8935410aea (_OLD_HDK_CAPTURE_ERROR_MARKERS)",
                "maintainer",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/pull/10555", "maintainer"),
            Source(
                "vllm-project/vllm-ascend docs/source/faqs.md"
                "@182b75ea84ff13ece27b57391331ef8935410aea (size capture failures from stream "
                "resource exhaustion)",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/8393", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/11990", "report"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/5650 (several models on one "
                "NPU: fewer capture sizes)",
                "report",
            ),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="driver-firmware-mismatch",
        mode="driver",
        component="driver",
        patterns=(
            r"possible cause is that driver and firmware packages do not match",
            r"execute failed, reason=\[feature not support\]",
            # the runtime's own wording of 207000 for a call the driver does not provide
            r"\brt\w{2,40} execution failed, the feature is not supported",
            # the runtime's EE1015: "... failed. Reason: The driver version capability is
            # insufficient. The driver interface halShmemInfoGet does not exist."
            r"failed\. Reason: The driver version capability is insufficient",
        ),
        codes=("207000",),
        meaning="the runtime asked for a feature the driver/firmware does not provide "
        "(ACL_ERROR_RT_FEATURE_NOT_SUPPORT): the driver is older than this CANN needs, "
        "driver and firmware do not pair, the program loads another CANN's runtime than "
        "it was built with, or the chip (or its RC mode) lacks the feature",
        causes=(
            "HDK (driver and firmware) older than this CANN needs",
            "driver and firmware from different HDK releases",
            "a program built against one CANN loading the runtime (libascendcl.so) of another: "
            "LD_LIBRARY_PATH or ASCEND_HOME pointing at another release",
            "a feature this chip or its mode does not have: a 310B or an Atlas 200 board in RC "
            "(offline) mode ('can not support offline mode'), a library whose port does not "
            "support the chip (OpenCV's cannops on a 310B)",
        ),
        fix="install the driver and firmware of one HDK release that the CANN release notes "
        "pair with this CANN; `ampenv doctor --only npu.driver`; for a program built against "
        "CANN, check that it loads the CANN it was built with (`ldd <program> | grep "
        "ascendcl`, then source that release's set_env.sh); where the chip lacks the feature "
        "(EL0014, 'feature not support' on a 310B or RC board), a library built for this chip",
        confirm="npu.driver",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUException.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (ACL_ERROR_RT_FEATURE_NOT_SUPPORT)",
                "official",
            ),
            Source("https://github.com/modelbox-ai/modelbox/issues/357 (flags=4)", "report"),
            Source("https://github.com/hw-native-sys/PTOAS/pull/836 (rtGetDevMsg)", "report"),
            Source("https://github.com/opencv/opencv_contrib/issues/3945 (310B)", "maintainer"),
            Source("https://github.com/microsoft/onnxruntime/issues/15947 (RC mode)", "report"),
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/8420 (Mooncake's fabric "
                "memory: HDK 26.0.0 and CANN 9.0.0 or later; glog's E record, ret:207000)",
                "maintainer",
            ),
            Source(
                "hicann/runtime docs/zh/FAQ/Runtime版本与CANN版本不匹配导致的问题.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e (207000: the runtime of another CANN)",
                "official",
            ),
            Source(
                "hicann/runtime docs/zh/error_code_ref (EE1015: the driver version capability "
                "is insufficient)@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
        ),
        hints=("not support", "fail"),
    ),
    Failure(
        id="driver-install-incomplete",
        mode="driver",
        component="driver",
        # npu-smi's warning where /etc/ascend_install.info lacks Driver_Install_Status=complete
        patterns=(r"The driver package may not be completely installed",),
        codes=(),
        meaning="npu-smi found the driver's install record incomplete (/etc/ascend_install.info "
        "has no Driver_Install_Status=complete): an install that stopped half way, and the "
        "driver may not work",
        causes=("a driver install interrupted or failed (the kernel module's build above all)",),
        fix="install the driver again (its .run --full as root) and read "
        "/var/log/ascend_seclog/ascend_install.log for the step that failed; then `npu-smi "
        "info`",
        confirm="npu.driver",
        sources=(
            Source(
                "Huawei's one-case knowledge base, 'npu-smi info reports the driver not "
                "completely installed' (the public file index's id 53840306900)",
                "official",
            ),
        ),
        hints=("abnormal",),
    ),
    Failure(
        id="hdk-required",
        mode="driver",
        component="driver",
        patterns=(
            # PyPTO's gate on the driver package it launches kernels with
            r"driver package version \S{1,40} is not supported for",
            r"failed to initiali[sz]e\. please install HDK",
            r"Failed to find function dcmi_\w{1,60}",
            r"maybe your hdk version is too low",
            r"please upgrade the HDK\(driver\)",
            r"the current driver version does not support this feature",
        ),
        codes=(),
        meaning="CANN, torch_npu or a CANN tool needs a driver (Ascend HDK) feature this node's "
        "driver lacks: the driver is missing, too old, or installed without the mode needed",
        causes=("no NPU driver, or one older than the tool", "the driver not in debug mode"),
        fix="install or upgrade the NPU driver and firmware (Ascend HDK) that this CANN's "
        "release notes pair with it; `ampenv doctor --only npu.driver`",
        confirm="npu.driver",
        sources=(
            Source(
                "hicann/pypto framework/src/machine/runtime/launcher/"
                "device_launcher_driver_gate.cpp"
                "@883e7dfb018da764a65fd2c2f8c1e1d2de2d2471 (25.5 or later)",
                "official",
            ),
            Source(
                "Ascend/pytorch torch_npu/csrc/npu/Event.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source(
                "hicann/catlass docs/en/1_Practice/evaluation/msdebug.md"
                "@0843e90ab3edaeccd149e19f01213575ab615770",
                "official",
            ),
            Source(
                PYTORCH.format("torch_npu/csrc/core/npu/interface/DcmiInterface.cpp"), "official"
            ),
            Source(PYTORCH.format("torch_npu/csrc/core/npu/CachingHostAllocator.cpp"), "official"),
        ),
        hints=("fail", "not support"),
    ),
    Failure(
        id="driver-not-loaded",
        mode="driver",
        component="runtime",
        # the runtime, mapping a device id to a chip, finding no driver to ask
        patterns=(r"Failed to get phy dev id by logic dev id, driver may not be loaded",),
        codes=(),
        meaning="the runtime could not map a device id to a chip: the NPU driver is not "
        "installed or its kernel modules are not loaded, so every device id (107001), even 0, "
        "is invalid",
        causes=(
            "the driver not installed, or installed for another kernel than the one running "
            "(a kernel update since)",
            "its modules not loaded after a reboot, or unloaded",
        ),
        fix="check the driver: `cat /usr/local/Ascend/driver/version.info`, `lsmod | grep "
        "drv_` (its kernel modules) and `npu-smi info`; install it (or reinstall it for the "
        "running kernel: `uname -r`) and reboot if the installer asks",
        confirm="npu.driver",
        sources=(
            Source(
                "hicann/runtime docs/zh/FAQ/aclrtSetDevice调用失败.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e (现象2)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="driver-vnpu-mdev-missing",
        mode="driver",
        component="driver",
        # the kernel's loader on the driver's vNPU module (drv_vascend), in dmesg
        patterns=(r"drv_vascend: Unknown symbol mdev_\w{1,40} \(err -?\d{1,4}\)",),
        codes=(),
        meaning="the driver's vNPU module (drv_vascend) does not load: the running kernel has no "
        "VFIO mediated-device module (mdev) for it to link to, so the driver's modules stop "
        "there and npu-smi and the runtime find no devices",
        causes=(
            "a kernel built without CONFIG_VFIO_MDEV (openEuler 24.03 SP3's, in the reports)",
            "the mdev module present but not loaded before the driver's",
        ),
        fix="`modprobe mdev` (or vfio_mdev); where the kernel lacks it, build it from the "
        "kernel's own source (CONFIG_VFIO_MDEV=m; `make M=drivers/vfio/mdev modules`), install "
        "it with `depmod -a`, then load the driver's modules again (`modprobe drv_vascend`) "
        "or reinstall the driver, and check `npu-smi info`",
        confirm="npu.driver",
        sources=(
            Source(
                "a 910B driver install record on openEuler 24.03 SP3, file id 52446518654",
                "report",
            ),
            Source("a 910B deployment guide's troubleshooting, index id 52927315681", "report"),
        ),
        hints=("err",),
    ),
    Failure(
        id="invalid-device-id",
        mode="visible-devices",
        component="runtime",
        patterns=(
            code("107001"),
            r"Set (?:visible )?device failed, invalid device",
            # torch_npu's own check of an index against the devices it counts
            r"AssertionError: Invalid device id",
            # the runtime's EE1001 message ("Invalid device ID 8. Set drv devId to 8. The valid
            # device range is [0, 7).")
            r"Invalid device ID \d{1,5}\. Set drv devId to \d{1,5}\. The valid device range is",
            r"Error: Invalid device ID\. The invalid device is \d{1,5}",
        ),
        codes=("107001",),
        meaning="a device id this process asked for does not exist among its visible devices",
        causes=(
            "ASCEND_RT_VISIBLE_DEVICES lists ids that are not present, not ascending, or has "
            "gaps: CANN silently drops them and renumbers the rest from 0",
            "more local ranks than visible devices",
            "aclInit's own 107001 in a container, before any device is chosen: no NPU passed "
            "in, or the driver's files not all mounted (an old release's fwkacllib too)",
        ),
        fix="make ASCEND_RT_VISIBLE_DEVICES list only present devices, ascending, without "
        "spaces, and start no more ranks per node than it lists; where aclInit itself fails "
        "in a container, pass its NPUs (--device /dev/davinciN, /dev/davinci_manager, "
        f"/dev/devmm_svm, /dev/hisi_hdc) and the driver's files ({MOUNTS})",
        confirm="env.npu",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (107001)",
                "official",
            ),
            Source(FACTS + " §4 (envref_07_0028)", "official"),
            Source("https://github.com/gpustack/gpustack/issues/3352", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/pull/10227", "report"),
            Source(
                "https://www.hiascend.com/forum/thread-0225198294622205405-1-1.html "
                "(Set device failed, invalid device)",
                "report",
            ),
            Source(
                "Ascend/pytorch torch_npu/npu/__init__.py@9e73e708ab9350d203475609f36f8a43f6a0c2ab "
                "(Invalid device id)",
                "official",
            ),
            Source(
                "hicann/runtime docs/zh/error_code_ref/RTS-Errors/EE1001-Invalid_Argument.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
            Source(
                "Carolier2003/Carols-blog src/data/blog/npu-model-deployment-practice.md"
                "@27acbb14f3e159423f7db1b0e308468cf5803c53 (aclInit's 107001: fwkacllib not "
                "mounted)",
                "report",
            ),
        ),
        hints=code_hints("error", "fail"),
    ),
    Failure(
        id="visible-devices-invalid",
        mode="visible-devices",
        component="runtime",
        patterns=(
            r"ASCEND_RT_VISIBLE_DEVICES\b[^\n]{0,200}must be configured in ascending order",
            r"Error setting ASCEND_RT_VISIBLE_DEVICES\b",
            r"No NPU devices found or specified in ASCEND_RT_VISIBLE_DEVICES",
            # the runtime's own check: an id beyond the devices this container or node has (the
            # value after a colon, or none: "GetVisibleDevices: set ASCEND_RT_VISIBLE_DEVICES
            # error, input data range[0-1)")
            r"set ASCEND_RT_VISIBLE_DEVICES(?::\[?[^\]\n]{0,200}\]?)? error, input data rang",
            # the runtime's EE2002: "Value 1,2,2 for environment variable
            # ASCEND_RT_VISIBLE_DEVICES is invalid. Expected value: cannot be duplicated."
            r"for environment variable ASCEND_RT_VISIBLE_DEVICES is invalid",
            # frameworks' own checks: MindIE's parse of the list, MindSpeed-MM's count per node
            r"Error: ASCEND_RT_VISIBLE_DEVICES should be in format",
            r"Error: ASCEND_RT_VISIBLE_DEVICES which is \S{1,40} must specify the exact number "
            r"of devices used per node",
        ),
        codes=("EE1001",),
        narrower=True,  # EE1001: any invalid argument of the runtime
        meaning="ASCEND_RT_VISIBLE_DEVICES was refused: CANN wants its ids in ascending order "
        "and within the devices this node or container has, and a launcher (vLLM) found its "
        "ranks' device range beyond the ids it lists",
        causes=(
            "an id beyond the devices present (the runtime names the range it has: a container "
            "given fewer devices than the variable lists)",
            "ids not ascending (e.g. 0,2,4,6,1,3,5,7): the order must come from the launcher's "
            "rank-to-device mapping, not from the variable",
            "more local ranks than visible devices on this node (data parallel size per node "
            "times tensor parallel size above the devices listed)",
            "an id listed twice (the runtime's EE2002: 'cannot be duplicated')",
            "a value that is not a comma-separated list of ids (a range, spaces, a name)",
        ),
        fix="list only devices this node or container has (`npu-smi info`; in a container the "
        "ids count from 0 over the devices passed in), in ascending order, in "
        "ASCEND_RT_VISIBLE_DEVICES, and start no more ranks per node than it lists (check the "
        "data-parallel size per node and the tensor-parallel size against it)",
        confirm="env.npu",
        sources=(
            Source(
                "vllm-project/vllm-ascend vllm_ascend/utils.py"
                "@182b75ea84ff13ece27b57391331ef8935410aea",
                "official",
            ),
            Source("https://github.com/gpustack/gpustack/issues/2527 (EE1001 text)", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/2879", "report"),
            Source("https://github.com/gpustack/gpustack/issues/3352 (input data range)", "report"),
            Source(
                "an asys run's notes, the public file index's id 58925617860 (a host's card id in "
                "a container of one)",
                "report",
            ),
            Source(FACTS + " §4 (envref_07_0028)", "official"),
            Source(
                "hicann/runtime docs/zh/error_code_ref (EE2002: ASCEND_RT_VISIBLE_DEVICES "
                "cannot be duplicated)@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
            Source(
                "Ascend/MindIE-LLM mindie_llm/utils/env.py"
                "@8b4871ad31f592aa863f6255760e4934484d78e4 (get_visible_devices)",
                "official",
            ),
            Source(
                "Ascend/MindSpeed-MM mindspeed_mm/tasks/rl/soragrpo/sora_grpo_trainer.py"
                "@57069cd55a8ab16d5affe379a2e2c5f0a4d962b9",
                "official",
            ),
        ),
        hints=("error", "is invalid"),
    ),
    Failure(
        id="inf-nan-mode-unsupported",
        mode="dtype",
        component="runtime",
        # the runtime's WE0001, its message as the error-code page prints it
        patterns=(r"Failed to set the Inf/NaN mode because only the saturation mode can be set",),
        codes=(),
        meaning="the program asked the device for Inf/NaN mode (a float overflow gives inf or "
        "nan, as on GPUs) and this chip has saturation mode only (an overflow gives the largest "
        "value, a NaN gives 0): Atlas training products (910A), Atlas inference products "
        "(310P) and Atlas 200I/500 A2",
        causes=(
            "INF_NAN_MODE_ENABLE=1, or code calling aclrtSetDeviceSatMode for Inf/NaN mode, on "
            "a chip of saturation mode only",
        ),
        fix="leave the device in saturation mode on this chip (unset INF_NAN_MODE_ENABLE; take "
        "the Inf/NaN request out of the code): overflow is then found through the overflow "
        "flags (torch_npu's loss scaler reads them), not through inf values",
        confirm="npu.devices",
        sources=(
            Source(
                "hicann/runtime docs/zh/error_code_ref/RTS-Errors/WE0001-Not_Supported.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
            Source(
                "hicann/runtime docs/zh/api_ref/25-02_Enumerations.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e (aclrtFloatOverflowMode: saturation "
                "only on those products)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="inf-nan-mode-disable-refused",
        mode="dtype",
        component="torch_npu",
        patterns=(r"Error: INF_NAN_MODE_ENABLE shouldn't be set to 0 on the current device",),
        codes=(),
        meaning="INF_NAN_MODE_ENABLE=0 asks for saturation mode, which torch_npu refuses on "
        "chips whose floats overflow to inf/nan (Atlas A2/A3, 910B and 910_93)",
        causes=("INF_NAN_MODE_ENABLE=0 kept from a 910A or 310P setup, or from a guide for one",),
        fix="unset INF_NAN_MODE_ENABLE (Inf/NaN mode is these chips' default); where saturation "
        "mode is truly wanted, export INF_NAN_MODE_FORCE_DISABLE=1 instead",
        confirm="env.npu",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NpuVariables.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="complex-dtype-jit-compile",
        mode="dtype",
        component="torch_npu",
        patterns=(r"Error: Current settings do not support Complex dtype\.",),
        codes=(),
        meaning="torch_npu refused a complex tensor while operators are compiled just in time "
        "(jit_compile=True): that path has no complex dtypes",
        causes=(
            "torch_npu.npu.set_compile_mode(jit_compile=True) (or a default that turns it "
            "on) with complex tensors in the model",
        ),
        fix="run with the prebuilt operators: torch_npu.npu.set_compile_mode(jit_compile=False) "
        "before the model is built",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/aten/common/TensorFactories.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("error", "not support"),
    ),
    Failure(
        id="launch-blocking-with-graph",
        mode="core-exception",
        component="vllm-ascend",
        patterns=(r"Error: ACL graph is incompatible with ASCEND_LAUNCH_BLOCKING=1",),
        codes=(),
        meaning="vllm-ascend refused to start in graph mode with ASCEND_LAUNCH_BLOCKING=1: a "
        "captured graph cannot launch its operators one by one",
        causes=("ASCEND_LAUNCH_BLOCKING=1 left set from debugging an operator",),
        fix="unset ASCEND_LAUNCH_BLOCKING (or set it to 0) for graph mode; to find a failing "
        "operator run eager (--enforce-eager) with it, or read the plogs "
        "(~/ascend/log/debug/plog)",
        confirm="env.npu",
        sources=(
            Source(
                "vllm-project/vllm-ascend vllm_ascend/platform.py"
                "@182b75ea84ff13ece27b57391331ef8935410aea",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="overflow-flag-api-on-inf-nan-chip",
        mode="dtype",
        component="torch_npu",
        patterns=(
            r"Error: Unsupported api when soc_version >= Ascend910B1, please use "
            r"npu_check_overflow",
        ),
        codes=(),
        meaning="code read the float-status register (torch_npu.npu.get_npu_overflow_flag), "
        "which saturation-mode chips have; from Ascend910B1 on floats overflow to inf/nan and "
        "the call is refused",
        causes=(
            "loss-scaling code written for 910A (apex-style overflow checks) run on 910B or later",
        ),
        fix="check the gradients themselves: torch_npu.npu.npu_check_overflow(grad), or "
        "torch.amp's GradScaler (torch.npu.amp.GradScaler / `from ampenv import amp`), which "
        "finds inf/nan in the gradients on these chips",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/npu/utils.py@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="aclop-disabled",
        mode="compile-cache",
        component="torch_npu",
        patterns=(
            r"Error: Acl op is disabled! Please check the environment variable "
            r"ACL_OP_INIT_MODE",
        ),
        codes=(),
        meaning="an operator needed the aclop path (GE's single operators) and ACL_OP_INIT_MODE "
        "turned aclop off (2: aclnn operators only)",
        causes=(
            "ACL_OP_INIT_MODE=2 set to skip aclop's start-up, with a model that still calls "
            "an aclop operator",
        ),
        fix="unset ACL_OP_INIT_MODE or set it to 0 (aclop initialised at start) or 1 (when "
        "first needed)",
        confirm="env.npu",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/framework/LazyInitAclops.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
        ),
        hints=("error",),
    ),
)
