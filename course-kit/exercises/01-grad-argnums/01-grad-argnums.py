# Master notebook (jupytext percent format). `python -m edujax.grading assign` turns it into
# the student notebook and the autograder. Solutions sit between BEGIN/END SOLUTION;
# test cells marked "# HIDDEN" go only into the autograder.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 01-grad-argnums
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 1 · 손실 함수의 기울기와 `argnums` / Assignment 1 · The gradient of a loss, and `argnums`
#
# **한국어.** 선형 회귀의 손실 함수 `loss(w, x, y)`를 만들고 `jax.grad`로 기울기를 구합니다.
# `jax.grad(f)`는 기본적으로 **첫 번째 인자**에 대한 기울기를 돌려줍니다. 다른 인자에 대한 기울기가
# 필요하면 `argnums`를 씁니다.
#
# **English.** You write the loss of a linear regression, `loss(w, x, y)`, and take its
# gradient with `jax.grad`. By default `jax.grad(f)` differentiates with respect to the
# **first** argument; `argnums` picks others.
#
# 각 문제 아래의 `grader.check(...)` 셀을 실행하면 공개 테스트로 답을 확인할 수 있습니다.
# 채점에는 보이지 않는 테스트(hidden tests)도 쓰입니다. /
# Run the `grader.check(...)` cell under each question to check your answer against the
# public tests. Grading also uses hidden tests.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en

x = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = jnp.array([1.0, 2.0, 3.0])
w = jnp.array([0.5, -0.25])

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** 평균 제곱 오차 `loss(w, x, y) = mean((x @ w - y) ** 2)`를 구현하세요. 결과는 스칼라여야 합니다. /
# Implement the mean squared error `loss(w, x, y) = mean((x @ w - y) ** 2)`. It must return
# a scalar.

# %%
def loss(w, x, y):
    # BEGIN SOLUTION
    return jnp.mean((x @ w - y) ** 2)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
assert_close(call(loss, w, x, y, name="loss"), jnp.float32(2.4166667), name="loss(w, x, y)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_x, _y, _w = seeded_arrays(1, (5, 3), (5,), (3,))
assert_close(call(loss, _w, _x, _y, name="loss"), jnp.mean((_x @ _w - _y) ** 2), name="loss on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2

# %% [markdown]
# **Q2.** `loss`의 **`w`에 대한** 기울기를 돌려주는 `grad_w(w, x, y)`를 `jax.grad`로 작성하세요. /
# Write `grad_w(w, x, y)`, the gradient of `loss` **with respect to `w`**, using `jax.grad`.

# %%
def grad_w(w, x, y):
    # BEGIN SOLUTION
    return jax.grad(loss)(w, x, y)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
assert_close(call(grad_w, w, x, y, name="grad_w"), jnp.array([-10.333334, -13.333334]), name="grad_w(w, x, y)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_x, _y, _w = seeded_arrays(2, (4, 3), (4,), (3,))
assert_close(call(grad_w, _w, _x, _y, name="grad_w"), 2 * _x.T @ (_x @ _w - _y) / 4, rtol=1e-4, name="grad_w on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** 이번에는 입력 `x`에 대한 기울기가 필요합니다 (어떤 입력이 손실에 얼마나 영향을 주는지).
# `argnums`를 써서 `grad_x(w, x, y)`를 작성하세요. 결과의 모양은 `x`와 같습니다. /
# Now take the gradient with respect to the input `x` (how much each input moves the
# loss). Use `argnums` to write `grad_x(w, x, y)`; its shape is the shape of `x`.

# %%
def grad_x(w, x, y):
    # BEGIN SOLUTION
    return jax.grad(loss, argnums=1)(w, x, y)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_type, call
assert_type(call(grad_x, w, x, y, name="grad_x"), x, name="grad_x(w, x, y)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_arrays
_x, _y, _w = seeded_arrays(3, (4, 3), (4,), (3,))
assert_close(call(grad_x, _w, _x, _y, name="grad_x"), 2 * jnp.outer(_x @ _w - _y, _w) / 4, rtol=1e-4, name="grad_x on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
