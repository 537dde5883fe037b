"""amp.autocast: torch.autocast for the model's device, plus ampenv's op policy.

The policy (fp32-only functions, the attention rule, registered functions) works the way apex's O1
did, by replacing the functions on their modules, but only while some amp.autocast is open, and the
replacements act only in threads inside an active amp.autocast: elsewhere they call the original.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from . import policy, state
from .device import TorchDevice, choose_dtype

LOW = (torch.float16, torch.bfloat16)


@dataclass(frozen=True)
class Frame:
    """One open amp.autocast (or a float rule running inside one) in this thread."""

    device_type: str
    dtype: torch.dtype
    active: bool
    rules: dict[tuple[Any, str], policy.Rule] = field(default_factory=dict)
    reason: str | None = None  # set while a float rule runs: why its ops are fp32


_local = threading.local()


def _frames() -> list[Frame]:
    if not hasattr(_local, "frames"):
        _local.frames = []
    return _local.frames


def current_frame() -> Frame | None:
    frames = _frames()
    return frames[-1] if frames else None


@contextmanager
def _push(frame: Frame) -> Iterator[None]:
    frames = _frames()
    frames.append(frame)
    try:
        yield
    finally:
        frames.pop()


def cast_tensors(tree: Any, sources: tuple[torch.dtype, ...], target: torch.dtype) -> Any:
    """`tree` with its tensors of a `sources` dtype cast to `target` (through tuples, lists and
    dicts: a plain walk, cheaper per call than torch's pytree)."""
    if isinstance(tree, torch.Tensor):
        return tree.to(target) if tree.dtype in sources else tree
    if isinstance(tree, (tuple, list)):
        items = [cast_tensors(item, sources, target) for item in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    if isinstance(tree, dict):
        return {key: cast_tensors(value, sources, target) for key, value in tree.items()}
    return tree


def _widest(tree: Any) -> torch.dtype | None:
    """fp32 if a tensor in `tree` is fp32, else its low-precision dtype (None: none found)."""
    found: set[torch.dtype] = set()

    def visit(node: Any) -> None:
        if isinstance(node, torch.Tensor):
            found.add(node.dtype)
        elif isinstance(node, (tuple, list)):
            for item in node:
                visit(item)
        elif isinstance(node, dict):
            for item in node.values():
                visit(item)

    visit(tree)
    if torch.float32 in found:
        return torch.float32
    return next((d for d in LOW if d in found), None)


def _wrap(key: tuple[Any, str], original: Callable) -> Callable:
    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        frame = current_frame()
        rule = frame.rules.get(key) if frame is not None else None
        if rule is None:
            return original(*args, **kwargs)
        # The rule holds for the whole call: functions it calls are not re-cast by the policy.
        if rule.kind == "half":
            args, kwargs = cast_tensors((args, kwargs), (torch.float32,), frame.dtype)
            with _push(Frame(frame.device_type, frame.dtype, active=True)):
                return original(*args, **kwargs)
        target = torch.float32 if rule.kind == "float" else _widest((args, kwargs))
        inner = Frame(frame.device_type, frame.dtype, active=False, reason=rule.reason)
        # Autocast off inside, or it would re-cast the op to low precision.
        with _push(inner), torch.autocast(frame.device_type, enabled=False):
            if target is not None:
                sources = tuple(d for d in (torch.float32, *LOW) if d != target)
                args, kwargs = cast_tensors((args, kwargs), sources, target)
            return original(*args, **kwargs)

    return wrapper


_MISSING = object()
_lock = threading.Lock()
_installed: dict[tuple[Any, str], list[Any]] = {}  # key -> [open autocasts using it, own value]
_wrappers: dict[tuple[Any, str], tuple[Any, Callable]] = {}  # key -> (what it wraps, wrapper)


def _wrapper_for(key: tuple[Any, str]) -> tuple[Any, Callable]:
    """The attribute as the owner holds it (vars(): torch.Tensor inherits its methods, and is
    restored by deleting the override) and its wrapper, made once: entering a step's autocast
    must stay cheap."""
    owner, name = key
    own = vars(owner).get(name, _MISSING)
    cached = _wrappers.get(key)
    if cached is None or cached[0] is not own:
        cached = _wrappers[key] = (own, _wrap(key, getattr(owner, name)))
    return cached


def _install(keys: list[tuple[Any, str]]) -> None:
    with _lock:
        for key in keys:
            if key in _installed:
                _installed[key][0] += 1
                continue
            own, wrapper = _wrapper_for(key)
            _installed[key] = [1, own]
            setattr(key[0], key[1], wrapper)


def _uninstall(keys: list[tuple[Any, str]]) -> None:
    with _lock:
        for key in keys:
            entry = _installed[key]
            entry[0] -= 1
            if entry[0]:
                continue
            del _installed[key]
            owner, name = key
            if entry[1] is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, entry[1])


@contextmanager
def _policy_region(
    device_type: str,
    dtype: torch.dtype,
    enabled: bool,
    attention_fp32: bool,
    user_preferred: bool,
) -> Iterator[None]:
    rules = policy.rules(attention_fp32, user_preferred) if enabled else {}
    keys = list(rules)
    _install(keys)
    try:
        frame = Frame(device_type, dtype, enabled, rules)
        with torch.autocast(device_type, dtype=dtype, enabled=enabled), _push(frame):
            yield
    finally:
        _uninstall(keys)


def region(
    device_type: str,
    dtype: torch.dtype,
    enabled: bool,
    attention_fp32: bool = False,
    user_preferred: bool = True,
) -> AbstractContextManager:
    """The autocast region amp.autocast and an amp model's forward run in.

    Inside torch.compile it is torch.autocast itself: the op policy replaces module attributes,
    which dynamo cannot trace, so a compiled region gets torch's op lists (the graph and the
    breaks of torch.autocast) and the fp32 policy holds in eager mode only.
    """
    if torch.compiler.is_compiling():
        return torch.autocast(device_type, dtype=dtype, enabled=enabled)
    return _policy_region(device_type, dtype, enabled, attention_fp32, user_preferred)


def autocast(
    enabled: bool = True,
    *,
    device_type: str | None = None,
    dtype: torch.dtype | None = None,
    attention_fp32: bool = False,
) -> AbstractContextManager:
    """Mixed precision for the region: torch.autocast plus the fp32 op policy.

    Without `device_type` it follows amp.initialize: the model's device and dtype, and the level
    (active at O1 and O2; O0 is fp32 and O3 pure low precision). With `device_type` it is a
    standalone autocast for that device (`dtype` defaults to the device's). `attention_fp32` also
    runs scaled_dot_product_attention and multi-head attention in fp32.
    """
    amp_state = state.current()
    user_preferred = True
    if device_type is None:
        if amp_state is None:
            raise RuntimeError(
                "amp.autocast() follows amp.initialize(): call it first, or pass "
                "device_type='cpu' / 'cuda' / 'npu'"
            )
        device_type = amp_state.device.device.type
        dtype = amp_state.dtype if dtype is None else dtype
        enabled = enabled and amp_state.properties.autocast
        user_preferred = amp_state.user_cast_preferred
    if dtype is None:
        dtype = choose_dtype(TorchDevice.of(device_type))
    return region(device_type, dtype, enabled, attention_fp32, user_preferred)
