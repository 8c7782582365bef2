# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 03-tracer-bool
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 3 · `TracerBoolConversionError` 고치기 / Assignment 3 · Fixing a `TracerBoolConversionError`
#
# **한국어.** `jit`은 함수를 구체적인 값이 아니라 **트레이서**(모양과 dtype만 아는 대리값)로 한 번
# 실행해서 jaxpr를 기록합니다. 그래서 파이썬 `if x > 0:`처럼 값 하나가 필요한 코드는
# `TracerBoolConversionError`를 냅니다. 고치는 방법은 세 가지입니다: `jnp.where`(두 값 중 고르기),
# `lax.cond`(두 함수 중 하나 실행), 그리고 자주 바뀌지 않는 설정값이면 **정적 인자**(`static_argnums`).
#
# **English.** `jit` runs your function once on *tracers* (stand-ins that know only shape and
# dtype) to record its jaxpr, so Python code that needs one concrete value, such as
# `if x > 0:`, raises `TracerBoolConversionError`. Three fixes: `jnp.where` (choose between
# two values), `lax.cond` (run one of two functions), and, for a setting that rarely
# changes, a **static argument** (`static_argnums`).

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en
from edujax import lax

def clipped_relu_python(x):
    """Works on one Python float, but not under jit, and not on arrays."""
    if x > 1.0:
        return 1.0
    elif x > 0.0:
        return x
    else:
        return 0.0

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** `clipped_relu(x)`를 `jnp.where`로 다시 작성하세요. 배열에 원소별로 동작하고 `jax.jit`으로
# 감쌀 수 있어야 합니다. (`jnp.clip`도 괜찮습니다.) /
# Rewrite it as `clipped_relu(x)` with `jnp.where`: elementwise on arrays, and usable under
# `jax.jit`. (`jnp.clip` is fine too.)

# %%
def clipped_relu(x):
    # BEGIN SOLUTION
    return jnp.where(x > 1.0, 1.0, jnp.where(x > 0.0, x, 0.0))
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_jittable
assert_jittable(clipped_relu, jnp.array([-1.0, 0.5, 2.0]))

# %%
# HIDDEN
from edujax.grading import assert_close, call, jitted, seeded_array
_x = seeded_array(31, (7,), low=-2.0, high=2.0)
assert_close(call(jitted(clipped_relu), _x, name="jax.jit(clipped_relu)"), jnp.minimum(jnp.maximum(_x, 0.0), 1.0), name="clipped_relu on hidden data")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2

# %% [markdown]
# **Q2.** `sin_or_cos(x)`: 배열 `x`의 합이 양수면 `jnp.sin(x)`, 아니면 `jnp.cos(x)`를 돌려줍니다.
# 계산하지 않을 쪽은 아예 실행하지 않도록 `lax.cond`를 쓰세요. /
# `sin_or_cos(x)`: `jnp.sin(x)` when the sum of the array `x` is positive, else
# `jnp.cos(x)`. Use `lax.cond`, so that only the chosen branch runs.

# %%
def sin_or_cos(x):
    # BEGIN SOLUTION
    return lax.cond(jnp.sum(x) > 0, jnp.sin, jnp.cos, x)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_uses
assert_uses(sin_or_cos, "cond", jnp.ones(3), advice="lax.cond(pred, true_fn, false_fn, x) traces to one.")

# %%
# HIDDEN
from edujax.grading import assert_close, call, jitted, seeded_array
_x = seeded_array(32, (5,))
_f = jitted(sin_or_cos)
assert_close(call(_f, _x + 2.0, name="jax.jit(sin_or_cos)"), jnp.sin(_x + 2.0), name="sin_or_cos(positive sum)")
assert_close(call(_f, _x - 2.0, name="jax.jit(sin_or_cos)"), jnp.cos(_x - 2.0), name="sin_or_cos(negative sum)")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** 아래 `power(x, n)`은 `for` 루프 횟수로 `n`을 씁니다. `n`은 거의 바뀌지 않는 설정값이므로
# 정적 인자로 만들어 `power_jit = jax.jit(power, ...)`를 정의하세요. /
# `power(x, n)` below loops `n` times. `n` is a setting that rarely changes: make it a static
# argument and define `power_jit = jax.jit(power, ...)`.

# %%
def power(x, n):
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result

# %%
# BEGIN SOLUTION
power_jit = jax.jit(power, static_argnums=1)
# END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
assert_close(call(power_jit, jnp.array([2.0, 3.0]), 3, name="power_jit"), jnp.array([8.0, 27.0]), name="power_jit(x, 3)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_array
_x = seeded_array(33, (4,))
assert_close(call(power_jit, _x, 5, name="power_jit"), _x ** 5, rtol=1e-4, name="power_jit(x, 5)")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
