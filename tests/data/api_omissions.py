"""Names of real JAX's public API that edujax leaves out on purpose, each with its reason.

``OMISSIONS[namespace][name]`` is the reason, in a few words a student can read in
docs/api_coverage.md. A name belongs here only when leaving it out is a decision (it
needs hardware, a compiler or a package edujax does not have, or it is about running
on many machines); a name that is simply not written yet is "missing" in the table, not
"left". tests/test_api_coverage.py fails if a name listed here is in fact implemented:
then delete its line. After editing, regenerate the table:

    PYTHONPATH=$PWD python tests/data/coverage.py
"""
from __future__ import annotations

_LOW_PRECISION = ("exotic low-precision dtype for ML accelerators; NumPy has no such dtype "
                  "without the ml_dtypes package")
_BFLOAT16 = "needs the ml_dtypes package (NumPy has no bfloat16); edujax has no such dependency"
_SHARDING = "sharding across many devices/hosts: edujax runs on one process (see pmap)"
_XLA = "exposes XLA/PJRT internals that edujax does not have"
_TOKENS = "XLA tokens order side effects; edujax runs programs in order"
_DLPACK = "DLPack zero-copy exchange of device buffers; edujax arrays are NumPy arrays"

_exotic_numpy_dtypes = [
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e8m0fnu", "int1", "int2", "int4", "uint1", "uint2", "uint4"]

_sharding_top_level = [
    "smap",
    "distributed", "make_array_from_callback", "make_array_from_process_local_data",
    "make_array_from_single_device_arrays",
    "process_indices", "host_ids", "remove_size_one_mesh_axis_from_type",
    "auto_pcast"]

_xla_top_level = ["ffi", "lib", "monitoring", "memory", "copy_to_host_async", "live_arrays",
                  "array_garbage_collection_guard", "transfer_guard",
                  "transfer_guard_device_to_device", "transfer_guard_device_to_host",
                  "transfer_guard_host_to_device", "jax2tf_associative_scan_reductions"]

_sharding_lax = ["pbroadcast",
                 "psend", "precv", "ragged_all_to_all", "ragged_all_to_all_p"]

OMISSIONS: dict[str, dict[str, str]] = {
    "jax.numpy": {
        **{name: _LOW_PRECISION for name in _exotic_numpy_dtypes},
        "bfloat16": _BFLOAT16,
        "from_dlpack": _DLPACK,
    },
    "jax": {
        **{name: _SHARDING for name in _sharding_top_level},
        **{name: _XLA for name in _xla_top_level},
        "dlpack": _DLPACK,
    },
    "jax.lax": {
        **{name: _SHARDING for name in _sharding_lax},
        "after_all": _TOKENS, "after_all_p": _TOKENS,
        "create_token": _TOKENS, "create_token_p": _TOKENS,
        "composite": _XLA,
    },
}
