"""Building the stack from source: torch_npu's build script (a script with Windows line endings,
wherever it runs), a libtorch program linked against torch's own libraries, Triton-Ascend's
compiler, an AscendC kernel project, and a binary built with a newer C++ runtime than this host
has. The tools' own words (bash, ld, the loader), read only in the forms these builds' guides
show."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

TORCH_NPU_INSTALL_FAQ = (
    "Ascend/pytorch docs/zh/installation_guide/faq.md@9e73e708ab9350d203475609f36f8a43f6a0c2ab"
)

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
            # C++17's <filesystem> header, which libstdc++ has from GCC 8 (clang's wording)
            r"fatal error: '?filesystem'? file not found",
        ),
        codes=(),
        meaning="a source build needs a newer GCC than the one it runs: C++17's <filesystem> "
        "(GCC 8 and newer), without its separate stdc++fs library (GCC 9 and newer)",
        causes=(
            "a GCC older than the build supports (`gcc --version`; torch_npu: 8 or newer; "
            "Triton-Ascend: 9.4.0)",
        ),
        fix="build with the GCC the project's guide names (torch_npu: GCC 8 or newer, its build "
        "guide's version best; Triton-Ascend: 9.4.0 or newer); Triton-Ascend with this GCC: "
        "uncomment `link_libraries(stdc++fs)` in its CMakeLists.txt",
        confirm=None,
        sources=(
            Source(
                "Ascend/triton-ascend docs/zh/installation_guide.md"
                "@eeb030e7bb71f8a251c5d378dbe2977e8b8dbb83 (its note on stdc++fs)",
                "official",
            ),
            Source(TORCH_NPU_INSTALL_FAQ + " (build question 6: 'filesystem')", "official"),
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
        patterns=(r"ascendc_kernel_cmake does not exist, please check whether the cann package",),
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
        ),
        hints=("err",),  # (its message is a key of its own: CMake prints it on a line below)
    ),
)
