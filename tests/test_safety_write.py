"""Issue 17, item 1: the one writer replaces only a regular file (or nothing); it writes through
a character device or a FIFO, and never replaces a symbolic link. Every experiment is inside
tmp_path: device nodes are made there (skipped when mknod is not permitted)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import clean_env, run_ampenv

from ampenv.util import atomic

NULL, FULL = os.makedev(1, 3), os.makedev(1, 7)


def _device(path: Path, dev: int) -> Path:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, dev)
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


def _is_char(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


def test_a_character_device_is_written_through_never_replaced(tmp_path: Path) -> None:
    null = _device(tmp_path / "null", NULL)
    atomic.write_text(null, "report\n")
    assert _is_char(null)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]  # no temp file left behind


def test_doctor_output_to_a_null_device_keeps_the_device(tmp_path: Path) -> None:
    """The red team's case: `ampenv doctor -o /dev/null` as root made /dev/null a file."""
    null = _device(tmp_path / "null", NULL)
    ran = run_ampenv("doctor", "--profile", "quick", "-f", "json", "-o", str(null))
    assert ran.returncode in (0, 1, 3), ran.stderr
    assert _is_char(null)


def test_a_full_device_is_an_error_and_stays_a_device(tmp_path: Path) -> None:
    full = _device(tmp_path / "full", FULL)
    with pytest.raises(OSError):
        atomic.write_text(full, "x" * 100000)
    assert _is_char(full)


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for _ in range(200):  # the writer refuses a FIFO nobody reads yet: wait for the reader
        try:
            atomic.write_text(fifo, "through the pipe\n")
            break
        except atomic.UnsafeTarget:
            threading.Event().wait(0.01)
    reader.join(5)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_slow_reader_is_waited_for_and_a_stalled_one_fails_every_write_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    fcntl.fcntl(reader, 1031, 4096)  # F_SETPIPE_SZ: one page, a slow reader frees it slowly
    monkeypatch.setattr(atomic, "STALL_S", 0.3)
    got = bytearray()

    def slow() -> None:  # 128 bytes at a time: a page frees only after 0.6 s, past the stall
        while len(got) < 12 << 10:
            with contextlib.suppress(BlockingIOError):
                got.extend(os.read(reader, 128))
            threading.Event().wait(0.02)

    taker = threading.Thread(target=slow, daemon=True)
    taker.start()
    try:
        atomic.write_bytes(fifo, b"y" * (12 << 10))  # waited for: no stall
        taker.join(20)
        assert bytes(got) == b"y" * (12 << 10)
        # `collect -o >(sleep 30)`: the reader holds the pipe open and takes nothing
        with atomic.replacing(fifo) as fh:
            with pytest.raises(OSError, match="stopped reading") as raised:
                fh.write(b"z" * (64 << 10))
            assert raised.value.errno == errno.ETIMEDOUT

            def waits() -> None:
                raise AssertionError("a stalled stream waited again")

            monkeypatch.setattr(atomic.select, "poll", waits)
            with pytest.raises(OSError, match="stopped reading"):
                fh.write(b"z")  # (a gzip's flush at close) fails at once, no wait
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_signals_wait_while_the_file_is_put_in_place() -> None:
    fired: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda n, f: fired.append(n))
    # another thread, which a process's signal may be delivered to
    other = threading.Thread(target=threading.Event().wait, args=(1,), daemon=True)
    other.start()
    try:
        with atomic._signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            threading.Event().wait(0.05)
            assert fired == []
        assert fired == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_sigterm_while_a_stalled_reader_holds_the_write_ends_it_at_once(tmp_path: Path) -> None:
    # the tar's gzip stream flushes what is left as the SIGTERM unwinds: no wait on the reader
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    script = (
        "import os, sys, tarfile, io\n"
        "from ampenv.util import atomic, stdio\n"
        "stdio.terminate_on_sigterm()\n"
        "with atomic.replacing(sys.argv[1]) as raw, tarfile.open(fileobj=raw, mode='w:gz') as t:\n"
        "    data = os.urandom(8 << 20)\n"
        "    info = tarfile.TarInfo('x'); info.size = len(data)\n"
        "    t.addfile(info, io.BytesIO(data))\n"
    )
    try:
        child = subprocess.Popen([sys.executable, "-c", script, str(fifo)])
        threading.Event().wait(2)  # the pipe is full: the child waits on its reader
        child.terminate()
        assert child.wait(timeout=20) == 143
    finally:
        os.close(reader)


