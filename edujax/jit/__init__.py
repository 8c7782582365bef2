"""``edujax.jit``: compile functions by tracing them to jaxprs (see api.py and cache.py)."""
from edujax.jit.api import Compiled, JitWrapped, Lowered, jit

__all__ = ["jit", "JitWrapped", "Lowered", "Compiled"]
