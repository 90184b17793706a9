"""GPU smoke tests, run in a child process of the target interpreter.

This file is executed as a script (``python -I _smoke.py FRAMEWORK``) by the
target environment's interpreter, so it uses only the standard library at
module level and imports the framework inside the test. It prints one JSON
object on its last stdout line. It must run on Python 3.6+: no future import
(``from __future__ import annotations`` is a SyntaxError before 3.7), no
f-strings and no ``@`` operator (so that Python 2 can parse it and print the
one-line refusal below), nothing newer than 3.6 from the stdlib.
tests/detect/test_child_scripts.py runs it under every interpreter pyenv has.
"""

import sys

# Checked before any other import: Python 2 and 3.0-3.5 get one line, not a
# traceback. The wording matches envcheck.detect.python_env.too_old_message().
if __name__ == "__main__" and sys.version_info < (3, 6):
    sys.stderr.write(
        "envcheck needs the target Python to be 3.6 or newer; %s is %s\n"
        % (sys.executable, ".".join(str(v) for v in sys.version_info[:3]))
    )
    sys.exit(3)

import json
import time
import traceback

RESULT = {"framework": None, "ok": False, "checks": [], "devices": [], "metrics": {}}


def check(name, ok, detail=None, seconds=None):
    RESULT["checks"].append({"name": name, "ok": bool(ok), "detail": detail, "seconds": seconds})
    return ok


def timed(fn, sync=None, repeat=3):
    """Best-of-N wall time of fn() in seconds (after one warm-up call)."""
    fn()
    if sync:
        sync()
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        if sync:
            sync()
        dt = time.perf_counter() - t
        best = dt if best is None or dt < best else best
    return best


def smoke_torch():
    import torch

    RESULT["version"] = torch.__version__
    RESULT["cuda_build"] = getattr(torch.version, "cuda", None)
    if not check("cuda_available", torch.cuda.is_available(), "torch.cuda.is_available()"):
        return
    n = torch.cuda.device_count()
    for i in range(n):
        p = torch.cuda.get_device_properties(i)
        RESULT["devices"].append(
            {
                "index": i,
                "name": p.name,
                "capability": "%d.%d" % (p.major, p.minor),
                "memory_mib": p.total_memory // (1024 * 1024),
            }
        )
    check("device_count", n > 0, "%d device(s)" % n)
    sync = torch.cuda.synchronize
    for i in range(n):
        dev = torch.device("cuda", i)
        a = torch.randn(512, 512)
        ref = torch.matmul(a, a)
        got = torch.matmul(a.to(dev), a.to(dev)).cpu()
        err = float((got - ref).abs().max())
        check("matmul_gpu%d" % i, err < 1e-1, "max abs error vs CPU %.2e" % err)
    dev = torch.device("cuda", 0)
    cudnn = torch.backends.cudnn
    conv = torch.nn.Conv2d(3, 16, 3).to(dev)
    x = torch.randn(8, 3, 64, 64, device=dev)
    y = conv(x)
    sync()
    check(
        "cudnn_conv",
        tuple(y.shape) == (8, 16, 62, 62),
        "cuDNN %s" % (cudnn.version() if cudnn.is_available() else "unavailable"),
    )
    major, _minor = torch.cuda.get_device_capability(0)
    size = 2048
    flops = 2.0 * size**3
    dtypes = [("fp32", torch.float32)]
    if major >= 7:
        dtypes.append(("fp16", torch.float16))
    if torch.cuda.is_bf16_supported():
        dtypes.append(("bf16", torch.bfloat16))
    for label, dtype in dtypes:
        m = torch.randn(size, size, device=dev, dtype=dtype)
        dt = timed(lambda m=m: torch.matmul(m, m), sync)
        RESULT["metrics"]["matmul_%s_tflops" % label] = round(flops / dt / 1e12, 2)
        check("matmul_%s" % label, True, "%.1f TFLOPS" % (flops / dt / 1e12))
    nbytes = 256 * 1024 * 1024
    host = torch.empty(nbytes // 4, dtype=torch.float32).pin_memory()
    dt = timed(lambda: host.to(dev, non_blocking=True), sync)
    RESULT["metrics"]["h2d_gbps"] = round(nbytes / dt / 1e9, 2)
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=dev)
    dst = torch.empty_like(src)
    dt = timed(lambda: dst.copy_(src), sync)
    RESULT["metrics"]["d2d_gbps"] = round(2 * nbytes / dt / 1e9, 1)
    check(
        "bandwidth",
        True,
        "H2D %.1f GB/s, device %.0f GB/s"
        % (RESULT["metrics"]["h2d_gbps"], RESULT["metrics"]["d2d_gbps"]),
    )

    def train_step_time(device, steps):
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 1024)
        ).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        data = torch.randn(256, 1024, device=device)

        def step():
            opt.zero_grad()
            loss = model(data).square().mean()
            loss.backward()
            opt.step()

        def run():
            for _ in range(steps):
                step()

        return timed(run, sync if device.type == "cuda" else None, repeat=2) / steps

    gpu_t = train_step_time(dev, 20)
    cpu_t = train_step_time(torch.device("cpu"), 3)
    RESULT["metrics"]["train_step_speedup"] = round(cpu_t / gpu_t, 1)
    check(
        "acceleration",
        cpu_t / gpu_t > 1.5,
        "training step %.1f ms on GPU vs %.1f ms on CPU (%.1fx)"
        % (gpu_t * 1e3, cpu_t * 1e3, cpu_t / gpu_t),
    )


