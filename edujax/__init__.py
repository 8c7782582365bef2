"""edujax: JAX rebuilt in readable Python.

    import edujax as jax
    import edujax.numpy as jnp

docs/architecture.md is the reading path, in parts: evaluation, JVP and vmap
(core.py, interpreters/ad.py, interpreters/batching.py); jaxprs and staging (jaxpr.py,
interpreters/partial_eval.py); jit and the backend (jit/, backends/); linearize, vjp and
grad; control flow. Each part names the files that run for its example.
"""
from __future__ import annotations

from edujax import lax, numpy, random, tree, tree_util  # noqa: F401
from edujax.api import (ShapeDtypeStruct, block_until_ready, device_get, device_put,  # noqa: F401
                        make_jaxpr)
from edujax.array import Array  # noqa: F401
from edujax.config import config  # noqa: F401
from edujax.jit import clear_caches, jit  # noqa: F401
from edujax.vmap import vmap  # noqa: F401
from edujax.pmap import pmap  # noqa: F401
from edujax.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401
from edujax import nn  # noqa: F401
from edujax.autodiff import (grad, hessian, jacfwd, jacrev, jvp, linearize,  # noqa: F401
                             value_and_grad, vjp)
from edujax.devices import (default_backend, device_count, devices, local_device_count,  # noqa: F401
                            local_devices)
from edujax import errors  # noqa: F401
from edujax import dtypes  # noqa: F401
# The top level's breadth (issue 17, the "toplevel" slice): checkpointing, debugging,
# callbacks, shape evaluation and the smaller transformations.
from edujax import ad_checkpoint, debug, extend, sharding  # noqa: F401
# jax._src.util.safe_map: the "Writing custom interpreters" notebook imports it from there
import edujax._src.util  # noqa: E402, F401
from edujax.ad_checkpoint import checkpoint, checkpoint_policies, remat  # noqa: F401
from edujax.api import eval_shape, typeof  # noqa: F401
# Parallelism as JAX 0.10 teaches it (issue 31): meshes, shardings in types, reshard.
from edujax.sharding import NamedSharding, P, Shard, make_mesh, set_mesh  # noqa: F401
from edujax.lax.reshard import reshard  # noqa: F401
from edujax.shard_map import shard_map  # noqa: F401
from edujax import custom_batching  # noqa: F401  (jax.custom_batching.custom_vmap)
from edujax.autodiff import jacobian, linear_transpose  # noqa: F401
from edujax.callbacks import pure_callback  # noqa: F401
from edujax.custom_derivatives import closure_convert, custom_gradient  # noqa: F401
from edujax.jit.api import disable_jit  # noqa: F401
from edujax.scopes import ensure_compile_time_eval, named_call, named_scope  # noqa: F401
from edujax.devices import Device  # noqa: F401
from edujax.runtime import (default_device, effects_barrier, host_count, host_id,  # noqa: F401
                            print_environment_info, process_count, process_index)
# Switches as JAX shows them: ``jax.debug_nans.value``, ``with jax.debug_nans(True): ...``.
from edujax.config import (debug_infs, debug_nans, default_matmul_precision,  # noqa: F401
                           default_prng_impl, enable_x64, explain_cache_misses, log_compiles,
                           numpy_dtype_promotion, numpy_rank_promotion, softmax_custom_jvp)
from edujax import typing  # noqa: F401
# issue 17, scipy/nn/random slice: jax.scipy (special, stats, linalg)
from edujax import scipy  # noqa: F401
# edujax only: which rule tables hold a rule for a primitive, and where each rule is.
from edujax.explain import explain_primitive  # noqa: F401

__version__ = "0.1.0"


def load_ipython_extension(ipython):  # noqa: ANN001 - an IPython shell
    """``%load_ext edujax``: register the ``%jaxpr`` and ``%jittime`` magics.

    The one upward reference in the package: the magics live in the classroom layer
    and need IPython, so they are imported only when IPython asks for them.
    """
    from edujax.magics import load_ipython_extension as load
    load(ipython)

sharding.reshard = reshard  # jax.sharding.reshard too (the sharding package sits below lax)
from edujax.auto_explicit_axes import auto_axes, explicit_axes  # noqa: E402
sharding.auto_axes, sharding.explicit_axes = auto_axes, explicit_axes  # (likewise)
