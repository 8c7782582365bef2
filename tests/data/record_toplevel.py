"""Record what real JAX gives for the top-level API's programs, printed output included.

    /tmp/jaxenv/bin/python tests/data/record_toplevel.py tests/data/toplevel_cases.py \\
        tests/data/toplevel_recorded.json

Like record_from_jax.py (``CASES = {name: code}``, each code sets ``out``; the JSON holds
``repr(out)`` or the exception type and first message line), plus ``stdout``: what the
program printed, so that tests can check *when and how often* ``jax.debug.print``, a
callback or a custom rule prints. edujax's tests (tests/test_toplevel.py) replay the code.
"""
import contextlib
import importlib.util
import io
import json
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def main(cases_path: str, out_path: str) -> None:
    jax.config.update("jax_platforms", "cpu")
    spec = importlib.util.spec_from_file_location("cases", cases_path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    records = []
    for name, code in cases.CASES.items():
        ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "make_jaxpr": jax.make_jaxpr}
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(code, ns)
                jax.effects_barrier()  # JAX prints asynchronously: wait for every print
            result = {"out": repr(ns["out"])}
        except Exception as e:  # noqa: BLE001
            result = {"raises": type(e).__name__,
                      "message": str(e).splitlines()[0] if str(e) else ""}
        records.append({"name": name, "code": code, **result, "stdout": printed.getvalue()})
    json.dump(records, open(out_path, "w"), indent=1)
    print(len(records), "recorded with jax", jax.__version__)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
