"""apex, Ascend apex and torch.amp training code on ampenv.amp: keywords, accumulation, per-loss
scalers, apex checkpoints, one initialize per process, torch.compile, registrations."""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pytest
import torch
import torch.nn.functional as F

from ampenv import amp

init_module = importlib.import_module("ampenv.amp.initialize")  # the package exports a function


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def mlp(seed: int = 0) -> torch.nn.Sequential:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))


G = torch.Generator().manual_seed(0)
X = torch.randn(96, 16, generator=G)
Y = (X @ torch.randn(16, 4, generator=G)).argmax(1)


def params(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().float().clone() for p in model.parameters()]


def close(a: list[torch.Tensor], b: list[torch.Tensor], tol: float = 1e-4) -> bool:
    return all(torch.allclose(x, y, rtol=tol, atol=tol) for x, y in zip(a, b))


# --- 1. keywords -----------------------------------------------------------------------------


def test_the_ascend_model_zoo_line_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(init_module, "_noticed", set())  # once per process: forget earlier tests
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = amp.initialize(
        model, opt, opt_level="O2", loss_scale=128.0, combine_grad=True
    )
    assert float(amp.loss_scaler().scale) == 128.0 and not amp.loss_scaler().dynamic
    with amp.scale_loss(F.cross_entropy(model(X[:8]), Y[:8]), opt) as scaled:
        scaled.backward()
    opt.step()
    assert "combine_grad=True accepted without effect" in capsys.readouterr().err


def test_every_apex_and_ascend_keyword_is_accepted() -> None:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    amp.initialize(
        model,
        opt,
        enabled=True,
        opt_level="O2",
        cast_model_type=torch.bfloat16,
        patch_torch_functions=False,
        keep_batchnorm_fp32=True,
        master_weights=True,
        loss_scale="dynamic",
        cast_model_outputs=torch.bfloat16,
        num_losses=2,
        verbosity=0,
        min_loss_scale=1.0,
        max_loss_scale=2.0**20,
        dynamic_init_scale=2.0**12,
        scale_growth_factor=4.0,
        scale_backoff_factor=0.25,
        scale_window=3,
        combine_grad=True,
        combine_ddp=True,
        ddp_replica_count=8,
        user_cast_preferred=True,
        check_combined_tensors=True,
    )
    scaler = amp.loss_scaler(1)
    assert (float(scaler.scale), scaler.growth_factor, scaler.backoff_factor) == (4096, 4, 0.25)
    assert (scaler.growth_interval, scaler.min_scale, scaler.max_scale) == (3, 1.0, 2.0**20)
    assert model[0].weight.dtype == torch.bfloat16
    assert model(X[:2]).dtype == torch.bfloat16  # cast_model_outputs


def test_tuning_keywords_are_noticed_once_per_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(init_module, "_noticed", set())
    for _ in range(2):
        model = mlp()
        amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), combine_ddp=True)
    err = capsys.readouterr().err
    assert err.count("combine_ddp=True accepted without effect") == 1
    assert "combine_grad" not in err  # only what was passed


def test_patch_torch_functions_false_runs_o1_in_fp32() -> None:
    model = mlp()
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), patch_torch_functions=False)
    with torch.autocast("cpu", enabled=False):
        assert model[0](X[:2]).dtype == torch.float32
    ours = mlp()
    amp.initialize(ours, torch.optim.SGD(ours.parameters(), lr=0.1))
    probe: list[torch.dtype] = []
    ours[0].register_forward_hook(lambda _m, _i, out: probe.append(out.dtype))
    ours(X[:2])
    assert probe == [torch.bfloat16]  # O1: the forward runs under autocast, no `with` needed


@pytest.mark.parametrize(
    ("kwargs", "keyword"),
    [
        ({"opt_level": "O1", "cast_model_type": torch.float16}, "cast_model_type"),
        ({"opt_level": "O2", "cast_model_type": torch.float64}, "cast_model_type"),
        ({"opt_level": "O2", "cast_model_type": torch.float16, "dtype": torch.bfloat16}, "dtype"),
        ({"cast_model_outputs": "half"}, "cast_model_outputs"),
        ({"num_losses": 0}, "num_losses"),
        ({"patch_torch_functions": "yes"}, "patch_torch_functions"),
    ],
)
def test_keywords_that_would_change_numerics_silently_are_refused(
    kwargs: dict, keyword: str
) -> None:
    model = mlp()
    with pytest.raises(ValueError, match=keyword):
        amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), **kwargs)


