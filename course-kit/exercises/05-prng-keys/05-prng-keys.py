# Master notebook (jupytext percent format); see course-kit/exercises/README.md.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 05-prng-keys
# init_cell: true
# check_all_cell: false
# export_cell: false
# generate: true

# %% [markdown]
# # 과제 5 · PRNG 키 나누기 / Assignment 5 · Splitting PRNG keys
#
# **한국어.** JAX의 난수에는 숨은 전역 상태가 없습니다. 같은 키는 언제나 같은 "난수"를 줍니다. 그래서
# 키 하나를 두 번 쓰면 두 결과가 서로 얽힙니다(대개 똑같습니다). 난수가 필요할 때마다
# `key, subkey = random.split(key)`로 새 키를 만들고, 각 키는 **한 번만** 쓰세요. 채점기는 키를
# 두 번 쓴 곳을 찾아 그 줄을 알려 줍니다.
#
# **English.** JAX's random numbers have no hidden global state: the same key always gives
# the same "random" numbers, so using one key twice gives correlated (usually identical)
# draws. Whenever you need randomness, make a fresh key with
# `key, subkey = random.split(key)` and use each key **once**. The grader finds a key used
# twice and names the lines.

# %%
import edujax as jax
import edujax.numpy as jnp
import edujax.grading.check_view  # grader.check(...) shows short verdicts, ko/en
from edujax import random

key = random.PRNGKey(0)

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Q1.** `two_normals(key)`: 서로 **독립인** 표준정규 표본 두 개(각각 모양 `(3,)`)를 `(a, b)`로
# 돌려주세요. / Return two **independent** standard normal samples `(a, b)`, each of shape `(3,)`.

# %%
def two_normals(key):
    # BEGIN SOLUTION
    key_a, key_b = random.split(key)
    return random.normal(key_a, (3,)), random.normal(key_b, (3,))
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_no_key_reuse
assert_no_key_reuse(two_normals, key)

# %%
# HIDDEN
from edujax.grading import call, seeded_key
_a, _b = call(two_normals, seeded_key(51), name="two_normals")
assert _a.shape == (3,) and _b.shape == (3,), f"a and b should have shape (3,), not {_a.shape} and {_b.shape}"
assert not bool(jnp.allclose(_a, _b)), "a and b are equal: they come from the same key"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2

# %% [markdown]
# **Q2.** `dropout(key, x, rate)`: 각 원소를 확률 `rate`로 0으로 만들고, 남은 원소는 `1 - rate`로
# 나눕니다. 마스크는 정확히 `random.bernoulli(key, 1 - rate, x.shape)`로 만드세요
# (참이면 유지). / Zero each element with probability `rate` and divide the kept ones by
# `1 - rate`. Make the mask exactly as `random.bernoulli(key, 1 - rate, x.shape)` (True = keep).

# %%
def dropout(key, x, rate):
    # BEGIN SOLUTION
    keep = random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0.0)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_close, call
_x = jnp.arange(1.0, 9.0)
assert_close(call(dropout, key, _x, 0.5, name="dropout"), jnp.where(random.bernoulli(key, 0.5, (8,)), _x / 0.5, 0.0), name="dropout(key, x, 0.5)")

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_array, seeded_key
_x, _k = seeded_array(52, (4, 5)), seeded_key(52)
assert_close(call(dropout, _k, _x, 0.25, name="dropout"), jnp.where(random.bernoulli(_k, 0.75, (4, 5)), _x / 0.75, 0.0), name="dropout(key, x, 0.25)")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** `noise_steps(key, n)`: `n`번 반복하며, 매번 `key, subkey = random.split(key)`로 키를 나누고
# `random.normal(subkey, (2,))`를 뽑습니다. 결과는 모양 `(n, 2)`로 쌓아 돌려주세요. /
# Loop `n` times; each time split with `key, subkey = random.split(key)` and draw
# `random.normal(subkey, (2,))`. Return the draws stacked, shape `(n, 2)`.

# %%
def noise_steps(key, n):
    # BEGIN SOLUTION
    draws = []
    for _ in range(n):
        key, subkey = random.split(key)
        draws.append(random.normal(subkey, (2,)))
    return jnp.stack(draws)
    # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from edujax.grading import assert_no_key_reuse
assert_no_key_reuse(noise_steps, key, 3)

# %%
# HIDDEN
from edujax.grading import assert_close, call, seeded_key
def _reference(key, n):
    out = []
    for _ in range(n):
        key, sub = random.split(key)
        out.append(random.normal(sub, (2,)))
    return jnp.stack(out)
assert_close(call(noise_steps, seeded_key(53), 4, name="noise_steps"), _reference(seeded_key(53), 4), name="noise_steps(key, 4)")

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION
