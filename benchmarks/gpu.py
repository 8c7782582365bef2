"""The Numba CUDA backend on a real GPU: bandwidth, matmul, and selu against real JAX.

    python benchmarks/gpu.py [--jax-python /path/to/python-with-jax-cuda]

What is measured (edujax_backend="cuda", inputs already on the GPU, every time until the
result is ready):

* fused elementwise bandwidth: ``selu`` on 2^24 float32 is one grid-stride kernel reading
  64 MB and writing 64 MB. Its GB/s against a device-to-device copy of the same bytes (the
  most a memory-bound kernel can do);
* a 2048x2048 float32 matmul: the tiled shared-memory kernel, in TFLOP/s, against cuBLAS
  through CuPy or PyTorch when one of them is installed;
* selu against real JAX's jit on the GPU, when a JAX with CUDA imports here (or in the
  interpreter given with --jax-python).

Without a GPU it prints "no CUDA GPU: nothing to measure" and exits cleanly; Numba's CUDA
simulator (NUMBA_ENABLE_CUDASIM=1) does not count as one: it runs kernels as Python.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Find _timing.py at the *end* of the path (see benchmarks/numba_cpu.py).
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
from _timing import best_time, parse_args  # noqa: E402

ELEMENTS = 1 << 24
MATMUL = 2048


def no_gpu_reason() -> str | None:
    """Why there is nothing to measure here, or None when a real GPU is available."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return "NUMBA_ENABLE_CUDASIM is set (the simulator runs kernels as Python)"
    try:
        from numba import cuda
    except ImportError:
        return 'numba-cuda is not installed (pip install "edujax[cuda]")'
    try:
        if not cuda.is_available():
            return "numba-cuda finds no CUDA driver or device"
    except Exception as e:  # noqa: BLE001 - a broken driver install is "no GPU" here
        return f"numba-cuda could not start the driver ({type(e).__name__})"
    return None


def selu(np_module, x, alpha=1.67, lmbda=1.05):
    return lmbda * np_module.where(x > 0, x, alpha * np_module.exp(x) - alpha)


# ---------------------------------------------------------------- edujax on the GPU
def edujax_timings() -> dict:
    import numpy as np

    import edujax as jax
    import edujax.numpy as jnp
    from edujax.backends.numba_cuda import runtime
    jax.config.update("edujax_backend", "cuda")
    gpu = jax.devices()[0]
    rng = np.random.default_rng(0)
    x = jax.device_put(rng.standard_normal(ELEMENTS).astype(np.float32), gpu)
    f = jax.jit(lambda v: selu(jnp, v))
    t_selu = best_time(lambda: f(x).block_until_ready())
    buffer = x._buffer
    t_copy = best_time(lambda: (runtime.device_copy(buffer), runtime.synchronize()))
    a = jax.device_put(rng.standard_normal((MATMUL, MATMUL)).astype(np.float32), gpu)
    b = jax.device_put(rng.standard_normal((MATMUL, MATMUL)).astype(np.float32), gpu)
    mm = jax.jit(jnp.matmul)
    t_matmul = best_time(lambda: mm(a, b).block_until_ready(), repeat=3)
    return {"selu": t_selu, "copy": t_copy, "matmul": t_matmul}


def cupy_copy() -> float | None:
    """The driver's own device-to-device copy of the same bytes, through CuPy (None without
    it): the memory bandwidth a copy gets when nothing on the host side is in the way."""
    try:
        import cupy
        a = cupy.ones(ELEMENTS, dtype=cupy.float32)
        b = cupy.empty_like(a)
        sync = cupy.cuda.Device().synchronize
        return best_time(lambda: (cupy.copyto(b, a), sync()))
    except Exception:  # noqa: BLE001 - not installed, or no GPU for it
        return None


def cublas_matmul() -> tuple[str, float] | None:
    """cuBLAS's time for the same matmul, through CuPy or PyTorch (None if neither)."""
    try:
        import cupy
        a = cupy.random.standard_normal((MATMUL, MATMUL), dtype=cupy.float32)
        b = cupy.random.standard_normal((MATMUL, MATMUL), dtype=cupy.float32)
        sync = cupy.cuda.Device().synchronize
        return "CuPy (cuBLAS)", best_time(lambda: (a @ b, sync()), repeat=3)
    except Exception:  # noqa: BLE001 - not installed, or no GPU for it
        pass
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        a = torch.randn(MATMUL, MATMUL, device="cuda")
        b = torch.randn(MATMUL, MATMUL, device="cuda")
        return "PyTorch (cuBLAS)", best_time(lambda: (a @ b, torch.cuda.synchronize()),
                                             repeat=3)
    except Exception:  # noqa: BLE001
        return None


# ---------------------------------------------------------------- real JAX on the GPU
def jax_selu_time() -> float | None:
    """Real JAX's jit of selu on its GPU, measured here (None without a GPU JAX)."""
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
        if jax.devices()[0].platform != "gpu":
            return None
    except Exception:  # noqa: BLE001
        return None
    x = jax.device_put(np.random.default_rng(0).standard_normal(ELEMENTS).astype(np.float32))
    f = jax.jit(lambda v: selu(jnp, v))
    return best_time(lambda: f(x).block_until_ready())


def jax_selu_elsewhere(jax_python: str | None) -> float | None:
    if not jax_python:
        return None
    out = subprocess.run([jax_python, __file__, "--only", "jax"], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)["selu"]


# ---------------------------------------------------------------- the report
def main() -> int:
    args = parse_args(__doc__)
    if args.only == "jax":
        print(json.dumps({"selu": jax_selu_time()}))
        return 0
    reason = no_gpu_reason()
    if reason is not None:
        print(f"no CUDA GPU: nothing to measure ({reason})")
        return 0
    t = edujax_timings()
    moved = 2 * 4 * ELEMENTS  # bytes read + written
    print(f"fused elementwise (selu, {ELEMENTS} f32): {t['selu'] * 1e6:9.1f} us, "
          f"{moved / t['selu'] / 1e9:7.1f} GB/s")
    print(f"device-to-device copy, same bytes:     {t['copy'] * 1e6:9.1f} us, "
          f"{moved / t['copy'] / 1e9:7.1f} GB/s   (selu / copy: {t['selu'] / t['copy']:.2f}x)")
    flops = 2 * MATMUL ** 3
    copy = cupy_copy()
    if copy is not None:
        print(f"the same copy through CuPy:            {copy * 1e6:9.1f} us, "
              f"{moved / copy / 1e9:7.1f} GB/s   (selu / CuPy's copy: {t['selu'] / copy:.2f}x)")
    print(f"matmul {MATMUL}x{MATMUL} f32, tiled kernel:  {t['matmul'] * 1e3:9.2f} ms, "
          f"{flops / t['matmul'] / 1e12:7.2f} TFLOP/s")
    cublas = cublas_matmul()
    if cublas is None:
        print("(cuBLAS not timed: install CuPy or PyTorch with CUDA)")
    else:
        name, seconds = cublas
        print(f"matmul with {name}: {seconds * 1e3:13.2f} ms, {flops / seconds / 1e12:7.2f} "
              f"TFLOP/s   (edujax / cuBLAS: {t['matmul'] / seconds:.1f}x)")
    jax_time = jax_selu_time() or jax_selu_elsewhere(args.jax_python)
    if jax_time is None:
        print("(real JAX not timed: no JAX with a GPU here; pass --jax-python)")
    else:
        print(f"selu with real JAX's jit on the GPU:  {jax_time * 1e6:9.1f} us   "
              f"(edujax / JAX: {t['selu'] / jax_time:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