def acceleration(gpu_run, cpu_run, sync=None, what="matmul 2048x2048"):
    """Time the same work on the GPU and on the CPU: the GPU-vs-CPU check users
    run by hand to see that the GPU really does the work."""
    gpu_t = timed(gpu_run, sync)
    cpu_t = timed(cpu_run, repeat=2)
    RESULT["metrics"]["matmul_speedup"] = round(cpu_t / gpu_t, 1)
    check(
        "acceleration",
        cpu_t / gpu_t > 1.5,
        "%s %.1f ms on GPU vs %.1f ms on CPU (%.1fx)"
        % (what, gpu_t * 1e3, cpu_t * 1e3, cpu_t / gpu_t),
    )


def smoke_tensorflow():
    import tensorflow as tf

    RESULT["version"] = tf.__version__
    try:
        from tensorflow.python.client import device_lib

        local = device_lib.list_local_devices()
        kinds = [d.device_type for d in local]
    except Exception:  # pragma: no cover - very old or very new TF
        kinds = []
    RESULT["devices"] = [{"type": k} for k in kinds]
    if hasattr(tf, "config") and hasattr(tf.config, "list_physical_devices"):
        count = len(tf.config.list_physical_devices("GPU"))
    else:
        count = kinds.count("GPU")
    check(
        "gpu_devices", count > 0, "GPU devices: %d; XLA_GPU: %d" % (count, kinds.count("XLA_GPU"))
    )
    if count == 0:
        return
    # The check TensorFlow's own docs give (1.x and 2.x): '/device:GPU:0' when a GPU is used.
    name = tf.test.gpu_device_name()
    check("gpu_device_name", bool(name), "tf.test.gpu_device_name() = %r" % name)
    size = 2048
    if hasattr(tf, "function") and tf.executing_eagerly():
        with tf.device("/GPU:0"):
            a = tf.random.normal((512, 512))
            b = tf.linalg.matmul(a, a)
            x = tf.random.normal((8, 64, 64, 3))
            k = tf.random.normal((3, 3, 3, 16))
            y = tf.nn.conv2d(x, k, strides=1, padding="VALID")
        check("matmul", tuple(b.shape) == (512, 512), b.device)
        check("cudnn_conv", tuple(y.shape) == (8, 62, 62, 16), y.device)

        def on(device):
            with tf.device(device):
                m = tf.random.normal((size, size))

            def run():
                # Placed explicitly (eager ops go to the GPU by default); .numpy() of
                # a scalar waits for the device and copies 4 bytes back.
                with tf.device(device):
                    return tf.reduce_sum(tf.linalg.matmul(m, m)).numpy()

            return run

        acceleration(on("/GPU:0"), on("/CPU:0"))
    else:  # TensorFlow 1.x graph mode
        ops = {}
        for label, device in (("gpu", "/gpu:0"), ("cpu", "/cpu:0"), ("small", "/gpu:0")):
            n = 512 if label == "small" else size
            with tf.device(device):
                m = tf.Variable(tf.random_normal((n, n)))
                ops[label] = (m, tf.reduce_sum(tf.matmul(m, m)))
        config = tf.ConfigProto(allow_soft_placement=False)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(tf.matmul(ops["small"][0], ops["small"][0]))
            check("matmul", out.shape == (512, 512), "graph mode")
            acceleration(lambda: sess.run(ops["gpu"][1]), lambda: sess.run(ops["cpu"][1]))


