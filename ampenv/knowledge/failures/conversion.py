"""Model conversion and quantization: ATC (a model to an offline model) and AMCT."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="amct-calibration-data-mismatch",
        mode="compile-cache",
        component="AMCT",
        # ATC's quantization (AMCT) running the calibration set through the model
        patterns=(r"input image size\[\d{1,12}\] is not equal to model input size\[\d{1,12}\]",),
        codes=(),
        meaning="quantizing a model in ATC, the calibration data does not fit the model's "
        "input: its size (shape or dtype) differs",
        causes=("calibration files of another shape or dtype than the model's input",),
        fix="make the calibration data match the model's input (its shape and dtype; the "
        "input_shape of the quantization config), then convert again",
        confirm=None,
        sources=(
            Source(
                "hicann/ge docs/zh/user_guides/atc_tools/FAQ/calibration_data_mismatch.md"
                "@863e0e9ab951f697c5095b615b258ca5c02f821b",
                "official",
            ),
        ),
        hints=("err",),  # (its message is a key of its own)
    ),
    Failure(
        id="amct-layer-not-quantizable",
        mode="compile-cache",
        component="AMCT",
        patterns=(r"\brun WeightFakeQuantArq failed\b", r"\barq weight fake quant failed\b"),
        codes=(),
        meaning="quantizing a model in ATC, a layer's weights could not be quantized (ARQ: "
        "their scale is out of range): the layer the line names does not take quantization",
        causes=("a layer whose weights ARQ cannot quantize (a scale above 1/FLT_EPSILON)",),
        fix="leave that layer out of quantization: list it in skip_layers of the quantization "
        "config (passed with config_file), then convert again",
        confirm=None,
        sources=(
            Source(
                "hicann/ge docs/zh/user_guides/atc_tools/FAQ/unsupported_quantization_layers.md"
                "@863e0e9ab951f697c5095b615b258ca5c02f821b",
                "official",
            ),
        ),
        hints=("fail",),
    ),
    Failure(
        id="atc-op-no-parser",
        mode="compile-cache",
        component="ATC",
        # no patterns: GE's E19010 is this entry in any wording (the code family reads it)
        patterns=(),
        codes=("E19010",),
        meaning="ATC has no parser for an operator of the model (its optype names the framework, "
        "the opset and the operator: ai.onnx::23::Div): an ONNX opset newer than this CANN "
        "release parses, or an operator ATC does not support at all",
        causes=(
            "the model exported with a newer ONNX opset than the CANN release supports for that "
            "operator (opset 23 where Div is registered for 8-18)",
            "an operator (or a custom domain's) that ATC has no parser for",
        ),
        fix="export the model again with an opset the CANN release supports (torch.onnx.export("
        "..., opset_version=11..18); its ONNX operator list names the opsets), or replace the "
        "operator; a custom operator needs a parser plugin registered with ATC",
        confirm="cann.toolkit",
        sources=(
            Source(
                "an OrangePi AIpro FAQ (the public file index's id 53783839230): E19010 for an "
                "opset-23 Div",
                "report",
            ),
            Source("CANN's error code table, E19010 (Unsupported Operator)", "official"),
        ),
        hints=(),
    ),
)
