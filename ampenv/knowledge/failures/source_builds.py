"""Building the stack from source: torch_npu's build script (a script with Windows line endings,
wherever it runs), a libtorch program linked against torch's own libraries, Triton-Ascend's
compiler, kernel and operator projects against CANN's CMake packages, headers and libraries,
a binary built with a newer C++ runtime than this host has, C++ built against torch_npu's
headers and library of another release, or of none, and DeepSpeed's NPU op builder with no
CANN to build against. The tools' own words (bash, CMake, the
compiler, ld, the loader), read only in the forms these builds' guides show."""

from __future__ import annotations

from ampenv.knowledge.failures.environment import SET_ENV
from ampenv.knowledge.failures.lines import in_error_record
from ampenv.knowledge.failures.model import Failure, Source

TORCH_NPU_INSTALL_FAQ = (
    "Ascend/pytorch docs/zh/installation_guide/faq.md@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)

# An agent skill's knowledge of torch_npu's builds (a pull request of mindspore-skills, unmerged)
NPU_DEBUGGER = (
    "github.com/mindspore-lab/mindspore-skills torch-npu-debugger/references/issue_patterns.md"
    "@bc95b42981432592030f7e2f2d137cb7250d6060"
)

_GCC = r"(?<![\w.+/-])[\w.+/-]{0,80}(?:gcc|g\+\+|c\+\+|cc|cc1|cc1plus)(?:-\d{1,2})?(?:\.exe)?: ?"

FAILURES = (
    Failure(
        id="script-crlf-line-endings",
        mode="torch-pairing",
        component="bash",
        # "ci/build.sh: line 2: $'\r': command not found": bash reads a carriage return as a
        # command
        patterns=(r"\$'\\r': command not found",),
        codes=(),
        meaning="a shell script with Windows line endings (CRLF): bash reads each line's "
        "carriage return as part of a command, so the build script fails from its first line",
        causes=("the sources checked out or copied through Windows (git's core.autocrlf)",),
        fix="convert the script the line names to Unix line endings (`dos2unix <script>`, or "
        "`sed -i 's/\\r$//' <script>`; a whole checkout: `git config core.autocrlf input` and "
        "a fresh clone); torch_npu's build: then clear its build folder of the failed run and "
        "run `bash ci/build.sh` again",
        confirm=None,
        sources=(Source(TORCH_NPU_INSTALL_FAQ + " (question 3)", "official"),),
        hints=("not found",),
    ),
    Failure(
        id="libtorch-link-torch-libs",
        mode="torch-pairing",
        component="ld",
        patterns=(
            # aarch64 torch wheels bundle OpenBLAS and its libgfortran in site-packages/torch.libs
            r"libgfortran[\w.-]{0,40}\.so[\d.]{0,20}, needed by [^\n]{0,300}?torch\.libs/"
            r"libopenblas",
            r"torch\.libs/libopenblas[\w.-]{0,60}\.so[\d.]{0,20}: undefined reference to "
            r"`_gfortran_",
        ),
        codes=(),
        meaning="a program linked against libtorch on aarch64 cannot find the libraries torch's "
        "wheel bundles beside it (OpenBLAS's libgfortran in site-packages/torch.libs)",
        causes=("torch.libs not among the linker's search folders",),
        fix="add torch's bundled libraries to the link: `link_directories(<site-packages>/"
        "torch.libs)` in CMakeLists.txt before add_executable / target_link_libraries (or "
        "-Wl,-rpath-link,<site-packages>/torch.libs)",
        confirm=None,
        sources=(Source(TORCH_NPU_INSTALL_FAQ + " (question 1)", "official"),),
        hints=("not found",),
    ),
    Failure(
        id="gcc-too-old",
        mode="compile-cache",
        component="gcc",
        patterns=(
            # ld.lld's and GNU ld's words for a link of std::filesystem's old library
            r"(?:unable to find library|cannot find) -lstdc\+\+fs\b",
            # a header of C++17's or C++20's library that libstdc++ lacks before a release
            # (<filesystem>: GCC 8; <span>, <ranges>: 10; <barrier>, <latch>: 11): clang's
            # wording and GCC's
            r"fatal error: '?(?:filesystem|memory_resource|span|ranges|concepts|numbers|barrier"
            r"|latch|semaphore|stop_token|source_location|format)'?(?: file not found|: No such "
            r"file or directory)",
            # an -march extension GCC does not know yet (+bf16, +i8mm: GCC 10); a modifier no
            # GCC knows (a typo: +bf61) is no old GCC's
            r"error: invalid feature modifier (?:\W?(?:bf16|i8mm|f32mm|f64mm|sve2?[\w-]{0,12}|sme"
            r"[\w-]{0,12}|dotprod|fp16fml|fp16|rcpc\d?|ls64|mops|cssc|memtag|rng|flagm|pauth|sm4"
            r"|sha3|tme|crypto)\W? )?in \W?-march=",
        ),
        codes=(),
        meaning="a source build needs a newer GCC than the one it runs: a header of the C++ "
        "library it includes (C++17's <filesystem>: GCC 8, without its separate stdc++fs "
        "library: 9; C++20's <span>, <ranges>: 10; <barrier>, <latch>, <semaphore>: 11; "
        "<format>: 13), or an -march extension it asks for (+bf16, +i8mm: GCC 10)",
        causes=(
            "a GCC older than the build supports (torch_npu: 8 or newer; Triton-Ascend: 9.4.0)",
            "a build that calls another compiler than the one `gcc --version` shows (a CMake "
            "file that picks /usr/bin/gcc: the compiler its configure step names)",
        ),
        fix="build with the GCC the project's guide names (torch_npu: GCC 8 or newer, its build "
        "guide's version best; Triton-Ascend: 9.4.0 or newer; C++20 code: 11 or newer), and "
        "check the one the build runs (CMake's 'The CXX compiler identification is GNU ...'); "
        "an -march extension: a newer GCC, or the project's switch that turns the extension off; "
        "Triton-Ascend with this GCC: uncomment `link_libraries(stdc++fs)` in its CMakeLists.txt",
        confirm=None,
        sources=(
            Source(
                "Ascend/triton-ascend docs/zh/installation_guide.md"
                "@eeb030e7bb71f8a251c5d378dbe2977e8b8dbb83 (its note on stdc++fs)",
                "official",
            ),
            Source(TORCH_NPU_INSTALL_FAQ + " (build question 6: 'filesystem')", "official"),
            Source(
                "https://gcc.gnu.org/onlinedocs/libstdc++/manual/status.html (the GCC release "
                "of each C++17 and C++20 library feature)",
                "official",
            ),
            Source(
                "https://gcc.gnu.org/onlinedocs/gcc-10.5.0/gcc/AArch64-Options.html (bf16 and "
                "i8mm among -march's feature modifiers from GCC 10)",
                "official",
            ),
            Source(
                "https://github.com/google/XNNPACK/issues/3618 (invalid feature modifier bf16: "
                "a newer GCC, or BF16 turned off)",
                "maintainer",
            ),
            Source(
                "https://github.com/kvcache-ai/ktransformers/issues/1697 (<barrier> with a "
                "GCC 12 on the path and an older /usr/bin/gcc in the build)",
                "report",
            ),
        ),
        hints=("unable", "cannot", "error"),
    ),
    Failure(
        id="torch-npu-submodule-missing",
        mode="torch-pairing",
        component="torch_npu build",
        # torch_npu's code generation reading op-plugin's yaml from its third_party folder
        patterns=(
            r"(?:The path does not exist: |No such file or directory: ')[^'\n]{0,300}"
            r"third_party/op-plugin/op_plugin/config/",
        ),
        codes=(),
        meaning="torch_npu's source build found no op-plugin files under third_party: the "
        "checkout's git submodules were not fetched (or are of another commit)",
        causes=(
            "a clone without --recursive, or a submodule update that failed",
            "op-plugin checked out at a commit without this torch release's config (v2rN)",
        ),
        fix="in the source tree: `git submodule update --init --recursive` (to pin one "
        "third_party project: `git checkout <commit>` in its folder), then build again "
        "(`bash ci/build.sh --python=3.x`)",
        confirm=None,
        sources=(
            Source(TORCH_NPU_INSTALL_FAQ + " (build question 2)", "official"),
            Source("https://github.com/Ascend/pytorch/issues/106", "maintainer"),
        ),
        hints=("error",),
    ),
    Failure(
        id="symlink-checked-out-as-text",
        mode="torch-pairing",
        component="git",
        # a header whose whole text is the path it linked to ("../../ge/ge_error_codes.h")
        patterns=(r"\.h:1:1: error: expected unqualified-id before [‘'`]\.[’'`] token",),
        codes=(),
        meaning="a header that should be a symbolic link is a text file holding its target's "
        "path: Git on Windows (or an archive tool) checked the link out as a file",
        causes=("the sources cloned or copied on Windows, or core.symlinks off",),
        fix="clone again on Linux (or with `git config core.symlinks true`); or rebuild the "
        'links in place: for each header whose text is a relative path, `ln -sf "$(cat '
        'FILE)" FILE`',
        confirm=None,
        sources=(Source(TORCH_NPU_INSTALL_FAQ + " (build question 5)", "official"),),
        hints=("error",),
    ),
    Failure(
        id="cmake-version-refused",
        mode="torch-pairing",
        component="cmake",
        # "CMake Error at third_party/Tensorpipe/third_party/libuv/CMakeLists.txt:1
        # (cmake_minimum_required):" and under it the reason ("Compatibility with CMake < 3.5
        # has been removed from CMake.", or "CMake 3.18 or higher is required.")
        patterns=(r"CMake Error at [^\n]{0,300}\(cmake_minimum_required\):",),
        codes=(),
        meaning="a project of the build (a third-party one: Tensorpipe's libuv in torch_npu's "
        "tree) refused this CMake in its cmake_minimum_required: CMake 4.0 and newer no longer "
        "accept a minimum below 3.5 (3.27 to 3.31 only warned), or this CMake is older than the "
        "minimum the project names",
        causes=(
            "a CMake newer than the sources were written for (pip's cmake 4, a new image): "
            "'Compatibility with CMake < 3.5 has been removed'",
            "a CMake older than the project needs: 'CMake X or higher is required'",
        ),
        fix="for 'Compatibility with CMake < 3.5 has been removed': configure with "
        "`-DCMAKE_POLICY_VERSION_MINIMUM=3.5` (torch_npu: append it to cmake_args in setup.py's "
        'CPPLibBuild.run), or build with a CMake 3.x (`pip install "cmake<4"`); torch_npu\'s '
        "Tensorpipe can be left out instead (`export DISABLE_RPC_FRAMEWORK=TRUE`); for 'CMake X "
        "or higher is required': a CMake of at least X (`pip install -U cmake`)",
        confirm=None,
        sources=(
            Source(TORCH_NPU_INSTALL_FAQ + " (build question 4)", "official"),
            Source(
                "Ascend/pytorch docs/zh/troubleshooting/npu_full_test_source_build.md"
                "@bdf7a14060c454fd84d2b36adc35350f491fc7af (DISABLE_RPC_FRAMEWORK=TRUE)",
                "official",
            ),
            Source("https://cmake.org/cmake/help/latest/release/4.0.html", "official"),
        ),
        hints=("error",),
    ),
    Failure(
        id="compiler-not-found",
        mode="torch-pairing",
        component="cmake",
        # CMake's project() finding no compiler for a language: "CMake Error at
        # CMakeLists.txt:14 (project):", "No CMAKE_CXX_COMPILER could be found.", and its advice,
        # wrapped at the same words whatever the language (the next row names CXX, CC, CUDACXX)
        patterns=(r"Tell CMake where to find the compiler by setting either the environment",),
        codes=(),
        meaning="CMake found no compiler for a language the project enables (the lines above "
        "name it: CMAKE_C_COMPILER, CMAKE_CXX_COMPILER, CMAKE_CUDA_COMPILER): building the "
        "package from source (pip falls back to it where no wheel fits) needs a toolchain the "
        "host lacks",
        causes=(
            "a slim image or a fresh host without gcc and g++",
            "a project that builds CUDA code (CMAKE_CUDA_COMPILER) on a node without CUDA",
        ),
        fix="C or C++: install the toolchain (yum install -y gcc gcc-c++ make cmake; apt-get "
        "install -y build-essential cmake), then rerun the install (or install a prebuilt "
        "wheel of the package instead); CUDA: build the project's NPU or CPU variant (its "
        "option that turns CUDA off)",
        confirm=None,
        sources=(
            Source(
                "vllm-project/vllm-ascend@c42e21a5aa95d74886e251fef7ba0430d51f7a84 (PR #438, "
                "the system dependencies in the install doc, commit message)",
                "maintainer",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="libstdcxx-too-old",
        mode="cann-env",
        component="host",
        # the loader's message for a binary built with a newer C++ runtime than the one it found
        # the loader's words (what needs the version), or an import's error that quotes it; not
        # a probe's "not found, will use the bundled one"
        patterns=(
            r"version `?'?(?:GLIBCXX_3\.4|CXXABI_1\.3)\.\d{1,2}'? not found \(required by "
            r"[^)\n]{1,300}\)",
            r"Error: [^\n]{0,300}?version `?'?(?:GLIBCXX_3\.4|CXXABI_1\.3)\.\d{1,2}'? not found",
        ),
        codes=(),
        meaning="a binary (an extension such as aclruntime, a CANN tool) was built with a newer "
        "GCC than the libstdc++.so.6 the loader found: that library lacks the GLIBCXX (or "
        "CXXABI) version it needs",
        causes=(
            "the system's libstdc++ found before a newer one (a conda environment's)",
            "a wheel built on a newer distribution than this one",
        ),
        fix="give the loader a libstdc++ that has it: `strings <libstdc++.so.6> | grep "
        "GLIBCXX_3.4` lists what one offers; in conda, `conda install -c conda-forge "
        "libstdcxx-ng` and put $CONDA_PREFIX/lib first on LD_LIBRARY_PATH (or LD_PRELOAD it); "
        "else build the extension on this system",
        confirm=None,
        sources=(
            Source(
                "Ascend ait docs/benchmark/FAQ.md, as mirrored in mjlovesz/sync-ait (item 1, "
                "GLIBCXX_3.4.29 not found)",
                "official",
            ),
        ),
        # a binary's loader prints it with no error word: "not found" (searched for with the
        # other keys that hold "not ", no pass of its own)
        hints=("not found",),
    ),
    Failure(
        id="ascendc-cmake-not-found",
        mode="cann-env",
        component="AscendC",
        # an AscendC kernel project's CMakeLists, looking in the CANN package path it was given
        # (bitsandbytes' copy of the check: "does not exist ,please check whether the can package")
        patterns=(
            r"ascendc_kernel_cmake does not exist ?, ?please check whether the cann? package",
        ),
        codes=(),
        meaning="an AscendC kernel build found no CANN at the path it was given "
        "(ASCEND_CANN_PACKAGE_PATH, or the default /usr/local/Ascend/...): the folder is empty "
        "or its links are broken",
        causes=(
            "the default CANN folder empty, or ascend-toolkit/latest a broken link (CANN "
            "installed elsewhere, or moved)",
            "CANN not installed on the build host",
        ),
        fix="point the build at the real installation (ASCEND_CANN_PACKAGE_PATH=<the CANN "
        "folder holding tools/tikcpp/ascendc_kernel_cmake>, `ls -l /usr/local/Ascend/"
        "ascend-toolkit/latest` shows where the link goes) and source its set_env.sh",
        confirm="cann.toolkit",
        sources=(
            Source(
                "an AscendC kernel-bench project's PLATFORM_BUGS.md, PB-18 (the public file "
                "index's id 60294315873)",
                "report",
            ),
            Source(
                "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1523 (its NPU "
                "build pointed at the toolkit's aarch64-linux/tikcpp folder)",
                "report",
            ),
        ),
        hints=("err",),  # (its message is a key of its own: CMake prints it on a line below)
    ),
    Failure(
        id="cann-cmake-package-missing",
        mode="cann-pairing",
        component="build",
        # CMake's find_package for CANN's Ascend C package (ASCConfig.cmake), which CANN 8.5
        # moved; an operator or kernel project's build
        # (quoted alone in notes, or the indented line of CMake's own message: its words are
        # a key, read in the "not " pass)
        patterns=(r"Could not find a package configuration file provided by \"?ASC\b",),
        codes=(),
        meaning="a kernel or operator project's CMake build could not find CANN's Ascend C "
        "package (ASCConfig.cmake): not in the paths the build was given",
        causes=(
            "CANN's set_env.sh not sourced in the build's shell (ASCEND_HOME_PATH unset)",
            "a project written for an older CANN's layout: CANN 8.5 moved its cmake packages",
            "a build that reads ASCEND_CANN_PACKAGE_PATH, which set_env.sh does not export",
        ),
        fix="source the CANN toolkit's set_env.sh in the build's shell (and export "
        "ASCEND_CANN_PACKAGE_PATH=$ASCEND_HOME_PATH where the build reads it); point CMake at "
        "the package (`export ASC_DIR=<CANN path>/.../ascendc_kernel_cmake`, or "
        "-DASC_DIR=...); else build the project's release made for this CANN",
        confirm="cann.toolkit",
        sources=(
            Source(
                "sgl-project/sgl-kernel-npu CANN_8.5_ADAPTATION.md (the public file index's id "
                "55529713944), item 2",
                "maintainer",
            ),
            Source(
                "an Ascend C porting ledger, EC-51 (the public file index's id 60328127868): "
                "ASCEND_CANN_PACKAGE_PATH not exported on CANN 9.0",
                "report",
            ),
            Source(
                "an operator exercise's notes (the public file index's id 67183881152): no "
                "CANN where CMake ran",
                "report",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="cann-header-moved",
        mode="cann-pairing",
        component="build",
        # a C++ build of a kernel or operator project against CANN's headers: a header of a
        # CANN folder not found, or a CANN type known by name only (acl/acl.h alone is the
        # environment's: acl-headers-not-found)
        patterns=(
            r"error: (?!acl/acl\.h)(?:hccl|acl|aclnn|graph|platform|register|tiling|runtime)/"
            r"[\w/.-]{1,120}\.h: No such file or directory",
            # (the compiler's own words before the type: a line of "error:" words is not
            # searched through for a quote)
            r"error: invalid use of incomplete type '(?:class |struct )?"
            r"(?:fe|ge|gert|platform_ascendc|optiling)::\w{1,60}'",
        ),
        codes=(),
        meaning="a kernel or operator project's C++ build did not find a CANN header, or found "
        "a CANN type it cannot use, where its sources expect them: the CANN it builds against "
        "is not a release the project was written for",
        causes=(
            "a CANN release that moved, renamed or hid the header or the type (CANN 8.5 moved "
            "HCCL's and the platform's headers) beside a project written for an older one, or "
            "the reverse",
            "CANN's set_env.sh not sourced in the build's shell, or ASCEND_HOME_PATH naming "
            "another CANN installed on the host",
            "the build not given the CANN path at all (a custom operator project's "
            "--cann_package_path, or ASCEND_CANN_PACKAGE_PATH)",
        ),
        fix="see which CANN the build uses (`echo $ASCEND_HOME_PATH`, the toolkit's "
        "version.info) and the releases the project supports (its README, its CANN adaptation "
        "notes); build the project's release made for this CANN, or install the CANN it "
        "names, with its set_env.sh sourced in the build's shell and its path passed to the "
        "build (--cann_package_path=<the CANN folder>)",
        confirm="cann.toolkit",
        sources=(
            Source(
                "sgl-project/sgl-kernel-npu PLATFORM_COMPAT_FIX.md (the public file index's id "
                "55435867425): fe::PlatFormInfos on CANN 8.5",
                "maintainer",
            ),
            Source(
                "https://github.com/LMCache/LMCache-Ascend/issues/180 (hccl/hccl_network_pub.h "
                "after CANN 8.5.0 reorganised HCCL's headers)",
                "report",
            ),
            Source(
                "mindspore-ai/docs tutorials/source_zh_cn/custom_program/operation/"
                "op_custom_ascendc.md@9e844dc65dc5ef4381574e8b6ec2f93f9681f720 (FAQ 1: "
                "register/tilingdata_base.h, --cann_package_path)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="acl-link-undefined-reference",
        mode="cann-pairing",
        component="linker",
        # ld linking a program against ACL: "undefined reference to `aclrtGetVersion'"
        patterns=(
            r"undefined reference to [`'\u2018]acl(?:rt|mdl|op|nn|Get|Init)\w{0,80}['\u2019]",
        ),
        codes=(),
        meaning="a program compiled against CANN's headers did not find an ACL function when "
        "it was linked: the headers (a newer CANN declares it) and the libascendcl it links "
        "are of different releases, or that library is not on the link line",
        causes=(
            "the headers of one CANN and the libraries of another: include and library paths "
            "of two installs (the runtime's FAQ: an API the older library lacks)",
            "libascendcl not linked (-lascendcl, with CANN's lib64 in -L)",
        ),
        fix="compile and link against one CANN: source its set_env.sh, then "
        "-I${ASCEND_HOME_PATH}/include -L${ASCEND_HOME_PATH}/lib64 -lascendcl; check that the "
        "library has the function: nm -D ${ASCEND_HOME_PATH}/lib64/libascendcl.so | grep <name>",
        confirm="cann.toolkit",
        sources=(
            Source(
                "hicann/runtime docs/zh/FAQ/Runtime版本与CANN版本不匹配导致的问题.md"
                "@681ef7610df13c8128982901142a2c869ddbb53e (现象3: undefined reference)",
                "official",
            ),
        ),
        hints=("error",),  # (its message is the shared key "undefined reference to")
    ),
    Failure(
        id="libquadmath-missing",
        mode="cann-env",
        component="host",
        # GCC's quad-precision runtime, which torch's and CANN's wheels need from the system
        patterns=(r"libquadmath\.so\.0: cannot open shared object file",),
        codes=(),
        meaning="a library a Python package loads needs GCC's libquadmath.so.0, which this "
        "system does not have (a minimal OS image leaves it out)",
        causes=("the OS package of GCC's quad-precision library not installed",),
        fix="install it from the OS: `yum install libquadmath` (EulerOS, openEuler, CentOS) or "
        "`apt-get install libquadmath0` (Ubuntu, Debian), then import again",
        confirm=None,
        sources=(
            Source(
                "Ascend/ascend-deployer README.en.rst@0fbb89f176eb2eecbcbe323974626b3ca75d0265 "
                "(FAQ 7: torch 1.8.1 importing without libquadmath)",
                "official",
            ),
        ),
        hints=("cannot",),
    ),
    Failure(
        id="torch-npu-api-of-another-release",
        mode="torch-pairing",
        component="torch_npu build",
        # GCC on C++ written against torch_npu's headers of another release: a member its
        # classes lack (OpCommand::RunOpApiV2, which torch_npu added for newer op-plugins)
        patterns=(r"[\w'`\u2018\u2019]{1,80} is not a member of [`'\u2018]?(?:at_npu|c10_npu)::",),
        codes=(),
        meaning="C++ code written for another torch_npu release compiled against this one's "
        "headers: op-plugin (or an extension) calls a torch_npu class member this release does "
        "not have, or no longer has",
        causes=(
            "a torch_npu source build whose third_party/op-plugin is of another commit than the "
            "one the checkout pins (a newer op-plugin against an older torch_npu)",
            "an extension's branch for another torch_npu release",
        ),
        fix="align them: in the torch_npu checkout `git submodule update --init --recursive` "
        "(op-plugin at the commit the tree pins), or check out the op-plugin or extension "
        "branch of this torch_npu release (or upgrade torch_npu to the one they are for); then "
        "build from a clean build folder",
        confirm=None,
        sources=(
            Source(
                "Ascend/pytorch torch_npu/csrc/framework/OpCommand.h"
                "@9e73e708ab9350d203475609f36f8a43f6a0c2ab (RunOpApiV2)",
                "official",
            ),
            Source(NPU_DEBUGGER + " (section 6)", "report"),
        ),
        hints=("error",),  # (GCC's "error:"; pasted bare, its key "is not a member of")
    ),
    Failure(
        id="torch-npu-library-not-linked",
        mode="torch-pairing",
        component="ld",
        patterns=(r"(?:cannot find|unable to find library) -ltorch_npu\b",),  # GNU ld's, lld's
        codes=(),
        meaning="the linker found no libtorch_npu.so: the link of an extension or a C++ program "
        "does not search torch_npu's library folder, or torch_npu's own build did not produce "
        "the library",
        causes=(
            "the build's library folders without <site-packages>/torch_npu/lib (torch's lib "
            "folder alone)",
            "a torch_npu source build that failed before it linked the library (its earlier "
            "errors), or an install that was not done",
        ),
        fix="add torch_npu's lib folder to the link: `python -c \"import os, torch_npu; "
        "print(os.path.dirname(torch_npu.__file__) + '/lib')\"` as -L (CMake: "
        "link_directories; setuptools: library_dirs), as op-plugin's cpp_extension example "
        "does; a source build: look for the first error above and for libtorch_npu.so in its "
        "build folder",
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/op-plugin examples/cpp_extension/setup.py"
                "@517f2e7d0f202f38b76310706cb977ca2388ad21 (torch_npu_lib)",
                "official",
            ),
            Source(NPU_DEBUGGER + " (section 6)", "report"),
        ),
        hints=("cannot", "unable"),
    ),
    Failure(
        id="cxx-standard-too-old",
        mode="compile-cache",
        component="gcc",
        # a C++17 type trait's variable template (std::is_convertible_v, is_same_v, ...) used
        # bare and as std's, and torch's own check of the standard in ATen's header
        patterns=(
            r"\bis_\w{1,40}_v[`'\u2019]? was not declared in this scope",
            r"\bis_\w{1,40}_v[`'\u2019]? is not a member of [`'\u2018]?std\b",
            r"#error (?:C\+\+17 or later compatible compiler is required|You need C\+\+17 to "
            r"compile PyTorch)",
        ),
        codes=(),
        meaning="C++17 code compiled as C++14 or older: the type traits' _v variable templates "
        "(std::is_convertible_v, is_same_v) exist from C++17 on",
        causes=(
            "the build's C++ standard lowered (CMAKE_CXX_STANDARD 14, -std=c++14) where "
            "torch_npu and op-plugin need C++17",
            "a GCC older than 7, which does not know them",
        ),
        fix="build as C++17: set(CMAKE_CXX_STANDARD 17) (or -std=c++17) where the project sets "
        "its standard, with GCC 7 or newer (torch_npu: 8 or newer)",
        confirm=None,
        sources=(
            Source("https://en.cppreference.com/w/cpp/types/is_convertible", "official"),
            Source("pytorch/pytorch aten/src/ATen/ATen.h (its C++17 check)", "official"),
            Source("https://github.com/boostorg/math/issues/355", "report"),
            Source(NPU_DEBUGGER + " (section 6)", "report"),
        ),
        hints=("error",),  # (pasted bare: its key "was not declared in this scope")
    ),
    Failure(
        id="opencv4-headers-not-found",
        mode="cann-env",
        component="gcc",
        # OpenCV 4 installs its headers one folder deeper (include/opencv4/opencv2)
        # (GCC's words, and clang's: "fatal error: 'opencv2/core.hpp' file not found")
        patterns=(
            r"fatal error: '?opencv2/[\w/]{1,60}\.hpp'?:? (?:No such file or directory|file not "
            r"found)",
        ),
        codes=(),
        meaning="a build found no OpenCV headers where it looks: OpenCV 4 puts them under "
        "include/opencv4/opencv2, not include/opencv2, or OpenCV's development files are not "
        "installed",
        causes=(
            "OpenCV 4 installed, and the build's include path written for OpenCV 3",
            "OpenCV's development package not installed (libopencv-dev, opencv-devel)",
        ),
        fix="add OpenCV 4's folder to the include path (`pkg-config --cflags opencv4`; CMake: "
        "find_package(OpenCV) and ${OpenCV_INCLUDE_DIRS}), or link it where the build looks: "
        "ln -s /usr/include/opencv4/opencv2 /usr/include/opencv2 (as Ascend's samples do); "
        "none there: install libopencv-dev",
        confirm=None,
        sources=(
            Source(
                "Ascend/samples cplusplus/level2_simple_inference/6_other/colorization/"
                "README_CN.md@fc2aea93e48be8f8cee51d0c6c1b13a08155f83a (deployment, opencv4)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="wheel-package-missing",
        mode="cann-env",
        component="setuptools",
        # setup.py's bdist_wheel comes from the wheel package, not from setuptools itself
        patterns=(r"error: invalid command 'bdist_wheel'",),
        codes=(),
        meaning="a build of a Python package as a wheel (python setup.py bdist_wheel, or pip's "
        "legacy build) found no bdist_wheel command: the wheel package is not installed in "
        "that Python",
        causes=("a Python environment with setuptools but without wheel",),
        fix="pip install --upgrade wheel setuptools in the Python that builds, then build again",
        confirm=None,
        sources=(
            Source(
                "Ascend/mind-cluster docs/zh/faultdiag/ascend-faultdiag-toolkit/07_references/"
                "01_faq.md@22bb3d987bc0208c3eb7395e222b661276133c58 (Q2)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="compiler-crashed",
        mode="compile-cache",
        component="compiler (gcc, clang)",
        # a compiler's driver reporting its compiler proper (or its linker) killed or crashed,
        # in a build or in a compile at run time (Triton-Ascend's launcher, a JIT extension)
        patterns=(
            # after the driver's or the compiler's name, as GCC prints them ("c++: ", "g++:",
            # "x86_64-linux-gnu-gcc-9: ", "cc1plus: "), not a script quoting them
            _GCC + r"fatal error: Killed signal terminated program cc1(?:plus)?\b",
            _GCC + r"internal compiler error: (?:Segmentation fault|Bus error|Killed|Aborted)\b",
            # clang's driver (CANN's bisheng and ccec are clang's), the linker, GCC's own words
            r"(?:clang(?:\+\+)?(?:-\d{1,2})?|bisheng|ccec): error: unable to execute command: "
            r"(?:Killed|Segmentation fault|Bus error)",
            r"collect2: (?:fatal )?error: ld terminated with signal 9",
            r"\bcc1(?:plus)?(?:\.exe)?: out of memory allocating \d",
            r"virtual memory exhausted: Cannot allocate memory",
        ),
        codes=(),
        meaning="the C or C++ compiler (or its linker) itself was stopped: killed (the kernel's "
        "out-of-memory killer, most often), out of memory, or crashed (a segmentation fault, a "
        "bus error), not an error in the code compiled",
        causes=(
            "Killed: too many compile jobs at once for the memory (make -j, MAX_JOBS, ninja's "
            "default; a WSL or container memory limit)",
            "a crash compiling Triton-Ascend's launcher (launcher_cxx11abi*.cxx): several "
            "processes compiling the same launcher into the same files at once (triton-ascend "
            "releases without the file lock), or a damaged ~/.triton/cache",
            "else memory exhausted as well, or a bug of this GCC on this file",
        ),
        fix="Killed or out of memory: fewer jobs (MAX_JOBS=4, make -j4) or more memory and "
        "swap (WSL: memory= in .wslconfig), `dmesg | grep -i 'killed process'` on the host "
        "confirms it; Triton-Ascend's "
        "launcher: upgrade triton-ascend (the release vllm-ascend's notes pair with it) and rm "
        "-rf ~/.triton/cache, then start one process first or fewer at once; a crash that "
        "repeats on the same file: another GCC release",
        confirm=None,
        sources=(
            Source(
                "https://github.com/vllm-project/vllm-ascend/issues/7782 (answered by "
                "vllm-ascend's v0.18 release notes, Known Issues: a newer triton-ascend, "
                "~/.triton/cache cleared)",
                "maintainer",
            ),
            Source(
                "triton-lang/triton-ascend@444c49bcf230f087b83faff59730375eae048c56 "
                "(Ascend/triton-ascend !1257, a file lock for the launcher's precompile)",
                "maintainer",
            ),
            Source(
                "index id 58109246070 (an HCCL build FAQ, C001: WSL with too little memory)",
                "report",
            ),
        ),
        hints=("error", "out of memory", "cannot"),
        judge=in_error_record,  # a build's WARNING that it retried
    ),
    Failure(
        id="deepspeed-npu-ops-no-cann",
        mode="cann-env",
        component="deepspeed",
        # NPUOpBuilder: installed_cann_version() found no CANN (ASCEND_HOME_PATH unset, no
        # version file), printed by each op builder: a run that builds no op goes on
        patterns=(r"ascend_cann is missing, npu ops cannot be compiled",),
        codes=(),
        meaning="DeepSpeed's NPU op builders found no CANN to build against (ASCEND_HOME_PATH "
        "unset, or no CANN version file under it): its NPU ops cannot be compiled; harmless "
        "where the run builds none, the cause where an op of DeepSpeed's fails to build or "
        "load after it",
        causes=("set_env.sh not sourced in the shell that starts DeepSpeed",),
        fix=SET_ENV + " before DeepSpeed starts (and before a build of its NPU ops)",
        confirm="cann.toolkit",
        sources=(
            Source(
                "deepspeedai/DeepSpeed op_builder/npu/builder.py"
                "@edaa7221267243c7be7fb49c5d5f5c4fb97b4641 (PR #8096)",
                "official",
            ),
        ),
        hints=("cannot",),
        notice=True,
    ),
)
