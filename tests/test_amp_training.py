"""The amp training step on CPU torch: levels train, skips, accumulation, clipping, resume."""

from __future__ import annotations

import copy
from typing import Any, Callable

import pytest
import torch
import torch.nn.functional as F

from ampenv import amp

LEVELS = ["O0", "O1", "O2", "O3"]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


DTYPES = [torch.bfloat16, torch.float16]


def batches(n: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 16, generator=g)
    return x, (x @ torch.randn(16, 4, generator=g)).argmax(1)


def mlp(seed: int = 0, batchnorm: bool = True) -> torch.nn.Sequential:
    torch.manual_seed(seed)
    norm = torch.nn.BatchNorm1d(64) if batchnorm else torch.nn.Identity()
    return torch.nn.Sequential(
        torch.nn.Linear(16, 64), norm, torch.nn.ReLU(), torch.nn.Linear(64, 4)
    )


X, Y = batches()


def full_loss(model: torch.nn.Module) -> float:
    model.eval()
    with torch.no_grad(), amp.autocast():
        loss = F.cross_entropy(model(X), Y).item()
    model.train()
    return loss


def train(model: torch.nn.Module, opt: Any, steps: int, start: int = 0) -> None:
    for step in range(start, start + steps):
        i = (step * 32) % len(X)
        with amp.autocast():
            loss = F.cross_entropy(model(X[i : i + 32]), Y[i : i + 32])
        opt.zero_grad()
        opt.backward(loss)
        opt.step()


@pytest.mark.parametrize("dtype", DTYPES, ids=["bf16", "fp16"])
@pytest.mark.parametrize("level", LEVELS)
def test_each_level_trains_to_target(level: str, dtype: torch.dtype) -> None:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model, opt = amp.initialize(model, opt, opt_level=level, dtype=dtype)
    first = full_loss(model)
    train(model, opt, 60)
    assert first > 1.0 and full_loss(model) < 0.1
    low = dtype if level in ("O2", "O3") else torch.float32
    assert model[0].weight.dtype == low
    assert model[1].weight.dtype == (torch.float32 if level != "O3" else dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["bf16", "fp16"])
def test_o2_keeps_fp32_master_weights(dtype: torch.dtype) -> None:
    model = mlp()
    fp32 = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = amp.initialize(model, opt, opt_level="O2", dtype=dtype)
    masters = list(amp.master_params(opt))
    assert all(m.dtype == torch.float32 for m in masters)
    assert all(torch.equal(m, p) for m, p in zip(masters, fp32))  # cloned before the cast
    train(model, opt, 5)
    for master, param in zip(amp.master_params(opt), model.parameters()):
        assert torch.equal(param, master.to(param.dtype))
        assert (master is param) == (param.dtype == torch.float32)  # BatchNorm is its own master
    assert any(not torch.equal(m, m.to(dtype).float()) for m in amp.master_params(opt))


def optimizer_state(opt: torch.optim.Optimizer) -> list[tuple[str, torch.Tensor]]:
    return [(k, v.clone()) for s in opt.state.values() for k, v in s.items()]


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_skipped_step_changes_nothing(level: str) -> None:
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    model, opt = amp.initialize(model, opt, opt_level=level, dtype=torch.float16)
    train(model, opt, 2)
    params = [p.detach().clone() for p in [*model.parameters(), *amp.master_params(opt)]]
    state = optimizer_state(opt)
    scale = float(amp.loss_scaler().scale)
    with amp.autocast():
        loss = F.cross_entropy(model(X[:32]), Y[:32])
    opt.zero_grad()
    with amp.scale_loss(loss, opt) as scaled:
        scaled.backward()
        model[0].weight.grad[0, 0] = float("inf")  # an fp16 grad that overflowed
    opt.step()
    after = [p.detach() for p in [*model.parameters(), *amp.master_params(opt)]]
    assert all(torch.equal(a, b) for a, b in zip(params, after))
    assert all(
        k == k2 and torch.equal(v, v2) for (k, v), (k2, v2) in zip(state, optimizer_state(opt))
    )
    assert float(amp.loss_scaler().scale) == scale / 2
    train(model, opt, 1, start=2)
    assert not torch.equal(params[0], model[0].weight)  # the next clean step applies


def reference_grads(model: torch.nn.Module, micro: list[slice]) -> list[torch.Tensor]:
    """Plain torch: autocast and an unscaled fp32 backward per micro-batch."""
    model.zero_grad()
    for part in micro:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            F.cross_entropy(model(X[part]), Y[part]).backward()
    return [p.grad.clone() for p in model.parameters()]


