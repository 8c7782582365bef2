# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 09-reading-jaxprs
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 9 · jaxpr 읽고 쓰기 / Assignment 9 · Reading and writing jaxprs
#
# **한국어.** `jax.make_jaxpr(f)(*args)`는 `f`가 트레이싱된 프로그램, jaxpr를 보여줍니다. 한 줄이
# 방정식 하나(`변수:타입 = 프리미티브 입력들`)입니다. 이 과제에서는 jaxpr를 읽고, 주어진 jaxpr와
# **똑같은** 프로그램이 되는 함수를 씁니다. 채점기는 두 jaxpr를 방정식 단위로 비교해서 처음 달라지는
# 방정식을 알려 줍니다.
#
# **English.** `jax.make_jaxpr(f)(*args)` shows the program `f` traces to, its jaxpr: one
# equation per line (`var:type = primitive inputs`). Here you read jaxprs and write
# functions that trace to **exactly** a given one. The grader compares jaxprs equation by
# equation and names the first that differs.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** 다음 jaxpr로 트레이싱되는 `f(x, y)`를 쓰세요 (`x`, `y`는 `float32[3]`). /
# Write `f(x, y)` that traces to this jaxpr (`x`, `y` are `float32[3]`):
#
# ```
# { lambda ; a:f32[3] b:f32[3]. let
#     c:f32[3] = mul a b
#     d:f32[3] = sin c
#     e:f32[3] = add d a
#   in (e,) }
# ```

# %%
def f(x, y):
    # BEGIN SOLUTION
    return jnp.sin(x * y) + x
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_jittable
assert_jittable(f, jnp.ones(3), jnp.ones(3))

# %%
# HIDDEN
from edujax.grading import assert_same_jaxpr
assert_same_jaxpr(f, lambda x, y: jnp.sin(x * y) + x, jnp.ones(3), jnp.ones(3))

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2

# %% [markdown]
# **Q2.** `cube(x)`: jaxpr가 `integer_pow[y=3]` 방정식 **하나**뿐이어야 합니다 (`x * x * x`는
# `mul`이 두 개입니다). / Its jaxpr must be **one** `integer_pow[y=3]` equation
# (`x * x * x` is two `mul`s).

# %%
def cube(x):
    # BEGIN SOLUTION
    return x ** 3
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
assert_close(call(cube, jnp.array([1.0, 2.0]), name="cube"), jnp.array([1.0, 8.0]), name="cube([1, 2])")

# %%
# HIDDEN
from edujax.grading import assert_same_jaxpr
assert_same_jaxpr(cube, lambda x: x ** 3, jnp.ones(4))

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** `count_equations(fun, *args)`: `fun`이 `args`에서 트레이싱된 jaxpr의 (맨 바깥) 방정식
# 개수를 돌려주세요. 힌트: `jax.make_jaxpr(fun)(*args).jaxpr.eqns`. /
# Return the number of (top-level) equations in the jaxpr `fun` traces to on `args`.
# Hint: `jax.make_jaxpr(fun)(*args).jaxpr.eqns`.

# %%
def count_equations(fun, *args):
    # BEGIN SOLUTION
    return len(jax.make_jaxpr(fun)(*args).jaxpr.eqns)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import GradingError, call, given
_n = call(count_equations, given("lambda x: jnp.sin(x) * 2.0"), 1.0, name="count_equations")
if _n != 2:
    raise GradingError(f"sin(x) * 2.0 is 2 equations (sin, mul); count_equations said {_n!r}")

# %%
# HIDDEN
from edujax.grading import GradingError, call, given
_n = call(count_equations, given("jax.grad(lambda x: jnp.sin(x) * x)"), 1.0, name="count_equations")
_want = len(jax.make_jaxpr(jax.grad(lambda x: jnp.sin(x) * x))(1.0).jaxpr.eqns)
if _n != _want:
    raise GradingError(f"grad(sin(x) * x) traces to {_want} equations; count_equations said {_n!r}")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
