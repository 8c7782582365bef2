"""The Numba CUDA backend: the CPU backend's fusion groups, as GPU kernels.

``jit(f)`` with ``edujax_backend="cuda"`` (or ``EDUJAX_BACKEND=cuda``) runs here. The front
half of the pipeline is the passes both backends share (``backends/passes/``): ``inline.py``
flattens the jaxpr, ``fusion.py`` cuts it into fusion groups and other steps, ``lowering.py``'s
rule table turns each elementwise equation into one line of scalar Python. The back half is
new, file by file:

1. ``lowering.py``     the same rule table, with math functions from ``device_math.py``.
2. ``kernels.py``      a fusion group becomes a ``@cuda.jit`` kernel: a *grid-stride loop*
                       for elementwise work, one block per output and a *tree in shared
                       memory* for reductions; views a later step needs get a copy kernel.
3. ``matmul.py``       ``dot_general`` becomes a *tiled* matrix product in shared memory.
4. ``codegen.py``      writes the module: the kernels, and a host-side ``run`` that allocates
                       GPU buffers and launches the kernels in order.
5. ``steps.py``        what the driver runs on the host: control flow around compiled GPU
                       programs, and reference rules (with copies) for primitives without a
                       kernel.
6. ``backend.py``      the backend object ``jit`` talks to, and the executable it returns.
7. ``array.py``        ``CudaArray``: results stay in GPU memory between jitted calls; only
                       looking at them copies them back. ``runtime.py`` holds the GPU calls.

numba-cuda is an optional dependency (``pip install "edujax[cuda]"``). Without a GPU, Numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) runs the very same kernels as Python threads:
that is how the tests run (``tests/test_cuda_backend.py``). Importing this package only
registers the backend; numba-cuda is imported when the backend is first used.
"""
from __future__ import annotations

from edujax import devices
from edujax.backends.numba_cuda import runtime
from edujax.backends.numba_cuda.array import device_put_gpu


NO_GPU_HINT = ("The 'cuda' backend found no CUDA GPU (numba-cuda reports no usable driver or "
               "device). Set NUMBA_ENABLE_CUDASIM=1 to run its kernels on Numba's CUDA "
               "simulator, or use the CPU: EDUJAX_BACKEND=numba.")


def make_backend():
    """The backend object (called by ``get_backend`` the first time \"cuda\" is used)."""
    runtime.cuda()  # a clear error, with the install command, when numba-cuda is missing
    if not runtime.gpu_available():  # rather than a CudaSupportError deep inside the first launch
        raise RuntimeError(NO_GPU_HINT)
    # Imported here, when the backend is first used: the code generator and its imports take
    # most of a second, which ``import edujax`` should not pay.
    from edujax.backends.numba_cuda.backend import CudaBackend
    return CudaBackend()


def _check_gpu() -> None:
    """What ``jax.devices("gpu")`` checks first: numba-cuda is installed and finds a GPU."""
    runtime.cuda()  # raises the install hint when numba-cuda is missing
    if not runtime.gpu_available():
        raise RuntimeError("Unknown backend gpu: numba-cuda finds no CUDA GPU "
                           "(NUMBA_ENABLE_CUDASIM=1 runs kernels on its simulator).")


devices.gpu_platform.update(check=_check_gpu, put=device_put_gpu)
