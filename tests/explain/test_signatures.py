"""Every signature matches real error texts users posted, and only those."""

from __future__ import annotations

import re

import pytest

from envcheck.explain import SIGNATURES, match_signatures
from envcheck.explain.signatures import ALL_FRAMEWORKS
from envcheck.model.finding import Category

# Short error lines as users pasted them in the issue each signature cites (or a
# sibling issue). Several per signature where the message has variants.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "cuda-invalid-device-function": (
        "RuntimeError: CUDA error: invalid device function",
        (
            "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCTensorCopy.cu line=204 error=8 : invalid "
            "device function"
        ),
    ),
    "windows-paging-file-too-small": (
        (
            "OSError: [WinError 1455] The paging file is too small for this operation to complete. "
            'Error loading "C:\\env\\Lib\\site-packages\\torch\\lib\\cublasLt64_12.dll" or one '
            "of its dependencies."
        ),
    ),
    "container-requires-newer-driver": (
        "nvidia-docker | 2017/01/02 10:00:00 Error: unsupported CUDA version: driver 8.0 < image 9.0",
        (
            "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.9, please "
            "update your driver to a newer version, or use an earlier cuda container: unknown."
        ),
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0",
    ),
    "bitsandbytes-cudart-not-found": (
        (
            "CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was "
            "not detected."
        ),
        "ERROR: libcudart.so could not be read from path: /opt/cuda/lib64/libcudart.so!",
    ),
    "xformers-operator-capability": (
        "    requires device with capability > (8, 0) but your GPU has capability (6, 1) (too old)",
        "    requires device with capability <= (9, 0) but your GPU has capability (12, 0) (too new)",
        "    requires a GPU with compute capability > 7.5",
    ),
    "paddle-gpu-arch-not-compiled": (
        (
            "Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 70 75 "
            "80 ,but your current GPU is 61"
        ),
        (
            "W1201 09:00:00.000000  1234 gpu_resources.cc:96] The GPU architecture in your current "
            "machine is Hopper, which is not compatible with Paddle installation with arch: 60 61 70 "
            "75 80 86 , it is recommended to install the corresponding wheel package"
        ),
        (
            "The GPU compute capability in your current machine is 120, which is not supported by "
            "Paddle, it is recommended to install the corresponding wheel package"
        ),
    ),
    "ollama-driver-too-old": (
        (
            'level=WARN source=cuda_compat.go:70 msg="NVIDIA driver too old" device="Tesla P4" '
            'compute=6.1 driver=550.54 required_driver="570 or newer"'
        ),
        # the quoted message alone, as reports often keep it
        'discover/cuda_compat.go: "NVIDIA driver too old" for both GPUs',
    ),
    "libcuda-stub-loaded": (
        "OSError: /usr/local/cuda/lib64/stubs/libcuda.so: undefined symbol: cuInit_v2",
        "RuntimeError: CUDA driver error: CUDA_ERROR_STUB_LIBRARY",
    ),
    "ptxas-older-than-ptx": (
        (
            "ptxas /tmp/tmpk2j1/kernel.ptx, line 5; fatal   : Unsupported .version 8.7; current "
            "version is '8.0'"
        ),
    ),
    "extension-built-without-cuda": (
        "RuntimeError: Not compiled with GPU support (nms at csrc/nms.h:22)",
    ),
    "ctranslate2-compute-type-unsupported": (
        (
            "ValueError: Requested int8_float16 compute type, but the target device or backend do "
            "not support efficient int8_float16 computation."
        ),
        (
            "[ctranslate2] [warning] The compute type inferred from the saved model is float16, but "
            "the target device or backend do not support efficient float16 computation."
        ),
    ),
    "mmcv-without-ops": (
        "    ext = importlib.import_module('mmcv.' + name)\nModuleNotFoundError: No module named 'mmcv._ext'",
    ),
    "k8s-device-plugin-nvml-not-loadable": (
        "Failed to start nvml with error:  could not load NVML library",
    ),
    "numba-driver-missing-function": (
        "numba.cuda.cudadrv.driver.CudaDriverError: Driver missing function: cuDeviceGetUuid",
    ),
    "opencv-dnn-built-without-cuda": (
        "[ WARN:0@9.371] global net_impl.cpp:178 setUpNet DNN module was not built with CUDA backend; switching to CPU",
    ),
    "nvml-gpu-access-blocked-by-os": (
        "$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system",
    ),
    "cdi-device-unresolvable": (
        "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
    ),
    "torch-autocast-bf16-unsupported": (
        "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.",
    ),
    "tinycudann-no-extension-for-cc": (
        "OSError: Could not find compatible tinycudann extension for compute capability 89.",
    ),
    "tensorrt-fp8-needs-fp8-hardware": (
        "[E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Networks with FP8 Q/DQ layers require hardware with FP8 support.)",
    ),
    "accelerate-bf16-unsupported-device": (
        "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.",
    ),
    "mmcv-op-no-cuda-implementation": (
        "RuntimeError: roi_align_forward_impl: implementation for device cuda:1 not found.",
    ),
    "paddle-cudnn-not-loadable": (
        (
            "W1203 10:11:12.000000  4242 dynamic_loader.cc:307] The third-party dynamic library "
            "(libcudnn.so) that Paddle depends on is not configured correctly. (error code is "
            "libcudnn.so: cannot open shared object file: No such file or directory)"
        ),
        (
            "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_9.dll) "
            "that Paddle depends on is not configured correctly. (error code is 126)"
        ),
    ),
    "paddle-cuda-library-not-loadable": (
        (
            "The third-party dynamic library (libcublas.so.12) that Paddle depends on is not "
            "configured correctly. (error code is libcublas.so.12: cannot open shared object file)"
        ),
    ),
    "onnxruntime-cuda-path-set-not-loaded": (
        (
            "onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasnt able "
            "to be loaded. Please install the correct version of CUDA and cuDNN"
        ),
    ),
    "companion-torch-library-missing": (
        "OSError: libtorch_cuda_cpp.so: cannot open shared object file: No such file or directory",
        "ImportError: libc10_cuda.so: cannot open shared object file: No such file or directory",
    ),
    "triton-gpu-too-old": (
        (
            "RuntimeError: Found Tesla M40 which is too old to be supported by the triton GPU "
            "compiler, which is used as the backend. Triton only supports devices of CUDA Capability "
            ">= 7.0, but your device is of CUDA capability 5.2"
        ),
    ),
    "dtype-needs-newer-gpu": (
        (
            "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
            "Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead"
        ),
        "You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.",
    ),
    "torch-sees-no-gpu": (
        "torch.cuda.is_available() returns False",
        "print(torch.cuda.is_available())  # False",
        # A REPL call and its answer row, as envcheck.explain.normalise joins them.
        "torch.cuda.is_available() -> False",
    ),
    "tensorflow-sees-no-gpu": (
        "tf.config.list_physical_devices('GPU') returns []",
        "tf.config.list_physical_devices('GPU') -> []",
        "Num GPUs Available:  0",
        "print(tf.test.is_built_with_cuda()) #  false is returned".replace("false", "False"),
        "GPU is NOT AVAILABLE",
        "tf.test.gpu_device_name() returns ''",
    ),
    "companion-operator-no-cuda-kernel": (
        (
            "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' "
            "backend. This could be because the operator doesn't exist for this backend"
        ),
        "RuntimeError: Could not run 'torchvision::roi_align' with arguments from the 'CUDA' backend.",
    ),
    "transformers-bf16-gpu-unsupported": (
        (
            "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU "
            "with cuda>=11.0"
        ),
    ),
    "cufft-half-needs-sm53": (
        (
            "RuntimeError: cuFFT doesn't support signals of half type with compute capability less "
            "than SM_53, but the device containing input half tensor only has SM_37"
        ),
    ),
    "lightning-gpus-requested-none-available": (
        (
            "pytorch_lightning.utilities.exceptions.MisconfigurationException: GPUs requested but "
            "none are available."
        ),
        " But your machine only has: []",
    ),
    "cuda-initialization-error": (
        "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.",
        (
            "RuntimeError: cuda runtime error (3) : initialization error at "
            "/pytorch/torch/csrc/cuda/Module.cpp:34"
        ),
    ),
    "torch-device-index-beyond-count": (
        (
            "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "
            '"../aten/src/ATen/cuda/CUDAContext.cpp":50, please report a bug to PyTorch.'
        ),
    ),
    "cuda-operation-not-supported": ("RuntimeError: CUDA error: operation not supported",),
    "xla-ptxas-not-found": (
        (
            "W external/org_tensorflow/tensorflow/stream_executor/gpu/asm_compiler.cc:80] Couldn't "
            "get ptxas version string: INTERNAL: Couldn't invoke ptxas --version"
        ),
        (
            "ptxas returned an error during compilation of ptx to sass: 'INTERNAL: Failed to launch "
            "ptxas'"
        ),
    ),
    "fp8-needs-ada-or-newer": (
        "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.",
    ),
    "jax-sees-no-gpu": (
        "jax.devices() -> [CpuDevice(id=0)]",
        "jax.default_backend() returns 'cpu'",
    ),
    "jaxlib-attribute-missing": (
        "AttributeError: module 'jaxlib.xla_client' has no attribute 'register_custom_call_target'",
    ),
    "nvcc-not-found": (
        "FileNotFoundError: [Errno 2] No such file or directory: '/opt/cuda/bin/nvcc'",
        'error: unable to execute "/usr/local/cuda-11.8/bin/nvcc": No such file or directory',
        (
            "FileNotFoundError: nvcc not found at '/usr/local/cuda/bin/nvcc'. Ensure CUDA path "
            "'/usr/local/cuda' is correct."
        ),
    ),
    "jax-cuda-plugin-jaxlib-mismatch": (
        (
            "/opt/venv/lib/python3.12/site-packages/jaxlib/plugin_support.py:71: RuntimeWarning: "
            "JAX plugin jax_cuda12_plugin version 0.7.2 is installed, but it is not compatible "
            "with the installed jaxlib version 0.7.0, so it will not be used."
        ),
        (
            "RuntimeWarning: JAX plugin jax_cuda13_pjrt version 0.8.1 is installed, but it is not "
            "compatible with the installed jaxlib version 0.8.0"
        ),
    ),
    "torch-cuda-forked-subprocess": (
        (
            "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
            "multiprocessing, you must use the 'spawn' start method"
        ),
        '    raise RuntimeError("Cannot re-initialize CUDA in forked subprocess. " + msg)',
    ),
    # -- rows that name the file printing the message (emitted_by); the lines are from
    # public reports that are not in tests/fixtures/corpus.
    "companion-torch-abi-mismatch": (
        # rusty1s/pytorch_scatter#259
        (
            "error: ~/.local/lib/python3.7/site-packages/torch_scatter/_scatter_cuda.so: "
            "undefined symbol: _ZNK2at6Tensor6narrowElll"
        ),
        # rusty1s/pytorch_scatter#348
        (
            "OSError: /root/miniconda3/envs/nerf/lib/python3.10/site-packages/torch_scatter/"
            "_version_cuda.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSs"
        ),
    ),
    "torch-own-abi-mismatch": (
        # pytorch/pytorch#14087
        (
            "ImportError: /home/shobjain/python27/local/lib/python2.7/site-packages/torch/_C.so: "
            "undefined symbol: _ZN5torch3jit5Value13setUniqueNameERKNSt7__cxx1112basic_string"
        ),
    ),
    "xformers-built-for-cpu-torch": (
        # facebookresearch/xformers#982, invoke-ai/InvokeAI#4788
        "    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.2.0+cpu)",
        "    PyTorch 2.0.1+cu118 with CUDA 1108 (you have 2.0.1+cpu)",
    ),
    "xformers-built-for-other-torch": (
        # invoke-ai/InvokeAI#6590, TheLastBen/fast-stable-diffusion#2672
        "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.0.1+cu118)",
        "    PyTorch 2.0.1+cu118 with CUDA 1108 (you have 2.1.0+cu121)",
    ),
    "xformers-cannot-load-extensions": (
        # Vchitect/SEINE#21
        ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:"),
    ),
    "companion-cuda-version-check": (
        # rusty1s/pytorch_sparse#86, kenqgu/Text-GCN#4
        (
            "RuntimeError: Detected that PyTorch and torch_sparse were compiled with different "
            "CUDA versions. PyTorch has CUDA version 10.2 and torch_sparse has CUDA version 11.1. "
            "Please reinstall the torch_sparse that matches your PyTorch install."
        ),
        (
            "RuntimeError: Detected that PyTorch and torch_sparse were compiled with different "
            "CUDA versions. PyTorch has CUDA version 10.1 and torch_sparse has CUDA version 11.0."
        ),
    ),
    "companion-operator-missing": (
        # fudan-generative-vision/hallo#98, ZQPei/deep_sort_pytorch#189
        "RuntimeError: operator torchvision::nms does not exist",
        "RuntimeError: No such operator torchvision::nms",
    ),
    "nvrm-api-mismatch": (
        # saharmor/dalle-playground#104, negativo17/nvidia-driver#43
        "[ 7386.259769] NVRM: API mismatch: the client has the version 515.48.07, but",
        "NVRM: API mismatch: the client has the version 390.25, but",
        # Frogging-Family/nvidia-all#394 (newer drivers name the client process)
        "[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)",
    ),
    "tf-kernel-dso-version-mismatch": (
        # The text gpu_device.cc's sibling cuda_diagnostics.cc prints (no public GitHub
        # thread with this line was found in time; see the emitted_by file).
        (
            "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:306] kernel version "
            "460.56.0 does not match DSO version 470.57.2 -- cannot find working devices in "
            "this configuration"
        ),
    ),
    "nvml-lib-rm-version-mismatch": (
        # tensorpack/tensorpack#1244, XuehaiPan/nvitop#41
        "tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        "NVML ERROR: RM has detected an NVML/RM version mismatch.",
    ),
    "nvml-library-not-found": (
        # deepfakes/faceswap#778, NVlabs/imaginaire#56
        "pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found",
        "`pynvml.nvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found`",
    ),
    "tf-gpu-below-minimum-capability": (
        # williamFalcon/tensorflow-gpu-install-ubuntu-16.04#22, tensorflow/tensorflow#17445
        (
            "Ignoring visible gpu device (device: 0, name: GeForce GTX 660M, pci bus id: "
            "0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The "
            "minimum required Cuda capability is 3.5."
        ),
        (
            "I tensorflow/core/common_runtime/gpu/gpu_device.cc:611] Ignoring gpu device "
            "(device: 0, name: GRID K520, pci bus id: 0000:00:03.0) with Cuda compute "
            "capability 3.0. The minimum required Cuda capability is 3.5."
        ),
    ),
    "cpp-extension-no-cuda-runtime": (
        # junhyung-SPALab/D-Align#1, TUMFTM/DPFT#3
        "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
        "    No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
    ),
    "tf-cudnn-handle-failed": (
        # matterport/Mask_RCNN#1652, tony-framework/TonY#486
        (
            "2019-07-22 08:22:14.252711: E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] "
            "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
        ),
        (
            "Failed to get convolution algorithm. This is probably because cuDNN failed to "
            "initialize, so try looking to see if a warning log message was printed above."
        ),
    ),
    "tf-native-runtime-load-failed": (
        # tensorflow/tensorflow#14686
        "ImportError: Failed to load the native TensorFlow runtime.",
    ),
    "onnxruntime-cuda-provider-dll-dependency": (
        # microsoft/onnxruntime#20589 (C# NuGet) and #14837 (C API)
        (
            '[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to '
            'load "D:\\Projects\\Yolov8.Net\\bin\\Debug\\net6.0-windows\\runtimes\\win-x64'
            "\\native\\onnxruntime_providers_cuda.dll"
        ),
        (
            "onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed "
            'with error 126 "" when trying to load "E:\\x\\build\\examples\\Release\\'
            'onnxruntime_providers_cuda.dll"'
        ),
    ),
    "paddle-cudnn-version-mismatch": (
        # PaddlePaddle/PaddleDetection#3331, PaddlePaddle/PARL#1024
        (
            "W0608 17:24:55.806937 14489 device_context.h:360] WARNING: device: 0. The installed "
            "Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.4, which may "
            "cause serious incompatible bug. Please recompile or reinstall Paddle with compatible "
            "CUDNN version."
        ),
        (
            "W1215 22:57:15.662986 24484 gpu_resources.cc:217] WARNING: device: . The installed "
            "Paddle is compiled with CUDNN 8.4, but CUDNN version in your machine is 8.3, which may "
            "cause serious incompatible bug."
        ),
    ),
    "nvrtc-unknown-gpu-arch": (
        # cupy/cupy#973 and #1651
        (
            "cupy.cuda.compiler.CompileException: nvrtc: error: invalid value for "
            "--gpu-architecture (-arch)"
        ),
        "NVRTC compilation error: nvrtc: error: invalid value for --gpu-architecture (-arch)",
        # PyTorch's JIT fuser on an RTX 3090 with CUDA 11.0 (pytorch/pytorch#47658)
        "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)",
        "Failed invoking compiler for CUDA C++ program: NVRTC_ERROR_INVALID_OPTION",
    ),
    "flash-attn-ampere-only": (
        # vllm-project/vllm#8189, Dao-AILab/flash-attention#1540
        (
            "ERROR 01-11 13:09:40 engine.py:366] RuntimeError: Error in model execution (input "
            "dumped to /tmp/err_execute_model_input_20250111-130939.pkl): FlashAttention only "
            "supports Ampere GPUs or newer."
        ),
        "!!! Exception during processing !!! FlashAttention only supports Ampere GPUs or newer.",
    ),
    "xformers-without-cuda": (
        # facebookresearch/xformers#800, cubiq/PuLID_ComfyUI#103
        "Error: xFormers wasn't build with CUDA support",
        "    xFormers wasn't build with CUDA support",
    ),
    "bitsandbytes-windows-unsupported": (
        # bitsandbytes-foundation/bitsandbytes#32, tiankuan93/ComfyUI-V-Express#11
        "TypeError: argument of type 'WindowsPath' is not iterable",
        "!!! Exception during processing!!! argument of type 'WindowsPath' is not iterable",
        # The Linux library loaded on Windows (bitsandbytes-foundation/bitsandbytes#218)
        (
            "CUDA SETUP: Loading binary E:\\tools\\AI_umaru\\Kohya_ss-GUI-LoRA-Portable\\venv\\lib"
            "\\site-packages\\bitsandbytes\\libbitsandbytes_cpu.so..."
        ),
    ),
    "cudnn-loader-cuda-library-missing": (
        # sair-lab/AirSLAM#55, Oneflow-Inc/oneflow#7864
        (
            "Could not load library libcublasLt.so.12. Error: libcublasLt.so.12: cannot open "
            "shared object file: No such file or directory"
        ),
        (
            "Could not load library libcublasLt.so.11. Error: libcublasLt.so.11: cannot open "
            "shared object file: No such file or directory"
        ),
    ),
    "cuda-driver-insufficient": (
        "ERROR: cudaGetDeviceCount CUDA driver version is insufficient for CUDA runtime version",
        (
            "CUDA error at D:/Bld/rel/gpgpu/toolkit/r8.0/demo_suite/bandwidthTest/bandwidthTest.cu:255 "
            'code=35(cudaErrorInsufficientDriver) "cudaSetDevice(currentDevice)"'
        ),
        (
            "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA "
            "runtime version at /opt/conda/conda-bld/pytorch_1524586445097/work/aten/src/THC/THCGeneral.cpp:70"
        ),
        (
            "onnxruntime::CudaCall CUDA failure 35: CUDA driver version is insufficient for CUDA "
            "runtime version ; GPU=-2011338632"
        ),
    ),
    "torch-driver-too-old": (
        (
            "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found "
            "version 11040). Please update your GPU driver by downloading and installing a new version"
        ),
        "NVIDIA driver on your system is too old (found version 6000)....",
    ),
    "torch-gpu-too-old": (
        "    Found GPU0 GeForce 820M which is of cuda capability 2.1.",
        "    PyTorch no longer supports this GPU because it is too old.",
        "Minimum and Maximum cuda capability supported by this version of PyTorch is",
    ),
    "torch-cuda-unknown-error": (
        (
            "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up "
            "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. "
            "Setting the available devices to be zero."
        ),
    ),
    "jax-pjrt-api-mismatch": (
        (
            "RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT "
            "plugin PJRT API version (0.54) and framework PJRT API version 0.51)."
        ),
    ),
    "torchvision-ops-mismatch": (
        (
            "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and "
            "torchvision versions are incompatible, or if you had errors while compiling "
            "torchvision from source."
        ),
    ),
    "symbol-version-not-defined": (
        (
            "OSError: /home/gpu/anaconda3/envs/FXM/lib/python3.7/lib-dynload/../../libcublas.so.11: "
            "symbol free_gemm_select version libcublasLt.so.11 not defined in file "
            "libcublasLt.so.11 with link time reference"
        ),
    ),
    "cuda-unsupported-ptx": (
        "ERROR: CUDA error: the provided PTX was compiled with an unsupported toolchain., line 148",
        (
            'Error: DriverError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the provided PTX was compiled '
            'with an unsupported toolchain.") when loading is_u32_f32'
        ),
        "'cudaErrorUnsupportedPtxVersion': 'the provided PTX was compiled with an unsupported toolchain.'!",
    ),
    "cuda-call-requires-newer-driver": (
        "cudaErrorCallRequiresNewerDriver: API call is not supported in the installed CUDA driver",
        "Cuda failure 'API call is not supported in the installed CUDA driver'",
    ),
    "cuda-forward-compat-unsupported": (
        "RuntimeError: CUDA failed with error forward compatibility was attempted on non supported HW",
        (
            "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorCompatNotSupportedOnDevice: "
            "forward compatibility was attempted on non supported HW"
        ),
        "Error 804: forward compatibility was attempted on non supported HW",
    ),
    "torch-found-no-nvidia-driver": (
        (
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
            "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"
        ),
    ),
    "no-nvidia-driver": (
        (
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear "
            "to be running on this host (16c54693e7f2): /proc/driver/nvidia/version does not exist"
        ),
    ),
    "nvidia-smi-no-driver": (
        (
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
            "that the latest NVIDIA driver is installed and running."
        ),
        "NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver.",
    ),
    # The kernel's NVRM records of one message, joined as explain's normaliser joins them.
    "nvrm-gpu-on-legacy-branch": (
        # https://github.com/siderolabs/talos/issues/8764
        (
            "kern:     err: [2024-05-20T02:46:53.856596762Z]: NVRM: The NVIDIA GeForce GT 710 GPU "
            "installed in this system is supported through the NVIDIA 470.xx Legacy drivers. "
            "Please visit http://www.nvidia.com/object/unix.html for more information.  The "
            "535.129.03 NVIDIA driver will ignore this GPU.  Continuing probe..."
        ),
        # https://github.com/NixOS/nixos-hardware/issues/1880
        (
            "NVRM: The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in this system is supported "
            "through the NVIDIA 580.xx Legacy drivers. Please"
        ),
    ),
    "nvrm-open-module-no-gsp": (
        # osapi.c's text with its records joined; https://github.com/NVIDIA/open-gpu-kernel-modules/issues/696
        (
            "NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b82) installed in this system is not "
            "supported by open nvidia.ko because it does not include the required GPU System "
            "Processor (GSP)."
        ),
        # osapi.c's vGPU-host variant
        "NVRM: installed in this vGPU host system is not supported by open nvidia.ko.",
    ),
    "nvrm-open-module-datacenter-only": (
        # https://github.com/siderolabs/extensions/issues/114 (as the node logged it)
        "Open nvidia.ko is only ready for use on Data Center GPUs. ",
        # https://github.com/kata-containers/kata-containers/issues/12258
        "[    9.607284] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.",
    ),
    "nvrm-gpu-fallen-off-bus": (
        # osapi.c's probe-time records, one dmesg line each
        "[ 1843.308145] NVRM: fallen off the bus and is not responding to commands.",
        "NVRM: Xid (PCI:0000:41:00): 79, pid=2417, GPU has fallen off the bus.",
    ),
    "nvrm-rm-init-adapter-failed": (
        # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/433
        "[  217.545832] NVRM: GPU 0000:05:00.0: RmInitAdapter failed! (0x62:0xffff:1622)",
        # https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/26
        "[   37.673683] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0",
    ),
    "cupy-multiple-packages": (
        # cupy/_environment.py's text; https://github.com/amazon-braket/amazon-braket-examples/pull/903
        "CuPy may not function correctly because multiple CuPy packages are installed",
        # https://github.com/rapidsai-community/rapidsai-csp-utils/pull/138
        "  CuPy may not function correctly because multiple CuPy packages are installed",
    ),
    "ngc-container-driver-too-old": (
        # https://github.com/NVIDIA/TensorRT-LLM/issues/23
        "ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but",
        # https://github.com/hiyouga/LlamaFactory/issues/5962 (the two lines joined)
        (
            "This container was built for NVIDIA Driver Release 545.23 or later, butversion "
            "535.104.05 was detected and compatibility mode is UNAVAILABLE"
        ),
    ),
    "xla-driver-older-than-ptxas": (
        # https://github.com/google/brax/issues/488
        (
            "W external/xla/xla/service/gpu/nvptx_compiler.cc:760] The NVIDIA driver's CUDA "
            "version is 12.4 which is older than the ptxas CUDA version (12.5.40). Because the "
            "driver is older than the ptxas version, XLA is disabling parallel compilation"
        ),
        # the later wording; https://github.com/jax-ml/jax/issues/25718
        (
            "The NVIDIA driver's CUDA version is 12.4 which is older than the PTX compiler "
            "version (12.6.85). Because the driver is older than the PTX compiler version"
        ),
        # the same, printed without the parentheses
        (
            "W external/xla/xla/service/gpu/nvptx_compiler.cc:930] The NVIDIA driver's CUDA "
            "version is 12.2 which is older than the PTX compiler version 12.8.61. Because the "
            "driver is older than the PTX compiler version, XLA is disabling parallel compilation"
        ),
    ),
    "libcuda-missing": (
        (
            "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
            "cannot open shared object file: no such file or directory: unknown."
        ),
        (
            "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
            "object file: No such file or directory"
        ),
        (
            "I external/local_tsl/tsl/cuda/cudart_stub.cc:31] Could not find cuda drivers on your "
            "machine, GPU will not be used."
        ),
        # TensorFlow 1.x's Windows self-check (simonsuthers/Speech-Separation#4)
        (
            "ImportError: Could not find 'nvcuda.dll'. TensorFlow requires that this DLL be "
            "installed in a directory that is named in your %PATH% environment variable."
        ),
        # TensorFlow 2.x's dso_loader.cc on Windows
        (
            "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
            "library 'nvcuda.dll'; dlerror: nvcuda.dll not found"
        ),
    ),
    "cuda-no-device": (
        (
            "E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed call to cuInit: "
            "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
        ),
        (
            "RuntimeError: cuda runtime error (38) : no CUDA-capable device is detected at "
            "/opt/conda/conda-bld/pytorch_1524584710464/work/aten/src/THC/THCGeneral.cpp:70"
        ),
        "cupy.cuda.runtime.CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected",
    ),
    "no-cuda-gpus-available": (
        "RuntimeError: No CUDA GPUs are available",
        'os.environ["CUDA_VISIBLE_DEVICES"] = ""',
        "CUDA_VISIBLE_DEVICES=-1 python train.py",
    ),
    "cuda-devices-busy": (
        "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
    ),
    "cudagetdevicecount-unexpected": (
        (
            "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
            "before calling NumCudaDevices() that might have already set an error? Error 101: invalid "
            "device ordinal"
        ),
    ),
    "cuda-system-not-initialized": (
        (
            "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
            "before calling NumCudaDevices() that might have already set an error? Error 802: system "
            "not yet initialized"
        ),
    ),
    "cuda-system-driver-mismatch": (
        (
            "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run "
            "some cuda functions before calling NumCudaDevices() that might have already set an error? "
            "Error 803: system has unsupported display driver / cuda driver combination"
        ),
    ),
    "nvml-driver-library-mismatch": (
        "Failed to initialize NVML: Driver/library version mismatch",
        "[train] [nvidia-smi(stdout)] Failed to initialize NVML: Driver/library version mismatch",
    ),
    "torch-gpu-arch-not-compatible": (
        (
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
            "PyTorch installation."
        ),
        (
            "GeForce RTX 5090 D with CUDA capability sm_120 is not compatible with the current PyTorch "
            "installation."
        ),
    ),
    "no-kernel-image": (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        (
            "[error][simple_yolo.cu:556]:launch failed: no kernel image is available for execution on "
            "the device"
        ),
        "Error in forward_face_index_map_1: no kernel image is available for execution on the device",
    ),
    "ptxas-unknown-gpu-arch": (
        "ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'",
        "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        (
            "Your CUDA software stack is old. We fallback to the NVIDIA driver for some compilation. "
            "Update your CUDA version to get the best performance. The ptxas error was: ptxas fatal   : "
            "Value 'sm_86' is not defined for option 'gpu-name'"
        ),
        "nvcc fatal   : Unsupported gpu architecture 'compute_89'",
        "nvcc fatal : Unsupported gpu architecture 'compute_86'",
        "nvcc fatal   : Value 'compute_30' is not defined for option 'gpu-architecture'",
    ),
    "nvml-unknown-error": (
        "Failed to initialize NVML: Unknown Error",
        "root@098b49afe624:/# nvidia-smi Failed to initialize NVML: Unknown Error",
    ),
    "torch-windows-dll-dependency": (
        (
            'OSError: [WinError 126] The specified module could not be found. Error loading "\\.venv'
            '\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.'
        ),
    ),
    "cublas-arch-mismatch": (
        "  what():  [FT][ERROR] CUDA runtime error: CUBLAS_STATUS_ARCH_MISMATCH",
        "CUDA error at moe_compute_kernel.cu:132 code=8(CUBLAS_STATUS_ARCH_MISMATCH)",
    ),
    "torch-extension-unknown-arch": (
        "ValueError: Unknown CUDA arch (8.6) or GPU not supported",
        "ValueError: Unknown CUDA arch (9.0+PTX) or GPU not supported",
    ),
    "torch-extension-cuda-minor-mismatch": (
        (
            "UserWarning: The detected CUDA version (12.1) has a minor version mismatch with the "
            "version that was used to compile PyTorch (12.4). Most likely this shouldn't be a problem."
        ),
    ),
    "flash-attn-nvcc-too-old": (
        (
            "RuntimeError: FlashAttention is only supported on CUDA 11.7 and above.  Note: make sure "
            "nvcc has a supported version by running nvcc -V."
        ),
        "RuntimeError: FlashAttention is only supported on CUDA 11 and above",
    ),
    "torch-extension-cuda-mismatch": (
        "The detected CUDA version (12.3) mismatches the version that was used to compile",
        (
            "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used "
            "to compile PyTorch (12.4). Please make sure to use the same CUDA versions."
        ),
        # DeepSpeed's op builder, as quoted in bytedance/lightseq#158
        (
            "Exception: Installed CUDA version 9.0 does not match the version torch was compiled "
            "with 10.1, unable to compile cuda/cpp extensions without a matching cuda version."
        ),
        # NVIDIA apex's setup.py (NVIDIA/apex#550)
        (
            "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not "
            "match the version used to compile Pytorch binaries.  Pytorch binaries were compiled "
            "with Cuda 12.1."
        ),
        # cpp_extension passing the message and its arguments to RuntimeError unformatted
        (
            "RuntimeError: ('The detected CUDA version (%s) mismatches the version that was used "
            "to compilePyTorch (%s). Please make sure to use the same CUDA versions.', '12.9', '13.0')"
        ),
    ),
    "cuda-host-compiler-unsupported": (
        (
            "RuntimeError: The current installed version of g++ (13.2.0) is greater than the "
            "maximum required version by CUDA 11.8. Please make sure to use an adequate version "
            "of g++ (>=6.0.0, <12.0)."
        ),
        (
            "RuntimeError: The current installed version of x86_64-linux-gnu-g++ (4.8.5) is less "
            "than the minimum required version by CUDA 11.7 (6.0.0). Please make sure to use an "
            "adequate version of x86_64-linux-gnu-g++ (>=6.0.0, <12.0)."
        ),
        (
            "/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU "
            "version! gcc versions later than 11 are not supported!"
        ),
    ),
    "jax-jaxlib-version-mismatch": (
        (
            "RuntimeError: jaxlib version 0.4.14 is newer than and incompatible with jax version "
            "0.4.6. Please update your jax and/or jaxlib packages."
        ),
        "RuntimeError: jaxlib is version 0.1.69, but this version of jax requires version >= 0.1.74.",
    ),
    "cuda-invalid-device-ordinal": (
        "RuntimeError: CUDA error: invalid device ordinal",
        "RuntimeError: cuda runtime error (101) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:59",
        "temp_x = x.cuda(self.device_id[i]) RuntimeError: CUDA error (10): invalid device ordinal",
    ),
    "cuda-home-not-set": (
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        # DeepSpeed's op builder (thinhlpg/vixtts-demo#12, enhuiz/vall-e#78)
        (
            "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, "
            "unable to compile CUDA op(s)"
        ),
        "AssertionError: CUDA_HOME does not exist, unable to compile CUDA op(s)",
        (
            "RuntimeError: CUDA was not found on the system, please set the CUDA_HOME or the "
            "CUDA_PATHenvironment variable or add NVCC to your system PATH. The extension "
            "compilation will fail."
        ),
    ),
    "cupy-not-correctly-installed": ("ImportError: CuPy is not correctly installed.",),
    "torch-not-compiled-with-cuda": (
        "AssertionError: Torch not compiled with CUDA enabled",
        '    raise AssertionError("Torch not compiled with CUDA enabled")',
    ),
    "jaxlib-without-cuda": (
        (
            "WARNING:2025-06-15 17:04:55,449:jax._src.xla_bridge:791: An NVIDIA GPU may be present on "
            "this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu."
        ),
    ),
    "onnxruntime-cuda-provider-missing": (
        (
            "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider "
            "names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'"
        ),
    ),
    "onnxruntime-cuda-provider-load-failed": (
        (
            "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so "
            "with error: libcublasLt.so.11: cannot open shared object file: No such file or directory"
        ),
        (
            "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: "
            "cannot open shared object file: No such file or directory"
        ),
        (
            "FAIL : Failed to load library /home/meh/devel/ort-cuda-13-fail/target/debug/"
            "libonnxruntime_providers_cuda.so with error: libcublasLt.so.12: cannot open shared object file"
        ),
    ),
    "onnxruntime-cuda-provider-create-failed": (
        (
            "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:861 CreateExecutionProviderInstance] "
            "Failed to create CUDAExecutionProvider. Please reference "
            "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"
        ),
    ),
    "cupy-nvrtc-missing": (
        "OSError: libnvrtc.so.12: cannot open shared object file: No such file or directory",
        "Exception in main training loop: nvrtc: error: failed to open libnvrtc-builtins.so.",
        "CompileException: nvrtc: error: failed to load builtins",
    ),
    "cupy-cuda-runtime-error": (
        (
            "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA "
            "driver version is insufficient for CUDA runtime version"
        ),
        "cupy.cuda.runtime.CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected",
    ),
    "tf-dlopen-cuda-library": (
        (
            "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
            "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: "
            "No such file or directory; LD_LIBRARY_PATH: /usr/local/lib/python3.10/dist-packages/cv2/../../lib64"
        ),
        (
            "Could not load dynamic library 'libcusolver.so.11'; dlerror: libnvJitLink.so.12: cannot "
            "open shared object file: No such file or directory"
        ),
        # TensorFlow 1.x's Windows self-check (deepfakes/faceswap-playground#136)
        (
            "ImportError: Could not find 'cudart64_90.dll'. TensorFlow requires that this DLL be "
            "installed in a directory that is named in your %PATH% environment variable."
        ),
    ),
    "tf-dlopen-cudnn": (
        (
            "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
            "library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such "
            "file or directory"
        ),
    ),
    "tf-cannot-dlopen-gpu-libraries": (
        (
            "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU "
            "libraries. Please make sure the missing libraries mentioned above are installed properly "
            "if you would like to use GPU."
        ),
    ),
    "tf-skipping-gpu-devices": ("Skipping registering GPU devices...",),
    "cuda-shared-library-missing": (
        # glibc's elf/dl-load.c text for a program and an import, with TensorRT's libraries:
        # https://github.com/PaddlePaddle/Serving/issues/1435
        (
            "python3.6/site-packages/paddle_serving_server/serving-gpu-cuda11-0.0.0/serving: error "
            "while loading shared libraries: libnvinfer.so.7: cannot open shared object file: No "
            "such file or directory"
        ),
        # https://github.com/wang-xinyu/tensorrtx/issues/1501
        "ImportError: libnvinfer.so.8: cannot open shared object file: No such file or directory",
        # CTranslate2's src/cuda/cublas_stub.cc: https://github.com/billwuhao/ComfyUI_gemmax/issues/2
        "Library cublas64_11.dll is not found or cannot be loaded",
        # CPython's ctypes on Windows: https://github.com/onnx/onnx-tensorrt/issues/951
        (
            "Could not find module 'libcudart.so' (or one of its dependencies). Try using the full "
            "path with constructor syntax."
        ),
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
        (
            "Could not load library libcudnn_ops_infer.so.8. Error: libcublas.so.11: cannot open "
            "shared object file: No such file or directory"
        ),
    ),
    "cudnn-sublibrary-load-failed": (
        # cuDNN 8's loader when it finds no file of the name (the "Could not locate" form).
        "Could not locate cudnn_adv_infer64_8.dll. Please make sure it is in your library path!",
        (
            'OSError: [WinError 126] The specified module could not be found. Error loading "E:\\env'
            '\\Lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.'
        ),
        (
            "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
            "object file: No such file or directory"
        ),
        (
            "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot "
            "open shared object file: No such file or directory"
        ),
        (
            "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
            "libcudnn_ops.so}"
        ),
        "Could not load library cudnn_cnn_infer64_8.dll. Error code 126",
    ),
    "cudnn-version-mismatch": (
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.5 "
            "but source was compiled with: 8.1.0.  CuDNN library needs to have matching major "
            "version and equal or higher minor version."
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:352] Loaded runtime CuDNN library: 5005 "
            "(compatibility version 5000) but source was compiled with 5110 (compatibility version 5100)."
        ),
        (
            "E1027 15:10:59.012564 3266428 cuda_dnn.cc:456] Loaded runtime CuDNN library: 9.10.1 but "
            "source was compiled with: 9.13.1."
        ),
        (
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) "
            "but found runtime version (8, 3, 3). PyTorch already comes bundled with cuDNN."
        ),
        "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7600",
    ),
    "dnn-library-not-found": (
        "UnimplementedError: DNN library is not found. [Op:Conv2D]",
        (
            "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization "
            "failed. Look at the errors above for more details."
        ),
    ),
    "cudnn-not-initialized": ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",),
    "vllm-quantization-min-capability": (
        "ValueError: The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70.",
    ),
    "vllm-compressed-tensors-scheme-capability": (
        "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', 'Current capability: 75.')",
    ),
    "triton-no-active-driver": ("RuntimeError: 0 active drivers ([]). There should only be one.",),
    "triton-libcuda-not-found": ("AssertionError: libcuda.so cannot found!",),
    "xformers-operator-not-built": (
        "    operator wasn't built - see `python -m xformers.info` for more info",
    ),
    "xformers-bf16-needs-ampere": ("    bf16 is only supported on A100+ GPUs",),
    "bitsandbytes-cuda-binary-not-found": (
        "RuntimeError: No compatible CUDA binary found at /usr/local/lib/python3.12/dist-packages/bitsandbytes/libbitsandbytes_cuda131.so",
    ),
    "extension-build-nvcc-not-found": (
        "UserWarning: flash_attn was requested, but nvcc was not found.  Are you sure your environment has nvcc available?  If you're installing within a container from https://hub.docker.com/r/pytorch/pytorch, only images whose names contain 'devel' will provide nvcc.",
    ),
    "ggml-cuda-no-device-code": (
        "/llama.cpp/ggml/src/ggml-cuda/template-instances/../mmq.cuh:3063: ERROR: CUDA kernel mul_mat_q has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520",
    ),
    "jax-cuda-component-outdated": ("Outdated cuSPARSE installation found.",),
    "jax-cuda-component-unable-to-load": ("Unable to load cuSPARSE. Is it installed?",),
    "jax-plugin-initialize-exception": (
        "ERROR:2025-02-25 10:11:12,345:jax._src.xla_bridge:610: Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()",
    ),
    "ctranslate2-not-compiled-with-cuda": (
        "ValueError: This CTranslate2 package was not compiled with CUDA support",
    ),
    "paddle-compiled-cuda-newer-than-driver": (
        "W0522 14:31:24.083271  3337 gpu_resources.cc:196] WARNING: device: 0. The installed Paddle is compiled with CUDA 11.8, but CUDA runtime version in your machine is 11.6, which may cause serious incompatible bug. Please recompile or reinstall Paddle with compatible CUDA version.",
    ),
    "paddle-set-device-gpu-cpu-build": (
        "ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA",
    ),
    "tf-no-kernel-binaries-ptx-jit": (
        "W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
    ),
    "xla-libdevice-not-found": (
        "2023-05-06 16:19:54.078251: W tensorflow/compiler/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:530] Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime failures, if the program we try to run uses routines from libdevice.",
    ),
    "uv-no-wheel-here": (
        (
            "error: Distribution `torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed "
            "because it doesn't have a source distribution or wheel for the current platform"
        ),
    ),
    "uv-wheels-only-for-other-platforms": (
        (
            "hint: You're on macOS (`macosx_15_0_arm64`), but `jax-cuda12-plugin` (v0.5.3) only has "
            "wheels for the following platforms: `manylinux2014_aarch64`, `manylinux2014_x86_64`"
        ),
    ),
    "ultralytics-cuda-device-unavailable": (
        (
            "ValueError: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA "
            "device(s) if available, i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU."
        ),
    ),
    "jax-no-visible-gpu": (
        (
            "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU "
            "devices. (you may need to uninstall the failing plugin package, or set "
            "JAX_PLATFORMS=cpu to skip this backend.)"
        ),
    ),
    "cuda-library-symbol-missing": (
        (
            "python: symbol lookup error: /opt/conda/lib/python3.8/site-packages/torch/lib/"
            "libtorch_cuda.so: undefined symbol: cudnnSetConvolutionGroupCount"
        ),
    ),
    "cuda-driver-entry-point-missing": (
        'error="symbol lookup for cuCtxCreate_v3 failed"',
        "undefined symbol: cuGetProcAddress_v2",
    ),
    "container-toolkit-host-driver-not-loaded": (
        (
            "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: "
            "starting container process caused: process_linux.go:545: container init caused: "
            "Running hook #0:: error running hook: exit status 1, stdout: , stderr: "
            "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown."
        ),
    ),
    "bitsandbytes-cuda-entry-point-missing": (
        "'NoneType' object has no attribute 'cadam32bit_grad_fp32'",
        "AttributeError: 'NoneType' object has no attribute 'cquantize_blockwise_fp16_nf4'",
        "function 'cadam32bit_grad_fp32' not found",
    ),
    "bitsandbytes-no-library-for-cuda": (
        (
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda121.so. Maybe "
            "you need to compile it from source?"
        ),
        "CUDA SETUP: Required library version not found: libbitsandbytes_cuda117_nocublaslt.so.",
    ),
    "pip-wheel-tags-unsupported": (
        "ERROR: torch-1.1.0-cp37-cp37m-linux_x86_64.whl is not a supported wheel on this platform.",
    ),
    "glibc-older-than-binary": (
        (
            "ImportError: /lib64/libm.so.6: version `GLIBC_2.27' not found (required by "
            "/home/u/env/lib/python3.11/site-packages/torch/lib/../../../../libcurand.so.10)"
        ),
    ),
    "libstdcxx-older-than-binary": (
        (
            "ImportError: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by "
            "/opt/conda/lib/python3.10/site-packages/scipy/linalg/_matfuncs_sqrtm_triu.so)"
        ),
        "libstdc++.so.6: version `CXXABI_1.3.13' not found (required by /usr/lib/libtorch.so)",
    ),
    "tensorrt-unsupported-sm": (
        "[TRT] Assertion failed: Unsupported SM.",
        (
            "[E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error (Target "
            "GPU SM 61 is not supported by this TensorRT release.)"
        ),
    ),
    "tensorrt-engine-version-mismatch": (
        (
            "[TensorRT] ERROR: coreReadArchive.cpp (38) - Serialization Error in verifyHeader: 0 "
            "(Version tag does not match)"
        ),
        (
            "6: The engine plan file is not compatible with this version of TensorRT, expecting "
            "library version 8.6.1 got 8.5.3, please rebuild."
        ),
    ),
    "tf-windows-dll-load-failed": (
        "ImportError: DLL load failed: The specified module could not be found.",
        (
            "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: The "
            "specified module could not be found."
        ),
    ),
    "bitsandbytes-cpu-library-loaded": (
        (
            "/opt/conda/lib/python3.10/site-packages/bitsandbytes/cextension.py:31: UserWarning: The "
            "installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers and "
            "GPU quantization are unavailable."
        ),
    ),
    "bitsandbytes-int8-needs-cc75": (
        (
            "UserWarning: WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul is "
            "supported for your GPU!"
        ),
    ),
    "paddle-legacy-cudnn-major-mismatch": (
        (
            "F0605 01:44:46.962916 26917 hl_cuda_cudnn.cc:171] Check failed: (cudnn_cuh_major < 4 "
            "&& cudnn_dso_major < 4) || (cudnn_cuh_major == cudnn_dso_major) [cudnn init] libcudnn "
            "v5 with header v7 unmatched!"
        ),
    ),
    "cuda-invalid-kernel-image": (
        (
            "RuntimeError: CUDA runtime implicit initialization on GPU:0 failed. Status: device "
            "kernel image is invalid"
        ),
        "CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid",
    ),
    "cublas-execution-failed": (
        (
            "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( "
            "handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"
        ),
        "failed to run cuBLAS routine cublasSgemm_v2: CUBLAS_STATUS_EXECUTION_FAILED",
    ),
    "cudnn-execution-failed": (
        "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED",
        (
            "F0525 12:35:32.850440 182776 cudnn_conv_layer.cu:28] Check failed: status == "
            "CUDNN_STATUS_SUCCESS (8 vs. 0)  CUDNN_STATUS_EXECUTION_FAILED"
        ),
    ),
    "paddle-cudnn-not-loaded": (
        (
            "RuntimeError: (PreconditionNotMet) Cannot load cudnn shared library. Cannot invoke "
            "method cudnnGetVersion."
        ),
        (
            "Error: Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion at "
            "(/paddle/paddle/fluid/platform/dynload/cudnn.cc:63)"
        ),
    ),
    "jax-cudnn-outdated": (
        (
            "E   RuntimeError: Backend 'cuda' failed to initialize: Unable to use CUDA because of the "
            "following issues with CUDA components: Outdated cuDNN installation found."
        ),
        "Found cuDNN version 8600, but JAX was built against version 8907, which is newer.",
    ),
    "jax-cuda-backend-failed": (
        (
            "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable to load CUDA. "
            "(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)"
        ),
        "INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda':",
        (
            "CUDA backend failed to initialize: Found CUDA version 12010, but JAX was built against "
            "version 12020, which is newer."
        ),
    ),
    "cuda-out-of-memory": (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 192.00 MiB. GPU",
        (
            "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total "
            "capacity; 8.57 MiB already allocated; 9.28 GiB free; 4.68 MiB cached)"
        ),
    ),
    "cublas-alloc-failed": (
        "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
        "E cuda_blas.cc:372] failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED",
    ),
    "cublas-not-supported": (
        (
            "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
            "`cublasGemmStridedBatchedEx(handle, opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, "
            "CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, strideb)`"
        ),
    ),
    "cuda-illegal-memory-access": (
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        (
            "RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at "
            "/pytorch/aten/src/THC/generic/THCTensorCopy.c:20"
        ),
    ),
    "cuda-device-side-assert": (
        "RuntimeError: CUDA error: device-side assert triggered",
        (
            "what():  CUDA error: device-side assert triggered (insert_events at "
            "/tmp/pip-req-build-4baxydiv/c10/cuda/CUDACachingAllocator.cpp:569)"
        ),
    ),
    "nccl-unhandled-system-error": (
        "NCCL error in: /torch/lib/c10d/ProcessGroupNCCL.cpp:260, unhandled system error",
        "RuntimeError: NCCL Error 2: unhandled system error",
        "fastmoe: Test NCCL failure common.cu:777 'unhandled system error'",
    ),
    "nccl-shared-memory": (
        (
            "proxy.cc:1 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-AbCdEf "
            "(size 9637888)"
        ),
        "include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device",
    ),
    "cudnn-zlib-missing": (
        "Could not locate zlibwapi.dll. Please make sure it is in your library path!",
        (
            "Could not load library zlibwapi.dll. Error code 193. Please verify that the library "
            "is built correctly for your processor architecture (32-bit, 64-bit)"
        ),
    ),
    # The rows below were added with the failure corpus (tests/fixtures/corpus). Their
    # examples are written from each library's message format, not copied from the
    # corpus, so the corpus stays a held-out measure.
    "cudnn-shared-library-missing": (
        # CPython's ctypes text (Modules/_ctypes/callproc.c) naming a cuDNN DLL
        (
            "FileNotFoundError: Could not find module 'C:\\venv\\Lib\\site-packages\\nvidia\\"
            "cudnn\\bin\\cudnn_ops64_9.dll' (or one of its dependencies). Try using the full "
            "path with constructor syntax."
        ),
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
        "OSError: libcudnn_graph.so.9.1.0: cannot open shared object file: No such file or directory",
    ),
    "cudnn-status-version-mismatch": (
        "RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH",
        "E cuda_dnn.cc:535] Could not create cudnn handle: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
    ),
    "cudnn-status-arch-mismatch": (
        "RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH",
        "F conv_ops.cc:1112] Check failed: status: CUDNN_STATUS_ARCH_MISMATCH",
    ),
    "cublas-not-initialized": (
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(&handle)`",
        "cupy_backends.cuda.libs.cublas.CUBLASError: CUBLAS_STATUS_NOT_INITIALIZED",
    ),
    "cuda-library-undefined-versioned-symbol": (
        (
            "OSError: /venv/lib/python3.11/site-packages/nvidia/cusolver/lib/libcusolver.so.11: "
            "undefined symbol: __nvJitLinkGetLinkedCubin_12_6, version libnvJitLink.so.12"
        ),
        "ImportError: libcufft.so.11: undefined symbol: cudaGraphAddNode_v2, version libcudart.so.12",
    ),
    "jax-no-gpu-falling-back": (
        (
            "W0000 xla_bridge.py:876] No GPU/TPU found, falling back to CPU. (Set "
            "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)"
        ),
        "WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU.",
    ),
    "docker-no-gpu-device-driver": (
        (
            'Error response from daemon: could not select device driver "nvidia" with '
            "capabilities: [[gpu compute utility]]"
        ),
        (
            'docker: Error response from daemon: could not select device driver "" with '
            "capabilities: [[gpu]]."
        ),
        "docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
    ),
    "container-started-without-gpu": (
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
        (
            "app-1  | WARNING: The NVIDIA Driver was not detected. GPU functionality will not be "
            "available."
        ),
    ),
    "pip-no-framework-wheel": (
        "ERROR: No matching distribution found for torch==2.0.1",
        "ERROR: No matching distribution found for tensorflow<2.11,>=2.10",
        "ERROR: No matching distribution found for jaxlib",
        (
            "ERROR: Could not find a version that satisfies the requirement torch==1.7.1+cu110 "
            "(from versions: 2.2.0, 2.2.1)"
        ),
    ),
}

# Lines from healthy logs, and near misses, that must match nothing.
HEALTHY_LINES = (
    (
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened "
        "dynamic library libcudnn.so.8"
    ),
    (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1525] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 22311 MB memory"
    ),
    "Is CUDA available: True",
    "CUDA runtime version: 12.4.131",
    ">>> torch.cuda.is_available()",
    "True",
    "NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4",
    "cuDNN version: Probably one of the following:",
    "node17-2:36748:36748 [0] NCCL INFO Using network IB",
    "[CudaDevice(id=0)]",
    "Epoch 1/10 - loss: 0.2314 - accuracy: 0.9312",
    "export CUDA_VISIBLE_DEVICES=0",
    "Available providers: ['CUDAExecutionProvider', 'CPUExecutionProvider']",
    "torch.backends.cudnn.enabled = True",
    "memory: 80GB HBM3, no errors",
    "",
)

IDS = [s.id for s in SIGNATURES]


def _ids(text: str) -> list[str]:
    matches, _count = match_signatures(text)
    return [m.signature.id for m in matches]


def test_every_signature_has_real_examples() -> None:
    assert sorted(EXAMPLES) == sorted(IDS)
    assert len(SIGNATURES) >= 30


@pytest.mark.parametrize(
    ("sig_id", "line"), [(sid, line) for sid, lines in EXAMPLES.items() for line in lines]
)
def test_example_matches_its_signature(sig_id: str, line: str) -> None:
    assert sig_id in _ids(line)


@pytest.mark.parametrize("line", HEALTHY_LINES)
def test_healthy_lines_match_nothing(line: str) -> None:
    assert _ids(line) == []


@pytest.mark.parametrize(
    ("line", "expected", "hidden"),
    [
        # A specific reading hides the generic one on the same line.
        (EXAMPLES["cuda-forward-compat-unsupported"][2], "cuda-forward-compat-unsupported", None),
        (
            EXAMPLES["cuda-system-driver-mismatch"][0],
            "cuda-system-driver-mismatch",
            "cudagetdevicecount-unexpected",
        ),
        (
            EXAMPLES["cuda-system-not-initialized"][0],
            "cuda-system-not-initialized",
            "cudagetdevicecount-unexpected",
        ),
        (
            EXAMPLES["onnxruntime-cuda-provider-load-failed"][0],
            "onnxruntime-cuda-provider-load-failed",
            "cuda-shared-library-missing",
        ),
        (EXAMPLES["cupy-nvrtc-missing"][0], "cupy-nvrtc-missing", "cuda-shared-library-missing"),
        (EXAMPLES["cudnn-version-mismatch"][0], "cudnn-version-mismatch", None),
        (EXAMPLES["no-cuda-gpus-available"][0], "no-cuda-gpus-available", "cuda-no-device"),
        (EXAMPLES["jax-cudnn-outdated"][0], "jax-cudnn-outdated", "jax-cuda-backend-failed"),
        (EXAMPLES["torch-driver-too-old"][0], "torch-driver-too-old", "cuda-driver-insufficient"),
    ],
)
def test_specific_signature_hides_generic(line: str, expected: str, hidden: str | None) -> None:
    ids = _ids(line)
    assert expected in ids
    if hidden is not None:
        assert hidden not in ids


@pytest.mark.parametrize(
    ("line", "wrong"),
    [
        # Each of these looks related but is another problem.
        (EXAMPLES["torch-not-compiled-with-cuda"][0], "cuda-no-device"),
        (EXAMPLES["cuda-out-of-memory"][0], "cublas-alloc-failed"),
        (EXAMPLES["tf-dlopen-cudnn"][0], "tf-dlopen-cuda-library"),
        (EXAMPLES["tf-dlopen-cuda-library"][0], "tf-dlopen-cudnn"),
        (EXAMPLES["no-kernel-image"][0], "torch-gpu-arch-not-compatible"),
        (EXAMPLES["nvml-driver-library-mismatch"][0], "nvidia-smi-no-driver"),
        (EXAMPLES["cuda-driver-insufficient"][0], "torch-driver-too-old"),
        (EXAMPLES["cudnn-not-initialized"][0], "cudnn-execution-failed"),
        (EXAMPLES["jaxlib-without-cuda"][0], "jax-cuda-backend-failed"),
        ("ptxas warning : Registers are spilled to local memory", "ptxas-unknown-gpu-arch"),
        ("export CUDA_VISIBLE_DEVICES=0,1", "no-cuda-gpus-available"),
        ("Error 8040: something else", "cuda-forward-compat-unsupported"),
    ],
)
def test_related_text_does_not_match_the_wrong_signature(line: str, wrong: str) -> None:
    assert wrong not in _ids(line)


def test_named_groups_capture_facts() -> None:
    (m,) = match_signatures(EXAMPLES["torch-gpu-arch-not-compatible"][0])[0]
    assert m.facts == {"sm": "120"}
    found = {x.signature.id: x for x in match_signatures(EXAMPLES["cudnn-version-mismatch"][0])[0]}
    assert found["cudnn-version-mismatch"].facts == {"loaded": "8.0.5", "compiled": "8.1.0"}
    found = {
        x.signature.id: x
        for x in match_signatures(EXAMPLES["onnxruntime-cuda-provider-load-failed"][0])[0]
    }
    assert found["onnxruntime-cuda-provider-load-failed"].facts["lib"] == "libcublasLt.so.11"
    (m,) = match_signatures(EXAMPLES["torch-driver-too-old"][0])[0]
    assert m.facts == {"found": "11040"}


def test_table_is_well_formed() -> None:
    ids = [s.id for s in SIGNATURES]
    assert len(ids) == len(set(ids))
    covered: set[str] = set()
    for s in SIGNATURES:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", s.id), s.id
        assert re.match(
            r"https://(github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+|docs\.nvidia\.com/)", s.source
        ), s.id
        assert set(s.frameworks) <= set(ALL_FRAMEWORKS), s.id
        covered |= set(s.frameworks)
        assert isinstance(s.category, Category)
        assert 10 < len(s.title) < 100, s.id
        assert s.cause.endswith(".") and s.fix, s.id
        assert set(s.supersedes) <= set(ids), s.id
        assert set(s.explains) <= set(ids) - {s.id}, s.id
        assert s.pattern.search("") is None, s.id
    assert covered == set(ALL_FRAMEWORKS)
    assert len({s.source for s in SIGNATURES}) == len(SIGNATURES)


def test_signature_fixes_carry_no_versioned_commands() -> None:
    # Fixes come from the resolver for the target (issue 27): a signature's own advice
    # names no CUDA variant (cu124, cuda12, -cu12), pinned version or release number.
    import re

    from envcheck.explain.signatures import SIGNATURES

    versioned = re.compile(r"\bcu\d{2,3}\b|cuda\d{2}\b|-cu\d{2}\b|==|\d+\.\d+")
    assert [s.id for s in SIGNATURES if versioned.search(s.fix)] == []
