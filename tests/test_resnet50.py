"""The bundled ResNet50 has torchvision's architecture, without torchvision."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from ampenv.active.smoke.resnet50 import Bottleneck, resnet50  # noqa: E402


def test_parameter_count_matches_torchvision():
    # torchvision.models.resnet50().parameters() sums to this (also in its weights metadata).
    model = resnet50()
    assert sum(p.numel() for p in model.parameters()) == 25_557_032


def test_bottleneck_layout_is_3_4_6_3_with_stride_on_the_3x3_conv():
    model = resnet50()
    stages = [model.layer1, model.layer2, model.layer3, model.layer4]
    assert [len(s) for s in stages] == [3, 4, 6, 3]
    assert all(isinstance(b, Bottleneck) for s in stages for b in s)
    # v1.5: the downsampling block strides on conv2 (3x3), not on conv1 (1x1).
    first = model.layer2[0]
    assert first.conv1.stride == (1, 1) and first.conv2.stride == (2, 2)
    assert first.downsample[0].stride == (2, 2)


def test_forward_shape_and_num_classes():
    model = resnet50(num_classes=10).eval()
    with torch.no_grad():
        out = model(torch.zeros(2, 3, 64, 64))
    assert out.shape == (2, 10)
    assert model.fc.out_features == 10


def test_seed_gives_identical_weights_and_leaves_global_rng_alone():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a = resnet50(num_classes=10, seed=7)
    after = torch.rand(1)
    b = resnet50(num_classes=10, seed=7)
    c = resnet50(num_classes=10, seed=8)
    assert torch.equal(before, after)
    for pa, pb in zip(a.state_dict().values(), b.state_dict().values()):
        assert torch.equal(pa, pb)
    assert not torch.equal(a.conv1.weight, c.conv1.weight)
