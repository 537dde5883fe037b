"""CANN's own table of its E-codes: title, message, possible cause and solution of each.

Generated from the toolkit's conf/error_manager/error_code.json (CANN 8.1.RC1, aarch64; the
file CANN's error manager prints from), keeping every code E + module + four digits; "" where
the table says N/A; long texts cut at 240-300 characters. CANN prints the same texts with a
code in its logs, so a log that shows only the code line still gets them.
"""

from __future__ import annotations

SOURCE = (
    "CANN 8.1.RC1 aarch64-linux/conf/error_manager/error_code.json "
    "(github.com/leideng/CANN-8.1.RC1@4332a0134a96cfea4a4f6673690a81075c1e4dfb)"
)

# code: (title, message, possible cause, solution)
TABLE: dict[str, tuple[str, str, str, str]] = {
    "E10001": (
        'Invalid Argument',
        'Value [%s] for parameter [%s] is invalid. Reason: %s',
        '',
        'Try again with a valid argument.',
    ),
    "E10002": (
        'Invalid --input_shape Argument',
        'Value [%s] for parameter [--input_shape] is invalid. Reason: %s The value must be '
        'formatted as [%s].',
        '',
        'The valid format is [input_name1:n1,c1,h1,w1;input_name2:n2,c2,h2,w2]. Replace '
        '[input_name#] with node names. Ensure that the shape values are integers.',
    ),
    "E10003": (
        'Invalid Argument',
        'Value [%s] for parameter [--%s] is invalid. Reason: %s',
        '',
        'Run the "atc -h" command to view the usage. For details, see ATC Instructions.',
    ),
    "E10004": (
        'Invalid Argument',
        'Value for [--%s] is empty.',
        '',
        '',
    ),
    "E10005": (
        'Invalid Argument',
        'Value [%s] for parameter [--%s] is invalid. The value must be either [true] or [false].',
        '',
        '',
    ),
    "E10006": (
        'Invalid Argument',
        'Value [%s] for parameter [--%s] is invalid. The value must be either 1 or 0.',
        '',
        '',
    ),
    "E10007": (
        'Invalid Argument',
        '[--%s] is required. The value must be [%s].',
        '',
        '',
    ),
    "E10008": (
        'Invalid Argument',
        '[--weight] must not be empty when [--framework] is set to 0 (Caffe).',
        '',
        '1.If the source model framework is Caffe, try again with a valid [--weight] argument. '
        '2.If the source model framework is not Caffe, try again with a valid [--framework] '
        'argument.',
    ),
    "E10009": (
        'Invalid Dynamic Shape Argument',
        '[--dynamic_batch_size], [--dynamic_image_size], [--input_shape_range], and '
        '[--dynamic_dims] are mutually exclusive.',
        '',
        '1.In dynamic shape scenarios, include only one of these options in your command line. '
        '2.In static shape scenarios, remove these options from your command line.',
    ),
    "E10010": (
        'Invalid --log Argument',
        'Value [%s] for parameter [--log] is invalid.',
        '',
        'Select the value from [debug], [info], [warning], [error], and [null].',
    ),
    "E10011": (
        'Invalid --input_shape Argument',
        'Value [%s] for parameter [--input_shape] is invalid. Shape values must be positive '
        'integers. The error value in the shape is %s',
        '',
        '1. In static shape scenarios, set the shape values in [--input_shape] to positive '
        'integers. 2. In dynamic shape scenarios, add the related dynamic-input option in your '
        'command line, such as [--dynamic_batch_size], [--dynamic_image_size], or '
        '[--dynamic_dims].',
    ),
    "E10012": (
        'Invalid --input_shape Argument',
        '[--dynamic_batch_size] is included, but the dimension count of the dynamic-shape input'
        ' configured in [--input_shape] is less than 1.',
        '',
        '1. In static shape scenarios, remove the [--dynamic_batch_size] option from your '
        'command line. 2. In dynamic shape scenarios, set the corresponding axis of the '
        'dynamic-shape input in [--input_shape] to -1.',
    ),
    "E10013": (
        'Invalid Argument',
        'Value [%s] for [--%s] is out of range.',
        '',
        'Run the "atc -h" command to view the usage. For details, see ATC Instructions.',
    ),
    "E10014": (
        'Invalid Argument',
        'Value [%s] for parameter [--%s] is invalid.',
        '',
        'Run the "atc -h" command to view the usage. For details, see ATC Instructions.',
    ),
    "E10015": (
        'Invalid Argument',
        'Value [%s] for [--%s] is invalid.',
        'Try again with a valid argument.',
        'Run the "atc -h" command to view the usage. For details, see [ATC Instructions].',
    ),
    "E10016": (
        'Invalid Node Name',
        'Opname [%s] specified in [--%s] is not found in the model, confirm whether this node '
        "name exists, or node is not split with the specified delimiter ';'",
        '',
        '',
    ),
    "E10017": (
        'Invalid Argument',
        'Input Op [%s] specified in [--%s] is invalid. The Op type must be Data.',
        '',
        'Run the "atc -h" command to view the usage. For details, see ATC Instructions.',
    ),
    "E10018": (
        'Invalid Dynamic Shape Argument',
        'Value [%s] for shape [%s] is invalid. When [--dynamic_batch_size] is included, only '
        'batch size N can be -1 in [--input_shape].',
        'When [--dynamic_batch_size] is included, only batch size N can be -1 in the shape.',
        'Try again with a valid [--input_shape] argument. Make sure that non-batch size axes '
        'are not -1.',
    ),
    "E10019": (
        'Invalid --input_shape Argument',
        'When [--dynamic_image_size] is included, only the height and width axes can be -1 in '
        '[--input_shape].',
        'When [--dynamic_image_size] is included, only the height and width axes can be -1 in '
        'the shape.',
        'Try again with a valid [--input_shape] argument. Make sure that axes other than height'
        ' and width are not -1.',
    ),
    "E10020": (
        'Invalid --dynamic_image_size Argument',
        'Value [%s] for parameter [--dynamic_image_size] is invalid.',
        '',
        'The value must be formatted as '
        '[imagesize1_height,imagesize1_width;imagesize2_height,imagesize2_width]. Make sure '
        'that each profile has two dimensions.',
    ),
    "E10021": (
        'Invalid Argument',
        'Path for parameter [--%s] is too long. Keep the length within %s',
        '',
        '',
    ),
    "E10022": (
        'Invalid Argument',
        'Path [%s] for parameter [--%s] does not include the file name.',
        '',
        'Add the file name to the path.',
    ),
    "E10023": (
        'Invalid --singleop Argument',
        'Value [%s] for parameter [--singleop] is invalid.',
        'The path does not exist or the file name is incorrect.',
        '',
    ),
    "E10024": (
        'Invalid --singleop Argument',
        'Failed to open file [%s] specified by [--singleop].',
        '',
        'Check the owner group and permission settings and ensure that the user who runs the '
        'ATC command has enough permission to open the file.',
    ),
    "E10025": (
        'Invalid --singleop Argument',
        'File [%s] specified by [--singleop] is not a valid JSON file. Reason: %s',
        '',
        'Check that the file is in valid JSON format.',
    ),
    "E10026": (
        'Invalid --singleop Argument',
        'Empty Op name in the file specified by [--singleop].',
        '',
        'Check that no Op name is empty in the file.',
    ),
    "E10027": (
        'Invalid --singleop Argument',
        'Attribute [%s] of [%s] tensor [%s] for Op [%s] is invalid when [--singleop] is '
        'specified.',
        '',
        'Try again with a valid tensor dtype and format.',
    ),
    "E10029": (
        'Invalid --singleop Argument',
        'Attribute name of Op [%s] is empty in the file specified by [--singleop].',
        '',
        'Check that no Op attribute name is empty in the file.',
    ),
    "E10030": (
        'Invalid --singleop Argument',
        'There is an invalid value for attribute name [%s] of Op [%s] in the file specified by '
        '[--singleop].',
        '',
        'Check that no Op attribute value is invalid in the file.',
    ),
    "E10031": (
        'Invalid --input_shape Argument',
        '[--dynamic_batch_size] is included, but none of the nodes specified in [--input_shape]'
        ' have a batch size equaling -1.',
        'As [--dynamic_batch_size] is included, ensure that at least one of the nodes specified'
        ' in [--input_shape] has a batch size equaling -1.',
        '1. In static shape scenarios, remove the [--dynamic_batch_size] option from your '
        'command line. 2. In dynamic shape scenarios, set the corresponding axis of the '
        'dynamic-shape input in [--input_shape] to -1.',
    ),
    "E10032": (
        'Invalid Json File',
        'Parse json file [%s] failed, reason: %s. %s',
        '',
        '',
    ),
    "E10034": (
        'Invalid --input_fp16_nodes Argument',
        'Nodes (for example, [%s]) connected to AIPP must not be of type fp16.',
        '',
        '1. To enable AIPP, remove the nodes connected to AIPP from the [--input_fp16_nodes] '
        'argument. 2. If AIPP is not required, remove the [--insert_op_conf] option from your '
        'ATC command line.',
    ),
    "E10035": (
        'Invalid Dynamic Shape Argument',
        '[--dynamic_batch_size], [--dynamic_image_size], or [--dynamic_dims] has [%s] profiles,'
        ' which is less than the minimum ([%s]).',
        '',
        'Ensure that the number of profiles configured in [--dynamic_batch_size], '
        '[--dynamic_image_size], or [--dynamic_dims] is at least the minimum.',
    ),
    "E10036": (
        'Invalid Dynamic Shape Argument',
        '[--dynamic_batch_size], [--dynamic_image_size], or [--dynamic_dims] has [%s] profiles,'
        ' which is greater than the maximum ([%s]).',
        '',
        'Ensure that the number of profiles configured in [--dynamic_batch_size], '
        '[--dynamic_image_size], or [--dynamic_dims] is at most the maximum.',
    ),
    "E10037": (
        'Invalid Dynamic Shape Argument',
        'The profiles configured in [--dynamic_batch_size], [--dynamic_image_size], or '
        '[--dynamic_dims] have inconsistent dimension counts. A profile has %s dimensions while'
        ' another has %s dimensions.',
        '',
        'Ensure that the profiles configured in [--dynamic_batch_size], [--dynamic_image_size],'
        ' or [--dynamic_dims] have the same dimension count.',
    ),
    "E10038": (
        'Invalid Dynamic Shape Argument',
        'Dimension size [%s] is invalid. The value must be greater than 0.',
        '',
        'Set the shape values of each profile to positive in [--dynamic_batch_size], '
        '[--dynamic_image_size], or [--dynamic_dims].',
    ),
    "E10039": (
        'Invalid Dynamic Shape Argument',
        'The [--dynamic_batch_size], [--dynamic_image_size], or [--dynamic_dims] argument have '
        'duplicate profiles.',
        '',
        'Check that the profiles configured in [--dynamic_batch_size], [--dynamic_image_size], '
        'or [--dynamic_dims] are unique.',
    ),
    "E10040": (
        'Invalid --input_shape Argument',
        'As the [--dynamic_batch_size], [--dynamic_image_size], or [--dynamic_dims] argument is'
        ' included, the corresponding nodes specified in [--input_shape] must have -1 axes and '
        "can not have '~'.",
        'In dynamic shape scenarios, when [--dynamic_batch_size], [--dynamic_image_size], or '
        '[--dynamic_dims] argument is included, the corresponding shape value in the input node'
        " must be set to -1 and can not have '~'.",
        '1. In static shape scenarios, remove the [--dynamic_batch_size], '
        '[--dynamic_image_size] or [--dynamic_dims] option from your command line. 2. In '
        'dynamic multi-batch scenarios, set the corresponding axis of the dynamic-shape input '
        'in [--input_shape] to -1. 3. In dynamic shape scenarios, remove the...',
    ),
    "E10041": (
        'Invalid --framework or --model Argument',
        'Failed to load the model from [%s].',
        '',
        '1. Check that the model file is valid. 2. Check that the weight file or path is valid '
        'when model is more than 2G. 3. Check that the [--framework] argument matches the '
        'actual framework of the model file.',
    ),
    "E10042": (
        'Invalid Argument',
        'GenerateOfflineModel execute failed.',
        '',
        '',
    ),
    "E10044": (
        'Insufficient Memory',
        'The available memory is [%s KB], which is less than the required minimum [%s KB].',
        '',
        'Stop unnecessary processes and ensure that the required minimum system memory is '
        'available.',
    ),
    "E10045": (
        'Invalid Dynamic Shape Argument',
        'The number of -1 axes in the [--input_shape] argument exceeds the dimension count per '
        'profile in [--dynamic_dims].',
        '',
        'Ensure that the number of -1 axes in the [--input_shape] argument matches the '
        'dimension count per profile in [--dynamic_dims].',
    ),
    "E10046": (
        'Invalid Dynamic Shape Argument',
        'The total number of -1 axes in the [--input_shape] argument is greater than the '
        'dimension count per profile in [--dynamic_dims].',
        '',
        'Ensure that the total number of -1 axes in the [--input_shape] argument is less than '
        'the dimension count per profile in [--dynamic_dims].',
    ),
    "E10047": (
        'Invalid Argument',
        '[--%s] and [--%s] are mutually exclusive.',
        '',
        'Remove either of them and try again.',
    ),
    "E10048": (
        'Invalid --input_shape_range or dynamic_inputs_shape_range Argument',
        'Value [%s] for parameter [--input_shape_range] or [dynamic_inputs_shape_range] is '
        'invalid. Reason: %s The value must be formatted as [%s].',
        '',
        'Try again with a valid argument.',
    ),
    "E10049": (
        'Invalid --input_shape Argument',
        'Dimension count [%s] configured in [--input_shape] does not match dimension count [%s]'
        ' of the node.',
        '',
        'Set the dimension count in [--input_shape] according to the dimension count of the node.',
    ),
    "E10050": (
        'Invalid --input_shape Argument',
        'Current dimension size [%s] is not in the range of [%s–%s] specified by [--input_shape].',
        '',
        'Set the dimension size according to [--input_shape].',
    ),
    "E10051": (
        'Invalid --job_id Argument',
        'Value [%s] for parameter [--job_id] exceeds the allowed maximum ([%s]).',
        '',
        'Try again with a valid argument.',
    ),
    "E10052": (
        'Invalid AIPP Configuration',
        'AIPP configuration is invalid. Reason: %s',
        '',
        'Run the "atc -h" command to view the usage. For details, see ATC Instructions.',
    ),
    "E10053": (
        'Invalid Argument',
        'There is an error in the command line. Reason: %s',
        '',
        '',
    ),
    "E10054": (
        'Invalid Argument',
        'The requied parameter [%s] for ATC is empty. Another possible reason is that the value'
        ' of some parameters is not enclosed by quotation marks ("").',
        '',
        '',
    ),
    "E10055": (
        'Unsupported Feature',
        'The operation is not supported. Reason: %s',
        '',
        '',
    ),
    "E10056": (
        'Invalid Argument',
        'Cannot config both parameters [%s] and [%s] simultaneously.',
        '',
        '',
    ),
    "E10057": (
        'Invalid Argument',
        '[--%s] and [--%s] can only be used together',
        '',
        'If the value of --mode is 6, it only needs to be used with --om. Please check and try '
        'again.',
    ),
    "E10401": (
        'Invalid Operator Input Count',
        'The number of operator inputs ([%s]) exceeds the allowed maximum ([%s]).',
        '',
        'Try again with a valid number of inputs.',
    ),
    "E10402": (
        'Invalid Input Buffer Allocation for Operator Execution',
        'Input indexed [%s] requires a %s buffer, but %s (aligned) are allocated.',
        '',
        'Check whether the data type, dimensions, and shape are correctly set.For details, see '
        'the aclGetTensorDescSize API description in AscendCL API Reference.',
    ),
    "E10403": (
        'Invalid Operator Output Count',
        'The number of operator outputs ([%s]) exceeds the allowed maximum ([%s]).',
        'The number of outputs configured for operator execution does not match that described '
        'in the operator specifications.',
        'Check whether the number of elements in numoutputs is correctly set. The aclopCompile,'
        ' aclopExecuteV2, and aclopCompileAndExecute APIs may be involved. For details, see '
        'AscendCL API Reference.',
    ),
    "E10404": (
        'Invalid Output Buffer Allocation for Operator Execution',
        'Output indexed [%s] requires a %s buffer, but %s (aligned) are allocated.',
        '',
        'Check whether the data type, dimensions, and shape are correctly set. For details, see'
        ' the aclGetTensorDescSize API description in AscendCL API Reference.',
    ),
    "E10405": (
        'Inconsistent Input Buffer Count and Input Tensor Count for Operator Execution',
        'The number of input buffers is [%s], which does not match the number of input tensors '
        '([%s]).',
        '',
        'Check whether the number of elements in inputDesc and inputs of the operator is '
        'correctly set. The aclopExecuteV2 and aclopCompileAndExecute APIs may be involved. For'
        ' details, see AscendCL API Reference.',
    ),
    "E10406": (
        'Inconsistent Output Buffer Count and Output Tensor Count for Operator Execution',
        'The number of output buffers is [%s], which does not match the number of output '
        'tensors ([%s]).',
        '',
        'Check whether the number of elements in outputDesc and outputs of the operator is '
        'correctly set. The aclopExecuteV2 and aclopCompileAndExecute APIs may be involved. For'
        ' details, see AscendCL API Reference.',
    ),
    "E10410": (
        'Invalid Argument',
        'File [%s] does not exist.',
        'The file specified by the [--keep_dtype] or [--compress_weight_conf] argument does not'
        ' exist.',
        'Try again with a valid file directory.',
    ),
    "E10501": (
        'Unsupported Operator',
        'IR for Op [%s, optype [%s]], is not registered.',
        '1. The environment variable ASCEND_OPP_PATH is not configured. 2. IR is not registered',
        '',
    ),
    "E11001": (
        'Caffe Model Data Error',
        '[input_dim] and [input_shape] are mutually exclusive in [NetParameter] for Caffe model'
        ' conversion.',
        '',
        'Remove either of [--input_dim] and [--input_shape] from your atc command line.',
    ),
    "E11003": (
        'Caffe Model Data Error',
        'The number of [input_dim] fields in the model is [%s], which is not 4x the input count'
        ' [%s].',
        '',
        'Modify your Caffe model and try again.',
    ),
    "E11004": (
        'Caffe Model Data Error',
        'The number of input shapes is [%s], which does not match the number of inputs [%s].',
        '',
        'Modify your Caffe model and try again.',
    ),
    "E11005": (
        'Invalid --input_shape Argument',
        'Shape is not defined by using [--input_shape] for input [%s].',
        '',
        'Modify your Caffe model, or add the shape of the input to the [--input_shape] argument'
        ' in your atc command line.',
    ),
    "E11008": (
        'Caffe Model Data Error',
        'Optype DetectionOutput is unsupported.',
        '',
        'Modify your Caffe model and replace DetectionOutput operators with FSRDetectionOutput '
        'or SSDDetectionOutput.',
    ),
    "E11009": (
        'Unsupported Caffe Operator',
        'No Caffe parser is registered for Op [%s, optype [%s]].',
        '',
        '',
    ),
    "E11012": (
        'Caffe Model Data Error',
        'Unknown bottom blob [%s] at layer [%s]. The bottom blob is indexed [%s].',
        '',
        'Modify your Caffe model and try again.',
    ),
    "E11014": (
        'Caffe Model Data Error',
        'Failed to find the top blob for layer [%s].',
        'The top blob has no corresponding node in the source Caffe model.',
        'Modify your Caffe model and try again.',
    ),
    "E11015": (
        'Caffe Model Data Error',
        'Failed to find the bottom blob for layer [%s].',
        'The bottom blob has no corresponding node in the source Caffe model.',
        'Modify your Caffe model and try again.',
    ),
    "E11016": (
        'Invalid --out_nodes Argument',
        'Failed to add Op [%s] to NetOutput. Op output index [%s] is not less than [%s]. '
        'NetOutput input_index [%s] is not less than [%s].',
        '',
        'Try again with a valid [--out_nodes] argument.',
    ),
    "E11017": (
        'Invalid --out_nodes Argument',
        'Failed to find node [%s] specified by [--out_nodes].',
        '',
        'Try again with a valid [--out_nodes] argument.',
    ),
    "E11018": (
        'Caffe Model Data Error',
        'Op name [%s] contains invalid characters.',
        '',
        'Allowed characters include: letters, digits, hyphens (-), periods (.), underscores '
        '(_), and slashes (/). Modify the Op name and try again.',
    ),
    "E11021": (
        'Caffe Model Data Error',
        'Model file [%s] contains [layers] structures, which have been deprecated in Caffe and '
        'unsupported by ATC.',
        '',
        'Replace [layers] with [layer]..',
    ),
    "E11022": (
        'Caffe Model Data Error',
        'Invalid prototxt file.',
        'No [layer] structures are found in the Caffe model.',
        '',
    ),
    "E11023": (
        'Caffe Model Data Error',
        'Weight file contains [layers] structures, which have been deprecated in Caffe and '
        'unsupported by ATC.',
        '',
        'Replace [layers] with [layer].',
    ),
    "E11024": (
        'Caffe Model Data Error',
        'Invalid Caffe weight file.',
        'No [layer] structures are found in the Caffe weight file.',
        'N/A.',
    ),
    "E11027": (
        'Caffe Model Data Error',
        'Op [%s, optype [%s]] in the Caffe model has an input node with shape size 0.',
        '',
        '',
    ),
    "E11029": (
        'Caffe Model Data Error',
        'Op [%s] exists in model file but not found in weight file.',
        '',
        'Try again with a valid Caffe model or weight file. Ensure that the two files match '
        'with each other.',
    ),
    "E11032": (
        'Caffe File Error',
        'Failed to parse message [%s]. The error field is %s. Reason: %s.',
        '',
        '',
    ),
    "E11033": (
        'The Caffe weight file is invalid.',
        'Failed to convert the weight file. Blob [%s] of size [%s] is invalid. Reason: %s.',
        'The blob size of the node in the Caffe weight file does not match the number of '
        'elements calculated based on its shape.',
        'Try again with a valid Caffe model or weight file. Ensure that the two files match '
        'with each other.',
    ),
    "E11035": (
        'Caffe Model Data Error',
        'The top size of data node [%s] is not 1 but [%s].',
        '',
        '',
    ),
    "E11036": (
        'Caffe Model Data Error',
        'Data nodes have duplicate top blobs [%s].',
        '',
        '',
    ),
    "E11037": (
        'Caffe Model Data Error',
        'Op [%s] has zero outputs.',
        '',
        'Nodes in the Caffe model must have at least one output.',
    ),
    "E12004": (
        'Operator Prototype Registration Error',
        'Failed to register the prototype of Op [%s]. If input index is less than 0, then input'
        ' index [–%s] (absolute value) must be less than the input count [%s]',
        '',
        '',
    ),
    "E12009": (
        'TensorFlow Model Data Error',
        "Op [%s]'s input [%s] is not found in graph_def.",
        'The input name of the node is not found in the graph.',
        'Try again with a valid TensorFlow model.',
    ),
    "E12013": (
        'TensorFlow Model Data Error',
        'Failed to find a subgraph by the name [%s].',
        '',
        '1. To use function subgraphs to convert a TensorFlow model, place the subgraph .proto '
        'description file in the same directory as the model file and name it '
        '[graph_def_library.pbtxt]. 2. Run the [func2graph.py] script in the ATC installation '
        'directory to save the subgraphs to [graph_def_library.pbt...',
    ),
    "E12029": (
        'TensorFlow Model Data Error',
        'Failed to find the subgraph library.',
        'The model to convert contains function subgraphs, but the [graph_def_library.pbtxt] '
        'file is not found.',
        '1. To use function subgraphs to convert a TensorFlow model, place the subgraph .proto '
        'description file in the same directory as the model file and name it '
        '[graph_def_library.pbtxt]. 2. Run the [func2graph.py] script in the ATC installation '
        'directory to save the subgraphs to [graph_def_library.pbt...',
    ),
    "E14001": (
        'Invalid Argument for Operator Compilation',
        'Argument [%s] for Op [%s, optype [%s]], is invalid. Reason: %s.',
        '',
        '',
    ),
    "E14002": (
        'Failed to Obtain Tensor Attribute',
        'In the current process, obtaining the attribute of %s must be successful. Reason: %s.',
        '',
        '',
    ),
    "E16001": (
        'ONNX Model Data Error',
        'Model has no [%s] node.',
        '',
        '',
    ),
    "E16002": (
        'ONNX Model Data Error',
        'No ONNX parser is registered for optype [%s].',
        '',
        'Check the version of the installation package and reinstall the package. For details, '
        'see the operator specifications.',
    ),
    "E16004": (
        'ONNX Model Data Error',
        'ONNX model has no graph.',
        '',
        '',
    ),
    "E16005": (
        'ONNX Model Data Error',
        'The model has [%s] [--domain_version] fields, but only one is allowed.',
        '',
        '',
    ),
    "E19000": (
        'Invalid Directory',
        'Path[%s] is empty. Reason: %s.',
        'The file does not exist.',
        'Try again with a valid directory.',
    ),
    "E19001": (
        'Failure to Open File',
        'Failed to open file[%s]. Reason: %s.',
        '',
        'Fix the error according to the error message.',
    ),
    "E19002": (
        'Too Long File Directory',
        'Directory [%s] is too long. Keep the length within [%s] characters.',
        '',
        'Try again with a valid file directory.',
    ),
    "E19003": (
        'Failure to Read File',
        'Failed to read file [%s]. Reason: %s.',
        'Failed to read the file.',
        'Fix the error according to the error message.',
    ),
    "E19004": (
        'Failure to Write File',
        'Failed to write file [%s]. Reason: %s.',
        '',
        'Fix the error according to the error message.',
    ),
    "E19005": (
        'Failure to Parse File',
        'Failed to parse file [%s].',
        '',
        'Check that a matched Protobuf version is installed and try again with a valid file. '
        'For details, see section "--framework" in ATC Instructions.',
    ),
    "E19009": (
        'Operator Name Conflict',
        'Op [%s] has a name conflict in the graph.',
        '',
        'Ensure that the operators in the graph have unique names.',
    ),
    "E19010": (
        'Unsupported Operator',
        'No parser is registered for Op [%s, optype [%s]].',
        '',
        'Check the version of the installation package and reinstall the package. For details, '
        'see the operator specifications.',
    ),
    "E19014": (
        'Operator Data Verification Failure',
        'Value [%s] for Op [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "E19015": (
        'File size invalid',
        'File[%s] size %s is out of valid range(0, %s).',
        '',
        '',
    ),
    "E19018": (
        'Failure to Parse File',
        'Failed to parse file [%s] through [google::protobuf::TextFormat::Parse].',
        'The file may not be in valid protobuf format.',
        '',
    ),
    "E19022": (
        'Insufficient Memory',
        'Model %s requires [%s] memory, which exceeds system limit [%s].',
        '',
        '1. Set variable_memory_max_size and graph_memory_max_size to adjust the memory usage '
        'of variables and feature maps. 2. Reduce the batch size. 3. If the error persists when'
        ' the batch size is reduced to 1, modify the model structure to reduce the model size.',
    ),
    "E19023": (
        'Too Large OM Model',
        'Model %s has size [%s], which exceeds system limit [%s].',
        'The generated OM model is too large and therefore cannot be dumped to the disk.',
        'Reduce the model size.',
    ),
    "E19024": (
        'Invalid Environment Variable',
        'Value [%s] for environment variable [%s] is invalid when %s.',
        '',
        'Reset the environment variable by referring to the setup guide.',
    ),
    "E19025": (
        'Input Tensor Error',
        'Input tensor is invalid. Reason: %s.',
        '',
        '',
    ),
    "E19026": (
        'Input Path Name Error',
        'Input path [%s] is invalid. Reason: %s',
        '',
        '',
    ),
    "E19027": (
        'Input Config Item Error',
        'Failed to connect to the peer address[%s].',
        'ipaddr, port or token is invalid.',
        'Check ipaddr, port or token in the configuration file, ensure that the configuration '
        'is correct.',
    ),
    "E19028": (
        'Custom Fusion Pass Execution Failure',
        'Failed to run custom fusion pass [%s]. Return code is [%s]. Reason: %s.',
        'Refer to the reason provided in the error message.',
        'Check the error log for details and verify whether the fusion logic is correct.',
    ),
    "E19029": (
        'Custom Fusion Pass Load Failure',
        'Failed to load custom fusion pass lib [%s]. Reason: %s.',
        'Refer to the reason provided in the error message.',
        'Analyze the failure reason mentioned above. Below are some typical solutions for '
        'common dlopen failures: 1. Verify the library path is correct and the file exists. 2. '
        'Ensure the library and its dependencies have the correct permissions. 3. Check that '
        "all dependencies are available using the 'ldd'...",
    ),
    "E19030": (
        'Custom Pass Registration Error',
        'Failed to get custom fusion pass func [%s]. Reason: %s.',
        'Refer to the reason provided in the error message.',
        'Check custom pass registration is valid.',
    ),
    "E19999": (
        'System Terminated',
        'Unknown error occurred. Please check the log.',
        'System terminated abnormally without valid error messages.',
        'In this scenario, collect the logs generated when the fault occurs and locate the '
        'fault based on the logs.',
    ),
    "E20001": (
        'Op Compilation Failure',
        'Failed to compile Op [%s]. (optype: [%s])',
        'The operator has an invalid argument.',
        'For a custom operator, check the operator implementation and arguments based on the '
        'error log. For a Huawei built-in operator, submit an issue to request for support at '
        'https://gitee.com/ascend or contact Huawei technical support.',
    ),
    "E20002": (
        'Invalid Environment Variable',
        'Value [%s] for environment variable [%s] is invalid when %s.',
        '',
        'Reset the environment variable by referring to the installation guide.',
    ),
    "E20003": (
        'Invalid Content',
        'Configuration file [%s] for parameter [%s] has invalid content. Reason: [%s]',
        'The content or format of the configuration file does not comply with the '
        'specifications provided in the documentation.',
        'Modify the configuration file by referring to the specifications in the user guide.',
    ),
    "E20007": (
        'Fusion Pass Execution Failure',
        'Failed to run graph fusion pass [%s]. The pass type is [%s]',
        '',
        '1. If the pass code is custom, check the error log and the verification logic. 2. If '
        'the pass code is not custom, perform a complete or partial dump by using npucollect.sh'
        ' and then send the dump to Huawei technical support for fault locating.',
    ),
    "E20101": (
        'Invalid CANN Initialization Argument',
        'Value [%s] for parameter [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "E20103": (
        'Invalid Platform Initialization Argument',
        'Value [%s] for parameter [%s] is invalid. The value must be in the range of (0, %s].',
        '',
        '',
    ),
    "E21001": (
        'File Opening Failure',
        'Failed to open file [%s].',
        '1. The configured file path does not exist. 2. The file permissions are insufficient. '
        '3. An error occurred when installing the system environment.',
        '1. Configure the file path correctly. 2. Configure user permissions correctly. 3. '
        'Reinstall the system environment.',
    ),
    "E21002": (
        'File Read Failure',
        'Failed to read file [%s]. Reason: %s.',
        '',
        'Configure the file path correctly.',
    ),
    "E22001": (
        'Compile result is not found',
        'Compile result is not found for Op [%s, %s].',
        '',
        '',
    ),
    "E30003": (
        'NN Process Count Limit Exceeded',
        'The number of started NN processes exceeds the limit.',
        'Something wrong with queue_schedule.',
        'Wait for 10s after the last training process exited and try again.',
    ),
    "E30004": (
        'NN Process Bin Error',
        'The binary file of the NN process is damaged or the file permissions are incorrect.',
        'The driver package is incorrectly installed.',
        'Reinstall the driver package.',
    ),
    "E30005": (
        'Device Connection Failure',
        'The device failed to be connected.',
        '1. The device is broken. 2. The device failed to be started.',
        '1.Restart the device. 2. Submit an issue on Gitee at https://gitee.com/ascend.',
    ),
    "E30006": (
        'OPP Verification Failure',
        'Failed to verify the OPP',
        '1.The OPP is incorrect.',
        '1. Use a correct OPP.',
    ),
    "E30007": (
        'Cgroup Add Failure',
        'Failed to add the AI CPU scheduler to the Cgroup.',
        '1. The User have no sudo Permission. 2. The Cgroup configuration is incorrect.',
        '1. Check whether the user have sudo Permission or not. 2. Submit an issue on Gitee at '
        'https://gitee.com/ascend.',
    ),
    "E30008": (
        'AI CPU Timeout',
        'AI CPU operator execution time out.',
        '1. For the GetNext operator, its preprocessing duration may be too long. 2. For a '
        'custom operator, its logic may be improper.',
        '1. For the GetNext operator, check its preprocessing or set OpExecuteTimeOut to a '
        'larger value. 2. For a custom operator, make sure its logic is proper.',
    ),
    "E39001": (
        'Invalid Argument',
        'The argument is invalid.',
        'The parameter value is null or the parameter length is invalid.',
        'See the host log for details, and then check the parameter where the error log is '
        'reported.',
    ),
    "E39002": (
        'Driver Function Call Failure',
        'Failed to obtain the number of devices and the device list.',
        'Failed to obtain the device information from the driver.',
        'Check the device logs to see whether the device driver service is normal.',
    ),
    "E39004": (
        'AI CPU Scheduler Initialization Failure',
        'The AI CPU scheduler is abnormal.',
        'Something wrong with aicpu_scheduler',
        'Check the initialization information from device logs.',
    ),
    "E39005": (
        'TSDaemon Process Abnormal',
        'The TSDaemon process is abnormal.',
        'The TSDaemon process failed to be started.',
        'Check the device logs to see if TSDaemon is normal.',
    ),
    "E39006": (
        'Failed to Send OPP to device',
        'Failed to send the OPP to the device.',
        '1.The HDCD process is abnormal. 2. The device failed to be connected.',
        'Check the host and device logs to see if HDC is normal.',
    ),
    "E39007": (
        'Device Subprocess Startup Timeout',
        'Starting a subprocess on the device timed out.',
        '1.The subprocess failed to be started. 2. HDC is abnormal.',
        '1. Check the device logs to see if the subprocess is started is started successfully. '
        '2. Check the host and device logs to see if HDC is normal.',
    ),
    "E40001": (
        'Invalid Environment Variable',
        'Value [%s] for environment variable [%s] is invalid when %s.',
        '',
        'Reset the environment variable by referring to the installation guide.',
    ),
    "E40002": (
        'Invalid Python Version',
        'The current Python version is [%s]. The system supports only [%s] or later.',
        '',
        '',
    ),
    "E40003": (
        'Failed to Open JSON File',
        'Failed to open the JSON file: %s',
        '1. The file has been deleted. 2. You do not have the permission to open the file. 3. '
        'The file is locked.',
        'Run your program again in a single-user environment(to ensure that no other user '
        'accesses the file)',
    ),
    "E40020": (
        'Failure to Import Python Module',
        'Failed to import Python module [%s] and Reason is [%s].',
        '',
        'Check that all required components are properly installed and the specified Python '
        'path matches the Python installation directory. (If the path does not match the '
        'directory, run set_env.sh in the installation package.)',
    ),
    "E40021": (
        'Failure to Compile Op',
        'Failed to compile Op [%s]. (oppath: [%s], optype: [%s])',
        '',
        'See the host log for details, and then check the Python stack where the error log is '
        'reported.',
    ),
    "E40022": (
        'Invalid Argument',
        'Value [%s] for parameter [%s] is invalid. The value must be in the range of [%s].',
        '',
        '',
    ),
    "E40023": (
        'Invalid Path',
        'Path [%s] for [%s] is invalid. Result: %s. Reason: %s.',
        'The path does not exist.',
        '',
    ),
    "E40024": (
        'Call Python Func or Method Expection',
        'Failed call Python Func/Method [%s], Reason[%s]',
        'The Python Func/Method does not exist.',
        '1.Check that the spelling of the invoked function is correct or the Python dependency '
        'library is installed. 2.Set CANN environment variables. 3.Reinstall the CANN package.',
    ),
    "E50000": (
        '',
        'The op [%s] missing [%s] parameter',
        '',
        '',
    ),
    "E50001": (
        '',
        'The length of input [%s] of [%s] op needs to be %s, but the length is [%s]',
        '',
        '',
    ),
    "E50002": (
        '',
        'The format of input [%s] of [%s] op needs to be [%s], but incoming format is [%s]',
        '',
        '',
    ),
    "E50003": (
        '',
        'The data type of input [%s] of [%s] op needs to be [%s], but incoming data type is [%s]',
        '',
        '',
    ),
    "E50004": (
        '',
        '1.The op [%s] input [%s] data type is [%s], but input [%s] data type is [%s], They '
        'must meet the rule [%s]',
        '',
        '',
    ),
    "E50009": (
        '',
        '1.The op [%s] has rule: [%s], but input [%s] shape is [%s]',
        '',
        '',
    ),
    "E50012": (
        '',
        'The [%s] op has rule: %s, but [%s] is [%s]',
        '',
        '',
    ),
    "E50029": (
        '',
        'The op[%s] input parameter[%s] should be [%s], actual the input is [%s]',
        '',
        '',
    ),
    "E50030": (
        '',
        'The op[%s] required input parameter[%s] must exist.',
        '',
        '',
    ),
    "E50031": (
        '',
        'In op[%s], the [%s] of [%s] and [%s] must be same, actual the [%s] of [%s] is [%s] and'
        ' the [%s] of [%s] is [%s]',
        '',
        '',
    ),
    "E50032": (
        '',
        'When dtype of a is [%s], the op[%s] out dtype must in [%s], actual out dtype is [%s]',
        '',
        '',
    ),
    "E50033": (
        '',
        'The format of [%s] of op[%s] must in [%s], actual format is [%s]',
        '',
        '',
    ),
    "E50034": (
        '',
        'The dtype of [%s] of op[%s] must in [%s], actual dtype is [%s]',
        '',
        '',
    ),
    "E50035": (
        '',
        'In op[%s], the dim of [%s] must be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E50036": (
        '',
        'When the shape of a is [%s] and the shape of b is [%s], the shape of c of op [%s] must'
        ' be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E50037": (
        '',
        'The format of [%s] of op[%s] must in [%s], actual format is [%s]',
        '',
        '',
    ),
    "E50038": (
        '',
        'In op [%s], the 1d value of shape a should be equal to 0d value of shape b, actual '
        'input are [%s] and [%s]',
        '',
        '',
    ),
    "E50039": (
        '',
        "In op[%s], the channel of x should be equal to filter's, actual input are [%s] and [%s]",
        '',
        '',
    ),
    "E50040": (
        '',
        'In op[%s], the [%s] must in range [%s], actual is [%s]',
        '',
        '',
    ),
    "E50041": (
        '',
        "In op[%s], the depth of feature map after padding can not be less than shape_filter's,"
        ' actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50042": (
        '',
        "In op[%s], the depth of pad can not be less than shape_filter's, actual are [%s] and "
        '[%s]',
        '',
        '',
    ),
    "E50043": (
        '',
        'In op[%s], x H(after pad) must >= filter H, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50044": (
        '',
        'In op[%s], x W(after pad) must >= filter W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50045": (
        '',
        'In op[%s],filter H must > Pad H, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50046": (
        '',
        'In op[%s],filter W must > Pad W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50047": (
        '',
        'In op[%s], x W(after pad) must >= stride W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50048": (
        '',
        'In op[%s], x W(after pad) must >= stride W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50049": (
        '',
        'In op[%s], [%s] exceed 64 bit limitations',
        '',
        '',
    ),
    "E50050": (
        '',
        'In op [%s], only support pads model [%s], actual is [%s]',
        '',
        '',
    ),
    "E50051": (
        '',
        'In op[%s], Invalid input size due to large kernel size and stride',
        '',
        '',
    ),
    "E50052": (
        '',
        'In op[%s], Dilations in the batch and depth dimensions must be 1,actual are [%s] and '
        '[%s].',
        '',
        '',
    ),
    "E50053": (
        '',
        'In op[%s], Shape error : The compute result of H under convolution rule cannot match',
        '',
        '',
    ),
    "E50054": (
        '',
        'In op[%s], Shape error : The compute result of W under convolution rule cannot match',
        '',
        '',
    ),
    "E50055": (
        '',
        'In op[%s], Input is too large, the minimum tiling may exceed L1_Buffer',
        '',
        '',
    ),
    "E50056": (
        '',
        'In V200 op[%s],dilation_h and dilation_w must be 1,actual are [%s] and [%s]',
        '',
        '',
    ),
    "E50057": (
        '',
        'In op [%s], set either [%s] or [%s], not both',
        '',
        '',
    ),
    "E50058": (
        '',
        'In op [%s], [%s]',
        '',
        '',
    ),
    "E50059": (
        '',
        'In op[%s], x channel should be equal to filter channel*groups, x shape is: [%s], '
        'filter shape is: [%s], groups is: [%s]',
        '',
        '',
    ),
    "E50060": (
        '',
        'In op [%s], [%s]',
        '',
        '',
    ),
    "E60000": (
        '',
        'The op[%s] input parameter[%s] should be [%s], actual the input is [%s]',
        '',
        '',
    ),
    "E60001": (
        '',
        'The op[%s] required input parameter[%s] must exist.',
        '',
        '',
    ),
    "E60002": (
        '',
        'In op[%s], the [%s] of [%s] and [%s] must be same, actual the [%s] of [%s] is [%s] and'
        ' the [%s] of [%s] is [%s]',
        '',
        '',
    ),
    "E60003": (
        '',
        'When dtype of a is [%s], the op[%s] out dtype must in [%s], actual out dtype is [%s]',
        '',
        '',
    ),
    "E60004": (
        '',
        'The format of [%s] of op[%s] must in [%s], actual format is [%s]',
        '',
        '',
    ),
    "E60005": (
        '',
        'The dtype of [%s] of op[%s] must in [%s], actual dtype is [%s]',
        '',
        '',
    ),
    "E60006": (
        '',
        'In op[%s], the dim of [%s] must be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E60007": (
        '',
        'When the shape of a is [%s] and the shape of b is [%s], the shape of c of op [%s] must'
        ' be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E60008": (
        '',
        'The original format of [%s] of op[%s] must in [%s], actual format is [%s]',
        '',
        '',
    ),
    "E60009": (
        '',
        'In op [%s], the 1d value of shape a should be equal to 0d value of shape b, actual '
        'input are [%s] and [%s]',
        '',
        '',
    ),
    "E60010": (
        '',
        "In op[%s], the channel of a should be equal to filter's, actual input are [%s] and [%s]",
        '',
        '',
    ),
    "E60011": (
        '',
        'In op[%s], the [%s] must in range [%s], actual is [%s]',
        '',
        '',
    ),
    "E60012": (
        '',
        "In op[%s], the depth of feature map after padding can not be less than shape_filter's,"
        ' actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60013": (
        '',
        "In op[%s], the depth of pad must be smaller than shape_filter's, actual are [%s] and "
        '[%s]',
        '',
        '',
    ),
    "E60014": (
        '',
        'In op[%s], x H(after pad) must >= filter H, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60015": (
        '',
        'In op[%s], x W(after pad) must >= filter W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60016": (
        '',
        'In op[%s],filter H must > Pad H, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60017": (
        '',
        'In op[%s],filter W must > Pad W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60018": (
        '',
        'In op[%s], x W(after pad) must >= stride W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60019": (
        '',
        'In op[%s], x W(after pad) must >= stride W, actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60020": (
        '',
        'In op[%s], [%s] exceed 64 bit limitations',
        '',
        '',
    ),
    "E60021": (
        '',
        'In op [%s], only support pads model [%s], actual is [%s]',
        '',
        '',
    ),
    "E60022": (
        '',
        'In op[%s], Invalid input size due to large kernel size and stride',
        '',
        '',
    ),
    "E60023": (
        '',
        'In op[%s], Dilations in the batch and depth dimensions must be 1,actual are [%s] and '
        '[%s].',
        '',
        '',
    ),
    "E60024": (
        '',
        'In op[%s], Shape error : The compute result of H under convolution rule cannot match',
        '',
        '',
    ),
    "E60025": (
        '',
        'In op[%s], Shape error : The compute result of W under convolution rule cannot match',
        '',
        '',
    ),
    "E60026": (
        '',
        'In op[%s], Input is too large, the minimum tiling may exceed L1_Buffer',
        '',
        '',
    ),
    "E60027": (
        '',
        'In V200 op[%s],dilation_h and dilation_w must be 1,actual are [%s] and [%s]',
        '',
        '',
    ),
    "E60028": (
        '',
        'The op [%s] input parameter [%s] should be [%s] type, but the type you enter is [%s]',
        '',
        '',
    ),
    "E60029": (
        '',
        'The op [%s] [%s] input does not contain the [%s] key',
        '',
        '',
    ),
    "E60030": (
        '',
        'The length of input [%s] of [%s] op needs to be [%s],but the length is [%s]',
        '',
        '',
    ),
    "E60031": (
        '',
        'The format of input [%s] of [%s] op needs to be [%s], but the format you enter is [%s]',
        '',
        '',
    ),
    "E60032": (
        '',
        'The input[%s] data type of the op[%s] is [%s], but the data type you enter is [%s]',
        '',
        '',
    ),
    "E60033": (
        '',
        'The op [%s] has rule: %s, but [%s] is [%s]',
        '',
        '',
    ),
    "E60034": (
        '',
        "The op [%s]'s kernel name[%s] is invalid, it can only contain letters, numbers and "
        'underscores, and begin with underscores or letters',
        '',
        '',
    ),
    "E60035": (
        '',
        'The op [%s] does not support this fusion mode',
        '',
        '',
    ),
    "E60037": (
        '',
        'In op[%s], the type of [%s] should be in [%s], actual is [%s]',
        '',
        '',
    ),
    "E60038": (
        '',
        'In op[%s], [%s]',
        '',
        '',
    ),
    "E60039": (
        '',
        'In op[%s], the [%s] of [%s] should be [%s] than [%s], actual is [%s]',
        '',
        '',
    ),
    "E60040": (
        '',
        'The op[%s] [%s] requires attribute [%s]',
        '',
        '',
    ),
    "E60101": (
        '',
        'In op[%s], the last 2 dim of [%s] should be [%s], actual are [%s]',
        '',
        '',
    ),
    "E60102": (
        '',
        'When the shape of a is [%s] and the shape of b is [%s], the first 2 dims of c of '
        'op[%s] must be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E60103": (
        '',
        'In op[%s], block_in of a should be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E60104": (
        '',
        'In op[%s], block_reduce of a should be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E60105": (
        '',
        'In op[%s], block_out of b should be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E60106": (
        '',
        'In op[%s], block_reduce of b should be [%s], actual input is [%s]',
        '',
        '',
    ),
    "E60107": (
        '',
        'In op[%s], [%s] should be 4d list',
        '',
        '',
    ),
    "E60108": (
        '',
        'In op[%s], [%s]',
        '',
        '',
    ),
    "E60109": (
        '',
        'In op[%s], input_memory_type should be 0 or 2, actual is [%s]',
        '',
        '',
    ),
    "E60110": (
        '',
        'In op[%s], output_memory_type should be 0 or 2, actual [%s]',
        '',
        '',
    ),
    "E60111": (
        '',
        'In op[%s], slice_offset is valid, actual is [%s]',
        '',
        '',
    ),
    "E60112": (
        '',
        'In op[%s], valid_shape is valid, actual valid_shape is [%s] and shape_in is [%s]',
        '',
        '',
    ),
    "E60113": (
        '',
        "When dtype of b is int8, the op[%s]'s parameter[transpose_b] value must be False.",
        '',
        '',
    ),
    "E60114": (
        '',
        'In op[%s], [%s],actual is [%s]',
        '',
        '',
    ),
    "E60115": (
        '',
        'The op [%s] get illegal tiling parameter',
        '',
        '',
    ),
    "E60116": (
        '',
        'tiling query has rule: %s',
        '',
        '',
    ),
    "E60117": (
        '',
        'Failed to generate solution space, because of %s',
        '',
        '',
    ),
    "E60118": (
        '',
        'Invalid platform,only support [%s]',
        '',
        '',
    ),
    "E60119": (
        '',
        'In op[%s], Input is too large, the minimum tiling may exceed UB_Buffer',
        '',
        '',
    ),
    "E61000": (
        '',
        'In op [%s], [%s] should be 4d list',
        '',
        '',
    ),
    "E61001": (
        '',
        'In op [%s], [%s]',
        '',
        '',
    ),
    "E61203": (
        '',
        'In op [%s], [%s] , the value is [%s] and [%s]',
        '',
        '',
    ),
    "E61204": (
        '',
        'In op [%s], [%s] , the value is [%s]',
        '',
        '',
    ),
    "E61205": (
        '',
        'In op[%s], [%s]',
        '',
        '',
    ),
    "E61300": (
        '',
        'In op [%s], [%s] must be [%s] [%s]',
        '',
        '',
    ),
    "E61301": (
        '',
        'In op [%s], [%s] must be equal to [%s]',
        '',
        '',
    ),
    "E61500": (
        '',
        'In op [%s], input_memory_type should be 0 or 1 or 2, actual is [%s]',
        '',
        '',
    ),
    "E61501": (
        '',
        'In op [%s], output_memory_type should be 0 or 1 or 2, actual [%s]',
        '',
        '',
    ),
    "E61600": (
        '',
        'In op [%s] param [%s] must > 0',
        '',
        '',
    ),
    "E61601": (
        '',
        'In op [%s], if it is the [%s] cut shape, the [%s] must be [%s]',
        '',
        '',
    ),
    "E61602": (
        '',
        'In op [%s] input parameter [%s] should be [%s] type, but the type you enter is [%s]',
        '',
        '',
    ),
    "E61603": (
        '',
        'In op [%s] [%s] must equal to [%s]',
        '',
        '',
    ),
    "E62001": (
        '',
        'In op[%s],dilation_h, dilation_w and dilation_d must be 1,actual are [%s], [%s] and '
        '[%s].',
        '',
        '',
    ),
    "E62002": (
        '',
        'In op[%s], the type and dim of [%s] must be [%s] and [%s], actual they are [%s] and '
        '[%s] respectively.',
        '',
        '',
    ),
    "E62003": (
        '',
        'In op[%s], the size of [%s] on [%s] dimension should be in range [%s], but it is [%s].',
        '',
        '',
    ),
    "E62004": (
        '',
        'In op[%s],filter D must > Pad D, actual they are [%s] and [%s].',
        '',
        '',
    ),
    "E62005": (
        '',
        'In op[%s], x D(after pad) must >= stride D, actual they are [%s] and [%s].',
        '',
        '',
    ),
    "E62006": (
        '',
        'In op[%s],[%s].',
        '',
        '',
    ),
    "E62301": (
        '',
        'In op[%s], the second value of BL1_shape should be a factor of the block num, actual '
        'input is [%s].',
        '',
        '',
    ),
    "E62302": (
        '',
        'In op[%s], the second value of BL1_shape should be even number, but actually it is [%s].',
        '',
        '',
    ),
    "E62303": (
        '',
        'In op[%s], the value of AL1_shape & BL1_shape are not reasonable, which are [%s] and '
        '[%s].',
        '',
        '',
    ),
    "E62304": (
        '',
        'In op[%s], the dim of [%s] should be [%s], but it is [%s].',
        '',
        '',
    ),
    "E62305": (
        '',
        'In op[%s], the value of [%s] should be [%s], but it is [%s].',
        '',
        '',
    ),
    "E62306": (
        '',
        'In op[%s], [%s].',
        '',
        '',
    ),
    "E62501": (
        '',
        'In op[%s], [%s] should be 6d list.',
        '',
        '',
    ),
    "E62502": (
        '',
        'In op[%s], there is a division by zero operation during calculating, the oprands are '
        '[%s] and [%s].',
        '',
        '',
    ),
    "E62503": (
        '',
        "In op[%s], the Fmap's batch must be equal to the batch in backpropagation, it should "
        'be [%s], but actually it is [%s].',
        '',
        '',
    ),
    "E62504": (
        '',
        "In op[%s], the Dedy's channel must be equal to the Filter's batch in backpropagation, "
        'it should be [%s], but actually it is [%s].',
        '',
        '',
    ),
    "E62505": (
        '',
        "In op[%s], the input's channel must be equal to the Filter's batch in backpropagation,"
        ' it should be [%s], but actually it is [%s].',
        '',
        '',
    ),
    "E62506": (
        '',
        "In op[%s], the Dedy's channel must be equal to the Filter's channel in "
        'backpropagation, it should be [%s], but actually it is [%s].',
        '',
        '',
    ),
    "E62507": (
        '',
        'In op[%s], the [%s] dim of Filter(after dilation) must be less than the corresponding '
        'dim of input(after padding), they are [%s] and [%s].',
        '',
        '',
    ),
    "E62508": (
        '',
        'In op[%s], Shape error : The compute result of D under convolution rule cannot match.',
        '',
        '',
    ),
    "E62509": (
        '',
        'In op[%s], the type of axis of [%s] must be positive int.',
        '',
        '',
    ),
    "E62510": (
        '',
        'In op[%s], Dilations in the batch and channel dimensions must be 1.',
        '',
        '',
    ),
    "E62511": (
        '',
        'In op[%s], C0 must be 16, but actually it is [%s].',
        '',
        '',
    ),
    "E64001": (
        '',
        'In op[%s], the [%s] must be int and in range [%s], actual is [%s]',
        '',
        '',
    ),
    "E64002": (
        '',
        'In op[%s], [%s] must be equal to [%s], while the input of them are [%s]',
        '',
        '',
    ),
    "E64003": (
        '',
        'In op[%s], shape format of [%s] must be [%s], and the dim is [%s], actual the dim is '
        '[%s]',
        '',
        '',
    ),
    "E64004": (
        '',
        'In op[%s], The type of axis of [%s] must be [%s], actual the [%s]ed axis is [%s]',
        '',
        '',
    ),
    "E64005": (
        '',
        'In op[%s], pads must less than filter In [%s], actual input of [%s] are [%s] while '
        'filter is [%s]',
        '',
        '',
    ),
    "E64006": (
        '',
        'In tiling of op [%s], k of [%s] must be integral multiply of [%s], actual are [%s] and'
        ' [%s]',
        '',
        '',
    ),
    "E64007": (
        '',
        'In tiling of op [%s], [%s] of L1 must be integral multiply of L0, that mean [%s] must '
        '>=1, actual it is [%s]',
        '',
        '',
    ),
    "E64008": (
        '',
        'In tiling of op [%s], [%s] of [%s] and [%s] must be same, actual they are [%s] and [%s]',
        '',
        '',
    ),
    "E64009": (
        '',
        'In tiling of op [%s], it has rules: CUB_matrix[1] = CL0_matrix[1], CUB_matrix[0] is a '
        'factor of CL0_matrix[0]',
        '',
        '',
    ),
    "E64010": (
        '',
        'In tiling of op [%s], value of [%s] can only be 1 or 2, while the value is [%s]',
        '',
        '',
    ),
    "E65001": (
        '',
        'In op [%s], The type of axis of [%s] must be [%s], actual the [%s]ed axis is [%s]',
        '',
        '',
    ),
    "E65002": (
        '',
        'In op [%s], the dtype of [%s] and [%s] must be equal',
        '',
        '',
    ),
    "E65003": (
        '',
        'In op[%s], shape format of [%s] must be [%s], and the dim is [%s], actual the dim is '
        '[%s]',
        '',
        '',
    ),
    "E65004": (
        '',
        'In op[%s], deconvolution not support offset_w now.',
        '',
        '',
    ),
    "E65005": (
        '',
        'In op[%s], [%s] must <= [%s]',
        '',
        '',
    ),
    "E65006": (
        '',
        'In op[%s], the [%s] must be int and in range [%s], actual is [%s]',
        '',
        '',
    ),
    "E65007": (
        '',
        'In op[%s], [%s] must be equal to [%s], while the input of them are [%s]',
        '',
        '',
    ),
    "E65008": (
        '',
        'In op [%s], input_memory_type should be [%s], actual is [%s]',
        '',
        '',
    ),
    "E65009": (
        '',
        'In op [%s], output_memory_type should be [%s], actual is [%s]',
        '',
        '',
    ),
    "E68000": (
        '',
        'the tiling_type is error, only support [%s], but tiling_type is [%s].',
        '',
        '',
    ),
    "E68001": (
        '',
        'info_dict should be dict, but the input type is [%s].',
        '',
        '',
    ),
    "E68002": (
        '',
        'the keyword [%s] is missing in input params.',
        '',
        '',
    ),
    "E68003": (
        '',
        'only support: [%s], but the input is [%s].',
        '',
        '',
    ),
    "E68004": (
        '',
        'the type of param is illegal, only support [%s], but the type of param is [%s].',
        '',
        '',
    ),
    "E68005": (
        '',
        'the length of param is illegal, only support [%s], but the length of param is [%s].',
        '',
        '',
    ),
    "E68006": (
        '',
        "the input param is illegal, don't support [%s], but the param is [%s].",
        '',
        '',
    ),
    "E68007": (
        '',
        'the input param is illegal, only support [%s], but the param is [%s].',
        '',
        '',
    ),
    "E68008": (
        '',
        'the fm_l1_valid_size must be 1/2, 3/4, 1 times fm_shape_size, but fm_l1_valid_size is '
        '[%s], fm_shape_size is [%s].',
        '',
        '',
    ),
    "E68009": (
        '',
        'when it is tuning tiling mode, illegal current input params is: [%s].',
        '',
        '',
    ),
    "E68010": (
        '',
        'when it is tuning tiling mode, illegal previous input params is: [%s].',
        '',
        '',
    ),
    "E68011": (
        '',
        'tiling params is changed, previous input is [%s], current input is [%s].',
        '',
        '',
    ),
    "E68012": (
        '',
        'tiling mode is not tuning tiling, current is [%s].',
        '',
        '',
    ),
    "E68013": (
        '',
        'only support legal tiling, but the return value of tiling is [%s].',
        '',
        '',
    ),
    "E68014": (
        '',
        'the tiling_type is error, dynamic shape not support [%s].',
        '',
        '',
    ),
    "E68015": (
        '',
        'only support [%s], but the type of return value is [%s].',
        '',
        '',
    ),
    "E68016": (
        '',
        'the environment path [%s] is not set or invalid, expect [%s].',
        '',
        '',
    ),
    "E68017": (
        '',
        'the [%s] model does not support [%s] type.',
        '',
        '',
    ),
    "E68050": (
        '',
        '[%s] close failed.',
        '',
        '',
    ),
    "E68051": (
        '',
        '[%s] should not be empty.',
        '',
        '',
    ),
    "E68052": (
        '',
        'get function [%s] failed.',
        '',
        '',
    ),
    "E68053": (
        '',
        'only support: [%s].',
        '',
        '',
    ),
    "E68054": (
        '',
        '[%s] plugin handler is NULL!',
        '',
        '',
    ),
    "E68055": (
        '',
        'mode = [%s] is not found in [%s].',
        '',
        '',
    ),
    "E68056": (
        '',
        'platform flag [%s] is not supported.',
        '',
        '',
    ),
    "E68057": (
        '',
        'not support costmodel query for platform flag [%s].',
        '',
        '',
    ),
    "E68058": (
        '',
        'not support costmodel query for opTag [%s].',
        '',
        '',
    ),
    "E68059": (
        '',
        'cannot find corresponding hardware platform name for platform flag [%s].',
        '',
        '',
    ),
    "E68060": (
        '',
        'cannot find corresponding op name for opTag [%s].',
        '',
        '',
    ),
    "E68061": (
        '',
        'not support repository query for platform flag [%s].',
        '',
        '',
    ),
    "E68062": (
        '',
        'not support repository query for opTag [%s].',
        '',
        '',
    ),
    "E68063": (
        '',
        'cannot find corresponding platform flag for platform [%s].',
        '',
        '',
    ),
    "E68064": (
        '',
        'CceConfBase::GetInstance Failed.',
        '',
        '',
    ),
    "E68065": (
        '',
        'cannot find corresponding loaded [%s].',
        '',
        '',
    ),
    "E68066": (
        '',
        'current operation caused data overflow.',
        '',
        '',
    ),
    "E68067": (
        '',
        'tiling index [%s] should not be [%s].',
        '',
        '',
    ),
    "E68068": (
        '',
        'kAL1/kBL1 should be greater than 0 and less than or equal to l1buffer.',
        '',
        '',
    ),
    "E68069": (
        '',
        '[%s] should be less than or equal to [%s].',
        '',
        '',
    ),
    "E68070": (
        '',
        'size of [%s] should be greater than [%s].',
        '',
        '',
    ),
    "E68071": (
        '',
        'mDim is zero, illegal!',
        '',
        '',
    ),
    "E68072": (
        '',
        'divisor can not be zero!',
        '',
        '',
    ),
    "E68073": (
        '',
        'The keyword [%s] is not in [%s].',
        '',
        '',
    ),
    "E68074": (
        '',
        'run function [%s] failed.',
        '',
        '',
    ),
    "E68075": (
        '',
        '[%s] can not be zero.',
        '',
        '',
    ),
    "E68076": (
        '',
        'value at index [%s] of [%s] can not be zero.',
        '',
        '',
    ),
    "E68077": (
        '',
        'the length of all features not up to 46.',
        '',
        '',
    ),
    "E68078": (
        '',
        'size of index should be even.',
        '',
        '',
    ),
    "E68079": (
        '',
        'cost model close failed.',
        '',
        '',
    ),
    "E68080": (
        '',
        'cost model can not be NULL!',
        '',
        '',
    ),
    "E68081": (
        '',
        'doing [%s] node decompress fail.',
        '',
        '',
    ),
    "E68082": (
        '',
        'the [%s] tree node can not be NULL!',
        '',
        '',
    ),
    "E68083": (
        '',
        'repository is empty!',
        '',
        '',
    ),
    "E68084": (
        '',
        'the readable length of key and value of repository are not equal!',
        '',
        '',
    ),
    "E68085": (
        '',
        'current op can not be L1 fusion.',
        '',
        '',
    ),
    "E68086": (
        '',
        'current op can not be L1/L2 fusion.',
        '',
        '',
    ),
    "E68087": (
        '',
        'size of [%s] should be greater than or equal to [%s].',
        '',
        '',
    ),
    "E68088": (
        '',
        '[%s] open failed.',
        '',
        '',
    ),
    "E68089": (
        '',
        'tiling is not found in repository file.',
        '',
        '',
    ),
    "E70001": (
        '',
        'In op[%s], the mandatory parameter[%s] is missed.',
        '',
        '',
    ),
    "E70002": (
        '',
        'In op[%s], the format of input[%s] should be one of [%s], but actually is [%s].',
        '',
        '',
    ),
    "E70003": (
        '',
        'In op[%s], the dtype of input[%s] should be one of [%s], but actually is [%s].',
        '',
        '',
    ),
    "E70004": (
        '',
        "In op[%s], the parameter[%s]'s type should be [%s], but actually is [%s].",
        '',
        '',
    ),
    "E70005": (
        '',
        'Op[%s] get attr[%s] failed.',
        '',
        '',
    ),
    "E70006": (
        '',
        'Op[%s] set attr[%s] failed.',
        '',
        '',
    ),
    "E70007": (
        '',
        'The op[%s] input parameter[%s] should be [%s], actual the input is [%s].',
        '',
        '',
    ),
    "E70008": (
        '',
        'The op [%s] update [%s] param failed.',
        '',
        '',
    ),
    "E70009": (
        '',
        'The op [%s] has rule: %s, but [%s] is [%s].',
        '',
        '',
    ),
    "E70010": (
        '',
        'In op[%s], the shape size(product of all dimensions) of input[%s] should less than '
        '[%s], but actually is [%s].',
        '',
        '',
    ),
    "E70011": (
        '',
        'In op[%s], the num of dimensions of input[%s] should be in the range of [%s, %s], but '
        'actually is [%s].',
        '',
        '',
    ),
    "E70012": (
        '',
        'In op[%s], the inputs[%s][%s] could not be broadcast together with shapes[%s][%s].',
        '',
        '',
    ),
    "E70013": (
        '',
        'In op[%s], the dtype of inputs[%s][%s] should be same, but actually is [%s][%s].',
        '',
        '',
    ),
    "E70014": (
        '',
        "In op[aipp], aipp output H and W should be equal to data's H and W, but actually aipp "
        "output H is [%s], aipp output W is [%s], data's H is [%s], data's W is [%s].",
        '',
        '',
    ),
    "E70015": (
        '',
        'In op[%s], the shape of input[%s] is invalid, [%s].',
        '',
        '',
    ),
    "E70016": (
        '',
        'In op[%s], the shape of inputs[%s][%s] are invalid, [%s].',
        '',
        '',
    ),
    "E70017": (
        '',
        'In op[%s], the shape of output[%s] is invalid, [%s].',
        '',
        '',
    ),
    "E70018": (
        '',
        'In op[%s], failed to get compileparams, mainly get [%s] error.',
        '',
        '',
    ),
    "E76002": (
        'ONNX Model Data Error',
        'No ONNX parser is registered for optype [%s].',
        'No parser is registered for the optype in ONNX model conversion.',
        'Submit an issue to request for support at https://gitee.com/ascend, or remove this '
        'type of operators from your model.',
    ),
    "E80001": (
        'Invalid Config Value',
        'The %s information is missing in the %s configuration file of OPP package',
        '',
        'try to reinstall the OPP package.',
    ),
    "E90000": (
        '',
        'Compile operator failed, cause: %s %s',
        '',
        '',
    ),
    "E90001": (
        '',
        'Compile operator failed, cause: Parameters check failed, detailed information: %s.',
        '',
        '',
    ),
    "E90002": (
        '',
        'Compile operator failed, cause: The limitation of instruction, detailed information: %s.',
        '',
        '',
    ),
    "E90003": (
        '',
        'Compile operator failed, cause: Template constraint, detailed information: %s.',
        '',
        '',
    ),
    "EA0000": (
        '',
        'Compile operator failed, cause: %s, %s',
        '',
        '',
    ),
    "EB0000": (
        'Invalid IR',
        'Failed to compile the operator. Reason:%s, %s',
        'The IR is invalid.',
        'Check that the Compute and Schedule APIs are used correctly. For details, see the TBE '
        'Custom Operator Developer Guide. If the error persists, contact Huawei technical '
        'support.',
    ),
    "EB0500": (
        'Common Compilation Python Error',
        'Compiler Error check failed. Reason: %s',
        'Please analyze reason according to the ErrMessage.',
        'Please modify the configuration according to the ErrMessage.',
    ),
    "EB1000": (
        'Primitives Error',
        'Primitives check failed. Reason: %s',
        '1.The Primitives are not properly usedor not aligned. 2. Incorrect parameter types are'
        ' used. 3. The correct primitive is not punched on the corresponding axis.',
        'Check the schedule and compute statements to ensure that the schedule is correct.',
    ),
    "EB3000": (
        'Memory Error',
        'Memory allocation check failed. Reason: %s',
        'The allocated memory is out of the allowed range.',
        'Check whether the size of the specified memory is incorrectly calculated.',
    ),
    "EB4000": (
        'Emit Insn Error',
        'Insn check failed. Reason: %s',
        'The command parameter is incorrect.',
        'Check whether the offset address of the instruction map is aligned and whether the '
        'correct instruction is selected.',
    ),
    "EB9000": (
        'Common Compilation Optimization Error',
        'Compiler Error check failed. Reason: %s',
        'The IR is invalid.',
        '',
    ),
    "EC0000": (
        'Remote Device Connection Failure',
        'Failed to connect the remote device [IP: %s, Port: %s].',
        '',
        '1.Check the IP and port values in the config.json file in the '
        '${install_path}/python/site-packages/auto_tune/estimate/python/ directory. 2.Check '
        'whether the remote device is normal.',
    ),
    "EC0001": (
        'Remote Device Login Failure',
        'User [%s] failed to log in to the remote device.',
        '',
        'Check the username or password in the config.json file in the '
        '${install_path}/python/site-packages/auto_tune/estimate/python/ directory.',
    ),
    "EC0002": (
        'Invalid NFS Mount Path',
        'Remote mount path [%s] does not exist.',
        '',
        'Try again with a valid NFS mount path.',
    ),
    "EC0003": (
        'File Not Found',
        'File [tss/bin/kernel_perf_comm] does not exist in remote mount path [%s].',
        '',
        '',
    ),
    "EC0004": (
        'Permission Denied',
        'The permissions for tss/bin or tss/bin/kernel_perf_comm in the remote mount path[%s] '
        'are insufficient.',
        '',
        '1. Check that the current user has the "rwx" permissions for tss/bin and '
        'tss/bin/kernel_perf_comm. 2. Check that the current user is the root user.',
    ),
    "EC0005": (
        'Invalid Argument',
        'Value for parameter [--soc_version] is invalid or the config.json is not set correctly.',
        'The SoC version does not match the device or the config.json is not set correctly.',
        '',
    ),
    "EC0006": (
        'Directory Operation Failure',
        'Directory operation failed. Reason: %s.',
        '',
        '',
    ),
    "EC0007": (
        'Invalid Environment Variable',
        'The environment variable argument is invalid. Value [%s] for environment variable [%s]'
        ' must be less than [%s].',
        '',
        '',
    ),
    "EC0008": (
        'Invalid Environment Variable',
        'Environment variable [%s] is not set. Use bash command [env] to check whether the '
        'environment variable is missing, and then use the [export] command to set it '
        'correctly.',
        '',
        '',
    ),
    "EC0009": (
        'Resources Insufficient',
        'Computing resources are insufficient. Reason: %s.',
        '1. Memory resources are insufficient. 2. The number of file handles exceeds the limit.',
        '1. Check whether the memory usage reaches the upper limit. 2. Check whether the file '
        'handle usage reaches the system limit.',
    ),
    "EC0010": (
        'Failure to Import Python Module',
        'Failed to import Python module [%s].',
        '',
        'Check that all required components are properly installed and the specified Python '
        'path matches the Python installation directory. (If the path does not match the '
        'directory, run set_env.sh in the installation package.)',
    ),
    "EC0011": (
        'User Permission Denied',
        'The permissions for current user in the custom strategy path[%s] are insufficient.',
        '',
        'Check that the current user has the "rwx" permissions in custom strategy file path or '
        'Check that the current user is the root user.',
    ),
    "EC0012": (
        'Invalid Environment Variable',
        'Value [%s] for environment variable [%s] is invalid.',
        '',
        'Reset the environment variable by referring to the product documentation.',
    ),
    "ED0000": (
        'Device Check Failure',
        'Failed to obtain the basic information about the remote device.',
        '',
        'Check that the device is operating normally.',
    ),
    "ED0001": (
        'Invalid Argument',
        'Value [%s] for parameter [--soc_version] is invalid. Reason: The SoC version does not '
        'match device [%s].',
        '',
        '',
    ),
    "ED0002": (
        'Invalid Environment Variable',
        'The environment variable argument is invalid. Value [%s] for environment variable [%s]'
        ' must be less than [%s].',
        '',
        '',
    ),
    "EE1001": (
        'Invalid Argument',
        'The argument is invalid.Reason: %s',
        '',
        '1.Check the input parameter range of the function. 2.Check the function invocation '
        'relationship.',
    ),
    "EE1002": (
        'Stream synchronize timeout',
        'Stream synchronize timeout. %s',
        '1. The timeout interval may be improperly set.',
        '1. Check whether the timeout interval is properly set. 2. Check whether the network is'
        ' normal.',
    ),
    "EE4001": (
        'Model Binding Errors',
        'Failed to bind the stream to the model. %s',
        'The stream has been bound to another model.',
        'Remove the repeated binding operation on the stream from the code.',
    ),
    "EE4002": (
        'Model Unbinding Errors',
        'Failed to unbind the stream to the model. %s',
        '1.The stream to be unbound is not bound to the model. 2.The model is running.',
        '1.Check the code to ensure that the stream to be unbound is bound to the model. '
        '2.Ensure that the model is not running.',
    ),
    "EE4004": (
        'Profiling Enable Errors',
        'Failed to enable profiling. %s',
        '',
        'Do not enable profiling repeatedly.',
    ),
    "EF0000": (
        'Invalid Directory',
        'Failed to open the directory where repository file [%s] is located with read, write '
        'and execute permissions.',
        '',
        'Check the existence and permissions of the directory. If the directory does not exist,'
        ' create one with read, write and execute permissions.',
    ),
    "EF0001": (
        'Invalid SoC Version',
        'soc_version [%s] is invalid. AOE SGAT is not supported on current platform.',
        '',
        '',
    ),
    "EF0003": (
        'Invalid Environment Variable',
        'The environment variable argument is invalid. Value [%s] for environment variable [%s]'
        ' must be [%s]',
        '',
        '',
    ),
    "EF1001": (
        'Invalid Hierarchical Machine Configuration',
        'Configuration format %s is incorrect.',
        '',
        'Set the environment variable or resource file correctly.',
    ),
    "EF1002": (
        'Repository File Not Exist',
        'Repository file %s does not exist.',
        '',
        '',
    ),
    "EF1003": (
        'Repository File Format Incorrect',
        'The repository file format is incorrect.',
        'The original repository file has been replaced by a file with a different format.',
        'Make sure the format of the repository file is the same as that of the original '
        'repository file in the installed CANN compiler package.',
    ),
    "EF1004": (
        'Fused Optimizer Operator Partition Failure',
        'Failed when processing node %s (%s), which should be connected with Variable or '
        'VariableV2.',
        'The input graph is incorrect.',
        'Pass a correct graph.',
    ),
    "EF1005": (
        'pulp Module Import Failure',
        'Failed to import the pulp module.',
        '',
        'Install the pulp module before running AutoDeploy.',
    ),
    "EF1006": (
        'coin-or-cbc Not Installed or Correctly Configured',
        'coin-or-cbc is not installed or correctly configured.',
        '',
        'Perform operations by referring to the AutoDeploy user guide.',
    ),
    "EF1007": (
        'Python Environment Failure',
        'Failed to call Python.',
        'Python is incorrectly installed or its path is incorrectly configured.',
        'Recompile and install Python.',
    ),
    "EF1008": (
        'Dynamic Shape Not Supported',
        'Dynamic shape is not allowed in computation graphs.',
        '',
        '',
    ),
    "EF1009": (
        'Invalid Slice Number for a Node',
        'The slice number %s that you set for node %s (%s) is invalid.',
        'An invalid character string is set as the slice number for the node.',
        'Set the slice number to a positive integer, or do not set the slice number at all, in '
        'which case the default slice number will be used.',
    ),
    "EF1010": (
        'Multiple Slice Numbers Set for a Node Scope',
        'Inconsistent custom slice numbers have been found in scope %s, for example %s and %s.',
        'Multiple slice numbers are set for a node scope to be sliced.',
        'Set the expected slice number for only one node in the scope, or do not set the slice '
        'number at all, in which case the default slice number will be used.',
    ),
    "EF1011": (
        'Unsupported Attribute for a Node',
        'The attribute _process_node_engine_id marked as %s for node %s (%s) is invalid.',
        "The attribute _process_node_engine_id is marked with value other than 'NPU' for the "
        'node.',
        'Unset the attribute _process_node_engine_id in the compute graph or set the value to '
        "'NPU'.",
    ),
    "EF1012": (
        'Invalid Graph Parallel Option Configuration',
        'Configuration of graph parallel option is incorrect.',
        'Tensor parallel size or data parallel size is incorrect.',
        'Make sure the options in graph_parallel_option.json are correct: 1. If both '
        'tensor_parallel_option and data_parallel_option are set, the total parallel size (i.e.'
        ' tensor_parallel_size * data_parallel_size) must equal the total device num in '
        'numa_config.json; 2. If only either tensor_parallel_opti...',
    ),
    "EF1013": (
        'Invalid Optimize Shape Format',
        'Optimize shape format %s is incorrect.',
        'The format of ge.exec.dataInputsOptimizeShape is incorrect.',
        'Make sure the format of ge.exec.dataInputsOptimizeShape is correct. For example, ge.ex'
        "ec.dataInputsOptimizeShape='input0:[100,16];input1:[100,100,16];input2:[100,100,16]'",
    ),
    "EF1014": (
        'Incorrect Value of the mode Argument',
        'The Session::ShardGraphs API does not support the mode argument %s in the '
        'configuration file specified by the ge.graphParallelOptionPath parameter.',
        'The mode argument is incorrectly set.',
        'When calling the Session::ShardGraphs API, set the mode argument correctly by '
        'referring to the document.',
    ),
    "EF1015": (
        'Incorrect Value of the mode Argument',
        'The Session::RunGraph API does not support the mode argument %s in the configuration '
        'file specified by the ge.graphParallelOptionPath parameter.',
        'The mode argument is incorrectly set.',
        'When calling the Session::RunGraph API, set the mode argument correctly by referring '
        'to the document.',
    ),
    "EF1016": (
        'Failed to Create the Directory',
        'Failed to create the %s directory.',
        'The directory has no write permission.',
        'Make sure the directory has the write permission.',
    ),
    "EF1017": (
        'Unset Working Directory Argument',
        'The working directory argument is not set.',
        'The working directory argument is not set.',
        'Before loading the strategy, set the working directory argument.',
    ),
    "EF1018": (
        'Strategy File Error',
        'The strategy file %s has an error. Cause: %s',
        'See the details in the error message.',
        'See the solution in the error message.',
    ),
    "EF1019": (
        'Device Mesh Error',
        'The device mesh (%s) set during strategy loading is inconsistent with device mesh (%s)'
        ' in the strategy file.',
        'The device mesh set during strategy loading has an error.',
        'Make sure the device mesh set during strategy loading is consistent with that in the '
        'strategy file.',
    ),
    "EF1020": (
        'Offload Under a Non-SPMD Scenario Not Supported',
        'Cannot apply offload under a non-SPMD deploy mode. The current deploy mode is (%s).',
        'Offload is enabled but the deploy mode is not SPMD.',
        'Disable offload or set the deploy mode to SPMD.',
    ),
    "EF2001": (
        'Invalid Numa Configuration',
        'Numa Configuration is incorrect.',
        'Invalid format in numa_config.json',
        'Set the environment variable or resource file correctly.',
    ),
    "EF2002": (
        'Invalid Graph Parallel Option Configuration',
        'Configuration of graph parallel option is incorrect.',
        'Tensor parallel size or data parallel size is incorrect.',
        'Make sure the options in graph_parallel_option.json are correct: 1. If both '
        'tensor_parallel_option and data_parallel_option are set, the total parallel size (i.e.'
        ' tensor_parallel_size * data_parallel_size) must equal the total device num in '
        'numa_config.json; 2. If only either tensor_parallel_opti...',
    ),
    "EF2003": (
        'Dynamic Shape Not Supported',
        'Dynamic shape is not allowed in computation graphs.',
        'Graph contains operations with dynamic shape, which is not supported.',
        'Graph contains operations with dynamic shape, which is not supported by MDAT.',
    ),
    "EF2004": (
        'Invalid Slice Number for a Node',
        'The slice number %s that you set for node %s (%s) is invalid.',
        'An invalid character string is set as the slice number for the node.',
        'Set the slice number to a positive integer, or do not set the slice number at all, in '
        'which case the default slice number will be used.',
    ),
    "EF2005": (
        'Unsupported Attribute for a Node',
        'The attribute _process_node_engine_id marked as %s for node %s (%s) is invalid.',
        "The attribute _process_node_engine_id is marked with value other than 'NPU' for the "
        'node.',
        'Unset the attribute _process_node_engine_id in the compute graph or set the value to '
        "'NPU'.",
    ),
    "EF2006": (
        'Invalid Memory Budget for Recompute',
        'The memory budget for recompute is %s, not larger than zero.',
        'The memory budget for recompute is not larger than zero.',
        'The memory budget for recompute must larger than zero.',
    ),
    "EF2007": (
        'Invalid GE graph',
        'Invalid GE graph.',
        'The input GE graph may have folowing problems: 1. graph is cyclic; 2. missing some '
        'necessary op info and etc.',
        'Make sure the input ge graph is correct and have compelet information.',
    ),
    "EF2008": (
        'Graph Pattern Matching Failed',
        'Graph pattern with [%s] matching failed.',
        'The input graph may not meet the specific pattern.',
        'Make sure the input graph is correct and have specific pattern.',
    ),
    "EH0001": (
        'Invalid Argument',
        'Value [%s] for [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "EH0002": (
        'Null Pointer',
        'Argument [%s] must not be null.',
        '',
        'Try again with a correct pointer argument.',
    ),
    "EH0003": (
        'Invalid Path',
        'Path [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "EH0004": (
        'Invalid File',
        'File [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "EH0005": (
        'Invalid AIPP Argument',
        'AIPP argument [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "EH0006": (
        'Unsupported Feature',
        '%s is not supported. Reason: %s.',
        '',
        '',
    ),
    "EI0001": (
        'Invalid Environment Variable Configuration',
        'Environment variable [%s] is invalid. Reason: %s.',
        'The environment variable configuration is invalid.',
        'Try again with valid environment variable configuration.',
    ),
    "EI0002": (
        'Communication Operation Timeout',
        'The wait execution of the Notify register times out. Reason: The Notify register has '
        'not received the Notify record from remote rank: [%s]. base information: [%s]. task '
        'information: [%s]. group information: [%s]',
        '1. An exception occurs during the execution on some NPUs in the cluster. As a result, '
        'collective communication operation failed.2. The execution speed on some NPU in the '
        'cluster is too slow to complete a communication operation within th...',
        '1. If this error is reported on part of these ranks, check other ranks to see whether '
        'other errors have been reported earlier.2. If this error is reported for all ranks, '
        'check whether the error reporting time is consistent (the maximum difference must not '
        'exceed 1800s). If not, locate the cause o...',
    ),
    "EI0003": (
        'Invalid Collective Communication Op Argument',
        'In [%s], value [%s] for parameter [%s] is invalid. Reason: The collective '
        'communication operator has an invalid argument. Reason[%s]',
        '',
        'Try again with a valid argument.',
    ),
    "EI0004": (
        'Invalid Ranktable Configuration',
        'The ranktable or rank is invalid,Reason:[%s]. Please check the configured ranktable. '
        '[%s]',
        '',
        'Try again with a valid cluster configuration in the ranktable file. Ensure that the '
        'configuration matches the operating environment.',
    ),
    "EI0005": (
        'Inconsistent Collective Communication Arguments Between Ranks',
        'The arguments for collective communication are inconsistent between ranks: tag [%s], '
        'parameter [%s], local [%s], remote [%s]',
        '',
        'Check whether the training script and ranktable of each NPU are consistent.',
    ),
    "EI0006": (
        'Get Socket Timeout',
        'Getting socket times out. Reason: %s',
        '',
        '1. Check the rank service processes with other errors or no errors in the cluster.2. '
        'If this error is reported for all NPUs, check whether the time difference between the '
        'earliest and latest errors is greater than the connect timeout interval (120s by '
        'default). If so, adjust the timeout interval...',
    ),
    "EI0007": (
        'Allocation Failure',
        'Failed to allocate resource[%s] with info [%s]. Reason: Memory resources are exhausted.',
        'Failed to allocate memory or the Notify register due to resource insufficiency.',
        '',
    ),
    "EI0008": (
        'Inconsistent CANN Versions',
        'The CANN versions are inconsistent: tag [%s], local_version [%s], remote_version [%s]',
        '',
        'Install the same CANN version.',
    ),
    "EI0009": (
        'Transport Init Error',
        'Transport init error. Reason: %s',
        '',
        'Check other NPUs that are not reporting errors, or check if there are any '
        "abnormalities on the other end's NPU.",
    ),
    "EI0010": (
        'P2P Communication Failed',
        'P2P communication failed. Reason: %s',
        '',
        "Ensure that the NPU card is normal and entering environment variables 'export "
        "HCCL_INTRA_ROCE_ENABLE=1'.",
    ),
    "EJ0001": (
        'HCCP Process Initialization Failure',
        'Failed to initialize the HCCP process. Reason: Maybe the last training process is '
        'running.',
        '',
        'Wait for 10s after killing the last training process and try again.',
    ),
    "EJ0002": (
        'Environment Error',
        'The network port is down.Suggest: %s',
        '',
        '',
    ),
    "EJ0003": (
        'Bind Failed',
        'Failed to bind the IP port. Reason: %s',
        '',
        '',
    ),
    "EJ0004": (
        'Check Ip Failed',
        'Check ip fail. Reason: %s',
        '',
        '',
    ),
    "EK0001": (
        'Invalid Argument',
        'Value [%s] for [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "EK0002": (
        'Interface Call Sequence Error',
        'Failed to call %s before calling %s.',
        '',
        '',
    ),
    "EK0003": (
        'Profiling Config Setting Error',
        'Failed to set the %s to [%s]. Reason: %s.',
        '',
        '',
    ),
    "EK0004": (
        'API Support Error',
        '[%s] is not supported in %s.',
        '',
        '',
    ),
    "EK0201": (
        'Memory Allocation Error',
        'Failed to allocate host memory for Profiling: %s.',
        'Available memory is insufficient.',
        'Close unused applications.',
    ),
    "EK9999": (
        'System Terminated',
        'An unknown error occurred. Please check the log.',
        '',
        '',
    ),
    "EL0001": (
        'Device Absent/Abnormal',
        'Device not found.',
        '',
        '',
    ),
    "EL0002": (
        'Invalid Device ID',
        'The device ID is invalid.',
        '',
        '',
    ),
    "EL0003": (
        'Invalid Argument',
        'The argument is invalid.',
        '',
        'Try again with a valid argument.',
    ),
    "EL0004": (
        'Memory Allocation Failure',
        'Failed to allocate memory.',
        'Available memory is insufficient.',
        'Close applications not in use.',
    ),
    "EL0005": (
        'Resource Busy',
        'The resources are busy.',
        '1. The resources have been occupied. 2. The device is being reset. 3. Software is not '
        'ready.',
        '1. Close applications not in use. 2. Wait for a while and try again.',
    ),
    "EL0006": (
        'Insufficient Resources',
        'The resources are insufficient.',
        '',
        'Close applications not in use.',
    ),
    "EL0007": (
        'No Permission',
        'You have no permission.',
        '1. The resources have been occupied. 2. You have no permission on this API.',
        '1. Close applications not in use. 2. Check that you have the required permission.',
    ),
    "EL0008": (
        'Insufficient Event Resources',
        'The event resources are insufficient.',
        '',
        'Close applications not in use.',
    ),
    "EL0009": (
        'Insufficient Stream Resources',
        'The stream resources are insufficient.',
        '',
        'Close applications not in use.',
    ),
    "EL0010": (
        'Insufficient Notify Resources',
        'The Notify resources are insufficient.',
        '',
        'Close applications not in use.',
    ),
    "EL0011": (
        'Insufficient Model Resources',
        'The model resources are insufficient.',
        '',
        'Close applications not in use.',
    ),
    "EL0012": (
        'Full Service Queue',
        'The service queue is full.',
        'Available resources are insufficient due to busy services.',
        'Reduce service loads.',
    ),
    "EL0013": (
        'Insufficient CDQM Resources',
        'The CDQM resources are insufficient.',
        'Available resources are insufficient due to busy services.',
        'Reduce service loads.',
    ),
    "EL0014": (
        'Operation Unsupported',
        'The operation is unsupported.',
        '',
        '',
    ),
    "EL0015": (
        'Invalid Device Access',
        'The device access is invalid.',
        '1. The device has been bound to another container. 2. You have no permission on this '
        'device.',
        '1. Check your configurations. 2. Check whether there are residual container processes.',
    ),
    "EM9001": (
        'Group Attaching Failure',
        'Failed to attach the queue_schedule process to the group.',
        '',
        'Submit an issue to request for support at https://gitee.com/ascend or contact Huawei '
        'technical support.',
    ),
    "EM9002": (
        'Queue_Schedule Initialization Failure',
        'Failed to initialize the queue_schedule process.',
        '',
        'Submit an issue to request for support at https://gitee.com/ascend or contact Huawei '
        'technical support.',
    ),
    "EN0001": (
        'Invalid Argument',
        'Value [%s] for [%s] is invalid. Reason: %s.',
        '',
        '',
    ),
    "EN0002": (
        'Some Argument Invalid',
        'Some argument is invalid. See the %s API description in AscendCL API Reference.',
        '',
        '',
    ),
    "EN0003": (
        'Null Pointer',
        'Argument [%s] is null.',
        '',
        'Try again with a correct pointer argument.',
    ),
    "EN0004": (
        'Unsupported Feature',
        'The operation is not supported. Reason: %s.',
        '',
        '',
    ),
    "EN0005": (
        'Channel Resource Error',
        'An error occurred on channel resource %s. Reason: %s.',
        '',
        'Check the input channel ID or the number of created channels.',
    ),
    "EN0006": (
        'Memory Address Error',
        'The passed memory address is incorrect.',
        '',
        'Use the hi_mpi_dvpp_malloc API to allocate memory.',
    ),
    "EN0007": (
        'Operation Timeout',
        '%s times out. Reason: %s.',
        '1. The input timeout interval is improper; 2. The buffer is full; 3. An internal error'
        ' occurred.',
        'Set the timeout interval to a proper value.',
    ),
    "EN0008": (
        'Unsupported JPEG File',
        'The input JPEG image is not supported. Reason: %s.',
        '',
        '',
    ),
    "EN0009": (
        'Unsupported PNG File',
        'The input PNG image is not supported. Reason: %s.',
        '',
        '',
    ),
    "EO0001": (
        'Invalid compression_optimize_conf Value',
        'The compression configuration value is invalid. Reason: %s.',
        '',
        '',
    ),
    "EO0002": (
        'Invalid compression_optimize_conf Path',
        'The compression configuration path is invalid. Reason: %s.',
        '',
        '',
    ),
    "EO0003": (
        'Invalid Model',
        'The model is invalid. Reason: %s.',
        '',
        '',
    ),
    "EO0004": (
        'Command Error',
        'The command is invalid. Reason: %s.',
        '',
        '',
    ),
    "EO9999": (
        'System Terminated',
        'An unknown error occurred. Please check the log.',
        '',
        '',
    ),
    "EZ0001": (
        'Invalid Input Shape',
        'OP[%s] %sth input has incorrect shape[: %s], it should be[: %s].',
        '',
        '1. Check whether the input shape is correct. 2. Dump GE Graph, find error node in '
        'graph and check the shape.',
    ),
    "EZ0002": (
        'Invalid Attr',
        'OP[%s] attr[: %s], has incorrect value[: %s], it should be[: %s].',
        '',
        '1. Check the value of the attribute in this api.',
    ),
    "EZ0003": (
        'Invalid Attr Size',
        'OP[%s] attr[: %s], has incorrect size[: %s], it should be[: %s].',
        '',
        '1. Check the size of the attribute in this api',
    ),
    "EZ0004": (
        'Invalid Input',
        'OP[%s] get [%s] failed.',
        '',
        '1. Check the input information of the operator. 2. Dump GE Graph and check the input '
        'in graph.',
    ),
    "EZ0005": (
        'Invalid Input ShapeSize',
        'OP[%s] %sth input has incorrect shape size[: %s], it should be[: %s].',
        '',
        '1. Check input dimensions. 2. Dump GE Graph, find error node in graph and check input '
        'dimension.',
    ),
    "EZ0006": (
        'Invalid Input Format',
        'OP[%s] %s has incorrect format[: %s], it should be %s.',
        '',
        '1. Check input format. 2. Dump GE Graph, find error node in graph and check input '
        'format.',
    ),
    "EZ0007": (
        'Invalid Input Dtype',
        'OP[%s] %s has incorrect dtype[: %s], it should be %s.',
        '',
        '1. Check input dtype. 2. Dump GE Graph, find error node in graph and check input dtype.',
    ),
    "EZ0501": (
        'Unsupported Operator',
        'IR for Op [%s, optype [%s]], is not registered.',
        'IR for the operator type is not registered.',
        'Submit an issue to request for support at https://gitee.com/ascend, or remove this '
        'type of operators from your model.',
    ),
    "EZ1001": (
        'AclNN Parameter Error',
        '%s',
        '',
        '',
    ),
    "EZ3002": (
        'Unsupported Operator',
        'Optype [%s] of Ops kernel [%s] is unsupported. Reason: %s.',
        'The operator type is unsupported in the operator information library due to '
        'specification mismatch.',
        'Submit an issue to request for support at https://gitee.com/ascend, or remove this '
        'type of operators from your model.',
    ),
    "EZ3003": (
        'Unsupported Operator',
        'No supported Ops kernel and engine are found for [%s], optype [%s].',
        'The operator is not supported by the system. Therefore, no hit is found in any '
        'operator information library.',
        '1. Check that the OPP component is installed properly. 2. Submit an issue to request '
        'for the support of this operator type.',
    ),
    "EZ9010": (
        'Unsupported Operator',
        'No parser is registered for Op [%s, optype [%s]].',
        'No parser is registered for the operator type.',
        'Submit an issue to request for support at https://gitee.com/ascend.',
    ),
    "EZ9903": (
        'AclNN Runtime Error',
        '%s',
        '',
        'In this scenario, collect the plog when the fault occurs and locate the fault based on'
        ' the plog.',
    ),
    "EZ9999": (
        'AclNN Inner Error',
        '%s',
        '',
        '1. Check whether the CANN package is correct. 2. Check whether the environment '
        'variable is correct.',
    ),
}
