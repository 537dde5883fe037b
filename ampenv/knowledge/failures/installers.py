"""The .run installers of the driver, the firmware and the CANN packages: what each checks
before it installs, and what it says when it refuses."""

from __future__ import annotations

from ampenv.knowledge.failures.model import KB, Failure, Source

# the driver package's install scripts, whose checks print these messages
DRIVER_SCRIPTS = (
    "hicann/driver scripts/package/custom/driver/common/scripts/{}"
    "@ef377e950a32b1641c108c59481e39e9643b7d63"
)
FAILURES = (
    Failure(
        id="driver-install-not-root",
        mode="driver",
        component="driver",
        # the driver's .run installer, started by a user other than root
        patterns=(r"do not have root permission, operation failed, please use root permission",),
        codes=(),
        meaning="the driver's (or firmware's) .run installer was started without root: it "
        "installs kernel modules and device files, which only root may",
        causes=("the .run package run by a normal user, or through sudo -u another user",),
        fix="run it as root (`sudo ./Ascend-hdk-<chip>-npu-driver_<version>.run --full`, "
        "--install-for-all where the package asks); a non-root user runs the driver through "
        "the HwHiAiUser group (--install-username/--install-usergroup)",
        confirm="npu.driver",
        sources=(
            Source(
                "hicann/driver docs/zh/FAQ.md@999c25d7406900c7c55e747bbc59a8817f8d5650 (问题二)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="cann-install-driver-check",
        mode="driver",
        component="CANN installer",
        # the toolkit's .run refusing to install over a driver it does not pair with
        patterns=(r"install failed:? ?check driver compatibility failed",),
        codes=(),
        meaning="CANN's installer checked the NPU driver and refused: no driver is installed, "
        "or the installed one is not one this CANN release pairs with",
        causes=(
            "no NPU driver on the host (a container or a machine without the HDK)",
            "a driver older than the CANN release needs",
        ),
        fix="`npu-smi info` (no table: no driver); install the driver and firmware the CANN "
        "release notes pair with it, then install CANN again (--force skips the check and "
        "leaves a pair that does not work); `ampenv doctor --only npu.driver`",
        confirm="npu.driver",
        sources=(
            Source(
                "Huawei's one-case knowledge base, 'CANN package reports an incompatible driver' "
                "(the public file index's id 54140408223)",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="driver-install-devices-busy",
        mode="driver",
        component="driver",
        # the installer's exitInstallInfo, printed (and logged) as it gives up
        patterns=(r"The davinci nodes are occupied by some processes",),
        codes=(),
        meaning="the driver's installer (or uninstaller) stopped because processes still hold "
        "the NPU's device files (/dev/davinci*, /dev/davinci_manager): it cannot unload the "
        "kernel modules under them",
        causes=(
            "containers started with the devices (ascend_install.log: '/dev/davinci_manager "
            "has used by docker')",
            "a monitoring agent holding them (iBMA querying the NPUs during a FusionDirector "
            "upgrade, npu-exporter, the device plugin) or a training process still running",
            "vNPUs still created on the chips",
        ),
        fix="see who holds them: `lsof /dev/davinci* /dev/davinci_manager` (or `fuser -v "
        "/dev/davinci*`) and /var/log/ascend_seclog/ascend_install.log; stop those containers "
        "and agents (`docker stop`), destroy vNPUs (`npu-smi info -t info-vnpu -i ID -c CHIP`, "
        "`npu-smi set -t destroy-vnpu ...`), then run the .run again (firmware first, then "
        "driver) and reboot where it asks",
        confirm="npu.driver",
        sources=(
            Source(
                "the NPU driver's install script (exitInstallInfo), index id 37228783698",
                "official",
            ),
            Source(f"{KB}, index id 54130089944 (FusionDirector upgrade, iBMA)", "official"),
            Source("index id 4571034313 (a 310P note: docker containers and vNPUs)", "report"),
        ),
        hints=("error",),  # and its message, a key in the pass for "the "
    ),
    Failure(
        id="install-user-changed",
        mode="driver",
        component="installer",
        # (its key "the user and group are not", in the pass for "not ": a key with "same " would
        # make that word a sixth key's and a pass of its own)
        patterns=(r"The user and group are not\ssame\swith last installation",),
        codes=(),
        meaning="an installer (the driver's, or a CANN package's) refused to install over an "
        "earlier installation made for another run user and group: it compares them with "
        "the ones recorded at that install (/etc/ascend_install.info, or the package's "
        "ascend_install.info)",
        causes=(
            "--install-username/--install-usergroup (or the user running it) differ from the "
            "earlier install's",
            "a component left installed by an earlier uninstall (aicpu under "
            "/usr/local/Ascend/opp) keeps the old record",
        ),
        fix="install with the same run user and group as the earlier install (cat "
        "/etc/ascend_install.info shows them), or uninstall everything first, leftovers "
        "included (as root: /usr/local/Ascend/opp/aicpu/script/uninstall.sh), then install",
        confirm=None,
        sources=(
            Source(
                "the driver's and CANN packages' install scripts (ERR_NO:0x0095), index ids "
                "1041882693, 36004516505",
                "official",
            ),
            Source(f"{KB}, index id 54151010220 (aicpu left installed)", "official"),
        ),
        hints=("error",),
    ),
    Failure(
        id="install-user-variable-stale",
        mode="driver",
        component="installer",
        # a .run package's check of the user in its environment: "usergroup=root not right!"
        # (its key, in the pass for "not ")
        patterns=(r"usergroup=\S{1,64} not right!",),
        codes=(),
        meaning="the installer read the installing user from $USER and found it does not "
        "match the user running it: a shell switched to root (su) keeps the first user's "
        "USER",
        causes=("a login as another user, then su to root without a login shell",),
        fix="export USER=root (the user that runs the install), or switch with `su -`, then "
        "run the installation again",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/en/canncommercial/800/softwareinst/"
                "instg/instg_0082.html (CANN 8.0.0 installation FAQ: usergroup=root not right)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="cann-install-python",
        mode="cann-env",
        component="installer",
        # the CANN package's installer, naming the Python versions it accepts; and the operator
        # compiler's own check at run time (E40001, printed with its code or without)
        patterns=(
            r"ERROR\]:?\s{0,3}There is no python3\.\d{1,2}(?:,\s?python3\.\d{1,2}){0,12}"
            r" in the current",
            r"for environment variable \[?PATH\]? is invalid when executing the cmd python3? -V"
            r"[^\n]{0,40}Reason: invalid Python version",
        ),
        codes=(),
        meaning="CANN found no Python of the versions it supports as python3 on PATH: its "
        "installer (the toolkit installs Python modules, te and op_compile_tool, for it), or "
        "the operator compiler at run time (E40001)",
        causes=(
            "python3 on PATH older or newer than the release supports (several Pythons "
            "installed, or a system python3 of another version)",
            "the supported Python built without its shared library, or off PATH and "
            "LD_LIBRARY_PATH",
        ),
        fix="put a Python the release supports first on PATH (and its lib on "
        "LD_LIBRARY_PATH), e.g. export PATH=/usr/local/python3.9/bin:$PATH; check with "
        "`python3 --version` and `pip3 --version`; then run the installer again",
        confirm="python.stack",
        sources=(
            Source(f"{KB}, index id 54209651927 (CANN's Python check)", "official"),
            Source(
                "hicann/runtime docs/zh/error_code_ref/TEfusion-Errors/E40001-Config_Error_"
                "Invalid_Environment_Variable.md@681ef7610df13c8128982901142a2c869ddbb53e",
                "official",
            ),
        ),
        hints=("error", "is invalid"),
    ),
    Failure(
        id="run-package-installed-twice",
        mode="cann-env",
        component="installer",
        # an Ascend .run package's installer, finding its own package installed already
        patterns=(r"run package is already installed, install failed",),
        codes=(),
        meaning="an Ascend .run package's installer refused to install: the same package is "
        "installed already, and it does not install over itself",
        causes=("a package installed before (by an image, an earlier setup, another user)",),
        fix="uninstall the installed one first (its .run with --uninstall, or the "
        "uninstall.sh under its install path's script folder), or use the package's "
        "--upgrade where it has one; then install again",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/forum/thread-0206101475787358003-1-1.html (an Atlas "
                "200 module's RC setup guide: uninstall, then install again)",
                "report",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="driver-install-prerequisites",
        mode="driver",
        component="driver",
        # the driver's .run checking what it needs before it installs: its run user, the tools
        # its scripts call
        patterns=(
            r"ERR_NO:0x0091;?\s?(?:ERR_DES:\s?)?HwHiAiUser not exists",
            # (the installer's "[Driver] [<time>] [ERROR]The list of missing tools: lspci,"; a
            # guide's comment quoting it without its "[Driver]" is no run of it)
            r"\[Driver\][^\n]{0,80}?\[ERROR\]\s?The list of missing tools:",
        ),
        codes=(),
        meaning="the driver's installer stopped before installing: a prerequisite is missing, "
        "the HwHiAiUser user and group the driver's files and device nodes belong to "
        "(ERR_NO:0x0091), or tools its scripts call (the list it prints)",
        causes=(
            "a fresh OS where the run user was never created (the install guide creates it first)",
            "a minimal OS image without net-tools (ifconfig) and the like",
        ),
        fix="create the run user and group as root (`groupadd HwHiAiUser && useradd -g "
        "HwHiAiUser -d /home/HwHiAiUser -m HwHiAiUser -s /bin/bash`; another name with "
        "--install-username/--install-usergroup), install the tools it lists (ifconfig: "
        "`yum install net-tools` / `apt install net-tools`), then run the .run --full again",
        confirm="npu.driver",
        sources=(
            Source(
                "a 910B driver 25.5.1 install record on openEuler 24.03 SP3, index id "
                "52668737407 (its 4.1 and 4.2)",
                "report",
            ),
            Source("an Atlas 800I A2/A3 npu-smi install note, index id 62487851303", "report"),
            Source("a server bring-up runbook, index id 60825437288 (4.2)", "report"),
        ),
        hints=("error",),
    ),
    Failure(
        id="driver-package-other-product",
        mode="driver",
        component="driver",
        # the .run comparing the PCI device id it was built for with what lspci shows
        patterns=(r"\[ERROR\]The current installation package and environment is not match",),
        codes=(),
        meaning="the driver .run package is for another NPU product than the one in this "
        "server: the PCI device id it expects is not among the Huawei devices lspci lists",
        causes=(
            "a driver package downloaded for another card or server model (Atlas 300I "
            "against 800T, 910B against 910_93)",
        ),
        fix="`lspci -nn | grep -i 19e5` shows the cards' ids; download the driver and firmware "
        "package made for this card or server model (the product's download page) and install "
        "that",
        confirm="npu.driver",
        sources=(Source(DRIVER_SCRIPTS.format("args_parse.sh (checkDriverProduct)"), "official"),),
        hints=("error",),
    ),
    Failure(
        id="driver-installer-running",
        mode="driver",
        component="driver",
        patterns=(
            r"\[ERROR\]\s?ERR_NO:0x0094;?\s?(?:ERR_DES:\s?)?There is already a process being "
            r"executed",
        ),
        codes=(),
        meaning="another copy of the driver's installer is running: install, upgrade and "
        "uninstall refuse to run at the same time",
        causes=(
            "a second install started while the first still runs (a script run twice, two "
            "operators on one node)",
        ),
        fix="wait for the running installer to finish (`ps -ef | grep -i '\\.run'` shows it), "
        "or stop it, then run one install, upgrade or uninstall at a time",
        confirm=None,
        sources=(Source(DRIVER_SCRIPTS.format("args_parse.sh"), "official"),),
        hints=("error",),
    ),
    Failure(
        id="cann-package-other-arch",
        mode="cann-env",
        component="installer",
        # a CANN .run picks its component packages by the machine's architecture (`arch`)
        patterns=(
            r"\] \[ERROR\] No packages to install\b",
            # Ascend Docker Runtime's .run checking `uname -m` against the one it was built for
            r"\[ERROR\]: platform\(\S{1,40}\) mismatch for \S{1,200}, please check it",
        ),
        codes=(),
        meaning="a .run package (CANN's, Ascend Docker Runtime's) was built for the other "
        "architecture (an aarch64 package run on x86_64, or the reverse): CANN's finds none of "
        "its component packages for `arch`, the runtime's refuses the platform",
        causes=(
            "the package downloaded for the other architecture (Ascend-cann-*_linux-aarch64.run "
            "against _linux-x86_64.run)",
            "an aarch64 tree prepared on an x86_64 build host (cross-building for a 310P/310B "
            "target)",
        ),
        fix="compare `uname -m` with the package's name and download the one for this "
        "architecture; to prepare another architecture's tree, install on a host of that "
        "architecture or under its emulation (qemu-user), not on this one",
        confirm="cann.toolkit",
        sources=(
            Source(
                "a team note on installing the AArch64 CANN 8.5.0 toolkit on an x86_64 build "
                "host, index id 67181304111",
                "report",
            ),
        ),
        hints=("error",),
    ),
)
