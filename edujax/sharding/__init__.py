"""``jax.sharding``: how an array is laid out over (simulated) devices.

Read in this order: ``mesh.py`` (devices in a named grid, axis types), ``partition_spec.py``
(which dimension goes over which axis), ``named_sharding.py`` (which block each device
holds), ``single_device.py`` (an array on one device). How shardings enter types and which
sharding each primitive gives its output is ``in_types.py``; ``reshard.py``,
``shard_map.py`` and ``visualize.py`` sit higher up, next to jit (see edujax/__init__.py).
"""
from edujax.sharding.mesh import (AbstractMesh, AxisType, Mesh, current_mesh,  # noqa: F401
                                  get_abstract_mesh, make_mesh, set_mesh, use_abstract_mesh)
from edujax.sharding.named_sharding import NamedSharding, Shard  # noqa: F401
from edujax.sharding.partition_spec import PartitionSpec  # noqa: F401
from edujax.sharding.single_device import Sharding, SingleDeviceSharding  # noqa: F401

P = PartitionSpec
