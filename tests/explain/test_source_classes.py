"""Rows written from the source that prints the message (signatures/*.toml), each
checked on a real report that did not motivate it (the motivating reports are in
the corpus: first-sight sets C and D, tests/fixtures/corpus/FIRST_SIGHT_*.md)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.explain import explain
from envcheck.model.finding import Category
from envcheck.model.snapshot import Snapshot

# (public report, text as pasted, signature id, first cause's category)
REPORTS = [
    (
        "https://github.com/NVIDIA/TensorRT-LLM/issues/1428",
        (
            "NVIDIA : A100 (80G) .\n"
            "[04/09/2024-16:26:41] [TRT] [E] 9: [standardEngineBuilder.cpp::buildEngine::2266] "
            "Error Code 9: Internal Error (Networks with FP8 precision require hardware with FP8 "
            "support.)\n[04/09/2024-16:26:41] [TRT-LLM] [E] Engine building failed, please check "
            "the error log.\n"
        ),
        "tensorrt-fp8-needs-fp8-hardware",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/umautobots/LONER/issues/6",
        (
            '  File "/opt/conda/lib/python3.8/site-packages/tinycudann/modules.py", line 59, in '
            "<module>\nOSError: Could not find compatible tinycudann extension for compute "
            "capability 61.\n"
        ),
        "tinycudann-no-extension-for-cc",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    (
        "https://github.com/huggingface/accelerate/issues/1693",
        (
            "- GPU type: Tesla V100-SXM2-32GB\n"
            "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.\n"
        ),
        "accelerate-bf16-unsupported-device",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/openvla/openvla/issues/103",
        (
            '  File "/home/shimizke/miniconda3/envs/openvla/lib/python3.10/site-packages/torch/amp/'
            'autocast_mode.py", line 306, in __init__\n    raise RuntimeError(\n'
            "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to "
            "float16.\n"
        ),
        "torch-autocast-bf16-unsupported",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/NVIDIA/nvidia-container-toolkit/issues/1239",
        (
            "  Warning  Failed     10s (x2 over 10s)  kubelet            Error: failed to create "
            "containerd task: failed to create shim task: OCI runtime create failed: could not "
            "apply required modification to OCI specification: error modifying OCI spec: failed "
            "to inject CDI devices: unresolvable CDI devices "
            "management.nvidia.com/gpu=GPU-e78e68c0-4e6a-737e-f9cc-4223fe50aead\n"
        ),
        "cdi-device-unresolvable",
        Category.CONTAINER_NO_GPU,
    ),
    (
        "https://github.com/brokeDude2901/dxgkrnl_ubuntu/issues/1",
        (
            "Failed to initialize NVML: GPU access blocked by the operating system \n"
            "Failed to properly shut down NVML: GPU access blocked by the operating system \n"
        ),
        "nvml-gpu-access-blocked-by-os",
        Category.NO_DRIVER,
    ),
    (
        "https://github.com/opencv/opencv/issues/18229",
        (
            "[ WARN:0] global /tmp/pip-req-build-sw_3pm_8/opencv/modules/dnn/src/dnn.cpp (1429) "
            "setUpNet DNN module was not built with CUDA backend; switching to CPU\n"
        ),
        "opencv-dnn-built-without-cuda",
        Category.CPU_ONLY_BUILD,
    ),
    (
        "https://github.com/NVIDIA/gpu-operator/issues/143",
        (
            "2021/02/11 01:32:29 Loading NVML\n"
            "2021/02/11 01:32:29 Failed to initialize NVML: could not load NVML library.\n"
            "2021/02/11 01:32:29 If this is a GPU node, did you set the docker default runtime to "
            "`nvidia`?\n"
        ),
        "k8s-device-plugin-nvml-not-loadable",
        Category.CONTAINER_NO_GPU,
    ),
    (
        "https://github.com/numba/numba/issues/2629",
        (
            "Error: CUDA device intialisation problem. driver missing function: cuInit.\n"
            "Requires CUDA 7.5 or above.\n"
            "Error class: <class 'numba.cuda.cudadrv.error.CudaDriverError'>\n"
        ),
        "numba-driver-missing-function",
        Category.LIB_PATH_CONFLICT,
    ),
    (
        "https://github.com/open-mmlab/mmcv/issues/2099",
        (
            ' File "....\\lib\\site-packages\\mmcv\\ops\\nms.py", line 28, in forward\n'
            "    inds = ext_module.nms(\n"
            "RuntimeError: nms_impl: implementation for device cuda:0 not found.\n"
        ),
        "mmcv-op-no-cuda-implementation",
        Category.CPU_ONLY_BUILD,
    ),
    (
        "https://github.com/1038lab/ComfyUI-QwenVL/issues/28",
        (
            "ERROR: FP8 models require a GPU with Compute Capability 8.9 or higher (e.g., RTX 4090). "
            "Your GPU's capability is 8.6. Please select a non-FP8 model.\n"
        ),
        "fp8-needs-ada-or-newer",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/jax-ml/jax/issues/7239",
        (
            "2021-07-10 19:06:52.914859: W external/org_tensorflow/tensorflow/stream_executor/gpu/"
            "asm_compiler.cc:77] Couldn't get ptxas version string: Internal: Couldn't invoke ptxas "
            "--version\n2021-07-10 19:06:52.915444: F external/org_tensorflow/tensorflow/compiler/"
            "xla/service/gpu/nvptx_compiler.cc:480] ptxas returned an error during compilation of "
            "ptx to sass: 'Internal: Failed to launch ptxas'\n"
        ),
        "xla-ptxas-not-found",
        Category.CUDA_RUNTIME_MISSING,
    ),
    (
        "https://github.com/CSAILVision/unifiedparsing/issues/10",
        (
            "THCudaCheck FAIL file=/pytorch/torch/csrc/cuda/Module.cpp line=34 error=3 : "
            "initialization error\nProcess Process-1:\nRuntimeError: cuda runtime error (3) : "
            "initialization error at /pytorch/torch/csrc/cuda/Module.cpp:34\n"
        ),
        "cuda-initialization-error",
        Category.OTHER,
    ),
    (
        "https://github.com/pytorch/pytorch/issues/126344",
        "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED\n",
        "torch-device-index-beyond-count",
        Category.ENV_VAR_HIDES_GPU,
    ),
    (
        "https://github.com/Comfy-Org/ComfyUI/issues/1150",
        (
            "Error occurred when executing CLIPTextEncode:\n\nCUDA error: operation not supported\n"
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
        ),
        "cuda-operation-not-supported",
        Category.CAPABILITY,
    ),
    # An Intel GPU named in prose without a model ("an Intel GPU", gpu-other-vendor fact).
    (
        "https://github.com/lllyasviel/Fooocus/issues/1227",
        (
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
            "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"
            "Is there a way to use Fooocus from an Intel GPU.\n"
        ),
        "gpu-not-nvidia",
        Category.NO_GPU,
    ),
    # The machine said in prose to have no GPU (no-gpu-prose fact).
    (
        "https://github.com/shubhtuls/factored3d/issues/5",
        (
            'I am trying to run "cli_demo.py" on my system which does not have any gpu.\n'
            "    self.oc3d_model = self.oc3d_model.cuda(device_id=self.opts.gpu_id)\n"
            "AssertionError: \nFound no NVIDIA driver on your system. Please check that you\n"
            "have an NVIDIA GPU and installed a driver from\n"
        ),
        "gpu-none-said",
        Category.NO_GPU,
    ),
    # Read from the source that prints them, tested on reports that did not motivate them.
    (
        "https://github.com/ultralytics/ultralytics/issues/7713",
        (
            "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' "
            "backend.\n"
        ),
        "companion-operator-no-cuda-kernel",
        Category.MIXED_WHEELS,
    ),
    (
        "https://github.com/OptimalScale/LMFlow/issues/251",
        (
            "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU "
            "with cuda>=11.0\n"
        ),
        "transformers-bf16-gpu-unsupported",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/RVC-Boss/GPT-SoVITS/issues/538",
        (
            "RuntimeError: cuFFT doesn't support signals of half type with compute capability less "
            "than SM_53, but the device containing input half tensor only has SM_52\n"
        ),
        "cufft-half-needs-sm53",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/Lightning-AI/pytorch-lightning/issues/899",
        (
            "pytorch_lightning.utilities.debugging.MisconfigurationException: \n"
            "            You requested GPUs: [0]\n"
            "            But your machine only has: []\n"
            "_pytorch_select           0.1                        cpu_0  \n"
        ),
        "lightning-gpus-requested-none-available",
        Category.CPU_ONLY_BUILD,
    ),
    # macOS named only in prose (macos-prose fact): no CUDA build runs there.
    (
        "https://github.com/yizhiwang96/deepvecfont-v2/issues/9",
        (
            'anaconda3/envs/dvf_v2_10/lib/python3.10/site-packages/torch/cuda/__init__.py", '
            "line 239, in _lazy_init\n"
            '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
            "AssertionError: Torch not compiled with CUDA enabled\n"
            "when i'm using training mode, my current machine is MacBook Pro 2021 with M1 Pro "
            "Chip, and 16 GB RAM\n"
        ),
        "torch-not-compiled-with-cuda",
        Category.PLATFORM_UNSUPPORTED,
    ),
    (
        "https://github.com/mistralai/mistral-inference/issues/3",
        (
            "I'm on Mac M1 and I'm getting this error related to Torch not compiled with CUDA "
            "enabled.\n"
            "AssertionError: Torch not compiled with CUDA enabled\n"
        ),
        "torch-not-compiled-with-cuda",
        Category.PLATFORM_UNSUPPORTED,
    ),
    # A framework's own check answered no (the unseen_gpu analysis), on reports the rows
    # were not written from.
    (
        "https://github.com/pytorch/pytorch/issues/43493",
        (
            "Successfully installed pillow-7.2.0 torch-1.6.0 torchvision-0.7.0\n"
            '3. `python -c "import torch; print(torch.cuda.is_available());"` prints `False`\n'
        ),
        "torch-sees-no-gpu",
        Category.CPU_ONLY_BUILD,
    ),
    (
        "https://github.com/tensorflow/tensorflow/issues/38990",
        (
            "physical_devices = tf.config.list_physical_devices('GPU') \n"
            'print("Num GPUs:", len(physical_devices)) \n\n`Num GPUs: 0`\n'
        ),
        "tensorflow-sees-no-gpu",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # Rows read from the sources of vLLM, Triton, xFormers, bitsandbytes, flash-attn and
    # ggml-cuda, each on the public report its source names.
    (
        "https://github.com/vllm-project/vllm/issues/1488",
        "The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70.\n",
        "vllm-quantization-min-capability",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/vllm-project/vllm/issues/25022",
        "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', 'Current capability: 75.')\n",
        "vllm-compressed-tensors-scheme-capability",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/deepseek-ai/DeepSeek-R1/issues/493",
        "运行 R1。trenton 出错： RuntimeError: 0 active drivers ([]). There should only be one.\n",
        "triton-no-active-driver",
        Category.NO_GPU,
    ),
    (
        "https://github.com/unslothai/unsloth/issues/679",
        "AssertionError: libcuda.so cannot found!\nPossible files are located at ['/lib/x86_64-linux-gnu/libcuda.so.1'].Please create a symlink of libcuda.so to any of the file.\n",
        "triton-libcuda-not-found",
        Category.LIB_PATH_CONFLICT,
    ),
    (
        "https://github.com/XLabs-AI/x-flux-comfyui/issues/24",
        "`decoderF` is not supported because:\nattn_bias type is\nbf16 is only supported on A100+ GPUs\n",
        "xformers-bf16-needs-ampere",
        Category.CAPABILITY,
    ),
    (
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1848",
        "[bitsandbytes.cextension|ERROR]bitsandbytes library load error: Configured CUDA binary not found at /usr/local/lib/python3.12/dist-packages/bitsandbytes/libbitsandbytes_cuda131.so\n",
        "bitsandbytes-cuda-binary-not-found",
        Category.CUDA_RUNTIME_MISSING,
    ),
    (
        "https://github.com/Scalsol/mega.pytorch/issues/11",
        "RuntimeError: --cuda_ext was requested, but nvcc was not found.  Are you sure your environment has nvcc available?  If you're installing within a container from https://hub.docker.com/r/pytorch/pytorch, only images whose names contain 'devel' will provide nvcc.\n",
        "extension-build-nvcc-not-found",
        Category.CUDA_RUNTIME_MISSING,
    ),
    (
        "https://github.com/ggml-org/whisper.cpp/issues/2368",
        "`ggml/src/ggml-cuda/template-instances/../mmq.cuh:2589: ERROR: CUDA kernel mul_mat_q has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520\n",
        "ggml-cuda-no-device-code",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # Rows read from the sources (sweep of JAX's CUDA plugin, Paddle's GPU start-up,
    # CTranslate2, TensorFlow/XLA), each on the public report its source names.
    (
        "https://github.com/jax-ml/jax/issues/18027",
        "CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA components:\nOutdated cuSPARSE installation found.\nVersion JAX was built against: 12200\nMinimum supported: 12100\nInstalled version: 12002\n",
        "jax-cuda-component-outdated",
        Category.LIB_PATH_CONFLICT,
    ),
    (
        "https://github.com/conda-forge/jaxlib-feedstock/issues/285",
        "RuntimeError: Unable to use CUDA because of the following issues with CUDA components:\nUnable to load cuFFT. Is it installed?\n",
        "jax-cuda-component-unable-to-load",
        Category.CUDA_RUNTIME_MISSING,
    ),
    (
        "https://github.com/jax-ml/jax/issues/26750",
        "Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()\n",
        "jax-plugin-initialize-exception",
        Category.MIXED_WHEELS,
    ),
    (
        "https://github.com/OpenNMT/CTranslate2/issues/1306",
        "when i use ctranlate2 on AArch64， it throws an error: This CTranslate2 package was not compiled with CUDA support, how can i solved it?\n",
        "ctranslate2-not-compiled-with-cuda",
        Category.CPU_ONLY_BUILD,
    ),
    (
        "https://github.com/PaddlePaddle/PaddleSeg/issues/3470",
        "gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 7.0, Driver API Version: 11.4, Runtime API Version: 11.7\ngpu_resources.cc:149] device: 0, cuDNN Version: 8.1.\ngpu_resources.cc:175] WARNING: device: 0. The installed Paddle is compiled with CUDA 11.7, but CUDA runtime version in your machine is 11.4, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDA version.\n",
        "paddle-compiled-cuda-newer-than-driver",
        Category.DRIVER_TOO_OLD,
    ),
    (
        "https://github.com/PaddlePaddle/PaddleGAN/issues/243",
        "    raise ValueError(\nValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA\n",
        "paddle-set-device-gpu-cpu-build",
        Category.CPU_ONLY_BUILD,
    ),
    (
        "https://github.com/tensorflow/tensorflow/issues/62320",
        "TensorFlow was not built with CUDA kernel binaries compatible with compute capability 9.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.\n",
        "tf-no-kernel-binaries-ptx-jit",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    (
        "https://github.com/tensorflow/tensorflow/issues/58681",
        "Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice.\nCouldn't invoke ptxas --version\nInternalError: libdevice not found at ./libdevice.10.bc [Op:__some_op]\n",
        "xla-libdevice-not-found",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # An older cuDNN loaded than torch was built with (motivated by set K's pytorch#3831).
    (
        "https://github.com/pytorch/pytorch/issues/3251",
        "ImportError: /lib/python3.6/site-packages/torch/_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: cudnnSetConvolutionGroupCount\n",
        "cuda-library-symbol-missing",
        Category.LIB_PATH_CONFLICT,
    ),
    # A driver API entry point the driver predates (motivated by set K's ollama#6604).
    (
        "https://github.com/trexminer/T-Rex/issues/95",
        " T-Rex NVIDIA GPU miner v0.18.9  -  [CUDA v11.10]\n NVIDIA Driver v440.100\n/home/rik/Downloads/trex/t-rex: symbol lookup error: /home/rik/Downloads/trex/t-rex: undefined symbol: cuDevicePrimaryCtxSetFlags_v2\n",
        "cuda-driver-entry-point-missing",
        Category.DRIVER_TOO_OLD,
    ),
    (
        "https://github.com/trexminer/T-Rex/issues/118",
        "The procedure entry point cuDevicePrimaryCtxReset_v2 could not be located in the dynamic link library nvcuda.dll\n",
        "cuda-driver-entry-point-missing",
        Category.DRIVER_TOO_OLD,
    ),
    # Ultralytics asked for a CUDA device beside a CPU torch (motivated by set K's comic-translate#17).
    (
        "https://github.com/SunOner/sunone_aimbot/issues/47",
        "Ultralytics YOLOv8.0.222 🚀 Python-3.11.6 torch-2.1.0+cpu\n    raise ValueError(f\"Invalid CUDA 'device={device}' requested.\"\nValueError: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if available, i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.\n\ntorch.cuda.is_available(): False\n",
        "ultralytics-cuda-device-unavailable",
        Category.CPU_ONLY_BUILD,
    ),
    # uv finding no wheel for the interpreter (motivated by set K's uv#10236).
    (
        "https://github.com/Physical-Intelligence/openpi/issues/907",
        "error: Distribution tensorflow-cpu==2.15.0 @ registry+https://pypi.org/simple can't be installed because it doesn't have a source distribution or wheel for the current platform hint: You're using CPython 3.12 (cp312), but tensorflow-cpu (v2.15.0) only has wheels with the following Python ABI tag: cp311\n",
        "uv-no-wheel-here",
        Category.PYTHON_UNSUPPORTED,
    ),
    # uv's hint naming other platforms (motivated by set K's uv#10236).
    (
        "https://github.com/ina-foss/inaSpeechSegmenter/issues/110",
        (
            "error: Distribution `onnxruntime-gpu==1.23.2 @ registry+https://mirrors.aliyun.com/pypi/"
            "simple` can't be installed because it doesn't have a source distribution or wheel for "
            "the current platform\n\n"
            "hint: You're on macOS (`macosx_15_0_arm64`), but `onnxruntime-gpu` (v1.23.2) only has "
            "wheels for the following platforms: `manylinux_2_27_x86_64`, `manylinux_2_28_x86_64`, "
            "`win_amd64`; consider adding your platform to `tool.uv.required-environments` to "
            "ensure uv resolves to a version with compatible wheels\n"
        ),
        "uv-wheels-only-for-other-platforms",
        Category.PLATFORM_UNSUPPORTED,
    ),
    # The container toolkit's hook finding no driver on the host.
    (
        "https://github.com/cedricxie/apollo_perception_ros/issues/20",
        (
            "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: "
            "starting container process caused: process_linux.go:545: container init caused: "
            "Running hook #0:: error running hook: exit status 1, stdout: , stderr: "
            "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.\n"
        ),
        "container-toolkit-host-driver-not-loaded",
        Category.NO_DRIVER,
    ),
    # bitsandbytes calling CUDA kernels its CPU library lacks.
    (
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/711",
        (
            "bin C:\\Users\\g201906730\\anaconda3\\envs\\LLM_Finetuning_env\\lib\\site-packages\\"
            "bitsandbytes\\libbitsandbytes_cpu.dll\n"
            "function 'cadam32bit_grad_fp32' not found\n"
            "CUDA SETUP: Detected CUDA version None\n"
        ),
        "bitsandbytes-cuda-entry-point-missing",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # NVRTC refusing the option naming the GPU's architecture (motivated by set J's
    # cuda-api-wrappers#509).
    (
        "https://github.com/xmrig/xmrig-cuda/issues/142",
        'thread #0 failed with error <CryptonightR_build_program>:204 "NVRTC_ERROR_INVALID_OPTION"\n',
        "nvrtc-unknown-gpu-arch",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # An architecture the CUDA toolkit dropped (motivated by set J's mumax/3#310).
    (
        "https://github.com/Kitware/fletch/issues/287",
        "nvcc fatal   : Unsupported gpu architecture 'compute_20'\n",
        "ptxas-unknown-gpu-arch",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    (
        "https://github.com/qassemoquab/stnbhwd/issues/33",
        "nvcc fatal   : Value 'sm_20' is not defined for option 'gpu-architecture'\n",
        "ptxas-unknown-gpu-arch",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # TensorFlow 1.x's self-check naming the CUDA DLL of its build (motivated by set J's
    # tensorflow#30160).
    (
        "https://github.com/tensorflow/tensorflow/issues/31808",
        (
            "ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be "
            "installed in a directory that is named in your %PATH% environment variable. Download "
            "and install CUDA 10.0 from this URL: https://developer.nvidia.com/cuda-90-download-archive\n"
        ),
        "tf-dlopen-cuda-library",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # bitsandbytes without a library for the detected CUDA (motivated by set J's
    # bitsandbytes#631).
    (
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/138",
        (
            "CUDA SETUP: PyTorch settings found: CUDA_VERSION=117, Highest Compute Capability: 7.0.\n"
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda117_nocublaslt.so. "
            "Maybe you need to compile it from source?\n"
            "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...\n"
        ),
        "bitsandbytes-no-library-for-cuda",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # A GPU of another vendor named beside a failure a machine without an NVIDIA GPU
    # produces (motivated by set I's k8s-device-plugin#812).
    (
        "https://github.com/xinntao/ESRGAN/issues/88",
        (
            'I\'m trying to put the command "python test.py --cpu models/RRDB_ESRGAN_x4.pth", '
            "but it doesn't work, instead, i get an error saying \"Torch not compiled with CUDA "
            "enabled\", i'm using a Laptop with Intel i5 Graphics card, is there anything i can "
            "do?\n"
        ),
        "gpu-not-nvidia",
        Category.NO_GPU,
    ),
    # pip refusing a wheel whose cpXY tag is another Python.
    (
        "https://github.com/pytorch/pytorch/issues/4802",
        (
            "run pip3 install http://download.pytorch.org/whl/torch-0.3.0.post4-cp35-cp35m-"
            "macosx_10_6_x86_64.whl\n"
            "torch-0.3.0.post4-cp35-cp35m-macosx_10_6_x86_64.whl is not a supported wheel on this "
            "platform.\n"
        ),
        "pip-wheel-tags-unsupported",
        Category.PYTHON_UNSUPPORTED,
    ),
    # glibc's symbol-version check: the OS's C library is older than the wheel's floor.
    (
        "https://github.com/KumaTea/pytorch-aarch64/issues/16",
        (
            "ImportError: /lib/aarch64-linux-gnu/libc.so.6: version `GLIBC_2.28' not found "
            "(required by /www/miniconda3/envs/vits/lib/python3.7/site-packages/torch/lib/"
            "libtorch_python.so)\n"
        ),
        "glibc-older-than-binary",
        Category.PLATFORM_UNSUPPORTED,
    ),
    (
        "https://github.com/pytorch/pytorch/issues/1967",
        (
            "ImportError: /lib64/tls/libc.so.6: version `GLIBC_2.7' not found (required by "
            "/home/my/lib/python2.7/site-packages/torch/lib/libTH.so.1)\n"
        ),
        "glibc-older-than-binary",
        Category.PLATFORM_UNSUPPORTED,
    ),
    # PyTorch's "Found no NVIDIA driver" from a machine without an NVIDIA GPU (motivated
    # by the corpus' CPU-only machines and set I's k8s-device-plugin#812).
    (
        "https://github.com/lllyasviel/Fooocus/issues/1204",
        (
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
            "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"
        ),
        "torch-found-no-nvidia-driver",
        Category.NO_GPU,
    ),
    # TensorRT older than the GPU, and engines from another TensorRT (motivated by set I's
    # TensorRT#2332, tita_rl_sim2sim2real#7 and TensorRT#2105).
    (
        "https://github.com/NVIDIA/TensorRT/issues/2727",
        "Internal Error(Unsupported SM: 0x809, Assertion engine != nullptr failed.)\n",
        "tensorrt-unsupported-sm",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    (
        "https://github.com/NVIDIA/retinanet-examples/issues/314",
        (
            "6: The engine plan file is not compatible with this version of TensorRT, expecting "
            "library version 8.0.0 got 8.0.1, please rebuild.\n"
            "4: [runtime.cpp::deserializeCudaEngine::74] Error Code 4: Internal Error (Engine "
            "deserialization failed.)\n"
        ),
        "tensorrt-engine-version-mismatch",
        Category.MIXED_WHEELS,
    ),
    (
        "https://github.com/dusty-nv/jetson-inference/issues/426",
        (
            "the engine plan file is not compatible with this version of tensorRT, expecting "
            "library version 5.1.6 got 5.0.6\n"
        ),
        "tensorrt-engine-version-mismatch",
        Category.MIXED_WHEELS,
    ),
    (
        "https://github.com/NVIDIA/TensorRT/issues/2195",
        (
            "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::35] Error Code 1: Serialization "
            "(Serialization assertion safeVersionRead == safeSerializationVersion failed.Version "
            "tag does not match. Note: Current Version: 0, Serialized Engine Version: 96)\n"
        ),
        "tensorrt-engine-version-mismatch",
        Category.MIXED_WHEELS,
    ),
    # A CPU-only ONNX Runtime library asked for the CUDA provider (motivated by set I's
    # onnxruntime-libs#15).
    (
        "https://github.com/pykeio/ort/issues/456",
        'Error { code: GenericFailure, msg: "CUDA execution provider is not enabled in this build." }\n',
        "onnxruntime-cuda-provider-missing",
        Category.CPU_ONLY_BUILD,
    ),
    # Windows TensorFlow 1.x whose CUDA DLLs are of another version (motivated by set I's
    # tensorflow#26298).
    (
        "https://github.com/tensorflow/tensorflow/issues/20584",
        (
            "    return _bootstrap._gcd_import(name[level:], package, level)\n"
            "ImportError: DLL load failed: The specified module could not be found\n"
        ),
        "tf-windows-dll-load-failed",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # On macOS no CUDA program runs: the platform, not the CPU library, is the cause.
    (
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/853",
        (
            "UserWarning: The installed version of bitsandbytes was compiled without GPU support. "
            "8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.\n"
            "'NoneType' object has no attribute 'cadam32bit_grad_fp32'\n"
            "/Users/slackroo/Data_science/LLM/llm_venv/lib/python3.10/site-packages/bitsandbytes/"
            "libbitsandbytes_cuda115_nocublaslt.so\n"
        ),
        "bitsandbytes-cuda-entry-point-missing",
        Category.PLATFORM_UNSUPPORTED,
    ),
    # bitsandbytes' own warnings: its CPU library, and the int8 matmul floor (motivated by
    # set I's bitsandbytes#529 and #485).
    (
        "https://github.com/oobabooga/textgen/issues/1995",
        (
            "bin /home/jiawei/.conda/envs/g/lib/python3.8/site-packages/bitsandbytes/"
            "libbitsandbytes_cpu.so\n"
            "/home/jiawei/.conda/envs/g/lib/python3.8/site-packages/bitsandbytes/cextension.py:33: "
            "UserWarning: The installed version of bitsandbytes was compiled without GPU support. "
            "8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.\n"
        ),
        "bitsandbytes-cpu-library-loaded",
        Category.CUDA_RUNTIME_MISSING,
    ),
    (
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/448",
        (
            "CUDA SETUP: Highest compute capability among GPUs detected: 6.1\n"
            "UserWarning: WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul is "
            "supported for your GPU!\n"
        ),
        "bitsandbytes-int8-needs-cc75",
        Category.CAPABILITY,
    ),
    # Paddle's legacy cuDNN major check (motivated by set H's Paddle#12965).
    (
        "https://github.com/PaddlePaddle/Paddle/issues/10238",
        (
            "F0426 19:12:07.087769 28996 hl_cuda_cudnn.cc:171] Check failed: (cudnn_cuh_major < 4 "
            "&& cudnn_dso_major < 4) || (cudnn_cuh_major == cudnn_dso_major) [cudnn init] libcudnn "
            "v7 with header v5 unmatched!\n"
            "PaddlePaddle Requirement: (header v[2-3] with libcudnn v[2-3]) Or (header v4 with "
            "libcudnn v4) Or (header v5 with libcudnn v5) Or(header v6 with libcudnn v6).\n"
        ),
        "paddle-legacy-cudnn-major-mismatch",
        Category.CUDNN_MISMATCH,
    ),
    # flash-attn's own toolkit floor and torch's minor-mismatch warning: the toolkit found
    # for the build is not torch's CUDA (motivated by set H's flash-attention#825).
    (
        "https://github.com/openai/consistency_models/issues/23",
        "RuntimeError: FlashAttention is only supported on CUDA 11 and above\n",
        "flash-attn-nvcc-too-old",
        Category.LIB_PATH_CONFLICT,
    ),
    (
        "https://github.com/Dao-AILab/flash-attention/issues/231",
        (
            "UserWarning: The detected CUDA version (11.5) has a minor version mismatch with the "
            "version that was used to compile PyTorch (11.7).\n"
        ),
        "torch-extension-cuda-minor-mismatch",
        Category.LIB_PATH_CONFLICT,
    ),
    # A CUDA 10 build on an Ampere card (motivated by set H's tensorflow#43718 and
    # PaddleDetection#4043).
    (
        "https://github.com/tensorflow/tensorflow/issues/43701",
        (
            "I tensorflow/stream_executor/platform/default/dso_loader.cc:48] Successfully opened "
            "dynamic library libcudart.so.10.1\n"
            "RuntimeError: CUDA runtime implicit initialization on GPU:0 failed. Status: device "
            "kernel image is invalid\n"
        ),
        "cuda-invalid-kernel-image",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    (
        "https://github.com/NVlabs/stylegan2-ada/issues/61",
        (
            "2020-12-29 04:45:47.964643: E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed "
            "to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED\n"
        ),
        "cublas-execution-failed",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    (
        "https://github.com/uci-cbcl/UFold/issues/20",
        "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n",
        "cudnn-execution-failed",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # CTranslate2's cublas_stub.cc prints the soname it dlopen()s on Linux.
    (
        "https://github.com/SYSTRAN/faster-whisper/issues/263",
        "RuntimeError: Library libcublas.so.11 is not found or cannot be loaded\n",
        "cuda-shared-library-missing",
        Category.CUDA_RUNTIME_MISSING,
    ),
    (
        "https://github.com/SYSTRAN/faster-whisper/issues/717",
        "Library libcublas.so.12 is not found or cannot be loaded\n",
        "cuda-shared-library-missing",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # jax calling a name its jaxlib does not have.
    (
        "https://github.com/jax-ml/jax/issues/8527",
        "AttributeError: module 'jaxlib.xla_extension' has no attribute 'PmapFunction'\n",
        "jaxlib-attribute-missing",
        Category.MIXED_WHEELS,
    ),
    # cuDNN 8's "Could not locate" wording of a missing sub-library.
    (
        "https://github.com/PaddlePaddle/PaddleOCR/issues/10199",
        (
            "W0619 03:05:28.154407 19728 gpu_resources.cc:61] Please NOTE: device: 0, GPU Compute "
            "Capability: 6.1, Driver API Version: 11.6, Runtime API Version: 11.6\n"
            "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n"
        ),
        "cudnn-sublibrary-load-failed",
        Category.CUDNN_MISMATCH,
    ),
    (
        "https://github.com/ILikeAI/AlwaysReddy/issues/40",
        "Could not locate cudnn_cnn_infer64_8.dll. Please make sure it is in your library path!\n",
        "cudnn-sublibrary-load-failed",
        Category.CUDNN_MISMATCH,
    ),
    # A companion's extension linked against a torch library this torch lacks.
    (
        "https://github.com/rusty1s/pytorch_scatter/issues/211",
        (
            "Exception has occurred: OSError\n"
            "libtorch_cuda_cu.so: cannot open shared object file: No such file or directory\n"
        ),
        "companion-torch-library-missing",
        Category.MIXED_WHEELS,
    ),
    # Inductor's Triton floor (torch/_inductor/exc.py).
    (
        "https://github.com/karpathy/nanoGPT/issues/157",
        (
            "RuntimeError: Found NVIDIA GeForce GTX 1080 which is too old to be supported by the "
            "triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA "
            "Capability >= 7.0, but your device is of CUDA capability 6.1\n"
        ),
        "triton-gpu-too-old",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # vLLM's dtype check.
    (
        "https://github.com/OpenBMB/XAgent/issues/379",
        (
            "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your NVIDIA "
            "GeForce RTX ..GPU has compute capability 7.5.\n"
        ),
        "dtype-needs-newer-gpu",
        Category.CAPABILITY,
    ),
    # No toolkit where an extension build runs nvcc.
    (
        "https://github.com/microsoft/Oscar/issues/113",
        (
            "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc': "
            "'/usr/local/cuda/bin/nvcc'\n"
        ),
        "nvcc-not-found",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # bitsandbytes < 0.43 on Windows: its setup prints WindowsPath objects.
    (
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/512",
        (
            "E:\\Miniconda3\\envs\\AI002\\lib\\site-packages\\bitsandbytes\\cuda_setup\\main.py:145: "
            "UserWarning: WARNING: The following directories listed in your path were found to be "
            "non-existent: {WindowsPath('E'), WindowsPath('/Miniconda3/envs/AI002/lib')}\n"
        ),
        "bitsandbytes-windows-unsupported",
        Category.PLATFORM_UNSUPPORTED,
    ),
    # The runtime's code 35 printed as a number.
    (
        "https://github.com/NVIDIA/DIGITS/issues/252",
        "cudaRuntimeGetVersion() failed with error #35\n",
        "cuda-driver-insufficient",
        Category.DRIVER_TOO_OLD,
    ),
]


@pytest.mark.parametrize(
    ("source", "text", "signature", "category"), REPORTS, ids=[r[0] for r in REPORTS]
)
def test_first_cause_of_a_report_that_did_not_motivate_the_row(
    source: str, text: str, signature: str, category: Category, matrix: Any
) -> None:
    first = explain(text, None, matrix).findings[0]
    assert (first.id, first.category) == (signature, category), source


def test_a_cpu_torch_without_libtorch_cuda_is_the_cpu_only_cause(matrix: Any) -> None:
    """A CUDA package beside a CPU torch cannot open libtorch_cuda.so: the CPU build
    is the cause (vllm-project/vllm#9114 in the corpus shows it in a collect_env)."""
    snap = Snapshot.from_json(
        {
            "platform": {"os": "linux", "arch": "x86_64"},
            "python": {"version": "3.11.9"},
            "driver": {"version": "560.35.03", "cuda_version": "12.6"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
            "frameworks": [{"name": "torch", "version": "2.4.0+cpu", "cpu_only": True}],
            "probes": ["platform", "python", "driver", "frameworks"],
        }
    )
    text = "ImportError('libtorch_cuda.so: cannot open shared object file: No such file or directory')\n"
    first = explain(text, snap, matrix).findings[0]
    assert first.category is Category.CPU_ONLY_BUILD
    assert "torch" in (first.fix or "")
    # With a CUDA torch the same text means another torch release.
    cuda = Snapshot.from_json(
        {**snap.to_json(), "frameworks": [{"name": "torch", "version": "2.4.0+cu121"}]}
    )
    assert explain(text, cuda, matrix).findings[0].category is Category.MIXED_WHEELS


def test_error_35_on_a_machine_without_driver_or_gpu_is_not_an_old_driver(matrix: Any) -> None:
    """NVIDIA/DIGITS#252: a virtual machine without an NVIDIA driver; the runtime says 35."""
    snap = Snapshot.from_json(
        {
            "platform": {"os": "linux", "arch": "x86_64"},
            "frameworks": [{"name": "torch", "version": "2.4.0+cu121"}],
            "probes": ["platform", "python", "driver", "libraries", "frameworks"],
        }
    )
    first = explain(REPORTS[-1][1], snap, matrix).findings[0]
    assert first.category in (Category.NO_GPU, Category.NO_DRIVER)


def test_a_provider_failing_on_a_cudnn_library_is_a_cudnn_cause(matrix: Any) -> None:
    """onnxruntime's provider names the library it could not load after "with error:";
    a cuDNN one makes it a cuDNN cause (written from the corpus's onnxruntime
    cases; this report is not among them)."""
    # https://github.com/microsoft/foundry-dev-tools/issues/75 (fixed by installing cuDNN)
    text = (
        "Failed loading model mistral-7b-v02-int4-gpu: /onnxruntime_src/onnxruntime/core/"
        "session/provider_bridge_ort.cc:1426 onnxruntime::Provider& onnxruntime::"
        "ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
        "libonnxruntime_providers_cuda.so with error: libcudnn.so.8: cannot open shared object "
        "file: No such file or directory\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert first.category is Category.CUDNN_MISMATCH
    # The same provider failing on cuBLAS stays a CUDA runtime cause.
    other = text.replace("libcudnn.so.8", "libcublasLt.so.11")
    assert explain(other, None, matrix).findings[0].category is Category.CUDA_RUNTIME_MISSING


PADDLE_REPORTS = [
    # Code compiled for sm_89 on another GPU; fixed by the right CMAKE_CUDA_ARCHITECTURES
    # (set G's nvidia-docker#346 motivated the row).
    (
        "https://github.com/laugh12321/TensorRT-YOLO/issues/74",
        (
            "CUDA Error:\n    File:       TensorRT-YOLO/source/deploy/vision/inference.cpp\n"
            "    Line:       558\n    Error code: 98\n    Error text: invalid device function\n"
        ),
        "cuda-invalid-device-function",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # Fixed by enlarging the page file (the reporter, through a Stack Overflow answer).
    (
        "https://github.com/oatsu-gh/enunu_training_kit/issues/8",
        (
            "OSError: [WinError 1455] The paging file is too small for this operation to complete. "
            'Error loading "C:\\Users\\Nathan\\Desktop\\enunu_training_kit-1.0.0\\python-3.8.10-'
            'embed-amd64\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its '
            "dependencies.\n"
        ),
        "windows-paging-file-too-small",
        Category.OTHER,
    ),
    # A CUDA 12.8 image on a driver that supports 12.4 (the row's source is nvidia-docker#1442).
    (
        "https://github.com/SyneRBI/PETRIC2/issues/27",
        (
            "stderr: Auto-detected mode as 'legacy'\n"
            "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please "
            "update your driver to a newer version, or use an earlier cuda container\n"
        ),
        "container-requires-newer-driver",
        Category.DRIVER_TOO_OLD,
    ),
    # Fixed by putting a libcudart.so on LD_LIBRARY_PATH or installing cudatoolkit
    # (set F's kohya case motivated the row).
    (
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/62",
        (
            "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching "
            "/usr/local/cuda/lib64...\n"
            "WARNING: No libcudart.so found! Install CUDA or the cudatoolkit package (anaconda)!\n"
        ),
        "bitsandbytes-cudart-not-found",
        Category.CUDA_RUNTIME_MISSING,
    ),
    # The title (set F's xformers#891 motivated the row).
    (
        "https://github.com/mistralai/mistral-finetune/issues/79",
        (
            "`flshattF@v2.3.6` is not supported due to requires device with capability > (8, 0) but "
            "your GPU has capability (6, 1) (too old)\n"
        ),
        "xformers-operator-capability",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # A Pascal GPU under a wheel built for 7.0 and newer (set F's RTX 2050 case motivated it).
    (
        "https://github.com/PaddlePaddle/Paddle/issues/54713",
        (
            "W0616 17:16:24.460505  2840 gpu_resources.cc:96] The GPU architecture in your current "
            "machine is Pascal, which is not compatible with Paddle installation with arch: 70 75 80 "
            "86 , it is recommended to install the corresponding wheel package according to the "
            "installation information on the official Paddle website.\n"
        ),
        "paddle-gpu-arch-not-compiled",
        Category.GPU_ARCH_UNSUPPORTED,
    ),
    # Set F's classes (FIRST_SIGHT_F.md); these reports are not set F's.
    (
        "https://github.com/ollama/ollama/issues/16415",
        (
            'msg="NVIDIA driver too old" device="NVIDIA GeForce GTX 1070 Ti" compute=6.1 driver=535 '
            'required_driver="570 or newer"\n'
            "ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA "
            "runtime version\n"
        ),
        "ollama-driver-too-old",
        Category.DRIVER_TOO_OLD,
    ),
    (
        "https://github.com/triton-lang/triton/issues/322",
        (
            "ptxas /tmp/triton_k_NjSPTP, line 5; fatal   : Unsupported .version 7.3; current version "
            "is '7.1'\nptxas fatal   : Ptx assembly aborted due to errors\n"
        ),
        "ptxas-older-than-ptx",
        Category.LIB_PATH_CONFLICT,
    ),
    (
        "https://github.com/numba/numba/issues/8985",
        (
            "AttributeError: /scratch/yhao24/opt/cuda-12.1/lib64/stubs/libcuda.so: undefined symbol: "
            "_undef\n"
        ),
        "libcuda-stub-loaded",
        Category.LIB_PATH_CONFLICT,
    ),
    (
        "https://github.com/facebookresearch/maskrcnn-benchmark/issues/230",
        "RuntimeError: Not compiled with GPU support\n",
        "extension-built-without-cuda",
        Category.CPU_ONLY_BUILD,
    ),
    # A GTX 1060 (Pascal) asked for float16, as the title gives the error (set F's
    # Tesla P40 and GTX 1070 reports motivated the row).
    (
        "https://github.com/Lex-au/Vocalis/issues/5",
        (
            "Requested float16 compute type, but the target device or backend do not support "
            "efficient float16 computation.\n"
        ),
        "ctranslate2-compute-type-unsupported",
        Category.CAPABILITY,
    ),
    # A maintainer: `pip install mmcv` installs no CUDA ops; install mmcv-full.
    (
        "https://github.com/XLearning-SCU/2022-CVPR-AirNet/issues/5",
        "ModuleNotFoundError: No module named 'mmcv._ext'\n",
        "mmcv-without-ops",
        Category.CPU_ONLY_BUILD,
    ),
    # Fixed by putting the bundled CUDA/cuDNN folder on PATH (a participant confirmed).
    (
        "https://github.com/YaoFANGUK/video-subtitle-extractor/issues/45",
        (
            "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_8.dll) that "
            "Paddle depends on is not configured correctly. (error code is 126)\n"
        ),
        "paddle-cudnn-not-loadable",
        Category.CUDNN_MISMATCH,
    ),
    # A maintainer: install cuDNN (into the CUDA directory).
    (
        "https://github.com/PaddlePaddle/Paddle/issues/34566",
        (
            "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_7.dll) that "
            "Paddle depends on is not configured correctly. (error code is 126)\n"
            "  Suggestions:\n"
            "  1. Check if the third-party dynamic library (e.g. CUDA, CUDNN) is installed correctly "
            "and its version is matched with paddlepaddle you installed.\n"
        ),
        "paddle-cudnn-not-loadable",
        Category.CUDNN_MISMATCH,
    ),
    # A onnxruntime-gpu on Windows that cannot load its CUDA/cuDNN DLLs.
    (
        "https://github.com/microsoft/onnxruntime/issues/13576",
        (
            "CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of "
            "CUDA and cuDNN as mentioned in the GPU requirements page (https://onnxruntime.ai/docs/"
            "reference/execution-providers/CUDA-ExecutionProvider.html#requirements), make sure "
            "they're in the PATH, and that your GPU is supported.\n"
        ),
        "onnxruntime-cuda-path-set-not-loaded",
        Category.CUDA_RUNTIME_MISSING,
    ),
]


@pytest.mark.parametrize(
    ("source", "text", "signature", "category"), PADDLE_REPORTS, ids=[r[0] for r in PADDLE_REPORTS]
)
def test_loader_messages_of_paddle_and_onnxruntime(
    source: str, text: str, signature: str, category: Category, matrix: Any
) -> None:
    """Written from set E's reports (FIRST_SIGHT_E.md); these did not motivate them."""
    first = explain(text, None, matrix).findings[0]
    assert (first.id, first.category) == (signature, category), source


def test_paddle_names_a_cuda_library_or_a_list_of_candidates(matrix: Any) -> None:
    # https://github.com/PaddlePaddle/Paddle/issues/33523: the loader's list of names.
    text = (
        "RuntimeError: (PreconditionNotMet) The third-party dynamic library "
        "(cublas64_102.dll;cublas64_10.dll) that Paddle depends on is not configured correctly. "
        "(error code is 126)\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert (first.id, first.category) == (
        "paddle-cuda-library-not-loadable",
        Category.CUDA_RUNTIME_MISSING,
    )


# https://github.com/yakhyo/uniface/issues/77: `pip install uniface[gpu]` installed both
# onnxruntime packages; the CPU one's files won (the rule was written from set C's
# microWakeWord-Trainer-Nvidia-Docker#1, which shows only the list).
UNIFACE = """\
Successfully installed certifi-2026.1.4 onnx-1.20.1 onnxruntime-1.23.2 onnxruntime-gpu-1.23.2 \
opencv-python-4.13.0.90 uniface-2.2.1
>>> import onnxruntime as ort
>>> print("Available providers:", ort.get_available_providers())
Available providers: ['AzureExecutionProvider', 'CPUExecutionProvider']
"""


def test_a_provider_list_without_cuda_is_a_cpu_onnxruntime(matrix: Any) -> None:
    first = explain(UNIFACE, None, matrix).findings[0]
    assert first.category is Category.CPU_ONLY_BUILD
    assert "onnxruntime 1.23.2" in first.title
    # Both packages share the onnxruntime module: the fix removes both, then installs
    # the GPU one, never leaving onnxruntime-gpu with the files pip deleted.
    fix = first.fix or ""
    assert "pip uninstall -y onnxruntime onnxruntime-gpu" in fix
    assert "pip install onnxruntime-gpu==1.23.2" in fix
    # https://github.com/nazdridoy/kokoro-tts/issues/59: the list alone.
    alone = "Available providers: ['AzureExecutionProvider', 'CPUExecutionProvider']\n"
    assert explain(alone, None, matrix).findings[0].category is Category.CPU_ONLY_BUILD


def test_the_providers_a_session_fell_back_to_are_not_the_installed_ones() -> None:
    from envcheck.explain.facts import extract

    applied = (
        "Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}"
    )
    assert extract(applied).ort_cpu_providers == ()
    gpu = "['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider']"
    assert extract(gpu).ort_cpu_providers == ()


def test_pip_finding_no_cuda_wheel_is_named_before_the_cpu_torch_left_behind(matrix: Any) -> None:
    """pip-no-framework-wheel explains torch-not-compiled-with-cuda: pip's failure for the
    CUDA build (pytorch/pytorch#66399's lines, in the corpus) is the cause of the CPU-only
    assertion that follows it, in either order (motivated by set J's Ask-Anything#57)."""
    pip = "ERROR: No matching distribution found for torch==1.9.1+cu111\n"
    symptom = "AssertionError: Torch not compiled with CUDA enabled\n"
    for text in (pip + symptom, symptom + pip):
        first = explain(text, None, matrix).findings[0]
        assert (first.id, first.category) == ("pip-no-framework-wheel", Category.PYTHON_UNSUPPORTED)


@pytest.mark.parametrize(
    ("driver", "category"),
    [("565.77", Category.CONTAINER_NO_GPU), ("470.57.02", Category.DRIVER_TOO_OLD)],
)
def test_insufficient_driver_beside_a_driver_new_enough_was_not_that_driver(
    matrix: Any, driver: str, category: Category
) -> None:
    """Error 35 ("driver older than the runtime") where the text's driver runs every build
    of the framework it names (565 runs CUDA 12.4; minor-version compatibility runs any
    12.x): the process did not load that driver, and upgrading it (or reinstalling the
    same build, the fix this gave) changes nothing. A 470 driver is the plain reading."""
    text = (
        f"Nvidia Driver Version: {driver}\n"
        "$ pip install torch==2.5.1+cu124\n"
        "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA "
        "runtime version\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert first.category is category
    if category is not Category.DRIVER_TOO_OLD:
        assert "torch==2.5.1" not in (first.fix or "")


def test_a_container_engine_without_nvidia_runtime_on_an_intel_only_machine_is_no_gpu(
    matrix: Any,
) -> None:
    """Docker cannot hand over a GPU where the text names only an Intel GPU ("Intel® Xe",
    the ® spelling of Linux desktop settings): no NVIDIA GPU is the cause. Written from
    fboulnois/stable-diffusion-docker#82 (first-sight set T, in the corpus); no second
    report of this shape was found, so this is a constructed text."""
    text = (
        "Graphics: Intel® UHD Graphics 620\n"
        'docker: Error response from daemon: could not select device driver "" with '
        "capabilities: [[gpu]].\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert (first.id, first.category) == ("gpu-not-nvidia", Category.NO_GPU)
    # With an NVIDIA GPU named as well, the container runtime stays the cause.
    both = text + "GPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-1)\n"
    assert explain(both, None, matrix).findings[0].category is Category.CONTAINER_NO_GPU
