"""``edujax.jit``: compile functions by tracing them to jaxprs (see api.py and cache.py)."""
from edujax.jit.api import Compiled, JitWrapped, Lowered, clear_caches, jit

__all__ = ["jit", "JitWrapped", "Lowered", "Compiled", "clear_caches"]