def smoke_jax():
    import jax
    import jax.numpy as jnp

    RESULT["version"] = jax.__version__
    devs = jax.devices()
    RESULT["devices"] = [
        {"platform": d.platform, "kind": getattr(d, "device_kind", "")} for d in devs
    ]
    gpus = [d for d in devs if d.platform in ("gpu", "cuda")]
    if not check("gpu_devices", bool(gpus), "devices: %s" % ", ".join(d.platform for d in devs)):
        return
    f = jax.jit(lambda x: jnp.tanh(jnp.matmul(x, x)))
    x = jax.device_put(jnp.ones((512, 512)), gpus[0])
    y = f(x).block_until_ready()
    check("jit", y.shape == (512, 512), "jitted matmul on %s" % gpus[0])
    g = jax.jit(lambda m: jnp.matmul(m, m).sum())
    m = jnp.ones((2048, 2048), dtype=jnp.float32)
    on_gpu = jax.device_put(m, gpus[0])
    on_cpu = jax.device_put(m, jax.devices("cpu")[0])
    acceleration(lambda: g(on_gpu).block_until_ready(), lambda: g(on_cpu).block_until_ready())


def smoke_cupy():
    import cupy
    import numpy

    RESULT["version"] = cupy.__version__
    n = cupy.cuda.runtime.getDeviceCount()
    if not check("device_count", n > 0, "%d device(s)" % n):
        return
    a = cupy.random.random((512, 512), dtype=cupy.float32)
    b = cupy.matmul(a, a)
    cupy.cuda.Stream.null.synchronize()
    check("matmul", b.shape == (512, 512), "cuBLAS matmul")
    m = cupy.random.random((2048, 2048), dtype=cupy.float32)
    host = cupy.asnumpy(m)
    acceleration(
        lambda: cupy.matmul(m, m), lambda: numpy.dot(host, host), cupy.cuda.Stream.null.synchronize
    )


def smoke_onnxruntime():
    import onnxruntime as ort

    RESULT["version"] = ort.__version__
    providers = ort.get_available_providers()
    RESULT["devices"] = [{"provider": p} for p in providers]
    check("cuda_provider", "CUDAExecutionProvider" in providers, ", ".join(providers))


def smoke_paddle():
    import paddle

    RESULT["version"] = paddle.__version__
    n = paddle.device.cuda.device_count() if paddle.is_compiled_with_cuda() else 0
    if not check("device_count", n > 0, "%d device(s)" % n):
        return
    paddle.set_device("gpu:0")
    a = paddle.randn([512, 512])
    b = paddle.matmul(a, a)
    check("matmul", list(b.shape) == [512, 512], "on gpu:0")


SMOKE = {
    "torch": smoke_torch,
    "tensorflow": smoke_tensorflow,
    "jax": smoke_jax,
    "cupy": smoke_cupy,
    "onnxruntime": smoke_onnxruntime,
    "paddle": smoke_paddle,
}


def main(argv):
    name = argv[1] if len(argv) > 1 else ""
    RESULT["framework"] = name
    start = time.perf_counter()
    try:
        SMOKE[name]()
        RESULT["ok"] = bool(RESULT["checks"]) and all(c["ok"] for c in RESULT["checks"])
    except BaseException as exc:  # report everything, including SystemExit from a framework
        RESULT["ok"] = False
        RESULT["error"] = "%s: %s" % (type(exc).__name__, exc)
        RESULT["traceback"] = traceback.format_exc()[-4000:]
    RESULT["seconds"] = round(time.perf_counter() - start, 2)
    sys.stdout.write("\n" + json.dumps(RESULT) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv)
