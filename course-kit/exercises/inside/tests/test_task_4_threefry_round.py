"""Task 4: a threefry round (edujax/prng.py, threefry2x32_ints).

threefry2x32 hashes a pair of 32-bit counters under a key with 20 rounds of add, rotate,
xor. The known-answer vectors below are from the algorithm's authors (Random123), and
JAX's own tests check the same ones.
"""
import numpy as np
import pytest

from edujax import prng, random

pytestmark = pytest.mark.task_4

KNOWN_ANSWERS = [  # (key0, key1, counter0, counter1) -> (out0, out1)
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize("inputs, outputs", KNOWN_ANSWERS)
def test_known_answers(inputs, outputs):
    assert prng.threefry2x32_ints(*inputs) == outputs


def test_the_python_int_version_agrees_with_the_numpy_version():
    rng = np.random.default_rng(0)
    words = rng.integers(0, 2**32, size=(4, 16), dtype=np.uint32)
    k0, k1, x0, x1 = words
    want = prng.threefry2x32_numpy(k0[:1], k1[:1], x0, x1)
    got = [prng.threefry2x32_ints(int(k0[0]), int(k1[0]), int(a), int(b)) for a, b in zip(x0, x1)]
    np.testing.assert_array_equal(np.array(got, np.uint32).T, np.stack(want))


def test_split_gives_distinct_keys():
    keys = np.asarray(random.split(random.PRNGKey(0), 3))
    assert len({tuple(k) for k in keys.tolist()}) == 3
