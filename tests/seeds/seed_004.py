# Seed 004_44d3e13011c9767b.txt: "JAX의 JIT 컴파일" (a Colab notebook's "In [n]:" cells).
#
# Cells are separated by `# %% L<line> [tags]` where <line> is the cell's first line in
# /work/shared/seeds/004_44d3e13011c9767b.txt (the notebook's printed outputs are left out).
# Tags: timing (an IPython %timeit or a time.time() measurement, run once, output not
# compared), raises (the tutorial shows it raising), fragment (an illustrative snippet from
# the prose that uses undefined names), device (output depends on the number of devices):
# see seed_000.py. A notebook cell with prints between %timeit lines is split so that the
# prints are compared and each timed line is a cell of its own.

# %% L14
import jax
import jax.numpy as jnp
from jax import make_jaxpr

def my_function(x, y):
  return x * y + 2

print(make_jaxpr(my_function)(3., 4.))

# %% L36
def log2_with_print(x):
    print("printed x:", x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


print(jax.make_jaxpr(log2_with_print)(3.))

# %% L58
def square_if_gt_2(x):
    if x.ndim > 2:
        return x**2
    else:
        return x


print(make_jaxpr(square_if_gt_2)(jax.numpy.array([1, 2, 3])))

# %% L75
print(make_jaxpr(square_if_gt_2)(jax.numpy.array([1, 2, 3, 4, 5])))

# %% L89
def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


x = jnp.arange(1000000)

# %% L94 timing
# %timeit selu(x).block_until_ready()
selu(x).block_until_ready()

# %% L101 timing
selu_jit = jax.jit(selu)

# Warm up
selu_jit(x).block_until_ready()
# %timeit selu_jit(x).block_until_ready()
selu_jit(x).block_until_ready()

# %% L120 raises
def f(x):
    if x > 0:
        return x
    else:
        return 2 * x


f_jit = jax.jit(f)
f_jit(10) # 에러 발생.

# %% L135 raises
# 입력 n이 조건에 포함된 while 반복문.

def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i


g_jit = jax.jit(g)
g_jit(10, 20) # 에러 발생.

# %% L160
@jax.jit
def loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted(x, n):
    i = 0
    while i < n:
        i = loop_body(i)
    return x + i


g_inner_jitted(10, 20)

# %% L182
f_jit_correct = jax.jit(f, static_argnums=0)
print(f_jit_correct(10))

g_jit_correct = jax.jit(g, static_argnames=['n'])
print(g_jit_correct(10, 20))

# %% L199
from functools import partial

@partial(jax.jit, static_argnames=['n'])
def g_jit_decorated(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i


print(g_jit_decorated(10, 20))

# %% L228
def unjitted_loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted_partial(x, n):
    i = 0
    while i < n:
    # 하지마세요!
    # 매번 partial이 다른 해쉬의 함수를 반환합니다.
        i = jax.jit(partial(unjitted_loop_body))(i)
    return x + i


def g_inner_jitted_lambda(x, n):
    i = 0
    while i < n:
    # 하지마세요!
    # lambda 또한 매번 다른 해쉬의 함수를 반환합니다.
        i = jax.jit(lambda x: unjitted_loop_body(x))(i)
    return x + i


def g_inner_jitted_normal(x, n):
    i = 0
    while i < n:
    # 이건 괜찮습니다!
    # JAX가 캐싱되고 컴파일된 함수를 다시 찾을 수 있습니다.
        i = jax.jit(unjitted_loop_body)(i)
    return x + i


print("jit called in a loop with partials:")

# %% L260 timing
# %timeit g_inner_jitted_partial(10, 20).block_until_ready()
g_inner_jitted_partial(10, 20).block_until_ready()

# %% L263
print("jit called in a loop with lambdas:")

# %% L264 timing
# %timeit g_inner_jitted_lambda(10, 20).block_until_ready()
g_inner_jitted_lambda(10, 20).block_until_ready()

# %% L267
print("jit called in a loop with caching:")

# %% L268 timing
# %timeit g_inner_jitted_normal(10, 20).block_until_ready()
g_inner_jitted_normal(10, 20).block_until_ready()

# %% L292
import jax
import jax.numpy as jnp

x = jnp.arange(5)
w = jnp.array([2., 3., 4.])

def convolve(x, w):
    output = []
    for i in range(1, len(x)-1):
        output.append(jnp.dot(x[i-1:i+2], w))
    return jnp.array(output)

convolve(x, w)

# %% L309
xs = jnp.stack([x, x])
ws = jnp.stack([w, w])

# %% L313
def manually_batched_convolve(xs, ws):
    output = []
    for i in range(xs.shape[0]):
        output.append(convolve(xs[i], ws[i]))
    return jnp.stack(output)


manually_batched_convolve(xs, ws)

# %% L329
def manually_vectorized_convolve(xs, ws):
    output = []

    for i in range(1, xs.shape[-1] -1):
        output.append(jnp.sum(xs[:, i-1:i+2] * ws, axis=1))
    return jnp.stack(output, axis=1)

# %% L337 timing
# %timeit manually_vectorized_convolve(xs, ws).block_until_ready()
manually_vectorized_convolve(xs, ws).block_until_ready()

# %% L346
auto_batch_convolve = jax.vmap(convolve)

auto_batch_convolve(xs, ws)

# %% L358
auto_batch_convolve_v2 = jax.vmap(convolve, in_axes=1, out_axes=1)

xst = jnp.transpose(xs)
wst = jnp.transpose(ws)

auto_batch_convolve_v2(xst, wst)

# %% L380 fragment raises
# A ```python block in the prose; `theta`, `value_fn`, ... are never defined (NameError).
def td_loss(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return (target - v_tm1) ** 2


td_update = jax.grad(td_loss)
delta_theta = td_update(theta, s_tm1, r_t, s_t)

# %% L391 fragment raises
# A ```python block in the prose, as above (NameError).
def td_loss_with_stop_gradient(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return (jax.lax.stop_gradient(target) - v_tm1) ** 2


td_update = jax.grad(td_loss_with_stop_gradient)
delta_theta = td_update(theta, s_tm1, r_t, s_t)

# %% L411
import numpy as np
np.random.seed(0)
np.random.rand()

# %% L424
from jax import random
key = random.PRNGKey(42)
print(key)

print(random.normal(key))
print(random.normal(key))

# %% L441
print("old key", key)
new_key, subkey = random.split(key)
del key  # 오래된 키는 지워버리며 나중에라도 사용하지 않습니다..
normal_sample = random.normal(subkey)
print(r"    \---SPLIT --> new key   ", new_key)
print(r"             \--> new subkey", subkey, "--> normal", normal_sample)

print(random.normal(subkey))
del subkey  # 서브키도 사용후에 제거해야 합니다.
key = new_key  # 만약에 한번 이 키를 다시 생성해야 한다면 new_key는 키로 사용됩니다.

print(random.normal(key))

# %% L468
import jax
import jax.numpy as jnp


example_trees = [
    [1, 'a', object()],
    (1, (2, 3), ()),
    [1, {'k1': 2, 'k2': (3, 4)}, 5],
    {'a': 2, 'b': (2, 3)},
    jnp.array([1, 2, 3]),
]

for pytree in example_trees:
  leaves = jax.tree_util.tree_leaves(pytree)
  print(f"{repr(pytree):<45} has {len(leaves)} leaves: {leaves}")

# %% L495
list_of_lists = [
    [1, 2, 3],
    [1, 2],
    [1, 2, 3, 4]
]


jax.tree_util.tree_map(lambda x: x*2, list_of_lists)

# %% L512
import jax.numpy as jnp
from jax import random

def init_mlp_params(layer_widths, key):
    params = []
    for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
        params.append(
            dict(weights=random.normal(key, shape=(n_in, n_out)) * jnp.sqrt(2/n_in), biases=jnp.ones(shape=(n_out,))
            )
       )
    return params


key = random.PRNGKey(42)
params = init_mlp_params([1, 128, 128, 1], key)

print(params)

jax.tree_util.tree_map(lambda x: x.shape, params)

# %% L557
import numpy as np

x = np.arange(5)
w = np.array([2., 3., 4.])

def convolve(x, w):
  output = []
  for i in range(1, len(x)-1):
    output.append(jnp.dot(x[i-1:i+2], w))
  return jnp.array(output)

convolve(x, w)

# %% L575 device
n_devices = jax.local_device_count()

print(n_devices)

xs = np.arange(5 * n_devices).reshape(-1, 5)
ws = np.stack([w] * n_devices)

xs

# %% L590
jax.vmap(convolve)(xs, ws)

# %% L595 timing
import time
start = time.time()
jax.vmap(convolve)(xs, ws)
print(f"vmap : {time.time()-start:.4f} sec")
start = time.time()
jax.pmap(convolve)(xs, ws)
print(f"pmap : {time.time()-start:.4f} sec")
