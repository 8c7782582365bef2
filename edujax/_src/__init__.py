"""Where JAX's documentation reaches into ``jax._src`` (the "Writing custom interpreters"
notebook imports ``safe_map`` from ``jax._src.util``), the same names live here."""
