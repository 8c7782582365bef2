"""Record what real JAX gives for the programs of tests/jnp_cases.py.

Run it with the Python that has JAX installed (never with edujax: these are the
expectations edujax is tested against)::

    /tmp/jaxenv/bin/python tests/record_jnp_data.py

It writes tests/data/jnp_values.json (every value case: the repr and the values of
``out``, or the exception's type and first line) and tests/data/jnp_jaxprs.json
(the printed jaxpr of every jaxpr case whose JAX implementation has no inner
``jit`` or ``custom_jvp_call`` equation: edujax cannot print those yet, so for
them only the values are compared).
"""
from __future__ import annotations

import json
import pathlib
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))

import jnp_cases  # noqa: E402

STAGED_CALLS = ("jit[", "custom_jvp_call", "custom_vjp_call", "pjit[")


def run(code: str, namespace: dict) -> dict:
    ns = dict(namespace)
    try:
        exec(code, ns)
    except Exception as error:  # noqa: BLE001 (the error is the recorded result)
        return jnp_cases.encode_error(error)
    return jnp_cases.encode(ns["out"])


def main() -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax
    warnings.simplefilter("ignore")
    namespace = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}

    values = [{"name": name, "code": code, "expected": run(code, namespace)}
              for name, code in jnp_cases.VALUE_CASES]
    jaxprs, skipped = [], []
    for name, code in jnp_cases.JAXPR_CASES:
        result = run(code, namespace)
        text = result.get("repr", "")
        if "error" in result or any(s in text for s in STAGED_CALLS):
            skipped.append(name)
            continue
        jaxprs.append({"name": name, "code": code, "jaxpr": text})

    header = {"jax_version": jax.__version__, "numpy_version": np.__version__}
    data = HERE / "data"
    data.mkdir(exist_ok=True)
    (data / "jnp_values.json").write_text(json.dumps({**header, "cases": values}, indent=1))
    (data / "jnp_jaxprs.json").write_text(json.dumps(jaxprs, indent=1))
    print(f"{len(values)} value cases, {len(jaxprs)} jaxpr cases "
          f"({len(skipped)} skipped: JAX raised, or staged them with jit: {', '.join(skipped)})")


if __name__ == "__main__":
    main()
