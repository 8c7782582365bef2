"""Programs about meshes, shardings, sharding in types and shard_map, recorded from real JAX
0.10 with 8 simulated CPU devices (XLA_FLAGS=--xla_force_host_platform_device_count=8):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /tmp/jaxenv31/bin/python \\
        tests/data/record_from_jax.py tests/data/sharding_cases.py \\
        tests/data/sharding_recorded.json

Each program sets ``out``; tests/test_sharding_recorded.py replays them on edujax.
"""

_IMPORTS = """\
from jax.sharding import (Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding,
                          AxisType)
from functools import partial
import io, contextlib
"""

_MESH = _IMPORTS + "mesh = jax.make_mesh((4, 2), ('x', 'y'))\n"
_X = _MESH + ("x = jax.device_put(jnp.arange(32.).reshape(8, 4), "
              "NamedSharding(mesh, P('x', 'y')))\n")
_AUTO = _IMPORTS + ("mesh = jax.make_mesh((4, 2), ('x', 'y'), "
                    "axis_types=(AxisType.Auto, AxisType.Auto))\n")
_M1 = _IMPORTS + "mesh = jax.make_mesh((8,), ('i',))\n"
_A1 = _IMPORTS + "mesh = jax.make_mesh((8,), ('i',), axis_types=(AxisType.Auto,))\n"
_A2 = _IMPORTS + ("mesh = jax.make_mesh((4, 2), ('x', 'y'), "
                  "axis_types=(AxisType.Auto, AxisType.Auto))\n")


_GRAD_SETUP = _MESH + (
    "x = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', 'y')))\n"
    "w = jax.device_put(jnp.arange(12.).reshape(4, 3) / 10, NamedSharding(mesh, P('y', None)))\n"
    "@partial(jax.shard_map, mesh=mesh, in_specs=(P('x', 'y'), P('y', None)),"
    " out_specs=P('x', None))\n"
    "def mm(a, b):\n    return jax.lax.psum(jnp.sin(a) @ b, 'y')\n"
    "def loss(w, x):\n    return (mm(x, w) ** 2).sum()\n")
_GRAD = _GRAD_SETUP + "with jax.set_mesh(mesh):\n    g = jax.grad(loss, argnums=(0, 1))(w, x)\n"


def _viz(setup: str, expr: str) -> str:
    return setup + ("buf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
                    f"    jax.debug.visualize_array_sharding({expr})\nout = buf.getvalue()\n")


_CV = ("@jax.custom_batching.custom_vmap\n"
       "def f(x, y):\n    return x + y\n"
       "@f.def_vmap\n"
       "def f_vmap_rule(axis_size, in_batched, xs, ys):\n"
       "    seen.append((axis_size, in_batched))\n    return xs - ys, True\n"
       "seen = []\n")
_CV1 = ("@jax.custom_batching.custom_vmap\n"
        "def g(x):\n    return jnp.sin(x)\n"
        "@g.def_vmap\n"
        "def g_rule(axis_size, in_batched, xs):\n    return jnp.cos(xs), in_batched[0]\n")


