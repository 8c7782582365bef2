"""Record the public names of real JAX's namespaces (run with a Python that has jax).

    /tmp/jaxenv/bin/python tests/data/record_api_names.py tests/data/api_names.json

Writes ``{"jax_version": ..., "namespaces": {namespace: {name: kind}}}``. A public name is one
without a leading underscore. ``kind`` is one of function, class, dtype, constant, module,
object (an instance such as ``jnp.r_``). For ``jax.scipy.stats`` the functions of each
distribution module are listed too, as ``norm.pdf``. tests/data/coverage.py compares these
names with edujax's and writes docs/api_coverage.md.
"""
import importlib
import json
import sys
import types

import jax
import numpy as np

NAMESPACES = ["jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.nn.initializers",
              "jax.numpy.linalg", "jax.numpy.fft", "jax.scipy.special", "jax.scipy.stats",
              "jax.scipy.linalg", "jax.tree_util", "jax.tree"]
# namespaces whose submodules' names are listed as "submodule.name"
EXPAND_SUBMODULES = {"jax.scipy.stats"}


def kind(value: object) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if isinstance(value, type):
        # jnp.float32 & co. are JAX scalar types (a metaclass of their own); np.generic's
        # subclasses (jnp.integer, jnp.floating, ...) are the abstract dtype classes
        if type(value).__name__ == "_ScalarMeta" or issubclass(value, np.generic):
            return "dtype"
        return "class"
    if type(value).__name__ == "_ScalarMeta":
        return "dtype"
    if isinstance(value, (int, float, complex, str, type(None))):
        return "constant"
    if callable(value):
        return "function"
    return "object"


def public_names(module: types.ModuleType) -> dict[str, str]:
    return {n: kind(getattr(module, n)) for n in sorted(dir(module)) if not n.startswith("_")}


def main(out_path: str) -> None:
    namespaces = {}
    for ns in NAMESPACES:
        module = importlib.import_module(ns)
        names = public_names(module)
        if ns in EXPAND_SUBMODULES:
            for sub, k in list(names.items()):
                if k == "module":
                    for n, kk in public_names(getattr(module, sub)).items():
                        names[f"{sub}.{n}"] = kk
        namespaces[ns] = dict(sorted(names.items()))
    json.dump({"jax_version": jax.__version__, "namespaces": namespaces},
              open(out_path, "w"), indent=1)
    print({ns: len(v) for ns, v in namespaces.items()})


if __name__ == "__main__":
    main(sys.argv[1])
