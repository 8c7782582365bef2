"""``jax.extend.core.primitives``: every primitive by its Python name (``sin_p``, ``add_p``...).

A custom interpreter compares ``eqn.primitive`` with these (``if eqn.primitive is sin_p``).
They are gathered from ``edujax.lax`` rather than listed by hand, so none is forgotten.
"""
from edujax import lax as _lax
from edujax.core import Primitive as _Primitive

globals().update({name: value for name, value in vars(_lax).items()
                  if name.endswith("_p") and isinstance(value, _Primitive)})
