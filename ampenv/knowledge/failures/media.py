"""What DVPP, the NPU's media engine (video decode VDEC, JPEG decode JPEGD, resize VPC), and a
board's video output refuse or cannot finish: streams and images beyond what it decodes or
crops, a JPEG cut short, a picture description left stale, a decode task past its timeout (the
fix is in the input or the calling code), a second process at the video output."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source, hicann_page

FAILURES = (
    Failure(
        id="vo-hdmi-another-process",
        mode="container-devices",
        component="VO/HDMI",
        # the video-output and HDMI drivers of an Atlas 200I/500 A2 refusing a second process:
        # "[drv_vo][ERR][vo_open:433]:VO functions must work in the same pid!!!"
        patterns=(r"(?:VO|HDMI) functions must work in the same pid",),
        codes=(),
        meaning="the board's video-output (VO) and HDMI drivers serve one process at a time: "
        "another process holds them, so this one cannot open them",
        causes=("an earlier VO/HDMI sample or service still running in the background",),
        fix="find the process that uses VO/HDMI (`ps -elf`, the sample's name), stop it, then "
        "run again",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/document/detail/zh/canncommercial/900/maintenref/"
                "troubleshooting/troubleshooting_0216.html (HDMI and VO in several processes)",
                "official",
            ),
        ),
        hints=("err",),  # (its message is a key of its own, read in the pass for "the ")
    ),
    Failure(
        id="jpegd-format-unsupported",
        mode="core-exception",
        component="DVPP",
        # DVPP's JPEG decoder on an image it does not decode; its software fallback
        # (libjpeg-turbo) on a marker neither knows: "tjDecompressToYUV2 fail: Unsupported
        # marker type 0x31", then "Jpeg hardware and software decode are both failed!"
        patterns=(
            r"do not support (?:progressive mode|arithmetic code)",
            r"tjDecompressToYUV2 fail: Unsupported marker type 0x[0-9a-fA-F]{1,2}\b",
        ),
        codes=(),
        meaning="DVPP's JPEG decoder (JPEGD) was given a JPEG it does not decode: it takes "
        "baseline Huffman-coded JPEGs in YUV 444, 422, 420 or 400 only, not progressive or "
        "arithmetic-coded ones (nor JPEG 2000); a marker that no JPEG decoder knows fails its "
        "software fallback too",
        causes=(
            "a progressive or arithmetic-coded JPEG in the input",
            "a picture whose stream holds a marker outside the JPEG standard (damaged, or "
            "written by a non-conforming encoder)",
        ),
        fix="decode such images on the CPU (libjpeg-turbo, OpenCV, PIL) or re-encode them as "
        "baseline Huffman JPEGs before DVPP; a marker no decoder knows: check the picture's "
        "markers and replace the picture",
        confirm=None,
        sources=(
            hicann_page("jpegd_decode_failed.md"),
            hicann_page("jpegd_abnormal_protocol_0x31.md", note="Unsupported marker type 0x31"),
        ),
        hints=("err",),  # (its messages are keys of their own: DVPP prints them bare)
    ),
    Failure(
        id="vdec-stream-unsupported",
        mode="core-exception",
        component="DVPP",
        # VDEC's checks of a stream's resolution and of an HEVC stream's bit depth
        # (each holds a word a pass finds: "ERROR", or "not " of the message)
        patterns=(
            r"ERROR\] DVPP[^\n]{0,80}?\[VDEC\]\[IsValidResolution:\d{1,6}\][^\n]{0,40}Invalid "
            r"width or height, valid range",
            r"bit_depth_luma\(\d{1,3}\) is not supported, hevc only",
        ),
        codes=(),
        meaning="the video stream is outside what DVPP's decoder (VDEC) decodes: a resolution "
        "outside its range (128 to 4096 a side) or an HEVC bit depth other than 8 or 10",
        causes=("a stream of a format, size or depth VDEC's specification excludes",),
        fix="check the stream against VDEC's limits in the DVPP documentation (ffprobe shows its "
        "size and bit depth); transcode it to a supported one, or decode it in software",
        confirm=None,
        sources=(hicann_page("vdec_failed_invalid_stream.md"),),
        hints=("err",),  # (the bit-depth message is a key of its own)
    ),
    Failure(
        id="vdec-output-description-stale",
        mode="core-exception",
        component="DVPP",
        # VDEC's check of the output picture description (format 0 is YUV400, unsupported)
        patterns=(r"vdec_check_resize_param[^\n]{0,200}?the out format \d{1,3} is not supported",),
        codes=(),
        meaning="the output picture description given to a video decode has a format VDEC does "
        "not write: the application reused the description across aclvdecSendFrame calls, and "
        "after a failed frame its format, width, height and strides were reset to 0",
        causes=("one acldvppPicDesc reused for every frame without setting it again",),
        fix="set the output description's format, width, height and strides again before every "
        "aclvdecSendFrame (or create one per frame)",
        confirm=None,
        sources=(hicann_page("vdec_unsupported_image_format.md"),),
        hints=("err",),  # (its message is a key of its own)
    ),
    Failure(
        id="dvpp-task-timeout",
        mode="core-exception",
        component="DVPP",
        # the AI CPU's DVPP kernels timing a decode task out (30 s)
        patterns=(r"\[DVPP_KERNELS\] WaitId\[\d{1,10}\] task timeout",),
        codes=(),
        meaning="a DVPP task ran past its timeout (30 s) and the process exits: JPEG decodes of "
        "large images (3840x2160 and up) with an EXIF rotation, many channels at once, take "
        "that long",
        causes=("large EXIF-rotated JPEGs (Orientation other than 1) decoded on many channels",),
        fix="find the images with an EXIF rotation (JPEGsnoop, exiftool) and decode them with a "
        "software library (OpenCV), or decode fewer channels at once",
        confirm=None,
        sources=(hicann_page("jpegd_decode_timeout_exit.md"),),
        hints=("timeout",),
    ),
    Failure(
        id="jpegd-stream-truncated",
        mode="core-exception",
        component="DVPP",
        # JPEGD's check of the image's end marker (FF D9)
        patterns=(r"EOI segment of the stream is invalid",),
        codes=(),
        meaning="DVPP's JPEG decoder found no valid end-of-image marker (EOI, FF D9): the JPEG "
        "data it was given is incomplete",
        causes=(
            "a truncated or damaged image file",
            "the data cut or corrupted on its way to the decoder (a read of fewer bytes than "
            "the file, a buffer reused before the decode)",
        ),
        fix="check the image (its last two bytes are FF D9 in a whole JPEG); if the file is "
        "whole, write the bytes handed to the decoder to a file (fwrite before the JPEGD call) "
        "and compare them with the original to find where they are lost",
        confirm=None,
        sources=(
            Source(
                "Ascend/samples growthpath/junior-level/6_sample_debugging/README_CN.md"
                "@fc2aea93e48be8f8cee51d0c6c1b13a08155f83a (JPEG decode failed)",
                "official",
            ),
        ),
        hints=("is invalid",),
    ),
    Failure(
        id="venc-channel-size-out-of-range",
        mode="core-exception",
        component="DVPP",
        # VENC's check of an encoding channel's attributes: "[Venc]:venc_drv_check_resolution
        # [Line]:342 max picture width (0) err! should in [128,4096]!"
        patterns=(
            r"venc_drv_check_resolution \[Line\]:\d{1,6} max picture (?:width|height) "
            r"\(\d{1,9}\) err!",
        ),
        codes=(),
        meaning="creating a video encoding channel, VENC refused its maximum picture size: "
        "outside the range the line prints (128 to 4096 on this chip)",
        causes=("a channel attribute left at 0 or set beyond the encoder's range",),
        fix="set the channel's maximum width and height (its creation attributes) within the "
        "range the line prints, then create the channel again",
        confirm=None,
        sources=(
            hicann_page(
                "venc_create_channel_failed.md", "3eee5883a19b37fdd6893f995b7c454d1622eafe"
            ),
        ),
        hints=("err",),
    ),
    Failure(
        id="dvpp-output-buffer-size-wrong",
        mode="core-exception",
        component="DVPP",
        # JPEGE/VENC's check of the output buffer: "device:0 chan 0, output terminal address is
        # invalid, maybe outBufSize:3110400 is invalid."
        patterns=(r"output terminal address is invalid, maybe outBufSize:\d{1,12} is invalid",),
        codes=(),
        meaning="the encoder's output buffer is not what its size says: the size passed is "
        "larger than the memory allocated for it (or it was not allocated for DVPP)",
        causes=(
            "an output buffer size that is not the one allocated",
            "an output buffer allocated with another allocator than DVPP's",
        ),
        fix="allocate the output buffer with hi_mpi_dvpp_malloc (acldvppMalloc) and pass "
        "exactly the size allocated",
        confirm=None,
        sources=(
            hicann_page("memory_alloc_wrong_size_3.md", "96217e9acd4da744a739b8f94b020fbe0cc7fcca"),
        ),
        hints=("is invalid",),
    ),
    Failure(
        id="dvpp-crop-size-out-of-range",
        mode="core-exception",
        component="DVPP",
        # the MindX SDK's crop through DVPP (VPC), which takes 32 to 4096 pixels a side
        patterns=(r"The crop (?:width|height) of image No\.\[\d{1,6}\] is out of range",),
        codes=(),
        meaning="a crop handed to DVPP's resize (VPC) is smaller or larger than it takes (32 to "
        "4096 pixels a side): most often a detector's box far too small for it",
        causes=(
            "a detection stage passing tiny boxes on to the crop (a low objectness threshold, "
            "no minimum area)",
        ),
        fix="drop such boxes before the crop: raise the minimum area of the object selector "
        "(the pipeline's mxpi_objectselector MinArea) or the detector's threshold "
        "(OBJECTNESS_THRESH in its config); a crop of your own: pad or resize it into 32-4096",
        confirm=None,
        sources=(
            Source(
                "Ascend/ascend_community_projects Video-ReID/README.md"
                "@de140a4ccbc3a46514c17f7357b31248790c4c29 (Q&A 8.1)",
                "official",
            ),
        ),
        hints=("out of range",),
    ),
)
