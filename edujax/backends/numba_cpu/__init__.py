"""The Numba CPU backend: a jaxpr becomes a Python module of fused loops that Numba compiles.

How ``jit(f)(x)`` runs here, file by file. The first three are passes the CUDA backend
shares (``backends/passes/``):

1. ``passes/inline.py``    inlines the calls: calls of nested jitted functions (and
                           custom_jvp / custom_vjp bodies) are pasted in, unused equations
                           are dropped; random keys become uint32 words and the key
                           primitives threefry (``passes/keys.py``); a ``split`` becomes one
                           ``slice`` per piece.
2. ``passes/fusion.py``    cuts the equations into *steps*: fusion groups (elementwise work
                           over one shape, optionally ending in reductions) and everything
                           else (matrix products, control flow, gathers and scatters,
                           primitives without a lowering).
3. ``passes/lowering.py``  the rule table: how one equation becomes one line of scalar
                           Python.
4. ``codegen.py``          writes the module: one ``@njit`` function (a loop nest) per
                           fusion group, one per gather/scatter/dynamic slice/small matrix
                           product (``kernels.py``), one per loop whose body can run in
                           Numba, with the programs of its jaxprs (``loops.py``), and a plain
                           Python ``run`` function that calls the steps in order
                           (``steps.py``: the steps that stay in Python; ``blas.py``: small
                           matrix products on one BLAS thread).
5. ``backend.py``          the backend object ``jit`` talks to, and the executable it
                           returns: it imports the module, and Numba compiles the kernels.

``math.py``, ``scalar.py`` and ``threefry.py`` hold the small Numba functions the generated
kernels call (branch-free exp/log/tanh/..., XLA's integer semantics, the threefry hash).

That is the whole idea. What makes a *first* call fast is advanced reading, in
``backends/fast_start/``: ``cache.py`` keeps the module on disk under a name made from its
content hash (``EDUJAX_CACHE_DIR``), so Numba's ``cache=True`` keeps the machine code between
processes; ``tiering.py`` runs the first calls on the reference interpreter while a
background thread compiles (``EDUJAX_TIERED=0`` compiles at once); ``direct.py`` compiles the
kernels without Numba, the Python source turned into LLVM IR with Numba's typing rules
(``translate.py``), for the subset the code generator writes (``EDUJAX_DIRECT=0``: always
Numba); ``aot.py`` writes the kernels' machine code out as an object file that a later
process loads with LLVM alone (``EDUJAX_AOT=0`` turns the files off). The executable's
``tier`` (``kernels_from``) names which of them built the kernels: ``"direct"``,
``"object file"`` or ``"numba"``; a tiered one says ``"reference"`` until its switch. By
default most kernels come from ``direct``; Numba, whose name the package bears (the code
generator writes for it), compiles the modules the direct compiler declines.

Importing this package only registers the backend: Numba itself is imported the first
time a jaxpr is compiled, so ``import edujax`` stays fast.
"""
from __future__ import annotations

import os

def make_backend():
    """The backend object (called by ``get_backend`` the first time \"numba\" is used)."""
    # Large loops run on all cores (Numba's prange, see codegen.py), through Numba's OpenMP
    # threading layer where it has one. OpenMP's threads spin for a while after each
    # parallel loop, waiting for the next one; on a small machine they then steal the cores
    # that NumPy's BLAS threads need for the matrix product that usually comes next (an MLP
    # step ran 2.5x slower). Passive threads sleep instead. setdefault: a user's choice wins.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # Imported here, when the backend is first used: the code generator and its imports take
    # most of a second, which ``import edujax`` should not pay.
    from edujax.backends.numba_cpu.backend import NumbaBackend
    return NumbaBackend()