def test_cast_model_type_float32_keeps_the_model_fp32() -> None:
    model = mlp()
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), opt_level="O2",
                   cast_model_type=torch.float32)
    assert model[0].weight.dtype == torch.float32


# --- 2, 3. accumulation and per-loss scaling, against torch.amp + GradScaler -------------------


def torch_reference(steps: int, micro: int, losses: int, poison: set[tuple[int, int]]) -> tuple:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    for step in range(steps):
        opt.zero_grad()
        for m in range(micro):
            part = slice((step * micro + m) * 4, (step * micro + m) * 4 + 4)
            with torch.autocast("cpu", dtype=torch.float16):
                out = model(X[part])
                parts = [F.cross_entropy(out, Y[part]), out.float().pow(2).mean()][:losses]
            for i, loss in enumerate(parts):
                if (step, m) in poison and i == losses - 1:
                    loss = loss * float("inf")
                scaler.scale(loss).backward(retain_graph=i < losses - 1)
        scaler.step(opt)
        scaler.update()
    return params(model), scaler.get_scale()


def ampenv_run(steps: int, micro: int, losses: int, poison: set[tuple[int, int]]) -> tuple:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model, opt = amp.initialize(
        model, opt, dtype=torch.float16, num_losses=losses, dynamic_init_scale=2.0**10,
        scale_window=2,
    )
    for step in range(steps):
        opt.zero_grad()
        for m in range(micro):
            part = slice((step * micro + m) * 4, (step * micro + m) * 4 + 4)
            out = model(X[part])
            parts = [F.cross_entropy(out, Y[part]), out.float().pow(2).mean()][:losses]
            for i, loss in enumerate(parts):
                if (step, m) in poison and i == losses - 1:
                    loss = loss * float("inf")
                with amp.scale_loss(loss, opt, loss_id=i) as scaled:
                    scaled.backward(retain_graph=i < losses - 1)
        opt.step()
    return params(model), [float(amp.loss_scaler(i).scale) for i in range(losses)]


def test_accumulation_trains_like_grad_scaler() -> None:
    poison = {(2, 1)}  # one micro-batch of step 2 overflows: the whole step is skipped
    expected, expected_scale = torch_reference(6, 3, 1, poison)
    got, scales = ampenv_run(6, 3, 1, poison)
    assert close(got, expected) and scales == [expected_scale]


def test_per_loss_scaling_trains_like_grad_scaler() -> None:
    expected, _ = torch_reference(5, 1, 2, set())
    skipped, _ = ampenv_run(5, 1, 2, {(3, 0)})
    assert not close(skipped, expected)  # the poisoned step 3 was skipped: the test can fail
    got, _ = ampenv_run(5, 1, 2, set())
    assert close(got, expected)
    _, scales = ampenv_run(5, 1, 2, {(1, 0)})
    assert scales[1] < scales[0]  # only loss 1's scaler backed off


def test_the_articles_accumulation_runs() -> None:
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = amp.initialize(model, opt, opt_level="O2")
    reference = copy.deepcopy(model)
    calls = 0
    for n in range(4):
        opt.backward(F.cross_entropy(model(X[n * 8 : n * 8 + 8]), Y[n * 8 : n * 8 + 8]))
        if n % 2 == 1:
            opt.step()
            opt.zero_grad()
            calls += 1
    assert calls == 2 and not torch.equal(params(model)[0], params(reference)[0])


def test_loss_id_out_of_range_names_num_losses() -> None:
    model = mlp()
    model, opt = amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(ValueError, match="num_losses=1"), amp.scale_loss(
        model(X[:2]).sum(), opt, loss_id=1
    ):
        pass


# --- 4. checkpoints ----------------------------------------------------------------------------


