"""Building the stack from source: torch_npu's build script (a script with Windows line endings,
wherever it runs), a libtorch program linked against torch's own libraries, Triton-Ascend's
compiler. The tools' own words (bash, ld), read only in the forms these builds' guides show."""

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
        id="gcc-stdcxxfs-missing",
        mode="compile-cache",
        component="ld",
        # ld.lld's and GNU ld's words for a link of std::filesystem's old library
        patterns=(r"(?:unable to find library|cannot find) -lstdc\+\+fs\b",),
        codes=(),
        meaning="the link of a source build (Triton-Ascend's) cannot find stdc++fs, the library "
        "std::filesystem needs with a GCC older than 9",
        causes=("a GCC older than the build supports (Triton-Ascend: 9.4.0)",),
        fix="build with the GCC the project's guide names (Triton-Ascend: 9.4.0 or newer), or "
        "keep this GCC and uncomment `link_libraries(stdc++fs)` in triton-ascend's "
        "CMakeLists.txt",
        confirm=None,
        sources=(
            Source(
                "Ascend/triton-ascend docs/zh/installation_guide.md"
                "@eeb030e7bb71f8a251c5d378dbe2977e8b8dbb83 (its note on stdc++fs)",
                "official",
            ),
        ),
        hints=("unable", "cannot"),
    ),
)
