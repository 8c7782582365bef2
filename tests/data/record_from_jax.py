"""Record what real JAX gives for a list of small programs (run with a Python that has jax).

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/core_cases.py \\
        tests/data/core_recorded.json

The cases module defines ``CASES = {name: code}``; each code sets ``out``. The JSON
written holds, per case, ``repr(out)`` or the exception type and first message line.
edujax's tests (tests/recorded.py) replay the same code and compare.
"""
import contextlib
import importlib.util
import io
import json
import sys

import jax
import jax.ad_checkpoint  # noqa: F401  (programs say jax.ad_checkpoint.print_saved_residuals)
import jax.extend.core  # noqa: F401  (and jax.extend.core.Literal)
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
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, ns)
            result = {"out": repr(ns["out"])}
        except Exception as e:  # noqa: BLE001
            result = {"raises": type(e).__name__,
                      "message": str(e).splitlines()[0] if str(e) else ""}
        records.append({"name": name, "code": code, **result})
    json.dump(records, open(out_path, "w"), indent=1)
    print(len(records), "recorded with jax", jax.__version__)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
