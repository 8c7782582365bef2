"""The interpreters: what ``bind`` means under each transformation.

``partial_eval.py`` stages primitives into a jaxpr (make_jaxpr, jit), ``ad.py`` pushes tangents
(jvp, grad) and transposes linear jaxprs, ``batching.py`` adds a batch dimension (vmap).
``ad_util.py`` holds the one primitive they need before any other exists (``add_any``), and
``partial_eval_jaxpr.py`` splits a jaxpr into its known and unknown parts.

Each interpreter owns its rule tables (``ad.jvp_rules``, ``batching.batching_rules``, ...);
the primitive modules of ``edujax/lax`` fill them. The interpreters never import lax.
"""
