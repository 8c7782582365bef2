# Seed 002_f1f1b4c7053b90a9.txt: "가속화된 NumPy인 JAX" (JAX 101, part 1; a web page's text).
#
# Cells are separated by `# %% L<line> [tags]` where <line> is the cell's first line in
# /work/shared/seeds/002_f1f1b4c7053b90a9.txt. Tags: timing (an IPython %timeit, run once,
# output not compared), raises (the tutorial shows it raising), fragment (an illustrative
# snippet from the prose that uses undefined names), device: see seed_000.py.
# The harness seeds NumPy's global generator before each seed, so the unseeded
# np.random.normal data of the training loop is the same for JAX and edujax.

# %% L21
import jax
import jax.numpy as jnp

x = jnp.arange(10)
print(x)

# %% L35
x

# %% L44
long_vector = jnp.arange(int(1e7))

# %% L46 timing
# %timeit jnp.dot(long_vector, long_vector).block_until_ready()
jnp.dot(long_vector, long_vector).block_until_ready()

# %% L60
def sum_of_squares(x):
  return jnp.sum(x**2)

# %% L67
sum_of_squares_dx = jax.grad(sum_of_squares)

x = jnp.asarray([1.0, 2.0, 3.0, 4.0])

print(sum_of_squares(x))

print(sum_of_squares_dx(x))

# %% L89
def sum_squared_error(x, y):
  return jnp.sum((x-y)**2)

sum_squared_error_dx = jax.grad(sum_squared_error)

y = jnp.asarray([1.1, 2.1, 3.1, 4.1])

print(sum_squared_error_dx(x, y))

# %% L101
jax.grad(sum_squared_error, argnums=(0, 1))(x, y)  # Find gradient wrt both x & y

# %% L107 fragment raises
# Shown in the prose; `params` and `data_batch` are never defined (NameError).
def loss_fn(params, data):
  ...

grads = jax.grad(loss_fn)(params, data_batch)

# %% L118
jax.value_and_grad(sum_squared_error)(x, y)

# %% L124 fragment raises
# Shown in the prose as an identity; `f` and `xs` are not defined here (NameError).
jax.value_and_grad(f)(*xs) == (f(*xs), jax.grad(f)(*xs))

# %% L130 raises
def squared_error_with_aux(x, y):
  return sum_squared_error(x, y), x-y

jax.grad(squared_error_with_aux)(x, y)

# %% L149
jax.grad(squared_error_with_aux, has_aux=True)(x, y)

# %% L167
import numpy as np

x = np.array([1, 2, 3])

def in_place_modify(x):
  x[0] = 123
  return None

in_place_modify(x)
x

# %% L183 raises
in_place_modify(jnp.array(x))  # Raises error when we cast input to jnp.ndarray

# %% L212
def jax_in_place_modify(x):
  return x.at[0].set(123)

y = jnp.array([1, 2, 3])
jax_in_place_modify(y)

# %% L221
y

# %% L240
import numpy as np
import matplotlib.pyplot as plt

xs = np.random.normal(size=(100,))
noise = np.random.normal(scale=0.1, size=(100,))
ys = xs * 3 - 1 + noise

plt.scatter(xs, ys);

# %% L255
def model(theta, x):
  """Computes wx + b on a batch of input x."""
  w, b = theta
  return w * x + b

# %% L262
def loss_fn(theta, x, y):
  prediction = model(theta, x)
  return jnp.mean((prediction-y)**2)

# %% L270
def update(theta, x, y, lr=0.1):
  return theta - lr * jax.grad(loss_fn)(theta, x, y)

# %% L277
theta = jnp.array([1., 1.])

for _ in range(1000):
  theta = update(theta, xs, ys)

plt.scatter(xs, ys)
plt.plot(xs, model(theta, xs))

w, b = theta
print(f"w: {w:<.2f}, b: {b:<.2f}")
