# Seed 000_02e1ba5bdf8cedba.txt: "JAX As Accelerated NumPy" (Jupyter "In [n]:" cells).
#
# Cells are separated by `# %% L<line> [tags]` where <line> is the cell's first line in
# /work/shared/seeds/000_02e1ba5bdf8cedba.txt. Tags: timing (an IPython %timeit, run once,
# output not compared), raises (the tutorial shows it raising), fragment (an illustrative
# snippet from the prose that uses undefined names), device (output depends on the devices).
# tests/seeds/record.py records real JAX's output into expected.json; tests/test_seeds.py
# replays the cells with `jax` aliased to edujax and compares.

# %% L9
import jax
import jax.numpy as jnp

# %% L13
x = jnp.arange(10)
print(x)

# %% L27
x

# %% L39
long_vector = jnp.arange(int(1e7))

# %% L40 timing
# %timeit jnp.dot(long_vector, long_vector).block_until_ready()
jnp.dot(long_vector, long_vector).block_until_ready()

# %% L51
def sum_of_squares(x):
    return jnp.sum(x**2)

# %% L58
sum_of_squares_dx = jax.grad(sum_of_squares)

x = jnp.asarray([1.0, 2.0, 3.0, 4.0])

print(sum_of_squares(x))
print(sum_of_squares_dx(x))

# %% L76
def sum_squared_error(x, y):
    return jnp.sum((x - y)**2)

# %% L80
sum_squared_error_dx = jax.grad(sum_squared_error)

y = jnp.asarray([1.1, 2.1, 3.1, 4.1])

print(sum_squared_error_dx(x, y))

# %% L92
display(jax.grad(sum_squared_error, argnums=(0, 1))(x, y)) # x와 y에 대한 편미분 값을 모두 반환

# %% L101 fragment raises
# A ```python block in the prose; `params` and `data_batch` are never defined (NameError).
def loss_fn(params, data):
    ...

grads = jax.grad(loss_fn)(params, data_batch)
