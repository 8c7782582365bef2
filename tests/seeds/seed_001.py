# Seed 001_d11481569dae80d3.txt: "JAX 빠른 시작" (the JAX quickstart, MyST code cells).
#
# Cells are separated by `# %% L<line> [tags]` where <line> is the cell's first line in
# /work/shared/seeds/001_d11481569dae80d3.txt. Tags: timing (an IPython %timeit, run once,
# output not compared), raises, fragment, device: see seed_000.py. A notebook cell that ends
# in `%timeit` is split in two: its code before the magic, then the timed line on its own.

# %% L34
import jax.numpy as jnp
from jax import grad, jit, vmap
from jax import random

# %% L53
key = random.PRNGKey(0)
x = random.normal(key, (10,))
print(x)

# %% L66
size = 3000
x = random.normal(key, (size, size), dtype=jnp.float32)

# %% L68 timing
# %timeit jnp.dot(x, x.T).block_until_ready()  # GPU에서 실행
jnp.dot(x, x.T).block_until_ready()  # GPU에서 실행

# %% L81
import numpy as np
x = np.random.normal(size=(size, size)).astype(np.float32)

# %% L83 timing
# %timeit jnp.dot(x, x.T).block_until_ready()
jnp.dot(x, x.T).block_until_ready()

# %% L94
from jax import device_put

x = np.random.normal(size=(size, size)).astype(np.float32)
x = device_put(x)

# %% L98 timing
# %timeit jnp.dot(x, x.T).block_until_ready()
jnp.dot(x, x.T).block_until_ready()

# %% L133
def selu(x, alpha=1.67, lmbda=1.05):
  return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

x = random.normal(key, (1000000,))

# %% L137 timing
# %timeit selu(x).block_until_ready()
selu(x).block_until_ready()

# %% L148
selu_jit = jit(selu)

# %% L149 timing
# %timeit selu_jit(x).block_until_ready()
selu_jit(x).block_until_ready()

# %% L162
def sum_logistic(x):
  return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))

x_small = jnp.arange(3.)
derivative_fn = grad(sum_logistic)
print(derivative_fn(x_small))

# %% L178
def first_finite_differences(f, x):
  eps = 1e-3
  return jnp.array([(f(x + eps * v) - f(x - eps * v)) / (2 * eps)
                   for v in jnp.eye(len(x))])


print(first_finite_differences(sum_logistic, x_small))

# %% L195 xla_rounding
print(grad(jit(grad(jit(grad(sum_logistic)))))(1.0))

# %% L205
from jax import jacfwd, jacrev
def hessian(fun):
  return jit(jacfwd(jacrev(fun)))

# %% L225
mat = random.normal(key, (150, 100))
batched_x = random.normal(key, (10, 100))

def apply_matrix(v):
  return jnp.dot(mat, v)

# %% L240
def naively_batched_apply_matrix(v_batched):
  return jnp.stack([apply_matrix(v) for v in v_batched])

print('Naively batched')

# %% L244 timing
# %timeit naively_batched_apply_matrix(batched_x).block_until_ready()
naively_batched_apply_matrix(batched_x).block_until_ready()

# %% L255
@jit
def batched_apply_matrix(v_batched):
  return jnp.dot(v_batched, mat.T)

print('Manually batched')

# %% L260 timing
# %timeit batched_apply_matrix(batched_x).block_until_ready()
batched_apply_matrix(batched_x).block_until_ready()

# %% L271
@jit
def vmap_batched_apply_matrix(v_batched):
  return vmap(apply_matrix)(v_batched)

print('Auto-vectorized with vmap')

# %% L276 timing
# %timeit vmap_batched_apply_matrix(batched_x).block_until_ready()
vmap_batched_apply_matrix(batched_x).block_until_ready()
