# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 08-jit-cache-misses
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 8 · 루프에서 캐시를 놓치는 `jit` 고치기 / Assignment 8 · A jit that misses its cache in a loop, fixed
#
# **한국어.** jit된 함수는 인자의 **시그니처**(모양, dtype, weak type, 정적 인자의 값)마다 한 번씩
# 컴파일합니다. 루프가 매번 시그니처를 바꾸면(점점 커지는 배열, 매번 다른 정적 인자) 매 호출이 캐시를
# 놓치고 다시 컴파일합니다. edujax는 놓친 이유를 기록합니다: `f.explain_misses()`.
#
# **English.** A jitted function compiles once per **signature** of its arguments (shapes,
# dtypes, weak types, values of static arguments). A loop that changes the signature every
# time (a growing array, a different static argument) misses the cache on every call and
# compiles again. edujax records why: `f.explain_misses()`.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en
from functools import partial

# The slow version: the scale is static, so each new value compiles a new program.
@partial(jax.jit, static_argnums=1)
def scale_static(x, s):
    return x * s

x = jnp.arange(4.0)
for i in range(5):
    scale_static(x, i / 10)
print(scale_static.cache_info().misses, "compilations")
print(scale_static.explain_misses()[1])

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** 같은 계산을 하되 `s`가 바뀌어도 다시 컴파일하지 않는 jit 함수 `scale(x, s)`를 정의하세요. /
# Define a jitted `scale(x, s)` computing the same thing without compiling again when `s`
# changes.

# %%
# BEGIN SOLUTION
@jax.jit
def scale(x, s):
    return x * s
# END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_cache_misses, assert_close, call
for _s in (0.1, 0.2, 0.3):
    assert_close(call(scale, x, jnp.float32(_s), name="scale"), x * _s, name="scale(x, s)")
assert_cache_misses(scale, at_most=1, name="scale")

# %%
# HIDDEN
from edujax.grading import assert_cache_misses, assert_close, call
for _s in (0.5, 1.5, 2.5, 3.5):
    assert_close(call(scale, x, jnp.float32(_s), name="scale"), x * _s, name="scale(x, s)")
assert_cache_misses(scale, at_most=1, name="scale")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 3

# %% [markdown]
# **Q2.** `prefix_means(xs)`는 `i = 1..n`에 대해 `mean(xs[:i])`를 담은 배열을 돌려줍니다. 아래처럼
# `xs[:i]`를 jit 함수에 넘기면 모양이 매번 달라 매번 컴파일됩니다. **모양이 변하지 않도록**
# (`xs` 전체와 마스크 `jnp.arange(n) < i`를 넘기는 식으로) jit 함수 `masked_mean(xs, i)`를
# 작성하고, `prefix_means`가 그것을 쓰게 하세요. /
# `prefix_means(xs)` returns the array of `mean(xs[:i])` for `i = 1..n`. Passing `xs[:i]` to
# a jitted function changes its shape every time, so every call compiles. Write a jitted
# `masked_mean(xs, i)` whose argument shapes **do not change** (pass all of `xs` and build
# the mask `jnp.arange(n) < i` inside), and make `prefix_means` use it.
#
# ```python
# slow_mean = jax.jit(jnp.mean)
# def prefix_means_slow(xs):
#     return jnp.stack([slow_mean(xs[:i]) for i in range(1, len(xs) + 1)])   # n compilations
# ```

# %%
# BEGIN SOLUTION
@jax.jit
def masked_mean(xs, i):
    mask = jnp.arange(xs.shape[0]) < i
    return jnp.sum(jnp.where(mask, xs, 0.0)) / i
# END SOLUTION

def prefix_means(xs):
    # BEGIN SOLUTION
    return jnp.stack([masked_mean(xs, jnp.int32(i)) for i in range(1, len(xs) + 1)])
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
_xs = jnp.array([1.0, 3.0, 5.0, 7.0])
assert_close(call(prefix_means, _xs, name="prefix_means"), jnp.array([1.0, 2.0, 3.0, 4.0]), name="prefix_means([1, 3, 5, 7])")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_array
_xs = seeded_array(81, (9,))
assert_close(call(prefix_means, _xs, name="prefix_means"), jnp.cumsum(_xs) / jnp.arange(1.0, 10.0), rtol=1e-4, name="prefix_means on hidden data")

# %%
# HIDDEN
from edujax.grading import assert_cache_misses, call, seeded_array
_ = call(prefix_means, seeded_array(82, (9,)), name="prefix_means")
assert_cache_misses(masked_mean, at_most=2, name="masked_mean")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