def test_a_fifo_without_reader_is_refused_not_waited_for(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(atomic.UnsafeTarget, match="nobody reads"):
        atomic.write_text(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_to_a_file_is_refused_and_neither_is_touched(tmp_path: Path) -> None:
    victim = tmp_path / "shadow"
    victim.write_text("root:secret\n")
    link = tmp_path / "report.json"
    link.symlink_to(victim)
    with pytest.raises(atomic.UnsafeTarget, match="symbolic link"):
        atomic.write_text(link, "{}")
    assert link.is_symlink() and os.readlink(link) == str(victim)
    assert victim.read_text() == "root:secret\n"


def test_a_dangling_symlink_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(atomic.UnsafeTarget):
        atomic.write_text(link, "x")
    assert not (tmp_path / "elsewhere").exists() and link.is_symlink()


def test_own_symlink_to_a_device_is_followed(tmp_path: Path) -> None:
    """`-o /dev/stdout` is a link (root's) to a stream: written through."""
    null = _device(tmp_path / "null", NULL)
    link = tmp_path / "stdout"
    link.symlink_to(null)
    atomic.write_text(link, "x")
    assert link.is_symlink() and _is_char(null)


def test_another_users_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to plant another user's link")
    null = _device(tmp_path / "null", NULL)
    link = tmp_path / "stdout"
    link.symlink_to(null)
    os.lchown(link, 4242, 4242)
    with pytest.raises(atomic.UnsafeTarget):
        atomic.write_text(link, "x")


@pytest.mark.parametrize("kind", ["folder", "socket"])
def test_other_kinds_are_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out"
    if kind == "folder":
        target.mkdir()
        (target / "keep").write_text("k")
    else:
        import socket

        s = socket.socket(socket.AF_UNIX)
        s.bind(str(target))
        s.close()
    with pytest.raises(atomic.UnsafeTarget):
        atomic.write_text(target, "x")
    if kind == "folder":
        assert (target / "keep").read_text() == "k"


def test_a_block_device_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "disk"
    try:
        os.mknod(target, stat.S_IFBLK | 0o600, os.makedev(7, 200))
    except OSError as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    with pytest.raises(atomic.UnsafeTarget, match="block device"):
        atomic.write_text(target, "x")
    assert stat.S_ISBLK(os.lstat(target).st_mode)


def test_a_regular_file_is_replaced_and_a_new_one_created(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    atomic.write_text(target, "one", mode=0o600)
    assert target.read_text() == "one" and stat.S_IMODE(target.stat().st_mode) == 0o600
    atomic.write_text(target, "two")
    assert target.read_text() == "two" and stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


@pytest.mark.parametrize("old", [None, "old"])
def test_a_writer_killed_while_it_writes_leaves_no_temp_file(tmp_path: Path, old) -> None:
    # the content is written to a file without a name (O_TMPFILE): SIGKILL mid-write (a
    # watched child killed at its deadline) leaves the folder as it was
    target = tmp_path / "cert.json"
    if old:
        target.write_text(old)
    script = (
        "import os, signal, sys\n"
        "from ampenv.util import atomic\n"
        "with atomic.replacing(sys.argv[1]) as fh:\n"
        "    fh.write(b'half')\n"
        "    fh.flush()\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(target)], timeout=60)
    assert done.returncode == -signal.SIGKILL
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    unnamed = atomic._unnamed(folder)
    os.close(folder)
    if unnamed is None:
        pytest.skip("this filesystem has no unnamed files (O_TMPFILE)")
    os.close(unnamed)
    assert [p.name for p in tmp_path.iterdir()] == (["cert.json"] if old else [])
    assert not old or target.read_text() == old


def test_where_the_unnamed_file_cannot_be_linked_a_named_copy_is_put_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args, **kwargs) -> None:  # a sandbox that does not follow /proc's links
        raise PermissionError(1, "Operation not permitted")

    target = tmp_path / "out.json"
    target.write_text("old")
    real_link = os.link
    monkeypatch.setattr(
        atomic.os,
        "link",
        lambda src, *a, **k: refused() if "/proc/" in str(src) else real_link(src, *a, **k),
    )
    atomic.write_text(target, "new" * 500_000, mode=0o640)
    assert target.read_text() == "new" * 500_000 and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


@pytest.mark.parametrize("hard_links", [True, False])
def test_keep_refuses_a_file_there_and_one_that_appears_while_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hard_links: bool
) -> None:
    # `collect -o FILE` without --force: the user's file, there first or written meanwhile
    target = tmp_path / "bundle.tar.gz"
    if not hard_links:  # vfat: no link(); the new file is made with O_EXCL, never over one

        def no_links(*args, **kwargs) -> None:
            raise PermissionError(errno.EPERM, "Operation not permitted")

        monkeypatch.setattr(atomic.os, "link", no_links)
        atomic.write_bytes(target, b"bundle")
        assert target.read_bytes() == b"bundle"
        target.unlink()
    with (
        pytest.raises(atomic.UnsafeTarget, match="appeared"),
        atomic.replacing(target, keep=True) as fh,
    ):
        fh.write(b"bundle")
        target.write_text("user data")
    assert target.read_text() == "user data"
    with pytest.raises(atomic.UnsafeTarget, match="exists"):
        atomic.write_text(target, "bundle", keep=True)
    assert [p.name for p in tmp_path.iterdir()] == ["bundle.tar.gz"]
    assert target.read_text() == "user data"


def test_a_folder_swapped_while_writing_changes_nothing_of_where_the_file_goes(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.json").write_text("old")
    with atomic.replacing(out / "report.json") as fh:
        fh.write(b"new")
        out.rename(tmp_path / "moved")  # the folder named is another one now
        out.mkdir()
    assert (tmp_path / "moved" / "report.json").read_text() == "new"
    assert [p.name for p in (tmp_path / "moved").iterdir()] == ["report.json"]
    assert list(out.iterdir()) == []


def test_what_appears_while_writing_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out"
    victim = tmp_path / "victim"
    victim.write_text("keep")
    with pytest.raises(atomic.UnsafeTarget), atomic.replacing(target) as fh:
        fh.write(b"new")
        target.symlink_to(victim)  # planted between the look and the rename
    assert target.is_symlink() and victim.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "victim"]


def test_a_file_swapped_for_a_link_while_writing_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_text("old")
    with pytest.raises(atomic.UnsafeTarget), atomic.replacing(target) as fh:
        fh.write(b"new")
        target.unlink()
        target.symlink_to("/nonexistent")
    assert target.is_symlink()


@pytest.mark.parametrize(
    "command",
    [
        ["config", "init", "--force", "-o"],
        ["collect", "--force", "-o"],
        ["doctor", "--profile", "quick", "--textfile-dir"],
    ],
)
def test_every_command_that_writes_refuses_a_planted_link(tmp_path: Path, command) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    if command[-1] == "--textfile-dir":
        folder = tmp_path / "textfile"
        folder.mkdir()
        (folder / "ampenv.prom").symlink_to(victim)
        target = folder
    else:
        target = tmp_path / "out"
        target.symlink_to(victim)
    ran = run_ampenv(*command, str(target), env=clean_env(AMPENV_SYSROOT=str(tmp_path)))
    assert ran.returncode != 0
    assert "symbolic link" in ran.stderr
    assert victim.read_text() == "keep"


def _writers(tmp_path: Path):
    """Every writer of the project, each aimed at ``target``."""
    from ampenv.integrations import certificate, collect, slurm, textfile
    from ampenv.repair import clean

    def marker(target: Path) -> None:
        from ampenv.knowledge.caches import MARKER

        (target.parent / MARKER).unlink(missing_ok=True)
        os.rename(target, target.parent / MARKER)
        try:
            clean.write_marker(target.parent, "8.5.0", 0.0)
        finally:
            os.rename(target.parent / MARKER, target)

    def verdict(target: Path) -> None:
        lock = target.with_name("hook.lock")
        os.rename(target, slurm.verdict_path(lock))
        try:
            slurm.write_text(slurm.verdict_path(lock), "{}\n")
        finally:
            os.rename(slurm.verdict_path(lock), target)

    def prom(target: Path) -> None:
        textfile.write_textfile(target.parent, "x 1\n", name=target.name)

    return {
        "certificate": lambda t: certificate.write(str(t), {"a": 1}),
        "bundle": lambda t: collect.write_bundle(t, {"a": b"1"}),
        "textfile": prom,
        "clean marker": marker,
        "hook verdict": verdict,
    }


@pytest.mark.parametrize(
    "writer", ["certificate", "bundle", "textfile", "clean marker", "hook verdict"]
)
def test_every_writer_keeps_a_device_and_refuses_a_link(tmp_path: Path, writer: str) -> None:
    write = _writers(tmp_path)[writer]
    null = _device(tmp_path / "out", NULL)
    with contextlib.suppress(OSError):  # refusing is allowed too; replacing is not
        write(null)
    assert _is_char(null)
    null.unlink()
    victim = tmp_path / "victim"
    victim.write_text("keep")
    link = tmp_path / "out"
    link.symlink_to(victim)
    with pytest.raises(OSError):
        write(link)
    assert link.is_symlink() and victim.read_text() == "keep"


def test_output_to_dev_stdout_reaches_stdout_not_stderr(tmp_path: Path) -> None:
    # fd 1 points at stderr while checks run: /dev/stdout names the report's own stdout
    import json

    ran = run_ampenv(
        "doctor",
        "-p",
        "quick",
        "--only",
        "env.npu",
        "-f",
        "json",
        "-o",
        "/dev/stdout",
        cwd=tmp_path,
    )
    assert json.loads(ran.stdout)["schema"] == "ampenv.report/1"
    assert "ampenv.report/1" not in ran.stderr
