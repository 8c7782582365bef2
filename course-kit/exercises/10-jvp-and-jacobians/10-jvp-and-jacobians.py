# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 10-jvp-and-jacobians
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 10 · `jvp`, 야코비안, 헤시안-벡터 곱 / Assignment 10 · `jvp`, Jacobians and Hessian-vector products
#
# **한국어.** `jax.jvp(f, (x,), (v,))`는 `f(x)`와 방향 `v`로의 방향 미분(야코비안 × `v`)을 한 번에
# 계산합니다(전진 모드). `jax.jacfwd`/`jax.jacrev`는 야코비안 전체를, `jax.grad`를 `jvp`로 한 번 더
# 미분하면 헤시안을 만들지 않고도 헤시안-벡터 곱을 얻습니다.
#
# **English.** `jax.jvp(f, (x,), (v,))` computes `f(x)` and the directional derivative
# along `v` (the Jacobian times `v`) in one forward pass. `jax.jacfwd`/`jax.jacrev` build
# the whole Jacobian, and a `jvp` of `jax.grad` gives a Hessian-vector product without
# ever building the Hessian.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en

def g(x):
    return jnp.array([x[0] * x[1], jnp.sin(x[1]), x[0] ** 2 + x[2]])

def energy(x):
    return jnp.sum(x ** 4) / 4 + x[0] * x[1]

x0 = jnp.array([1.0, 2.0, 3.0])
v0 = jnp.array([1.0, 0.0, -1.0])

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** `directional_derivative(f, x, v)`: `jax.jvp`로 `J_f(x) @ v`를 돌려주세요. /
# Return `J_f(x) @ v` using `jax.jvp`.

# %%
def directional_derivative(f, x, v):
    # BEGIN SOLUTION
    return jax.jvp(f, (x,), (v,))[1]
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
assert_close(call(directional_derivative, g, x0, v0, name="directional_derivative"), jnp.array([2.0, 0.0, 1.0]), name="directional_derivative(g, x0, v0)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_x, _v = seeded_arrays(101, (3,), (3,))
_J = jnp.array([[_x[1], _x[0], 0.0], [0.0, jnp.cos(_x[1]), 0.0], [2 * _x[0], 0.0, 1.0]])
assert_close(call(directional_derivative, g, _x, _v, name="directional_derivative"), _J @ _v, rtol=1e-4, name="directional_derivative on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2

# %% [markdown]
# **Q2.** `jacobian(f, x)`: 출력 `m`개, 입력 `n`개일 때 모양 `(m, n)`의 야코비안. /
# The Jacobian, of shape `(m, n)` for `m` outputs and `n` inputs.

# %%
def jacobian(f, x):
    # BEGIN SOLUTION
    return jax.jacfwd(f)(x)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_type, call
assert_type(call(jacobian, g, x0, name="jacobian"), jnp.zeros((3, 3)), name="jacobian(g, x0)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, given, seeded_array
_x = seeded_array(102, (3,))
_J = jnp.array([[_x[1], _x[0], 0.0], [0.0, jnp.cos(_x[1]), 0.0], [2 * _x[0], 0.0, 1.0]])
assert_close(call(jacobian, g, _x, name="jacobian"), _J, rtol=1e-4, name="jacobian on hidden data")
_h = given("lambda x: jnp.array([x[0] + 2 * x[1]])")
assert_close(call(jacobian, _h, jnp.ones(2), name="jacobian"), jnp.array([[1.0, 2.0]]), name="jacobian of a 1x2 map")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** `hvp(f, x, v)`: 스칼라 함수 `f`의 헤시안-벡터 곱 `H_f(x) @ v`를 `jax.jvp`와 `jax.grad`로
# (헤시안을 만들지 않고) 구하세요. / The Hessian-vector product `H_f(x) @ v` of a scalar
# `f`, with `jax.jvp` of `jax.grad` (without building the Hessian).

# %%
def hvp(f, x, v):
    # BEGIN SOLUTION
    return jax.jvp(jax.grad(f), (x,), (v,))[1]
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
assert_close(call(hvp, energy, x0, v0, name="hvp"), jax.hessian(energy)(x0) @ v0, rtol=1e-4, name="hvp(energy, x0, v0)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_x, _v = seeded_arrays(103, (3,), (3,))
_H = jnp.diag(3 * _x ** 2) + jnp.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
assert_close(call(hvp, energy, _x, _v, name="hvp"), _H @ _v, rtol=1e-4, name="hvp on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
