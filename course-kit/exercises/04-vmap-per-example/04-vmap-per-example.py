# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 04-vmap-per-example
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 4 · `vmap`으로 예제별 기울기 / Assignment 4 · Per-example gradients with `vmap`
#
# **한국어.** `jax.grad`는 **평균** 손실의 기울기를 줍니다. 예제 하나하나의 기울기(예: 기울기 클리핑,
# 차분 프라이버시)가 필요하면, 예제 **하나**에 대한 손실을 쓰고 `jax.vmap`으로 배치 차원을 붙입니다.
# `in_axes=(None, 0, 0)`은 "`w`는 모두가 공유하고, `x`와 `y`는 0번 축을 따라 나눈다"는 뜻입니다.
#
# **English.** `jax.grad` gives the gradient of the *mean* loss. For one gradient per
# example (for clipping, or differential privacy), write the loss of *one* example and let
# `jax.vmap` add the batch axis. `in_axes=(None, 0, 0)` says: `w` is shared by all examples,
# `x` and `y` are split along axis 0.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en

def example_loss(w, xi, yi):
    """The squared error of ONE example: xi has shape (d,), yi is a scalar."""
    return (xi @ w - yi) ** 2

X = jnp.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])
Y = jnp.array([1.0, 0.0, 2.0])
w = jnp.array([0.5, 0.5])

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** `per_example_losses(w, X, Y)`: `example_loss`를 `vmap`해서 모양 `(n,)`의 손실을
# 돌려주세요. / Return the `(n,)` losses by `vmap`-ing `example_loss`.

# %%
def per_example_losses(w, X, Y):
    # BEGIN SOLUTION
    return jax.vmap(example_loss, in_axes=(None, 0, 0))(w, X, Y)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
assert_close(call(per_example_losses, w, X, Y, name="per_example_losses"), (X @ w - Y) ** 2, name="per_example_losses(w, X, Y)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_X, _Y, _w = seeded_arrays(41, (6, 4), (6,), (4,))
assert_close(call(per_example_losses, _w, _X, _Y, name="per_example_losses"), (_X @ _w - _Y) ** 2, rtol=1e-4, name="per_example_losses on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2

# %% [markdown]
# **Q2.** `per_example_grads(w, X, Y)`: 예제마다 `w`에 대한 기울기, 모양 `(n, d)`. /
# One gradient with respect to `w` per example: shape `(n, d)`.

# %%
def per_example_grads(w, X, Y):
    # BEGIN SOLUTION
    return jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(w, X, Y)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_type, call
assert_type(call(per_example_grads, w, X, Y, name="per_example_grads"), X, name="per_example_grads(w, X, Y)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_X, _Y, _w = seeded_arrays(42, (5, 3), (5,), (3,))
assert_close(call(per_example_grads, _w, _X, _Y, name="per_example_grads"), 2 * (_X @ _w - _Y)[:, None] * _X, rtol=1e-4, name="per_example_grads on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** `clipped_mean_grad(w, X, Y, max_norm)`: 예제별 기울기 `g`를 각각 길이가 `max_norm` 이하가
# 되도록 `g * min(1, max_norm / |g|)`로 자른 뒤 평균을 냅니다 (DP-SGD의 핵심 단계). /
# Clip each per-example gradient `g` to norm at most `max_norm`, as
# `g * min(1, max_norm / |g|)`, then average them (the heart of DP-SGD).

# %%
def clipped_mean_grad(w, X, Y, max_norm):
    # BEGIN SOLUTION
    g = per_example_grads(w, X, Y)
    norms = jnp.sqrt(jnp.sum(g ** 2, axis=1, keepdims=True))
    return jnp.mean(g * jnp.minimum(1.0, max_norm / norms), axis=0)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_type, call
assert_type(call(clipped_mean_grad, w, X, Y, 1.0, name="clipped_mean_grad"), w, name="clipped_mean_grad(w, X, Y, 1.0)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_X, _Y, _w = seeded_arrays(43, (8, 3), (8,), (3,))
_g = 2 * (_X @ _w - _Y)[:, None] * _X
_n = jnp.sqrt(jnp.sum(_g ** 2, axis=1, keepdims=True))
assert_close(call(clipped_mean_grad, _w, _X, _Y, 0.5, name="clipped_mean_grad"), jnp.mean(_g * jnp.minimum(1.0, 0.5 / _n), axis=0), rtol=1e-4, name="clipped_mean_grad on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
