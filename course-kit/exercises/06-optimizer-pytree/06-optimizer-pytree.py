# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 06-optimizer-pytree
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 6 · 파라미터 pytree 위의 옵티마이저 / Assignment 6 · An optimizer step over a pytree of parameters
#
# **한국어.** 실제 모델의 파라미터는 배열 하나가 아니라 딕셔너리, 리스트, 튜플이 섞인 **pytree**입니다.
# `jax.grad`는 파라미터와 **같은 구조**의 기울기 pytree를 돌려주고, `jax.tree_util.tree_map(f, a, b)`는
# 두 pytree의 잎(leaf)을 짝지어 `f`를 적용합니다. 그래서 옵티마이저는 몇 줄이면 됩니다.
#
# **English.** A real model's parameters are a **pytree** (dicts, lists, tuples of arrays),
# not one array. `jax.grad` returns gradients with the **same structure**, and
# `jax.tree_util.tree_map(f, a, b)` applies `f` to matching leaves of two pytrees, so an
# optimizer is a few lines.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en
from edujax.tree_util import tree_map

params = {"dense": {"w": jnp.array([[0.1, -0.2], [0.3, 0.4]]), "b": jnp.array([0.0, 0.1])},
          "scale": jnp.array(1.5)}

def model(params, x):
    h = jnp.tanh(x @ params["dense"]["w"] + params["dense"]["b"])
    return params["scale"] * jnp.sum(h, axis=-1)

def loss(params, x, y):
    return jnp.mean((model(params, x) - y) ** 2)

x = jnp.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 1.0]])
y = jnp.array([0.5, -0.5, 1.0])

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** `sgd_step(params, grads, lr)`: 모든 잎에서 `p - lr * g`. / Every leaf becomes `p - lr * g`.

# %%
def sgd_step(params, grads, lr):
    # BEGIN SOLUTION
    return tree_map(lambda p, g: p - lr * g, params, grads)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_tree_close, call
_g = tree_map(jnp.ones_like, params)
assert_tree_close(call(sgd_step, params, _g, 0.1, name="sgd_step"), tree_map(lambda p: p - 0.1, params), name="sgd_step(params, ones, 0.1)")

# %%
# HIDDEN
from edujax.grading import assert_tree_close, call
_g = jax.grad(loss)(params, x, y)
assert_tree_close(call(sgd_step, params, _g, 0.05, name="sgd_step"), tree_map(lambda p, g: p - 0.05 * g, params, _g), name="sgd_step(params, grads, 0.05)")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2

# %% [markdown]
# **Q2.** 모멘텀: `momentum_step(params, velocity, grads, lr, beta)`는 잎마다 `v = beta * v + g`,
# `p = p - lr * v`를 계산해 `(new_params, new_velocity)`를 돌려줍니다. /
# Momentum: for every leaf `v = beta * v + g`, then `p = p - lr * v`; return
# `(new_params, new_velocity)`.

# %%
def momentum_step(params, velocity, grads, lr, beta):
    # BEGIN SOLUTION
    velocity = tree_map(lambda v, g: beta * v + g, velocity, grads)
    params = tree_map(lambda p, v: p - lr * v, params, velocity)
    return params, velocity
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_tree_close, call
_zeros = tree_map(jnp.zeros_like, params)
_ones = tree_map(jnp.ones_like, params)
assert_tree_close(call(momentum_step, params, _zeros, _ones, 0.1, 0.9, name="momentum_step"), (tree_map(lambda p: p - 0.1, params), _ones), name="momentum_step from zero velocity")

# %%
# HIDDEN
from edujax.grading import assert_tree_close, call
_v = tree_map(lambda p: 0.5 * p, params)
_g = jax.grad(loss)(params, x, y)
_new_v = tree_map(lambda v, g: 0.9 * v + g, _v, _g)
assert_tree_close(call(momentum_step, params, _v, _g, 0.1, 0.9, name="momentum_step"), (tree_map(lambda p, v: p - 0.1 * v, params, _new_v), _new_v), name="momentum_step")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** `train_step(params, x, y, lr)`: `loss`의 기울기를 구해 `sgd_step`으로 한 걸음 갑니다. /
# Take the gradient of `loss` and make one `sgd_step`.

# %%
def train_step(params, x, y, lr):
    # BEGIN SOLUTION
    return sgd_step(params, jax.grad(loss)(params, x, y), lr)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import GradingError, call
_before = loss(params, x, y)
_after = loss(call(train_step, params, x, y, 0.1, name="train_step"), x, y)
if not _after < _before:
    raise GradingError(f"one step should lower the loss, but it went from {float(_before):.4f} to {float(_after):.4f}: is the sign of the update right?")

# %%
# HIDDEN
from edujax.grading import assert_tree_close, call
_g = jax.grad(loss)(params, x, y)
assert_tree_close(call(train_step, params, x, y, 0.2, name="train_step"), tree_map(lambda p, g: p - 0.2 * g, params, _g), name="train_step(params, x, y, 0.2)")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
