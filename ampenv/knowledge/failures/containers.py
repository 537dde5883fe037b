"""Devices in containers: the device nodes, the driver's files and npu-smi mounted or not, DCMI
opening the devices, the device plugins and runtimes that pass them in (schedulers:
schedulers.py)."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, FACTS, KB, Failure, Source, code, code_hints

ARCH_CAUSES = (
    "an image tag for the other architecture (the vendor publishes one per architecture, or "
    "only x86_64)",
    "a multi-architecture image pulled with --platform for the other one",
)
ARCH_FIX = (
    "compare `uname -m` with `docker image inspect <image> --format '{{.Architecture}}'`; pull "
    "the tag built for the host (`docker pull --platform linux/arm64 <image>`, the vendor's "
    "aarch64/-npu tag), or build the image on this architecture"
)

# The host's driver files a container needs beside its device nodes, as Ascend's container
# guides mount them
MOUNTS = (
    "-v /usr/local/dcmi -v /usr/local/Ascend/driver/lib64 -v "
    "/usr/local/Ascend/driver/version.info -v /etc/ascend_install.info"
)

FAILURES = (
    Failure(
        id="docker-runtime-file-check",
        mode="container-devices",
        component="ascend-docker-runtime",
        # MindCluster's file checker (mindxcheckutils): each file it runs or reads, and each
        # directory above it, must be root's (or the caller's), not group/other-writable,
        # without setuid/setgid: "owner not right /usr/bin/runc 1000" ("setuid not allowed" has
        # no published example yet)
        patterns=(
            r"ascend-docker[^\n]{0,600}?\b(?:owner|write permission|permission) not right\b",
            # its message quoted alone, with the file it names
            r"\bowner not right /\S{1,200}",
        ),
        codes=(),
        meaning="Ascend Docker Runtime (or another MindCluster component) refused a file: its "
        "owner is not root, or group/others may write it, or it is setuid/setgid; the message "
        "names the file (and the owner's uid)",
        causes=(
            "a binary it hands over to (runc, the hook) or a directory above it owned by an "
            "ordinary user, after a manual install or an unpacked tarball",
            "group- or world-writable permissions on that file or a directory above it",
        ),
        fix="give the file the message names, and each directory above it, to root and take "
        "write away from group and others: `sudo chown root:root FILE && sudo chmod go-w "
        "FILE` (e.g. /usr/bin/runc); then start the container again",
        confirm=None,
        sources=(
            Source(
                "Ascend/mind-cluster component/ascend-docker-runtime/mindxcheckutils/"
                "mindxcheckutils.go@22bb3d987bc0208c3eb7395e222b661276133c58",
                "official",
            ),
            Source(
                "liguodongiot/llm-action llm-localization/ascend/FAQ.md"
                "@923449432b6bd00674efd5965fdb70365a88ce5e (owner not right /usr/bin/runc)",
                "report",
            ),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="ascend-docker-runtime-missing",
        mode="container-devices",
        component="ascend-docker-runtime",
        # the container engine starting a container with a runtime whose binary is gone
        patterns=(
            r"OCI runtime create failed[^\n]{0,600}?fork/exec \S{0,200}/ascend-docker-runtime: no "
            r"such file or directory",
        ),
        codes=(),
        meaning="the container engine is set to start containers with Ascend Docker Runtime, "
        "and its binary is not on this node (uninstalled, or never installed here): every "
        "container that asks for it fails to start",
        causes=(
            "Ascend Docker Runtime uninstalled while the engine's configuration (or pods bound "
            "to it) still name it",
            "a node joined without Ascend Docker Runtime installed",
        ),
        fix="install Ascend Docker Runtime on the node again, or take it out of the engine's "
        "configuration (/etc/docker/daemon.json, containerd's config.toml) and restart the "
        "engine; then delete the failing pods so that they are created anew (kubectl delete "
        "pod --force)",
        confirm=None,
        sources=(
            Source(
                "Ascend/mind-cluster docs/zh/scheduling/05_developer_guide/"
                "00_installation_deployment/02_uninstallation.md"
                "@22bb3d987bc0208c3eb7395e222b661276133c58",
                "official",
            ),
        ),
        hints=("fail", "err"),
    ),
    Failure(
        id="dcmi-init-failed",
        mode="container-devices",
        component="dcmi",
        patterns=(
            # -8005 most often; -8001 and others after a driver upgrade (-8020 is another's)
            r"dcmi module initiali[sz]ed? failed[.,]? ?ret is -80(?!20)\d\d\b",
            r"dcmi init failed, error code: ?-8005",
        ),
        codes=("-8005",),
        meaning="npu-smi's management library (DCMI) could not open the devices",
        causes=(
            "in a container: the devices are held by another container, or the container was "
            "started without the device nodes or --privileged",
            "/dev/davinci* not accessible to this user",
            "driver not matching the running kernel (kernel upgraded) or not loaded",
            "on a host: the driver or firmware was upgraded and the server not rebooted since",
        ),
        fix="start the container with --privileged, or pass /dev/davinciN, /dev/davinci_manager, "
        "/dev/devmm_svm, /dev/hisi_hdc and mount /usr/local/Ascend/driver; on a host as a user "
        "other than root: `ls -l /dev/davinci*` (root:HwHiAiUser, 660) and add the user to "
        "that group (sudo usermod -aG HwHiAiUser $USER, then log in again); after a driver or "
        "firmware upgrade: reboot (/var/log/ascend_seclog/ascend_install.log), and check "
        "`dmesg -T | grep -i davinci`; if the driver is not loaded or was built for another "
        "kernel, run its installer again (`./Ascend-hdk-*-npu-driver_*.run --upgrade`) and "
        "reboot",
        confirm="npu.device_nodes",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/2698", "maintainer"),
            Source("https://github.com/Project-HAMi/ascend-device-plugin/issues/23", "report"),
            Source(
                "Ascend/mind-cluster docs/zh/scheduling/faq.md"
                "@c89c887a38646903186c17f471a856edf470169a (-8005 after a firmware upgrade)",
                "official",
            ),
            Source("https://support.huaweicloud.com/cce_faq/cce_faq_00494.md (-8001)", "official"),
            Source(
                "CANN environment setup FAQ, item 3 (the public file index's id 69025495947): "
                "-8005 for a user outside the HwHiAiUser group",
                "report",
            ),
            Source(
                "a 910 server's setup notes, file id 8894089041 (-8005 after the driver and "
                "firmware install: the driver's installer run again with --upgrade)",
                "report",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="dcmi-device-in-use",
        mode="container-devices",
        component="dcmi",
        patterns=(
            r"dcmi model initiali[sz](?:ed|ation) failed, because the device is used",
            r"dcmi \w{1,10} initiali[sz](?:ed?|ation) failed[^\n]{0,60}ret is -8020",
            # the driver's own kernel log (dmesg) for the same
            r"some devices are used by other docker",
            # (as dmesg prints it: "[uda_occupy_dev_by_ns 932] <python3:48230:...> Conflict ...")
            r"\buda_occupy_\w{1,20}[^\n]{0,200}?Conflict open udevid",
            # the runtime's EL0020 message, printed without its code too (no error word)
            r"Device \d{1,4} is occupied by multiple containers",
        ),
        codes=("-8020",),
        meaning="another container holds the device: a container started without --privileged "
        "cannot open a device that another container uses",
        causes=(
            "two containers given the same /dev/davinciN",
            "a container started without the documented mounts (/usr/local/dcmi, "
            "/usr/local/Ascend/driver/lib64 and version.info, /etc/ascend_install.info, npu-smi)",
        ),
        fix="stop the container that holds the NPU, or give each container its own NPUs "
        "(docker run --device=/dev/davinciN, ASCEND_VISIBLE_DEVICES), or where one NPU must "
        "serve several containers turn on its sharing (npu-smi set -t device-share -i ID -c "
        f"CHIP -d 1); check the container has the documented mounts ({MOUNTS})",
        confirm="npu.device_nodes",
        sources=(
            Source(FACTS + " §1.2 (ops note) [3P]", "report"),
            Source("https://github.com/Ascend/cann-container-image/issues/46", "report"),
            Source("shared/reference/ascend-facts.md §1.2 (dcmi ret -8020)", "official"),
            Source(
                "https://www.hiascend.com/document/detail/en/canncommercial/800/maintenref/"
                "troubleshooting/troubleshooting_0118.html (used by other docker)",
                "official",
            ),
            Source(
                "zhshgmail/easyr1-npu error-correction notes, entry EC-07 (-8020 from the binds)",
                "report",
            ),
            Source(
                "hicann/docs docs/en/troubleshooting/error-codes/Driver-Errors/"
                "EL0020-Resource_Busy.md@c14717642ba24270f72de4d02bcb447c5802b043",
                "official",
            ),
            Source(
                "a container troubleshooting table, index id 55067485258 (uda_occupy)", "report"
            ),
        ),
        # (EL0020's and the driver's words hold no error word: each is read whole)
        hints=("fail", "error"),
    ),
    Failure(
        id="npu-smi-board-query",
        mode="container-devices",
        component="npu-smi",
        # npu-smi's own words when DCMI cannot read a board; -9005 is npu-smi's code, in no
        # public table: what it means here is what the reports below agree on
        patterns=(r"npu get board type failed[.,]? ret is -9005\b",),
        codes=("-9005",),
        meaning="npu-smi could not read a board through DCMI, the driver's management "
        "interface: it enumerates every board of the machine, and in a container only the "
        "NPUs exposed to it are there (or DCMI's own files are not); it says nothing of "
        "whether the exposed NPUs compute",
        causes=(
            "a container given some NPUs only (--runtime=ascend with ASCEND_VISIBLE_DEVICES, a "
            "device plugin): harmless where torch_npu or ACL still open the device",
            "the container lacks DCMI's files (/usr/local/dcmi, the driver's lib64 and "
            "version.info, /etc/ascend_install.info), often beside dcmi's -8020",
        ),
        fix="judge the device by compute, not npu-smi: `python -c 'import torch, torch_npu; "
        "print(torch.npu.device_count())'` (or `ampenv doctor`) in the container; if it sees "
        "the NPUs the message is harmless there (ask npu-smi on the host); if not, mount "
        f"{MOUNTS} with the device nodes",
        confirm="npu.device_nodes",
        sources=(
            Source(
                "pypto's container guide, its edge cases (the public file index's id "
                "68754409928): expected under --runtime=ascend",
                "report",
            ),
            Source(
                "zhshgmail/easyr1-npu error-correction notes, entry EC-08 (the public file "
                "index's id 51881557038): DCMI's files not all mounted",
                "report",
            ),
            Source(
                "qwen35-ascend-migrator pitfall table, row 137 (the public file index's id "
                "71390183054): torch_npu computed where npu-smi failed",
                "report",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="driver-not-mounted",
        mode="container-devices",
        component="driver",
        patterns=(
            # (the library's name is on the line, or cut off in a note: the loader's words do)
            r"npu-smi: error while loading shared libraries\b",
            # DCMI bindings (gpustack's pydcmi, after pynvml): libdcmi.so not found
            r"\bDCMI_?Error_?Library_?Not_?Found\b",
            # msprof's own words (its "faild" as printed)
            r"Init platform by driver fail(?:e?d)\b",
            # CANN's installer reading the driver's release (an --upgrade in a container)
            r"unable to get driver config file [^\n]{0,200}?version\.info",
        ),
        codes=(),
        meaning="a driver file (a library, or the driver's version.info) cannot be read: the "
        "driver is not installed, its folder is not mounted into this container, or its lib64 is "
        "not on the loader's path in this shell",
        causes=(
            "container started without -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro",
            "driver lib64 missing from LD_LIBRARY_PATH: a shell that did not read the profile "
            "setting it (`docker exec -d`, a service unit, a cron job)",
            "(msprof's 'Init platform by driver failed') the devices not open to this user (not "
            "in the driver's group, HwHiAiUser) or none visible to it",
            "(CANN's installer: 'unable to get driver config file') the driver's version.info "
            "not in the container (or deleted): mount the driver folder, or copy the host's file "
            "in (`docker cp /usr/local/Ascend/driver/version.info <container>:/usr/local/Ascend/"
            "driver/`)",
        ),
        fix="mount the host driver: -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro "
        "-v /usr/local/dcmi:/usr/local/dcmi (on a host: reinstall the driver); where it is "
        "there, put it on the loader's path in the shell that starts the job (`bash -lc`, or "
        "export LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/"
        "lib64/common:$LD_LIBRARY_PATH); msprof's line with all that in place: `ls -l "
        "/dev/davinci*` against `id` (the user in HwHiAiUser)",
        confirm="npu.driver",
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/en/mindcluster/730/toolbox/toolboxug/"
                "toolboxug_0098.html (ascend-dmi: libdcmi.so)",
                "official",
            ),
            Source("https://github.com/Project-HAMi/HAMi/issues/615", "report"),
            Source(
                "jianzhnie/EasyInfer docs/longcat_deploy_issues.md@b00e2732954d2b44994e8a291d4de0c2"
                "ff3e7ead (docker exec -d without the profile)",
                "report",
            ),
            Source("https://github.com/gpustack/gpustack/issues/3284 (pydcmi)", "report"),
            Source(
                f"{KB}, index id 54123238486 (msprof: Init platform by driver faild)", "official"
            ),
            Source(f"{KB}, index id 53998596506 (CANN's upgrade: driver config file)", "official"),
            Source(
                "shared/reference/ascend-facts.md §1.2 (npu-smi without the driver's lib64)",
                "report",
            ),
        ),
        hints=("error", "cannot", "fail"),
    ),
    Failure(
        id="npu-smi-missing",
        mode="container-devices",
        component="driver",
        patterns=(
            r"\bnpu-smi: (?:command not found|No such file or directory)",
            # a device plugin looking for it (HAMi's ascend-device-plugin), a job's start script
            r"\bnpu-smi not found in\b",
            r"the container doesn't mount 'npu-smi' cmd",
        ),
        codes=(),
        meaning="npu-smi is not there: in a container the host's npu-smi was not mounted (or "
        "mounted from a path it does not have on that host); on a host the driver is not "
        "installed",
        causes=(
            "container started without -v <host npu-smi>:/usr/local/bin/npu-smi",
            "the host keeps npu-smi at another path than the one mounted",
            "on a host: driver not installed",
        ),
        fix="find it on the host (`command -v npu-smi`) and mount it with the driver: "
        "-v <that path>:/usr/local/bin/npu-smi -v /usr/local/Ascend/driver:/usr/local/Ascend/"
        "driver:ro; on a host install the driver; `ampenv doctor --only npu.driver`",
        confirm="npu.driver",
        sources=(
            Source(
                "Ascend/mindxdl-deploy samples/train/resumable-training/fault-rescheduling/"
                "withRanktable/pytorch/resnet50/train_start.sh"
                "@7803c2b146d135cec2c359dc06e4ad53ca03d1f8",
                "official",
            ),
            Source("https://github.com/PaddlePaddle/PaddleX/issues/4542", "report"),
            Source("https://github.com/Project-HAMi/ascend-device-plugin/issues/103", "report"),
        ),
        hints=("npu-smi",),
    ),
    Failure(
        id="ascend-docker-hook-mount",
        mode="container-devices",
        component="ascend-docker-runtime",
        patterns=(
            r"failed to mount src: /\S{1,300}",
            r"failed to do file mounting for",
            r"error running prestart hook #\d{1,3}[^\n]{0,200}runc start prestart-hook",
        ),
        codes=(),
        meaning="the Ascend Docker Runtime's prestart hook refused to bind-mount a host file "
        "into the container (a driver file, npu-smi, a device), so the container did not start",
        causes=(
            "the host file or a directory above it is writable by others, or reached through a "
            "symlink: the hook checks both before it mounts (the write permission check failed "
            "in alphafold#1073)",
            "a path in /etc/ascend-docker-runtime.d/*.list that is not a plain file or directory",
        ),
        fix="on the host, for the file the error names and each directory above it: "
        "`ls -ld <path>`, `chmod o-w` on each, and replace symlinks with the real path; then "
        "start the container again (the mount list is /etc/ascend-docker-runtime.d/base.list)",
        confirm="npu.device_nodes",
        sources=(
            Source(
                "Ascend/ascend-docker-runtime cli/src/u_mount.c@325ad71ea77c8e66fd9821f9c81053f030"
                "ef123c (checkSrcFile: failed to mount src) and cli/src/utils.c "
                "(CheckExternalFile)",
                "official",
            ),
            Source("https://github.com/google-deepmind/alphafold/issues/1073", "report"),
        ),
        hints=("fail", "error"),
    ),
    Failure(
        id="docker-device-node-missing",
        mode="container-devices",
        component="docker",
        # "docker: Error response from daemon: error gathering device information while adding
        # custom device "/dev/davinci4": no such file or directory" (a node of the NPUs only:
        # docker says the same of a camera or a USB stick); found by its own words, where a
        # wrapped copy puts them on a line of their own
        patterns=(
            r"adding custom device [\"'“”]?/dev/(?:davinci\d{0,4}|davinci_manager|devmm_svm"
            r"|hisi_hdc)[\"'“”]?: no such file or directory",
        ),
        codes=(),
        meaning="docker could not add a device node the run asked for (--device /dev/davinciN, "
        "/dev/devmm_svm, ...): this host has no such node",
        causes=(
            "a device list copied from another host: this one has fewer NPUs (/dev/davinci4 on "
            "a host of four) or lacks a control node (/dev/devmm_svm)",
            "the driver not loaded, so the host has no /dev/davinci* nodes at all",
        ),
        fix="list the host's nodes (`ls /dev/davinci* /dev/davinci_manager /dev/devmm_svm "
        "/dev/hisi_hdc`) and pass only those with --device; if there are none, check the "
        "driver (`npu-smi info`, `ampenv doctor --only npu.driver`)",
        confirm="npu.device_nodes",
        sources=(
            Source(
                "an Ascend 950PR host's container notes, the public file index's id 66430911695 "
                "(/dev/devmm_svm, a list copied from another host)",
                "report",
            ),
            Source(
                "a KSC AIBox deployment guide, the public file index's id 52585340053 "
                "(/dev/davinci4 on a host without it)",
                "report",
            ),
        ),
        hints=(),
        # (its quote and slash as a JSON record, a page or an input method writes them)
        anchor=r"adding custom device [^\s/]{0,8}(?:/|\\/|&#x2F;|&#47;)dev(?:/|\\/|&#x2F;|&#47;)"
        r"(?:davinci|devmm_svm|hisi_hdc)",
    ),
    Failure(
        id="no-device",
        mode="container-devices",
        component="runtime",
        patterns=(
            code("207004"),
            r"Get physical device number failed, err: ?87\b",
            r"get device count of NPU failed",
            r"reason=\[?driver error:no valid device",
            # the runtime asking the driver for its devices, refused (87: not in this namespace)
            r"\b(?:halGetDeviceInfo failed: drvRet|drvGetDevNum, drvRetCode)=87\b",
            r"Error\b[^\n]{0,120}No such file or directory: '/dev/davinci\d{1,3}'",  # no nodes
        ),
        codes=("207004",),
        meaning="the runtime found no usable device (ACL_ERROR_RT_NO_DEVICE): none visible to "
        "this process, or the one asked for is unavailable",
        causes=(
            "ASCEND_RT_VISIBLE_DEVICES rejected (an EE1001 line next to it says why) or listing "
            "devices that are not there",
            "a container started without /dev/davinciN and the control devices, or given a "
            "device another container already holds (the driver answers 87)",
            "the driver not loaded, or the device faulty",
        ),
        fix="read the EE1001 line next to it; `npu-smi info`; check ASCEND_RT_VISIBLE_DEVICES "
        "against the devices present; in a container pass /dev/davinciN, /dev/davinci_manager, "
        "/dev/devmm_svm, /dev/hisi_hdc",
        confirm="npu.devices",
        sources=(
            Source("https://github.com/InternLM/lmdeploy/issues/2585 (dsmi err 87)", "report"),
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (207004)",
                "official",
            ),
            Source("https://github.com/gpustack/gpustack/issues/2527", "report"),
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUFunctions.cpp"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (device count messages)",
                "official",
            ),
            Source("https://github.com/opendatalab/MinerU/issues/4233", "report"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/248 (drvRet=87)", "report"),
        ),
        hints=code_hints("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="device-setup-failed",
        mode="container-devices",
        component="runtime",
        patterns=(
            code("507033"),
            r"Failed to start the device",
            # torch_npu 1.x's device start at init ("Initialize:.../npu_sys_ctrl.cpp:44 NPU
            # error, error code is 500000"), not its switch of a thread's device (ExchangeDevice)
            r"^(?![^\n]{0,400}\bExchangeDevice:)[^\n]{0,400}?npu_sys_ctrl\.cpp:\d{1,6} NPU "
            r"error, error code is \d{6}",
            # PyPTO's F71008 (MAP_REG_ADDR_FAILED): the device's registers mapped by another
            r"Map reg addr fail(?:ed)?,? maybe others are using current device",
        ),
        codes=("507033",),
        meaning="the device could not be opened: busy (another process holds its memory), "
        "dead, or refused by a check the lines around it name",
        causes=(
            "another process holds the device's memory (EL0004 next to it)",
            "the device is faulty (dmesg: device(N) is not working)",
            "the driver or firmware not installed properly, or the two of different HDK "
            "releases (ais_bench's FAQ: `Failed to open device,retCode=0x7020014`; the case "
            "library: 500000 at torch_npu's Initialize; install the HDK pair this CANN needs "
            "and reboot)",
            "the OPP package was rejected (E30006 next to it)",
            "the driver does not match the CANN release (EL0002 'device ID is invalid' next to "
            "it, with every id)",
            "in a pod or container given some of the node's NPUs: a device id counted over the "
            "node's NPUs, where the runtime counts 0..n-1 over the ones passed in "
            "(ASCEND_RT_VISIBLE_DEVICES not set to match ASCEND_VISIBLE_DEVICES)",
        ),
        fix="`npu-smi info` and `fuser -v /dev/davinci*`: stop the holder; if dmesg shows "
        "`device(N) is not working`, drain the node; in a container use ids 0..n-1 over the "
        "NPUs passed in; if no process holds it, check that the driver and firmware are one "
        "pair this CANN supports: `npu-smi info -t board -i <id>`, "
        "`ampenv doctor --only npu.driver,cann.toolkit`",
        confirm="npu.devices",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/core/npu/NPUErrorCodes.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (507033)",
                "official",
            ),
            Source("https://github.com/hw-native-sys/PTOAS/pull/341", "report"),
            Source("https://github.com/Ascend/pytorch/issues/67", "report"),
            Source("https://github.com/PaddlePaddle/Paddle/issues/68865", "maintainer"),
            Source("https://github.com/Project-HAMi/HAMi/issues/1894 (a pod's ids)", "report"),
            Source(
                "Ascend/tools ais-bench_workload/tool/ais_bench/FAQ.md"
                "@9d6da90fd0d3e5d232676c7a4527f7d92ac70e5c (acl open device 0 failed)",
                "official",
            ),
            Source(
                "https://hiascend.com/document/caselibrary/detail/topic_0000001589508769 "
                "(npu_sys_ctrl.cpp error code is 500000: driver and firmware)",
                "official",
            ),
            Source(
                "hicann/pypto docs/zh/tutorials/appendix/trouble_shooting/machine.md"
                "@883e7dfb018da764a65fd2c2f8c1e1d2de2d2471 (F71008: another process's device)",
                "official",
            ),
        ),
        hints=code_hints("error", "fail"),
        rank=CLASS,
    ),
    Failure(
        id="toolbox-visible-devices-refused",
        mode="visible-devices",
        component="Ascend ToolBox",
        # ascend-dmi's stress tests, which pick their devices themselves
        patterns=(r"ASCEND_RT_VISIBLE_DEVICES environment variable is not supported",),
        codes=(),
        meaning="Ascend ToolBox's ascend-dmi (its AI Core and memory stress tests) refuses to run "
        "with ASCEND_RT_VISIBLE_DEVICES set: it chooses the devices itself (-d), and the "
        "variable would remap them",
        causes=("ASCEND_RT_VISIBLE_DEVICES left set in the shell (from a training job's setup)",),
        fix="unset ASCEND_RT_VISIBLE_DEVICES in the shell that runs ascend-dmi and choose the "
        "device with its own option",
        confirm="env.npu",
        sources=(
            Source(
                "https://www.hiascend.com/document/caselibrary/detail/toolboxcase_0070 (error "
                "code 100011)",
                "official",
            ),
        ),
        hints=("err",),  # (its message is a key of its own, found by the "not " pass)
    ),
    Failure(
        id="container-threads-refused",
        mode="container-devices",
        component="container",
        # OpenBLAS starting its threads (numpy, torch on the CPU) in a container
        # ("blas_thread_int" as the MindCluster page prints it)
        patterns=(r"blas_thread_ini?t: pthread_create failed for thread \d{1,5} of \d{1,5}",),
        codes=(),
        meaning="the container refused to start threads (OpenBLAS's, as numpy or torch import "
        "it): its seccomp profile or its process limit blocks the thread creation call",
        causes=(
            "a Docker (runc) whose default seccomp profile predates the clone3 call a newer "
            "image's glibc makes: 'Operation not permitted' (Docker 20.10.7 in a report)",
            "a pids or process limit (--pids-limit, ulimit -u) reached: 'Resource temporarily "
            "unavailable'",
        ),
        fix="start the container with --security-opt seccomp=unconfined (or upgrade Docker "
        "and runc), and raise --pids-limit / ulimit -u where it says the resource is "
        "unavailable; fewer threads also do: export OPENBLAS_NUM_THREADS=<n>",
        confirm=None,
        sources=(
            Source(
                "Ascend/mind-cluster docs/zh/scheduling/04_usage/05_appliance/"
                "02_inference_service_fault_recovery.md@22bb3d987bc0208c3eb7395e222b661276133c58",
                "official",
            ),
            Source("https://github.com/langgenius/dify/issues/886 (Docker 20.10.7)", "report"),
        ),
        hints=("fail",),
    ),
    Failure(
        id="toolbox-not-on-path",
        mode="driver",
        component="toolbox",
        # the shell, asked for the ToolBox's tools (ascend-dmi, its diagnosis and stress tests)
        patterns=(r"\bascend-dmi: (?:command )?not found",),
        codes=(),
        meaning="the shell found no ascend-dmi: the Ascend ToolBox's environment script was not "
        "sourced in this shell, or the ToolBox is not installed",
        causes=(
            "the ToolBox installed, but its set_env.sh not sourced (a new shell, a container "
            "without it in the profile)",
            "the ToolBox not installed on this host or image",
        ),
        fix="source the ToolBox's environment in the shell (`source /usr/local/Ascend/toolbox/"
        "set_env.sh`, or that of its install path), then `ascend-dmi -v`; install the "
        "ToolBox (Ascend-mindx-toolbox) paired with the driver where it is missing",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/en/mindcluster/730/toolbox/toolboxug/"
                "toolboxug_0183.html",
                "official",
            ),
        ),
        hints=("not found",),
    ),
    Failure(
        id="container-image-arch-mismatch",
        mode="container-devices",
        component="container runtime",
        # the kernel's ENOEXEC when the image's first program runs (Ascend servers are mostly
        # aarch64: Kunpeng)
        patterns=(r"\bexec(?: user process caused:?| /[\w/.+-]{1,200}:) \"?exec format error",),
        codes=(),
        meaning="the container image (or a program in it) was built for another CPU "
        "architecture than the host's (an x86_64 image on an aarch64 Kunpeng server, or the "
        "reverse): its programs do not start",
        causes=ARCH_CAUSES,
        fix=ARCH_FIX,
        confirm=None,
        sources=(
            Source(
                "https://github.com/zilliztech/attu/issues/415 (openEuler aarch64)", "maintainer"
            ),
            Source("https://github.com/NVIDIA/nvidia-docker/issues/1116", "maintainer"),
        ),
        hints=("error",),
    ),
    Failure(
        id="container-image-other-arch",
        mode="container-devices",
        component="container runtime",
        # Docker's warning at the start: an image of another architecture runs under emulation
        # where the host has it (and works, for programs that need no device)
        patterns=(
            r"requested image's platform \(linux/[\w/]{1,20}\) does not match the detected host "
            r"platform",
        ),
        codes=(),
        meaning="the container image was built for another CPU architecture than the host's: "
        "it runs only under emulation, where the NPU's driver libraries (built for the host) "
        "cannot be loaded",
        causes=ARCH_CAUSES,
        fix=ARCH_FIX,
        confirm=None,
        sources=(Source("https://github.com/gpustack/gpustack/issues/2791", "maintainer"),),
        # Docker's warning holds no error word: its words are a key, read in the "not " pass
        hints=("error",),
        notice=True,
    ),
    Failure(
        id="docker-runtime-visible-devices",
        mode="container-devices",
        component="ascend-docker-runtime",
        # its parse of ASCEND_VISIBLE_DEVICES (ids, and ranges written low-high)
        patterns=(r"failed to get devices from ASCEND_VISIBLE_DEVICES value",),
        codes=(),
        meaning="Ascend Docker Runtime could not read ASCEND_VISIBLE_DEVICES (the NPUs to mount "
        "into the container), so the container does not start",
        causes=(
            "a range written high to low (3-1) or ending past 127, or a word the runtime does "
            "not know in the list",
        ),
        fix="pass the ids as the runtime reads them: `-e ASCEND_VISIBLE_DEVICES=0,1` or a range "
        "low to high (`0-3`), ids of NPUs this host has (`npu-smi info -l`)",
        confirm="npu.devices",
        sources=(
            Source(
                "Ascend/mind-cluster component/ascend-docker-runtime/runtime/process/process.go"
                "@22bb3d987bc0208c3eb7395e222b661276133c58",
                "official",
            ),
        ),
        hints=("fail",),
    ),
)