CASES = {
    # ---- devices
    "device_count": "out = jax.device_count()",
    "devices": "out = jax.devices()",
    "local_device_count": "out = jax.local_device_count()",
    "device_str": "out = str(jax.devices()[3])",
    # ---- PartitionSpec
    "pspec_repr": _IMPORTS + "out = P('x', 'y')",
    "pspec_none": _IMPORTS + "out = P('x', None)",
    "pspec_tuple": _IMPORTS + "out = P(('x', 'y'),)",
    "pspec_empty": _IMPORTS + "out = P()",
    "pspec_len": _IMPORTS + "out = len(P('x', None, 'y'))",
    "pspec_index": _IMPORTS + "out = P('x', 'y')[1]",
    "pspec_eq_tuple": _IMPORTS + "out = P('x', 'y') == ('x', 'y')",
    "pspec_eq": _IMPORTS + "out = P('x') == P('x', None)",
    "pspec_str": _IMPORTS + "out = str(P('x', None))",
    "pspec_unreduced": _IMPORTS + "out = P('x', unreduced={'y'})",
    # ---- Mesh and make_mesh
    "make_mesh_repr": _MESH + "out = mesh",
    "make_mesh_shape": _MESH + "out = mesh.shape",
    "make_mesh_axis_names": _MESH + "out = mesh.axis_names",
    "make_mesh_size": _MESH + "out = mesh.size",
    "make_mesh_devices": _MESH + "out = mesh.devices",
    "make_mesh_axis_types": _MESH + "out = mesh.axis_types",
    "make_mesh_auto_repr": _AUTO + "out = mesh",
    "make_mesh_manual": _IMPORTS + ("out = jax.make_mesh((8,), ('i',), "
                                    "axis_types=(AxisType.Manual,))"),
    "make_mesh_1d": _M1 + "out = mesh",
    "make_mesh_too_many": _IMPORTS + "out = jax.make_mesh((4, 4), ('x', 'y'))",
    "make_mesh_names_mismatch": _IMPORTS + "out = jax.make_mesh((4, 2), ('x',))",
    "mesh_constructor": _IMPORTS + ("import numpy as np\n"
                                    "out = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))"),
    "mesh_shape_tuple": _MESH + "out = mesh.shape_tuple",
    "mesh_device_ids": _MESH + "out = mesh.device_ids",
    "axis_type_repr": _IMPORTS + "out = AxisType.Explicit",
    "axis_types_list": _IMPORTS + "out = list(AxisType)",
    # ---- NamedSharding
    "named_sharding_repr": _MESH + "out = NamedSharding(mesh, P('x', 'y'))",
    "named_sharding_auto_repr": _AUTO + "out = NamedSharding(mesh, P('x'))",
    "named_sharding_spec": _MESH + "out = NamedSharding(mesh, P('x')).spec",
    "named_sharding_mesh": _MESH + "out = NamedSharding(mesh, P('x')).mesh",
    "named_sharding_num_devices": _MESH + "out = NamedSharding(mesh, P('x')).num_devices",
    "named_sharding_replicated": _MESH + "out = NamedSharding(mesh, P()).is_fully_replicated",
    "named_sharding_not_replicated": _MESH + "out = NamedSharding(mesh, P('x')).is_fully_replicated",
    "named_sharding_eq": _MESH + "out = NamedSharding(mesh, P('x')) == NamedSharding(mesh, P('x', None))",
    "named_sharding_shard_shape": _MESH + "out = NamedSharding(mesh, P('x', 'y')).shard_shape((8, 4))",
    "named_sharding_shard_shape_tuple": _MESH + "out = NamedSharding(mesh, P(('x', 'y'))).shard_shape((16, 4))",
    "named_sharding_bad_axis": _MESH + "out = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P('z')))",
    "named_sharding_device_set_len": _MESH + "out = len(NamedSharding(mesh, P('x')).device_set)",
    "single_device_sharding": _IMPORTS + "out = SingleDeviceSharding(jax.devices()[2])",
    "array_default_sharding": "out = jnp.arange(4.).sharding",
    # ---- device_put and arrays' shardings
    "device_put_sharding": _X + "out = x.sharding",
    "device_put_values": _X + "out = x",
    "device_put_shape": _X + "out = x.shape",
    "addressable_shards_count": _X + "out = len(x.addressable_shards)",
    "addressable_shard_shape": _X + "out = x.addressable_shards[0].data.shape",
    "addressable_shard_data": _X + "out = x.addressable_shards[3].data",
    "addressable_shard_index": _X + "out = x.addressable_shards[3].index",
    "addressable_shard_device": _X + "out = x.addressable_shards[5].device",
    "addressable_shards_replicated": _MESH + ("x = jax.device_put(jnp.arange(8.), NamedSharding(mesh, P('y')))\n"
                                              "out = [(s.device.id, s.index) for s in x.addressable_shards]"),
    "device_put_uneven": _MESH + "out = jax.device_put(jnp.zeros((6, 4)), NamedSharding(mesh, P('x', 'y')))",
    "device_put_too_many_dims": _MESH + "out = jax.device_put(jnp.zeros(8), NamedSharding(mesh, P('x', 'y')))",
    "x_devices_len": _X + "out = len(x.devices())",
    "is_fully_replicated": _X + "out = x.is_fully_replicated",
    "device_put_tuple_axis": _MESH + ("x = jax.device_put(jnp.arange(16.), NamedSharding(mesh, P(('x', 'y'))))\n"
                                      "out = [s.index for s in x.addressable_shards]"),
    "device_put_numpy": _MESH + ("import numpy as np\n"
                                 "out = jax.device_put(np.ones((4, 2), np.float32), NamedSharding(mesh, P('x'))).sharding"),
    # ---- typeof
    "typeof_sharded": _X + "out = jax.typeof(x)",
    "typeof_str": _X + "out = str(jax.typeof(x))",
    "typeof_replicated": _MESH + "out = jax.typeof(jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P())))",
    "typeof_half": _MESH + "out = jax.typeof(jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P(None, 'y'))))",
    "typeof_auto": _AUTO + "out = jax.typeof(jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P('x', 'y'))))",
    "typeof_tuple_axis": _MESH + "out = jax.typeof(jax.device_put(jnp.zeros((16,)), NamedSharding(mesh, P(('x', 'y')))))",
    "typeof_sharding": _X + "out = jax.typeof(x).sharding",
    "typeof_plain": "out = jax.typeof(jnp.zeros((2, 3)))",
    # ---- jaxprs with sharded types and the sharding rules
    "jaxpr_elementwise": _X + "out = jax.make_jaxpr(lambda a: a * 2 + 1)(x)",
    "jaxpr_sin": _X + "out = jax.make_jaxpr(jnp.sin)(x)",
    "jaxpr_sum_all": _X + "out = jax.make_jaxpr(jnp.sum)(x)",
    "jaxpr_sum_axis0": _X + "out = jax.make_jaxpr(lambda a: a.sum(axis=0))(x)",
    "jaxpr_sum_axis1": _X + "out = jax.make_jaxpr(lambda a: a.sum(axis=1))(x)",
    "jaxpr_transpose": _X + "out = jax.make_jaxpr(lambda a: a.T)(x)",
    "jaxpr_add_two": _X + "out = jax.make_jaxpr(lambda a, b: a + b)(x, x)",
    "typeof_in_jit_elementwise": _X + "out = jax.jit(lambda a: jnp.sin(a) * 2)(x).sharding",
    "typeof_in_jit_reduce": _X + "out = jax.typeof(jax.jit(lambda a: a.sum(axis=1))(x))",
    "jit_values_elementwise": _X + "out = jax.jit(lambda a: a * 2 + 1)(x)",
    "jit_values_sum": _X + "out = jax.jit(lambda a: a.sum(axis=0))(x)",
    "eager_sin_sharding": _X + "out = jnp.sin(x).sharding",
    "eager_sum_typeof": _X + "out = jax.typeof(x.sum(axis=0))",
    "eager_mul_values": _X + "out = (x * 3)[1]",
    "jaxpr_dot_contract_unsharded": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', None)))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P(None, 'y')))\n"
        "out = jax.make_jaxpr(jnp.matmul)(a, b)"),
    "dot_contract_unsharded_typeof": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', None)))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P(None, 'y')))\n"
        "out = jax.typeof(a @ b)"),
    "dot_contract_sharded_error": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P('y', None)))\n"
        "out = jax.typeof(a @ b)"),
    "dot_contract_sharded_error_type": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P('y', None)))\n"
        "try:\n    a @ b\nexcept Exception as e:\n    out = type(e).__module__, type(e).__name__"),
    "dot_contract_out_sharding_pspec": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P('y', None)))\n"
        "out = jax.typeof(jnp.matmul(a, b, out_sharding=P('x', None)))"),
    "dot_contract_out_sharding": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P('y', None)))\n"
        "out = jax.typeof(jnp.matmul(a, b, out_sharding=NamedSharding(mesh, P('x', None))))"),
    "dot_contract_out_sharding_jaxpr": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P('y', None)))\n"
        "with jax.set_mesh(mesh):\n"
        "    out = jax.make_jaxpr(lambda a, b: jnp.matmul(a, b, out_sharding=P('x', None)))(a, b)"),
    "dot_contract_out_sharding_values": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P('y', None)))\n"
        "out = jnp.matmul(a, b, out_sharding=NamedSharding(mesh, P('x', None)))"),
    "dot_both_out_same_axis_error": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', None)))\n"
        "b = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P(None, 'x')))\n"
        "out = jax.typeof(a @ b)"),
    "elementwise_mismatch_error": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', None)))\n"
        "b = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('y', None)))\n"
        "out = jax.typeof(a + b)"),
    "elementwise_replicated_and_sharded": _MESH + (
        "a = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x', None)))\n"
        "b = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P()))\n"
        "out = jax.typeof(a + b)"),
    "scalar_times_sharded": _X + "out = jax.typeof(2.0 * x)",
    "reshard_pspec_no_mesh": _X + "out = jax.typeof(jax.sharding.reshard(x, P(None, 'x')))",
    "reshard": _X + "out = jax.typeof(jax.sharding.reshard(x, NamedSharding(mesh, P(None, 'x'))))",
    "reshard_set_mesh": _X + "with jax.set_mesh(mesh):\n    out = jax.typeof(jax.reshard(x, P('y', None)))",
    "reshard_values": _X + "out = jax.sharding.reshard(x, NamedSharding(mesh, P('y', None))).addressable_shards[1].data",
    "reshard_jaxpr": _X + "out = jax.make_jaxpr(lambda a: jax.sharding.reshard(a, NamedSharding(mesh, P('y', None))))(x)",
    "eager_mul_values2": _X + "out = x * 3",
    "eager_mul_shard": _X + "out = (x * 3).addressable_shards[2].data",
    "explicit_shard_map_needs_sharded_input": _M1 + ("f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                               "out = f(jnp.arange(16.))"),
    "explicit_shard_map_sharded_input": _M1 + ("f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                               "out = f(jax.device_put(jnp.arange(16.), NamedSharding(mesh, P('i')))).sharding"),
    "explicit_shard_map_infer_specs": _M1 + ("f = jax.shard_map(lambda a: a * 2, mesh=mesh, out_specs=P('i'))\n"
                               "out = f(jax.device_put(jnp.arange(16.), NamedSharding(mesh, P('i'))))"),
    "auto_jit_typeof": _AUTO + ("x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
                                "out = jax.make_jaxpr(lambda a: a * 2)(x)"),
    "auto_out_sharding": _AUTO + ("x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P('x', 'y')))\n"
                                  "out = jax.jit(lambda a: a * 2)(x).sharding"),
    # ---- visualize_array_sharding
    "viz_2d": _viz(_X, "x"),
    "viz_rows": _viz(_MESH, "jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P('x', None)))"),
    "viz_cols": _viz(_MESH, "jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P(None, 'y')))"),
    "viz_replicated": _viz(_MESH, "jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P()))"),
    "viz_1d": _viz(_M1, "jax.device_put(jnp.zeros(16), NamedSharding(mesh, P('i')))"),
    "viz_single": _viz(_IMPORTS, "jnp.zeros((4, 4))"),
    "viz_transposed": _viz(_MESH, "jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P('y', 'x')))"),
    # ---- shard_map
    "shard_map_values": _A1 + ("f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                               "out = f(jnp.arange(16.))"),
    "shard_map_psum": _A1 + ("f = jax.shard_map(lambda a: jax.lax.psum(a.sum(), 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                             "out = f(jnp.arange(16.))"),
    "shard_map_psum_sharding": _A1 + ("f = jax.shard_map(lambda a: jax.lax.psum(a.sum(), 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                                      "out = f(jnp.arange(16.)).sharding"),
    "shard_map_out_sharding": _A1 + ("f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                                     "out = f(jnp.arange(16.)).sharding"),
    "shard_map_jaxpr": _A1 + ("f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                              "out = jax.make_jaxpr(f)(jnp.arange(16.))"),
    "shard_map_jaxpr_psum": _A1 + ("f = jax.shard_map(lambda a: jax.lax.psum(a, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                                   "out = jax.make_jaxpr(f)(jnp.arange(16.))"),
    "shard_map_axis_index": _A1 + ("f = jax.shard_map(lambda a: a + jax.lax.axis_index('i'), mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                                   "out = f(jnp.zeros(8))"),
    "shard_map_all_gather": _A1 + ("f = jax.shard_map(lambda a: jax.lax.all_gather(a, 'i', tiled=True), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                                   "out = f(jnp.arange(8.))"),
    "shard_map_all_gather_untiled": _A1 + ("f = jax.shard_map(lambda a: jax.lax.all_gather(a, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                                           "out = f(jnp.arange(16.))"),
    "shard_map_ppermute": _A1 + ("perm = [(j, (j + 1) % 8) for j in range(8)]\n"
                                 "f = jax.shard_map(lambda a: jax.lax.ppermute(a, 'i', perm), mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                                 "out = f(jnp.arange(8.))"),
    "shard_map_psum_scatter": _A1 + ("f = jax.shard_map(lambda a: jax.lax.psum_scatter(a, 'i', tiled=True), mesh=mesh, in_specs=P(), out_specs=P('i'))\n"
                                     "out = f(jnp.arange(16.))"),
    "shard_map_all_to_all": _A1 + ("f = jax.shard_map(lambda a: jax.lax.all_to_all(a, 'i', 0, 0, tiled=True), mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                                   "out = f(jnp.arange(64.))"),
    "shard_map_2d_psum_x": _A2 + ("f = jax.shard_map(lambda a: jax.lax.psum(a, 'x'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P(None, 'y'))\n"
                                    "out = f(jnp.arange(32.).reshape(8, 4))"),
    "shard_map_2d_psum_both": _A2 + ("f = jax.shard_map(lambda a: jax.lax.psum(a, ('x', 'y')), mesh=mesh, in_specs=P('x', 'y'), out_specs=P())\n"
                                       "out = f(jnp.arange(32.).reshape(8, 4))"),
    "shard_map_block_shape": _A2 + ("f = jax.shard_map(lambda a: jnp.array(a.shape), mesh=mesh, in_specs=P('x', 'y'), out_specs=P(('x', 'y')))\n"
                                      "out = f(jnp.zeros((8, 4)))"),
    "shard_map_jaxpr_2d": _A2 + ("f = jax.shard_map(lambda a: jax.lax.psum(a, 'x'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P(None, 'y'))\n"
                                   "out = jax.make_jaxpr(f)(jnp.zeros((8, 4)))"),
    "shard_map_out_not_replicated_error": _A1 + (
        "f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P())\n"
        "out = f(jnp.arange(16.))"),
    "shard_map_check_vma_false": _A1 + (
        "f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P(), check_vma=False)\n"
        "out = f(jnp.arange(16.))"),
    "shard_map_uneven_error": _A1 + (
        "f = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "out = f(jnp.arange(12.))"),
    "shard_map_decorator": _A1 + (
        "@jax.shard_map(mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "def f(a):\n    return a - a.mean()\n"
        "out = f(jnp.arange(16.))"),
    "shard_map_jit": _A1 + (
        "f = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P()))\n"
        "out = f(jnp.arange(16.))"),
    "shard_map_two_args": _A2 + (
        "f = jax.shard_map(lambda a, b: a @ b, mesh=mesh, in_specs=(P('x', None), P(None, 'y')), out_specs=P('x', 'y'))\n"
        "out = f(jnp.arange(32.).reshape(8, 4), jnp.ones((4, 4)))"),
    "shard_map_matmul_psum": _A1 + (
        "f = jax.shard_map(lambda a, b: jax.lax.psum(a @ b, 'i'), mesh=mesh, in_specs=(P(None, 'i'), P('i', None)), out_specs=P())\n"
        "out = f(jnp.arange(32.).reshape(4, 8), jnp.ones((8, 2)))"),
    "shard_map_pmean": _A1 + ("f = jax.shard_map(lambda a: jax.lax.pmean(a, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                              "out = f(jnp.arange(8.))"),
    "shard_map_pmax": _A1 + ("f = jax.shard_map(lambda a: jax.lax.pmax(a, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                             "out = f(jnp.arange(8.))"),
    "shard_map_typeof_inside": _A1 + (
        "seen = []\n"
        "def body(a):\n    seen.append(str(jax.typeof(a)))\n    return a\n"
        "jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(jnp.arange(16.))\n"
        "out = seen"),
    "shard_map_typeof_inside_psum": _A1 + (
        "seen = []\n"
        "def body(a):\n    s = jax.lax.psum(a, 'i')\n    seen.append(str(jax.typeof(s)))\n    return s\n"
        "jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P())(jnp.arange(16.))\n"
        "out = seen"),
    "shard_map_axis_size": _A1 + ("f = jax.shard_map(lambda a: a * jax.lax.axis_size('i'), mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                                  "out = f(jnp.ones(8))"),
    # ---- set_mesh
    "set_mesh_shard_map": _A1 + (
        "with jax.set_mesh(mesh):\n"
        "    out = jax.shard_map(lambda a: jax.lax.psum(a, 'i'), in_specs=P('i'), out_specs=P())(jnp.arange(8.))"),
    "set_mesh_device_put_spec": _M1 + (
        "with jax.set_mesh(mesh):\n"
        "    out = jax.device_put(jnp.arange(8.), P('i')).sharding"),
    "set_mesh_make_array": _MESH + (
        "with jax.set_mesh(mesh):\n"
        "    out = jax.typeof(jnp.zeros((8, 4), out_sharding=P('x', 'y')))"),
    # ---- shard_map staged (jaxprs), under jit
    "shard_map_jaxpr_jit": _A1 + ("f = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P()))\n"
                                  "out = jax.make_jaxpr(f)(jnp.arange(16.))"),
    "shard_map_jaxpr_closure": _A1 + ("c = jnp.arange(2.)\n"
                                      "f = jax.shard_map(lambda a: a * c, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                                      "out = jax.make_jaxpr(f)(jnp.arange(16.))"),
    "shard_map_jaxpr_pvary_2d": _A2 + ("f = jax.shard_map(lambda a: a + 1.0, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))\n"
                                       "out = jax.make_jaxpr(f)(jnp.zeros((8, 4)))"),
    "shard_map_jaxpr_two_args": _A2 + ("f = jax.shard_map(lambda a, b: a * b, mesh=mesh, in_specs=(P('x', 'y'), P(None, 'y')), out_specs=P('x', 'y'))\n"
                                       "out = jax.make_jaxpr(f)(jnp.zeros((8, 4)), jnp.ones((2, 4)))"),
    "shard_map_jaxpr_explicit": _M1 + ("x = jax.device_put(jnp.arange(16.), NamedSharding(mesh, P('i')))\n"
                                       "f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
                                       "out = jax.make_jaxpr(f)(x)"),
    "shard_map_jaxpr_explicit_psum": _M1 + ("x = jax.device_put(jnp.arange(16.), NamedSharding(mesh, P('i')))\n"
                                            "f = jax.shard_map(lambda a: jax.lax.psum(a, 'i'), mesh=mesh, out_specs=P())\n"
                                            "out = jax.make_jaxpr(f)(x)"),
    "shard_map_jit_2d_values": _A2 + ("f = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, 'x'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P(None, 'y')))\n"
                                      "out = f(jnp.arange(32.).reshape(8, 4))"),
    "shard_map_jit_explicit_sharding": _M1 + ("x = jax.device_put(jnp.arange(16.), NamedSharding(mesh, P('i')))\n"
                                              "f = jax.jit(jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i')))\n"
                                              "out = f(x).sharding"),
    "shard_map_jit_explicit_typeof": _M1 + ("x = jax.device_put(jnp.arange(16.), NamedSharding(mesh, P('i')))\n"
                                            "f = jax.jit(jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P('i')))\n"
                                            "out = jax.typeof(f(x))"),
    # ---- jit on sharded arrays: values and output shardings (edujax runs them per device)
    "jit_sharded_reduce": _X + ("y = jax.jit(lambda a: (a * 2).sum(axis=0))(x)\n"
                                "out = (y, y.sharding.spec)"),
    "jit_sharded_reduce_all": _X + "out = jax.typeof(jax.jit(lambda a: a.sum())(x))",
    "jit_sharded_max": _X + "out = jax.jit(lambda a: jnp.max(a, axis=1))(x)",
    "jit_sharded_transpose": _X + ("y = jax.jit(lambda a: a.T * 3)(x)\n"
                                   "out = (y, jax.typeof(y))"),
    "jit_sharded_reshard": _X + ("y = jax.jit(lambda a: jax.reshard(a, NamedSharding(mesh, P('y', 'x'))))(x)\n"
                                 "out = (y, y.sharding.spec, y.addressable_shards[1].data.shape)"),
    "jit_sharded_matmul_out_sharding": _X + (
        "w = jax.device_put(jnp.ones((4, 6)), NamedSharding(mesh, P('y', None)))\n"
        "y = jax.jit(lambda a, b: jnp.matmul(a, b, out_sharding=NamedSharding(mesh, P('x', 'y'))))(x, w)\n"
        "out = (y, jax.typeof(y))"),
    "jit_sharded_matmul_replicated_out": _X + (
        "w = jax.device_put(jnp.ones((4, 6)), NamedSharding(mesh, P('y', None)))\n"
        "y = jax.jit(lambda a, b: jnp.matmul(a, b, out_sharding=NamedSharding(mesh, P('x', None))))(x, w)\n"
        "out = (y, jax.typeof(y))"),
    "jit_sharded_elementwise_typeof": _X + "out = jax.typeof(jax.jit(lambda a: jnp.sin(a) * a + 1)(x))",
    # ---- jit's in_shardings / out_shardings, with_sharding_constraint
    "jit_in_shardings": _MESH + ("f = jax.jit(lambda a: a * 2, in_shardings=NamedSharding(mesh, P('x', None)))\n"
                                 "out = f(np.arange(32.).reshape(8, 4)).sharding"),
    "jit_in_shardings_typeof": _MESH + ("f = jax.jit(lambda a: a * 2, in_shardings=NamedSharding(mesh, P('x', None)))\n"
                                        "out = jax.typeof(f(np.arange(32.).reshape(8, 4)))"),
    "jit_out_shardings": _X + ("f = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P(None, 'y')))\n"
                               "y = f(x)\nout = (y.sharding, y[1])"),
    "jit_out_shardings_auto": _AUTO + ("f = jax.jit(lambda a: a + 1, out_shardings=NamedSharding(mesh, P('x')))\n"
                                       "out = f(jnp.zeros((8, 4))).sharding"),
    "wsc_auto_sharding": _AUTO + ("f = jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P('x', 'y'))))\n"
                                  "y = f(jnp.arange(32.).reshape(8, 4))\nout = (y.sharding, y[2])"),
    "wsc_auto_jaxpr": _AUTO + ("f = lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P('x', 'y')))\n"
                               "out = jax.make_jaxpr(f)(jnp.zeros((8, 4)))"),
    "wsc_eager": _AUTO + ("y = jax.lax.with_sharding_constraint(jnp.arange(8.), NamedSharding(mesh, P('x')))\n"
                          "out = y.sharding"),
    # ---- indexing an array on a mesh: eagerly a gather, whose dimensions cut into must be
    # whole; under jit a slice, which keeps the layout if the cut sizes still divide evenly
    "index_eager_row_of_split_columns": _MESH + (
        "z = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P(None, 'y')))\n"
        "out = (jax.typeof(z[1]), z[1])"),
    "index_eager_columns_of_split_rows": _MESH + (
        "z = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', None)))\n"
        "out = (jax.typeof(z[:, 1:3]), z[:, 1:3][3])"),
    "index_eager_split_column": _MESH + (
        "z = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P(None, 'y')))\n"
        "out = z[:, 1]"),
    "index_eager_whole_slice": _X + "out = jax.typeof(x[:])",
    "index_jaxpr_row": _MESH + (
        "z = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P(None, 'y')))\n"
        "out = jax.make_jaxpr(lambda a: a[1])(z)"),
    "index_jit_even_slice": _X + "out = jax.typeof(jax.jit(lambda a: a[4:])(x))",
    "index_jit_even_slice_values": _X + "out = jax.jit(lambda a: a[4:])(x)",
    "index_jit_uneven_slice": _X + "out = jax.jit(lambda a: a[1:])(x)",
    "index_jit_row": _X + "out = jax.jit(lambda a: a[1])(x)",
    # ---- shard_map called eagerly: the body runs op by op on every device's block
    "eager_shard_map_print": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "def f(a):\n    print(a * 10)\n    return a + 1\n"
        "buf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
        "    y = f(jnp.arange(16.))\nout = (buf.getvalue(), y)"),
    "eager_shard_map_print_explicit": _M1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "def f(a):\n    print(a * 10)\n    return a + 1\n"
        "buf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
        "    y = f(jax.device_put(jnp.arange(16.), NamedSharding(mesh, P('i'))))\n"
        "out = (buf.getvalue(), y, jax.typeof(y))"),
    "eager_shard_map_print_2d": _MESH + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('x', 'y'), out_specs=P(None, 'y'))\n"
        "def f(a):\n    s = jax.lax.psum(a, 'x')\n    print(s)\n    return s\n"
        "buf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
        "    y = f(jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', 'y'))))\n"
        "out = (buf.getvalue(), y, jax.typeof(y))"),
    "eager_shard_map_if_on_invariant": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P())\n"
        "def f(a):\n    total = jax.lax.psum(a.sum(), 'i')\n"
        "    return total * 2 if total > 100 else total\n"
        "out = f(jnp.arange(16.))"),
    "eager_shard_map_if_on_varying": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "def f(a):\n    return a * 2 if a.sum() > 10 else a\n"
        "out = f(jnp.arange(16.))"),
    "eager_shard_map_axis_index": _A1 + (
        "f = jax.shard_map(lambda a: a + jax.lax.axis_index('i'), mesh=mesh, in_specs=P('i'),"
        " out_specs=P('i'))\nout = f(jnp.zeros(8, dtype=jnp.int32))"),
    "eager_shard_map_out_not_replicated": _A1 + (
        "f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P('i'), out_specs=P())\n"
        "out = f(jnp.arange(8.))"),
    # ---- pcast (to='varying'), a type's manual_axis_type, random draws laid out on a mesh
    "pcast_varying": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P(), out_specs=P('i'))\n"
        "def f(a):\n    return jax.lax.pcast(a, 'i', to='varying') * 2\n"
        "out = (f(jnp.arange(4.)), jax.make_jaxpr(f)(jnp.arange(4.)))"),
    "pcast_already_varying": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "def f(a):\n    return jax.lax.pcast(a, 'i', to='varying')\n"
        "out = jax.make_jaxpr(f)(jnp.arange(8.))"),
    "manual_axis_type_varying": _MESH + (
        "seen = []\n"
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x'))\n"
        "def f(a):\n    s = jax.lax.psum(a, 'y')\n"
        "    seen.append((jax.typeof(a).manual_axis_type.varying == {'x', 'y'},"
        " jax.typeof(s).manual_axis_type.varying == {'x'}))\n    return s\n"
        "f(jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', 'y'))))\n"
        "out = seen"),
    "random_normal_out_sharding": _MESH + (
        "with jax.set_mesh(mesh):\n"
        "    r = jax.random.normal(jax.random.key(0), (8, 4), out_sharding=P('x', 'y'))\n"
        "out = (jax.typeof(r), r.addressable_shards[5].data)"),
    "random_uniform_out_sharding": _MESH + (
        "with jax.set_mesh(mesh):\n"
        "    r = jax.random.uniform(jax.random.key(1), (8, 4), out_sharding=P(None, 'y'))\n"
        "out = (jax.typeof(r), r)"),
    # ---- auto_axes / explicit_axes, types that show Explicit axes only, one axis on two dims
    "auto_axes_add": _MESH + (
        "from jax.sharding import auto_axes\n"
        "a = jax.device_put(jnp.arange(16.).reshape(4, 4), NamedSharding(mesh, P('x', None)))\n"
        "b = jax.device_put(jnp.arange(16.).reshape(4, 4), NamedSharding(mesh, P(None, 'x')))\n"
        "seen = []\n"
        "@auto_axes\ndef add(u, v):\n    seen.append((jax.sharding.get_abstract_mesh(), jax.typeof(u)))\n"
        "    return u + v\n"
        "with jax.set_mesh(mesh):\n    r = add(a, b, out_sharding=P('x', None))\n"
        "out = (seen, jax.typeof(r), np.asarray(r)[1])"),
    "auto_axes_under_jit": _MESH + (
        "from jax.sharding import auto_axes\n"
        "a = jax.device_put(jnp.arange(16.).reshape(4, 4), NamedSharding(mesh, P('x', None)))\n"
        "f = jax.jit(lambda u: auto_axes(lambda v: v * 2, out_sharding=P(None, 'y'))(u))\n"
        "with jax.set_mesh(mesh):\n    r = f(a)\n"
        "out = (jax.typeof(r), np.asarray(r)[2])"),
    "explicit_axes_under_jit": _A2 + (
        "from jax.sharding import explicit_axes\n"
        "seen = []\n"
        "@explicit_axes\ndef g(u):\n    seen.append((jax.sharding.get_abstract_mesh(), jax.typeof(u), jax.typeof(u * 2)))\n"
        "    return u * 2\n"
        "with jax.set_mesh(mesh):\n"
        "    a = jax.device_put(jnp.arange(32.).reshape(8, 4), P('x', 'y'))\n"
        "    r = jax.jit(lambda u: g(jnp.sin(u), in_sharding=P('x', 'y')) + 1)(a)\n"
        "out = (seen, jax.typeof(r), np.round(np.asarray(r)[3], 4))"),
    "typeof_on_auto_mesh": _A2 + (
        "a = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', 'y')))\n"
        "out = (a.sharding.spec, jax.typeof(a).sharding.spec)"),
    "one_axis_on_two_dims_error": _MESH + (
        "a = jax.device_put(jnp.arange(16.).reshape(4, 4), NamedSharding(mesh, P('x', None)))\n"
        "b = jax.device_put(jnp.arange(16.).reshape(4, 4), NamedSharding(mesh, P(None, 'x')))\n"
        "out = a * b"),
    "wsc_auto_trailing_none": _AUTO + (
        "x = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', 'y')))\n"
        "f = jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P('x', None))))\n"
        "out = (f(x).sharding, jax.make_jaxpr(f)(x))"),
    "use_abstract_mesh_reshard": _X + (
        "@jax.jit\ndef f(a):\n"
        "    am = jax.sharding.AbstractMesh((8,), ('A',), (AxisType.Explicit,))\n"
        "    with jax.sharding.use_abstract_mesh(am):\n"
        "        return jax.sharding.reshard(a, P('A', None)) * 2\n"
        "r = f(x)\nout = (jax.typeof(r), np.asarray(r)[6])"),
    "shard_map_jit_inside_psum": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P())\n"
        "def f(a):\n    return jax.jit(lambda b: jax.lax.psum(jnp.sin(b).sum(), 'i'))(a)\n"
        "out = (np.round(np.asarray(f(jnp.arange(16.))), 5), jax.make_jaxpr(f)(jnp.arange(16.)))"),
    "shard_map_fori_inside": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "def f(a):\n    return jax.lax.fori_loop(0, 3, lambda k, v: v + 1, a)\n"
        "out = f(jnp.arange(8.))"),
    # ---- in_specs is a prefix of the arguments' tree: one spec for a whole pytree argument
    "shard_map_in_specs_prefix": _M1 + (
        "params = {'w': jax.device_put(jnp.arange(16.).reshape(8, 2), NamedSharding(mesh, P('i'))),\n"
        "          'b': jax.device_put(jnp.arange(8.), NamedSharding(mesh, P('i')))}\n"
        "xs = jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P()))\n"
        "@partial(jax.shard_map, mesh=mesh, in_specs=(P('i'), P()), out_specs=P())\n"
        "def f(p, x):\n    return jax.lax.psum((x @ p['w'].T).sum() + p['b'].sum(), 'i')\n"
        "out = (f(params, xs), jax.make_jaxpr(f)(params, xs))"),
    # ---- reshape keeps a layout when it merges or splits one group of dimensions
    "reshape_merge_split_rows": _MESH + (
        "z = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', None)))\n"
        "out = jax.typeof(z.reshape(32))"),
    "reshape_merge_both": _X + "out = jax.typeof(jnp.reshape(x, (32,)))",
    "reshape_split": _X + "out = jax.typeof(jnp.reshape(x, (8, 2, 2)))",
    "reshape_split_rows_of_columns": _MESH + (
        "z = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P(None, 'y')))\n"
        "out = jax.typeof(jnp.reshape(z, (2, 4, 4)))"),
    "reshape_error": _X + "out = jnp.reshape(x, (4, 8))",
    "reshape_merge_whole_then_split": _MESH + (
        "z = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P(None, 'y')))\n"
        "out = jnp.reshape(z, (32,))"),
    "reshape_add_unit_dims": _X + "out = jax.typeof(jnp.reshape(x, (1, 8, 1, 4)))",
    "reshape_jaxpr": _X + "out = jax.make_jaxpr(lambda a: a.reshape(32))(x)",
    "reshape_values": _X + "out = (jnp.reshape(x, (32,)).addressable_shards[3].data,\n"
                            "       np.asarray(jax.jit(lambda a: a.reshape(8, 2, 2) * 2)(x))[5])",
    "reshape_out_sharding": _X + (
        "out = jax.typeof(jax.lax.reshape(x, (4, 8), out_sharding=NamedSharding(mesh, P('x', None))))"),
    # ---- differentiating shard_map (values rounded: the last float32 digit depends on the
    # order of the sums) and a matmul on Explicit axes, whose transpose keeps the layout
    "grad_shard_map_wrt_weights": _GRAD + "out = (jax.typeof(g[0]), np.round(np.asarray(g[0]), 3))",
    "grad_shard_map_wrt_data": _GRAD + "out = (jax.typeof(g[1]), np.round(np.asarray(g[1]), 3))",
    "grad_jit_shard_map": _GRAD_SETUP + (
        "with jax.set_mesh(mesh):\n    g = jax.jit(jax.grad(loss))(w, x)\n"
        "out = (jax.typeof(g), np.round(np.asarray(g), 3))"),
    "jvp_shard_map": _GRAD_SETUP + (
        "with jax.set_mesh(mesh):\n"
        "    p, t = jax.jvp(lambda v: mm(x, v), (w,), (jnp.ones_like(w),))\n"
        "out = (jax.typeof(t), np.round(np.asarray(t), 3))"),
    "grad_shard_map_replicated_param": _MESH + (
        "x = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', 'y')))\n"
        "@partial(jax.shard_map, mesh=mesh, in_specs=(P('x', 'y'), P()), out_specs=P())\n"
        "def f(a, c):\n    g = jax.lax.all_gather(a, 'y', tiled=True, axis=1)\n"
        "    return jax.lax.pmean((g * c).sum(), ('x', 'y'))\n"
        "with jax.set_mesh(mesh):\n    out = jax.grad(f, argnums=(0, 1))(x, 2.0)"),
    "grad_shard_map_remat_all_gather": _A1 + (
        "w = jnp.arange(16.).reshape(8, 2) / 10\nx = jnp.arange(16.).reshape(8, 2)\n"
        "@partial(jax.remat, policy=lambda op, *_, **__: str(op) != 'all_gather')\n"
        "def pred(wf, xs):\n    W = jax.lax.all_gather(wf, 'i', tiled=True)\n"
        "    return jnp.tanh(xs @ W.T / 10)\n"
        "@partial(jax.shard_map, mesh=mesh, in_specs=(P('i'), P('i')), out_specs=P())\n"
        "def loss(wf, xs):\n    return jax.lax.pmean(pred(wf, xs).sum(), 'i')\n"
        "out = np.round(np.asarray(jax.grad(loss)(w, x)), 4)"),
    "grad_shard_map_ppermute": _A1 + (
        "@partial(jax.shard_map, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "def f(a):\n    return jax.lax.ppermute(a, 'i', [(j, (j + 1) % 8) for j in range(8)]) * a\n"
        "out = jax.grad(lambda a: f(a).sum())(jnp.arange(8.))"),
    "grad_explicit_matmul": _GRAD_SETUP + (
        "def loss2(w, x):\n"
        "    return (jnp.matmul(jnp.sin(x), w, out_sharding=NamedSharding(mesh, P('x', None))) ** 2).sum()\n"
        "with jax.set_mesh(mesh):\n    g = jax.grad(loss2)(w, x)\n"
        "out = (jax.typeof(g), np.round(np.asarray(g), 3))"),
    # ---- float0: the gradient of an integer input (issue 31's "also")
    "float0_dtype": "out = jax.dtypes.float0",
    "float0_grad_scalar": "out = jax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)",
    "float0_grad_vector": "out = jax.grad(lambda x, n: x * n.sum(), argnums=1, allow_int=True)(2.0, jnp.arange(3))",
    "float0_grad_is_float0": ("g = jax.grad(lambda x, n: x, argnums=1, allow_int=True)(2.0, 3)\n"
                              "out = (g.shape, g.dtype == jax.dtypes.float0)"),
    "float0_grad_without_allow_int": "out = jax.grad(lambda n: n * 2.0)(3)",
    # ---- custom_batching.custom_vmap (issue 31's "also")
    "custom_vmap_eager": _CV + "out = f(1., 2.)",
    "custom_vmap_vmap": _CV + "out = (jax.vmap(f)(jnp.ones(3), jnp.arange(3.)), seen)",
    "custom_vmap_vmap_one_batched": _CV + "out = (jax.vmap(f, in_axes=(0, None))(jnp.ones(3), 2.), seen)",
    "custom_vmap_jaxpr": _CV + "out = jax.make_jaxpr(f)(1., 2.)",
    "custom_vmap_vmap_jaxpr": _CV + "out = jax.make_jaxpr(jax.vmap(f))(jnp.ones(3), jnp.arange(3.))",
    "custom_vmap_in_axes": _CV1 + "out = jax.vmap(g, in_axes=1)(jnp.ones((2, 3)))",
    "custom_vmap_jit_vmap": _CV1 + "out = jax.jit(jax.vmap(g))(jnp.zeros(2))",
    "custom_vmap_no_rule": ("@jax.custom_batching.custom_vmap\n"
                            "def h(x):\n    return x\n"
                            "out = h(1.)"),
    # ---- pmap kept
    "pmap_psum": "out = jax.pmap(lambda a: jax.lax.psum(a, 'i'), axis_name='i')(jnp.arange(8.))",
}
