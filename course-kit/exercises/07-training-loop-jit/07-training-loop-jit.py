# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 07-training-loop-jit
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 7 · `jit` 아래의 학습 루프 / Assignment 7 · A training loop under `jit`
#
# **한국어.** 학습 루프의 모양은 늘 같습니다: 손실의 기울기를 구하고, 파라미터를 갱신하고, 반복합니다.
# 한 걸음(`update`)을 `jax.jit`으로 감싸면 첫 호출에서 한 번 컴파일되고, 이후 같은 모양의 입력으로는
# 컴파일된 프로그램을 다시 씁니다. 루프 자체는 평범한 파이썬 `for`입니다.
#
# **English.** Every training loop has the same shape: take the gradient of the loss, update
# the parameters, repeat. Wrapping one step (`update`) in `jax.jit` compiles it on the first
# call; later calls with inputs of the same shapes reuse the compiled program. The loop
# itself stays an ordinary Python `for`.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en
from edujax import random

true_w, true_b = jnp.array([2.0, -1.0]), 0.5
x = random.normal(random.PRNGKey(7), (32, 2))
y = x @ true_w + true_b

def loss(params, x, y):
    w, b = params
    return jnp.mean((x @ w + b - y) ** 2)

# jnp.zeros(()) rather than jnp.array(0.0): a Python scalar gives a *weakly typed* array, and
# update's result is strongly typed, so the second call would see a new signature and
# compile again (try it: update.explain_misses() says so).
params0 = (jnp.zeros(2), jnp.zeros(()))
LR = 0.1

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 3

# %% [markdown]
# **Q1.** `update(params, x, y)`: 학습률 `LR`로 경사 하강 한 걸음을 하는 **jit된** 함수.
# `params`는 `(w, b)` 튜플입니다. `@jax.jit`을 쓰세요. /
# A **jitted** function making one gradient-descent step with learning rate `LR`;
# `params` is the tuple `(w, b)`. Use `@jax.jit`.

# %%
# BEGIN SOLUTION
@jax.jit
def update(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)
# END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import GradingError
if not hasattr(update, "cache_info"):
    raise GradingError("update is not jitted: decorate it with @jax.jit")

# %%
from edujax.grading import assert_tree_close, call
_g = jax.grad(loss)(params0, x, y)
assert_tree_close(call(update, params0, x, y, name="update"), (params0[0] - LR * _g[0], params0[1] - LR * _g[1]), rtol=1e-4, name="update(params0, x, y)")

# %%
# HIDDEN
from edujax.grading import assert_tree_close, call, seeded_arrays
_w, _b, _x = seeded_arrays(71, (2,), (), (32, 2))
_g = jax.grad(loss)((_w, _b), _x, y)
assert_tree_close(call(update, (_w, _b), _x, y, name="update"), (_w - LR * _g[0], _b - LR * _g[1]), rtol=1e-4, name="update on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 3

# %% [markdown]
# **Q2.** `train(params, x, y, steps)`: `update`를 `steps`번 부르고 `(params, losses)`를 돌려줍니다.
# `losses`는 각 걸음 **전**의 손실을 담은 길이 `steps`의 리스트입니다. /
# Call `update` `steps` times and return `(params, losses)`, where `losses` is a list of
# the `steps` losses measured *before* each step.

# %%
def train(params, x, y, steps):
    # BEGIN SOLUTION
    losses = []
    for _ in range(steps):
        losses.append(loss(params, x, y))
        params = update(params, x, y)
    return params, losses
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import GradingError, call
_params, _losses = call(train, params0, x, y, 5, name="train")
if len(_losses) != 5 or not float(_losses[-1]) < float(_losses[0]):
    raise GradingError(f"after 5 steps there should be 5 falling losses, got {[round(float(l), 4) for l in _losses]}")

# %%
# HIDDEN
from edujax.grading import assert_close, assert_cache_misses, call
_params, _losses = call(train, params0, x, y, 100, name="train", seconds=30)
assert_close(_params[0], true_w, atol=1e-2, rtol=0.0, name="w after 100 steps")
assert_cache_misses(update, at_most=1, name="update")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
