"""The house keeps its shape: no runtime import cycle in ampenv/, few modules at the top, no
module too long to read, and every tracked Python file linted."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ampenv"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.AST, known: set[str]) -> set[str]:
    """The ampenv modules a module imports when it runs (TYPE_CHECKING blocks left out,
    imports inside functions kept: they run too)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in known:
                found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found & known


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(files)
    return {
        name: _runtime_imports(ast.parse(path.read_text()), known) - {name}
        for name, path in files.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_runtime_import_cycle():
    assert cycles(import_graph()) == []


def test_no_string_imports():
    offenders = [
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*.py")
        if "import_module(" in p.read_text() and p.name != "registry.py"
    ]
    assert offenders == []


def test_few_modules_at_the_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 10, top


def test_no_module_over_700_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in [*PACKAGE.rglob("*.py"), *(ROOT / "checks").glob("*.py")]
        if (n := len(p.read_text().splitlines())) > 700
    }
    assert long == {}


@pytest.mark.skipif(not shutil.which("git"), reason="needs git to list tracked files")
def test_ruff_lints_every_tracked_python_file():
    tracked = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    ruff = ROOT / ".venv" / "bin" / "ruff"
    exe = shutil.which("ruff") or (str(ruff) if ruff.exists() else None)
    if exe is None:
        pytest.skip("ruff is not installed")
    shown = subprocess.run(
        [exe, "check", "--show-files", "."], cwd=ROOT, capture_output=True, text=True
    ).stdout
    linted = {
        str(Path(line.strip()).resolve().relative_to(ROOT))
        for line in shown.splitlines()
        if line.strip().endswith(".py")
    }
    assert set(tracked) - linted == set()