def test_apex_checkpoint_loads() -> None:
    model = mlp()
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), num_losses=2)
    amp.load_state_dict(
        {
            "loss_scaler0": {"loss_scale": 512.0, "unskipped": 7},
            "loss_scaler1": {"loss_scale": 8.0, "unskipped": 0},
        }
    )
    assert float(amp.loss_scaler(0).scale) == 512.0 and float(amp.loss_scaler(1).scale) == 8.0
    assert amp.state_dict()["loss_scaler0"]["unskipped"] == 7
    assert amp.state_dict()["loss_scaler0"]["loss_scale"] == 512.0  # apex can read ours
    with pytest.raises(ValueError, match="loss_scaler2"):
        amp.load_state_dict({"loss_scaler2": {"loss_scale": 1.0, "unskipped": 0}})


# --- 5. one initialize per process ---------------------------------------------------------------


def test_a_second_initialize_warns_and_retargets_nothing() -> None:
    first = mlp()
    first, opt = amp.initialize(first, torch.optim.SGD(first.parameters(), lr=0.1))
    scaler = amp.loss_scaler()
    second = mlp(1)
    with pytest.warns(UserWarning, match="already called"):
        amp.initialize(second, torch.optim.SGD(second.parameters(), lr=0.1), dtype=torch.float16)
    probe: list[torch.dtype] = []
    first[0].register_forward_hook(lambda _m, _i, out: probe.append(out.dtype))
    first(X[:2])
    assert probe == [torch.bfloat16]
    assert opt._amp_stash.scalers[0] is scaler and amp.loss_scaler() is not scaler


def test_initialize_after_the_first_models_are_gone_is_quiet(recwarn: Any) -> None:
    model = mlp()
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1))
    del model
    model = mlp()
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1))
    assert not [w for w in recwarn if "already called" in str(w.message)]


def test_initialize_twice_on_one_model_is_an_error() -> None:
    model = mlp()
    amp.initialize(model)
    with pytest.raises(ValueError, match="model already went through"):
        amp.initialize(model)


# --- 6. torch.compile ----------------------------------------------------------------------------


def test_compiled_amp_autocast_gives_torch_autocasts_graphs() -> None:
    import torch._dynamo

    model = mlp()
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), enabled=True)
    plain = mlp()

    def ours(x: torch.Tensor) -> torch.Tensor:
        with amp.autocast():
            return torch.softmax(plain(x), -1)

    def theirs(x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return torch.softmax(plain(x), -1)

    torch._dynamo.reset()
    a = torch._dynamo.explain(ours)(X[:4])
    torch._dynamo.reset()
    b = torch._dynamo.explain(theirs)(X[:4])
    assert (a.graph_count, a.graph_break_count) == (b.graph_count, b.graph_break_count) == (1, 0)
    assert [g.code for g in a.graphs] == [g.code for g in b.graphs]


# --- 7. registrations ----------------------------------------------------------------------------


def test_register_promote_function() -> None:
    try:
        amp.register_promote_function(torch, "addcmul")
        low, high = torch.ones(3, dtype=torch.bfloat16), torch.ones(3)
        with amp.autocast(device_type="cpu"):
            assert torch.addcmul(high, low, low).dtype == torch.float32
            assert torch.addcmul(low, low, low).dtype == torch.bfloat16
        with pytest.raises(ValueError, match="No function named nope"):
            amp.register_promote_function(torch, "nope")
    finally:
        amp.clear_registrations()


def test_user_cast_preferred_false_lets_the_builtin_list_win() -> None:
    try:
        amp.register_half_function(F, "softmax")
        x = torch.randn(2, 4)
        model = mlp()
        amp.initialize(model, user_cast_preferred=False)
        with amp.autocast():
            assert F.softmax(x, -1).dtype == torch.float32
        model = mlp()
        amp.initialize(model)
        with amp.autocast():
            assert F.softmax(x, -1).dtype == torch.bfloat16
    finally:
        amp.clear_registrations()


def test_fp32_only_lists_the_fp32_policy() -> None:
    assert (F, "softmax") in amp.FP32_ONLY and (F, "layer_norm") in amp.FP32_ONLY
    for module, name in amp.FP32_ONLY:
        assert callable(getattr(module, name))
