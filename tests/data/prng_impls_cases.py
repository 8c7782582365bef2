"""Programs recorded in prng_impls_recorded.json: JAX's 'rbg' and 'unsafe_rbg' PRNGs, and the
XLA CPU bits of lax.rng_bit_generator under them (issue 17).

An rbg key is four uint32 words; its bits come from ``lax.rng_bit_generator``, which XLA runs
on CPU as Philox-4x32-10. These programs print keys, their words after split and fold_in,
the bits and samples they give (eagerly, under jit and under vmap, where JAX's batching rule
draws a whole batch from the first key), the jaxprs, and the errors for unknown PRNGs.
record_from_jax.py runs them under real JAX 0.10.2; tests/test_prng_impls.py replays them.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/prng_impls_cases.py \\
        tests/data/prng_impls_recorded.json
"""
CASES: dict[str, str] = {}


def case(name: str, code: str) -> None:
    assert name not in CASES, name
    CASES[name] = code


# ================================================================ lax.rng_bit_generator
K4 = "jnp.array([5, 6, 7, 8], jnp.uint32)"
KCARRY = "jnp.array([1, 2, 0xFFFFFFFF, 0xFFFFFFFF], jnp.uint32)"
for name, key in (("", K4), ("[carry]", KCARRY)):
    for dt, shape in (("uint32", "(9,)"), ("uint8", "(2, 3)"), ("uint16", "(7,)")):
        case(f"rng_bit_generator[{dt}]{name}",
             f"out = lax.rng_bit_generator({key}, {shape}, dtype=jnp.{dt})")
    case(f"rng_bit_generator[philox]{name}", f"out = lax.rng_bit_generator({key}, (2, 5), "
         "algorithm=lax.RandomAlgorithm.RNG_PHILOX)")
case("rng_bit_generator[jit]", f"out = jax.jit(lambda k: lax.rng_bit_generator(k, (6,)))({K4})")
case("rng_bit_generator[vmap]", "out = jax.vmap(lambda k: lax.rng_bit_generator(k, (3,)))"
     f"(jnp.stack([{K4}, {KCARRY}]))")
case("rng_bit_generator[vmap][jaxpr]", "out = str(make_jaxpr(jax.vmap(lambda k: "
     f"lax.rng_bit_generator(k, (3,))))(jnp.stack([{K4}, {KCARRY}])))")

# ================================================================ rbg and unsafe_rbg keys
for impl in ("rbg", "unsafe_rbg"):
    KEY = f"jax.random.key(42, impl='{impl}')"
    case(f"{impl}[key]", f"out = {KEY}")
    case(f"{impl}[key_data]", f"out = jax.random.key_data({KEY})")
    case(f"{impl}[key_impl]", f"out = jax.random.key_impl({KEY})")
    case(f"{impl}[bits]", f"out = jax.random.bits({KEY}, (5,))")
    case(f"{impl}[bits][uint8]", f"out = jax.random.bits({KEY}, (2, 3), dtype=jnp.uint8)")
    case(f"{impl}[uniform]", f"out = jax.random.uniform({KEY}, (3,))")
    case(f"{impl}[normal]", f"out = jax.random.normal({KEY}, (2, 2))")
    case(f"{impl}[randint]", f"out = jax.random.randint({KEY}, (4,), 0, 10)")
    case(f"{impl}[split]", f"out = jax.random.split({KEY}, 3)")
    case(f"{impl}[split][2d]", f"out = jax.random.key_data(jax.random.split({KEY}, (2, 2)))")
    case(f"{impl}[fold_in]", f"out = jax.random.key_data(jax.random.fold_in({KEY}, 7))")
    case(f"{impl}[split][uniform]",
         f"out = jax.random.uniform(jax.random.split({KEY}, 3)[1], (2,))")
    case(f"{impl}[vmap][uniform]", "out = jax.vmap(lambda k: jax.random.uniform(k, (2,)))"
         f"(jax.random.split({KEY}, 3))")
    case(f"{impl}[vmap][fold_in]", "out = jax.random.key_data(jax.vmap(lambda k: "
         f"jax.random.fold_in(k, 3))(jax.random.split({KEY}, 3)))")
    case(f"{impl}[jit][normal]", f"out = jax.jit(lambda k: jax.random.normal(k, (3,)))({KEY})")
    case(f"{impl}[jit][split]",
         f"out = jax.random.key_data(jax.jit(lambda k: jax.random.split(k, 3))({KEY}))")
    case(f"{impl}[permutation]", f"out = jax.random.permutation({KEY}, 6)")
    case(f"{impl}[gamma]", f"out = jax.random.gamma({KEY}, jnp.array([0.5, 2.0]))")
    case(f"{impl}[wrap_key_data]",
         f"out = jax.random.wrap_key_data(jnp.array([1, 2, 3, 4], jnp.uint32), impl='{impl}')")
    case(f"{impl}[key][dtype]",
         f"out = jax.random.key(7, dtype=jax.random.key_dtype('{impl}'))")
    case(f"{impl}[jaxpr][seed]", f"out = str(make_jaxpr(lambda s: jax.random.key(s, "
         f"impl='{impl}'))(0))")
    case(f"{impl}[jaxpr][split]", f"out = str(make_jaxpr(lambda k: jax.random.split(k))({KEY}))")
    case(f"{impl}[jaxpr][uniform]",
         f"out = str(make_jaxpr(lambda k: jax.random.uniform(k, (3,)))({KEY}))")

# ================================================================ the default PRNG
case("default_prng_impl[PRNGKey]", "with jax.default_prng_impl('rbg'):\n"
     "    k = jax.random.PRNGKey(3)\n"
     "    out = (k, jax.random.uniform(k, (3,)), jax.random.split(k))")
case("default_prng_impl[jaxpr]", "with jax.default_prng_impl('unsafe_rbg'):\n"
     "    out = str(make_jaxpr(lambda k: jax.random.normal(k, (2,)))(jax.random.PRNGKey(3)))")
case("default_prng_impl[after]", "with jax.default_prng_impl('rbg'):\n"
     "    pass\n"
     "out = jax.random.PRNGKey(3)")
case("default_prng_impl[bad]", "out = jax.default_prng_impl('foo')")
case("key[bad_impl]", "out = jax.random.key(0, impl='foo')")
case("wrap_key_data[bad_shape]",
     "out = jax.random.wrap_key_data(jnp.array([1, 2], jnp.uint32), impl='rbg')")
