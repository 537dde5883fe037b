"""Model conversion and quantization: ATC (a model to an offline model) and AMCT."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source


def _atc_case(page: str, case: str) -> Source:
    """A fault case of ATC's guide (CANN 5.0.4), which several entries here cite."""
    return Source(
        "https://www.hiascend.com/document/detail/zh/canncommercial/5046/inferapplicationdev/"
        f"atctool/{page}.html (ATC fault case: {case})",
        "official",
    )


FAILURES = (
    Failure(
        id="atc-node-option-invalid",
        mode="compile-cache",
        component="ATC",
        # ATC's checks of the node names its options take (CANN 5.0.4's words)
        patterns=(
            r"The input format of --out_nodes is invalid",
            r"input_fp16_nodes: \S{1,200} is not a input node name",
        ),
        codes=(),
        meaning="ATC refused a node option: --out_nodes wants each output as node_name:index, "
        "and --input_fp16_nodes takes only the model's input nodes",
        causes=(
            "--out_nodes given node names without the index of the output to use",
            "--input_fp16_nodes naming an inner node, not an input of the model",
        ),
        fix='write --out_nodes as "node1:0;node1:1;node2:0"; give --input_fp16_nodes the '
        "model's input node names (open the model in Netron to read them), then convert again",
        confirm=None,
        sources=(
            _atc_case("atlasatc_16_0177", "the --out_nodes format check"),
            _atc_case("atlasatc_16_0178", "an --input_fp16_nodes node that is no input"),
        ),
        hints=("is invalid",),  # (the fp16 message: a key of its own, in the pass for "not ")
    ),
    Failure(
        id="atc-insert-op-conf-missing",
        mode="compile-cache",
        component="ATC",
        patterns=(r"insert op config file not found",),
        codes=(),
        meaning="the AIPP configuration file that --insert_op_conf names cannot be read: its "
        "path does not exist or the user running ATC may not read it",
        causes=("a wrong path in --insert_op_conf", "a file the converting user cannot read"),
        fix="give --insert_op_conf the AIPP config file's real path and make it readable by "
        "the converting user; a model without AIPP needs no --insert_op_conf at all",
        confirm=None,
        sources=(_atc_case("atlasatc_16_0181", "the --insert_op_conf file missing"),),
        hints=("not found",),
    ),
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
        id="atc-input-shape-unset",
        mode="compile-cache",
        component="ATC",
        # GE's check of each Data node: a dimension < 0 with no --input_shape for it (E10001,
        # "maybe you should set input_shape", later "The shapes of inputs contain -1"); the
        # parameter is the input's name, where ATC's own options are named "--x"
        patterns=(r"Value \[-1\] for parameter \[(?!-)[^\]\n]{1,80}\] is invalid",),
        codes=(),
        meaning="converting a model with ATC, an input of the model has a dimension that is not "
        "fixed (-1) and --input_shape gave none for it: the input the line names was left out "
        "of --input_shape, or named there otherwise than the model names it",
        causes=(
            "a model exported with a dynamic dimension (a batch of -1) converted without "
            "--input_shape",
            "--input_shape naming another input than the model's (images for image)",
        ),
        fix="give the input its shape under the model's own input name (Netron shows it): "
        '--input_shape="<input>:1,3,224,224"; for a dynamic batch keep -1 and add '
        '--dynamic_batch_size="1,2,4,8", or give a range (--input_shape="<input>:1~8,3,224,224")',
        confirm=None,
        sources=(
            Source(
                "hicann/ge's graph preparation (GE's check of a Data node's shape, which reports "
                "E10001 with the reason 'maybe you should set input_shape to specify its "
                "shape'; later: 'The shapes of inputs contain -1 in the model'), the public "
                "file index's ids 49495734660 and 52449112807",
                "official",
            ),
            Source(
                "an ATC case note (the public file index's id 54239447529): E10001 for an input "
                "named image while --input_shape named images",
                "report",
            ),
        ),
        hints=("is invalid",),
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
