# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 02-value-and-grad-aux
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 2 · `value_and_grad`와 `has_aux` / Assignment 2 · `value_and_grad` with `has_aux`
#
# **한국어.** 학습 중에는 손실 값과 기울기가 **둘 다** 필요합니다. 게다가 예측값 같은 "덤"도 함께
# 돌려받고 싶을 때가 많습니다. `jax.value_and_grad(f, has_aux=True)`는 `f`가 `(손실, 덤)`을
# 돌려줄 때 손실만 미분하고, `((손실, 덤), 기울기)`를 돌려줍니다.
#
# **English.** Training needs the loss *and* its gradient, and often some extra output
# too, such as the predictions. `jax.value_and_grad(f, has_aux=True)` differentiates only
# the first output of an `f` that returns `(loss, aux)`, and gives back
# `((loss, aux), grads)`.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en

x = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
y = jnp.array([1.0, -1.0, 0.5, 2.0])
w = jnp.array([0.3, 0.7])

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** `loss_and_preds(w, x, y)`가 `(손실, 예측)`을 돌려주도록 작성하세요. 예측은 `x @ w`,
# 손실은 평균 제곱 오차 `mean((x @ w - y) ** 2)`입니다. /
# Write `loss_and_preds(w, x, y)` returning `(loss, preds)`: the predictions are `x @ w`,
# the loss is the mean squared error `mean((x @ w - y) ** 2)`.

# %%
def loss_and_preds(w, x, y):
    # BEGIN SOLUTION
    preds = x @ w
    return jnp.mean((preds - y) ** 2), preds
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_tree_close, call
assert_tree_close(call(loss_and_preds, w, x, y, name="loss_and_preds"), (jnp.mean((x @ w - y) ** 2), x @ w), name="loss_and_preds(w, x, y)")

# %%
# HIDDEN
from edujax.grading import assert_tree_close, call, seeded_arrays
_x, _y, _w = seeded_arrays(21, (6, 3), (6,), (3,))
assert_tree_close(call(loss_and_preds, _w, _x, _y, name="loss_and_preds"), (jnp.mean((_x @ _w - _y) ** 2), _x @ _w), name="loss_and_preds on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 3

# %% [markdown]
# **Q2.** `jax.value_and_grad`와 `has_aux=True`로 `step_info(w, x, y)`를 작성하세요. 결과는
# `((loss, preds), grads)`이고 `grads`는 `w`와 같은 모양입니다. /
# Write `step_info(w, x, y)` with `jax.value_and_grad` and `has_aux=True`. It returns
# `((loss, preds), grads)`, where `grads` has the shape of `w`.

# %%
def step_info(w, x, y):
    # BEGIN SOLUTION
    return jax.value_and_grad(loss_and_preds, has_aux=True)(w, x, y)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_tree_close, call
_expected = ((jnp.mean((x @ w - y) ** 2), x @ w), 2 * x.T @ (x @ w - y) / 4)
assert_tree_close(call(step_info, w, x, y, name="step_info"), _expected, rtol=1e-4, name="step_info(w, x, y)")

# %%
# HIDDEN
from edujax.grading import assert_tree_close, call, seeded_arrays
_x, _y, _w = seeded_arrays(22, (5, 2), (5,), (2,))
_expected = ((jnp.mean((_x @ _w - _y) ** 2), _x @ _w), 2 * _x.T @ (_x @ _w - _y) / 5)
assert_tree_close(call(step_info, _w, _x, _y, name="step_info"), _expected, rtol=1e-4, name="step_info on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 1

# %% [markdown]
# **Q3.** `step_info`로 한 번의 경사 하강을 하는 `sgd_with_loss(w, x, y, lr)`를 작성하세요.
# `(new_w, loss)`를 돌려주며 `new_w = w - lr * grads`, `loss`는 **갱신 전** 손실입니다. /
# Write `sgd_with_loss(w, x, y, lr)`: one gradient-descent step using `step_info`. It
# returns `(new_w, loss)` with `new_w = w - lr * grads` and `loss` the loss *before* the step.

# %%
def sgd_with_loss(w, x, y, lr):
    # BEGIN SOLUTION
    (loss, _), grads = step_info(w, x, y)
    return w - lr * grads, loss
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_type, call
assert_type(call(sgd_with_loss, w, x, y, 0.1, name="sgd_with_loss")[0], w, name="new_w")

# %%
# HIDDEN
from edujax.grading import assert_tree_close, call, seeded_arrays
_x, _y, _w = seeded_arrays(23, (5, 2), (5,), (2,))
_g = 2 * _x.T @ (_x @ _w - _y) / 5
assert_tree_close(call(sgd_with_loss, _w, _x, _y, 0.1, name="sgd_with_loss"), (_w - 0.1 * _g, jnp.mean((_x @ _w - _y) ** 2)), rtol=1e-4, name="sgd_with_loss on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
