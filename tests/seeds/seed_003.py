# Seed 003_a71695fbcb6b3102.txt: "Google JAX - 개요" (a blog post with ```python blocks).
#
# Cells are separated by `# %% L<line> [tags]` where <line> is the cell's first line in
# /work/shared/seeds/003_a71695fbcb6b3102.txt. Tags: see seed_000.py; `added` marks code that
# is not in the tutorial. The blocks are indented by two spaces inside a Markdown list in the
# post; they are dedented here (trailing spaces dropped), otherwise unchanged.

# %% L75 added
# The post's blocks use `jit`, `jnp` and `lax` without importing them; these are the imports
# they assume.
import jax.numpy as jnp
from jax import jit, lax

# %% L76
g = 0.
def impure_uses_globals(x):
 return x + g
print ("First call: ", jit(impure_uses_globals)(4.))
g = 10. # Update the global
print ("Second call: ", jit(impure_uses_globals)(5.))
print ("Third call, different type: ",
                 jit(impure_uses_globals)(jnp.array([4.])))

# %% L109
# lax.fori_loop
# expected result 45
array = jnp.arange(10)
print(lax.fori_loop(0, 10, lambda i,x: x+array[i], 0))

# unexpected result 0
iterator = iter(range(10))
print(lax.fori_loop(0, 10, lambda i,x: x+next(iterator), 0))

# %% L141
# JAX Device array 선언
jax_array = jnp.zeros((3,3), dtype=jnp.float32)

try:
 jax_array[1, :] = 1.0 # In-Place Update는 오류를 발생시킴
                       # jax_array.at[1, :].set(1.0) 을 사용해야함
except Exception as e:
 print("Exception {}".format(e))

# %% L170
try:
 jnp.sum([1, 2, 3])
 # -> jnp.sum(jnp.array([1,2,3]))

except TypeError as e:
 print(f"TypeError: {e}")