def count_calls(obj: Any, name: str) -> list[int]:
    calls, original = [0], getattr(obj, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    setattr(obj, name, counted)
    return calls


def test_gradient_accumulation_unscales_and_steps_once() -> None:
    micro = [slice(i, i + 8) for i in range(0, 32, 8)]
    model = mlp(batchnorm=False)
    expected = reference_grads(copy.deepcopy(model), micro)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = amp.initialize(model, opt, opt_level="O1")
    unscales = count_calls(amp.loss_scaler(), "unscale_")
    steps = count_calls(opt._amp_stash, "step")
    opt.zero_grad()
    for n, part in enumerate(micro):
        with amp.autocast():
            loss = F.cross_entropy(model(X[part]), Y[part])
        opt.backward(loss, delay_unscale=n < len(micro) - 1)
    # Scaling by 2**16 is exact: the accumulated, unscaled grads are plain torch's bit for bit.
    assert all(torch.equal(p.grad, e) for p, e in zip(model.parameters(), expected))
    opt.step()
    assert (unscales[0], steps[0]) == (1, 1)


def test_o2_accumulates_in_fp32_masters() -> None:
    def master_grads(micro_steps: int) -> list[torch.Tensor]:
        model = mlp(batchnorm=False)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model, opt = amp.initialize(model, opt, opt_level="O2")
        for n in range(micro_steps):
            with amp.autocast():
                loss = F.cross_entropy(model(X[:8]), Y[:8])
            opt.backward(loss, delay_unscale=n < micro_steps - 1)
            assert all(p.grad is None for p in model.parameters())  # moved to the masters
        return [m.grad for m in amp.master_params(opt)]

    once, thrice = master_grads(1), master_grads(3)
    assert all(g.dtype == torch.float32 for g in thrice)
    assert all(torch.equal(3 * a, b) for a, b in zip(once, thrice))


def test_clipping_sees_unscaled_grads() -> None:
    model = mlp(batchnorm=False)
    expected = reference_grads(copy.deepcopy(model), [slice(0, 32)])
    before = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    model, opt = amp.initialize(model, opt, opt_level="O1")
    with amp.autocast():
        loss = F.cross_entropy(model(X[:32]), Y[:32])
    opt.backward(loss)
    norm = torch.nn.utils.clip_grad_norm_(amp.master_params(opt), max_norm=0.01)
    assert float(norm) == pytest.approx(
        float(
            torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in expected]))
        ),
        rel=1e-6,
    )
    opt.step()
    step = torch.cat([(b - p.detach()).reshape(-1) for b, p in zip(before, model.parameters())])
    assert float(step.norm()) == pytest.approx(0.01, rel=1e-4)


Style = Callable[[Any, torch.Tensor], None]


def article_style(opt: Any, loss: torch.Tensor) -> None:
    opt.backward(loss)


def apex_style(opt: Any, loss: torch.Tensor) -> None:
    with amp.scale_loss(loss, opt) as scaled:
        scaled.backward()


def run(style: Style, level: str, steps: int) -> list[torch.Tensor]:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model, opt = amp.initialize(model, opt, opt_level=level, dtype=torch.float16)
    for step in range(steps):
        with amp.autocast():
            loss = F.cross_entropy(model(X[step * 8 : step * 8 + 8]), Y[step * 8 : step * 8 + 8])
        opt.zero_grad()
        style(opt, loss)
        opt.step()
    return [p.detach().clone() for p in model.parameters()]


def test_both_step_styles_are_the_same_step() -> None:
    ours, apex = run(article_style, "O2", 4), run(apex_style, "O2", 4)
    assert all(torch.equal(a, b) for a, b in zip(ours, apex))


@pytest.mark.parametrize(("level", "dtype"), [("O1", torch.float16), ("O2", torch.bfloat16)])
def test_checkpoint_mid_training_resumes_identically(level: str, dtype: torch.dtype) -> None:
    def fresh(seed: int) -> tuple[torch.nn.Module, Any]:
        model = mlp(seed)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        return amp.initialize(model, opt, opt_level=level, dtype=dtype, loss_scale="dynamic")

    model, opt = fresh(0)
    amp.loss_scaler().growth_interval = 2  # let the scale move within the run
    train(model, opt, 3)
    saved = copy.deepcopy(
        {"model": model.state_dict(), "opt": opt.state_dict(), "amp": amp.state_dict()}
    )
    train(model, opt, 4, start=3)
    expected = [p.detach().clone() for p in model.parameters()]
    expected_scale = float(amp.loss_scaler().scale)

    model, opt = fresh(1)  # other weights: only the checkpoint can make it match
    model.load_state_dict(saved["model"])
    opt.load_state_dict(saved["opt"])
    amp.load_state_dict(saved["amp"])
    train(model, opt, 4, start=3)
    assert all(torch.equal(p, e) for p, e in zip(model.parameters(), expected))
    assert float(amp.loss_scaler().scale) == expected_scale


def test_o2_state_dict_holds_the_fp32_masters() -> None:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = amp.initialize(model, opt, opt_level="O2")
    train(model, opt, 2)
    saved = model.state_dict()
    assert saved["0.weight"].dtype == torch.float32
    assert torch.equal(saved["0.weight"], next(iter(amp.master_params(opt))))


def test_lists_share_one_scaler() -> None:
    models = [mlp(0), mlp(1)]
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in models]
    models, opts = amp.initialize(models, opts, opt_level="O2")
    before = [m[0].weight.detach().clone() for m in models]
    with amp.autocast():
        loss = sum(F.cross_entropy(m(X[:8]), Y[:8]) for m in models)
    with amp.scale_loss(loss, opts) as scaled:
        scaled.backward()
    for opt in opts:
        opt.step()
    assert all(not torch.equal(b, m[0].weight) for b, m in zip(before, models))


def test_lr_scheduler_wraps_the_amp_step() -> None:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = amp.initialize(model, opt, opt_level="O1")
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    train(model, opt, 1)
    sched.step()
    assert opt.param_groups[0]["lr"] == 0.05
