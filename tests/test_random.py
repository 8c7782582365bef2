"""edujax.random against real JAX 0.10.2: bit-exact keys and draws, plus properties.

The golden values below were recorded from jax 0.10.2 (CPU, x64 off) by running each
expression with ``k = random.PRNGKey(seed)`` and ``tk = random.key(seed)``, eagerly and
under ``jax.jit`` (JAX gives the same bits both ways). edujax must reproduce them bit
for bit, floats included, except where ``NOT_BIT_EXACT`` says why not.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import edujax as jax
import edujax.numpy as jnp
from edujax import lax, prng, random

NAN, INF = float("nan"), float("inf")
FAST = settings(max_examples=25, deadline=None)

GOLDEN = {
    'prngkey_0': ('random.PRNGKey(0)', 0, False, 'uint32', (2,),
        [0, 0]),
    'prngkey_neg1': ('random.PRNGKey(-1)', 0, False, 'uint32', (2,),
        [0, 4294967295]),
    'prngkey_big': ('random.PRNGKey(2**32 + 5)', 0, False, 'uint32', (2,),
        [0, 5]),
    'prngkey_max64': ('random.PRNGKey(2**63 - 1)', 0, False, 'uint32', (2,),
        [0, 4294967295]),
    'prngkey_u32': ('random.PRNGKey(np.uint32(4294967295))', 0, False, 'uint32', (2,),
        [0, 4294967295]),
    'prngkey_i8': ('random.PRNGKey(np.int8(-3))', 0, False, 'uint32', (2,),
        [0, 4294967293]),
    'key_data_7': ('random.key_data(random.key(7))', 0, False, 'uint32', (2,),
        [0, 7]),
    'split_2': ('random.split(k)', 42, True, 'uint32', (2, 2),
        [1832780943, 270669613, 64467757, 2916123636]),
    'split_3': ('random.split(k, 3)', 1, True, 'uint32', (3, 2),
        [507451445, 1853169794, 1948878966, 4237131848, 2441914641, 3819641963]),
    'split_2x3': ('random.split(k, (2, 3))', 2, True, 'uint32', (2, 3, 2),
        [1821159224, 3364244817, 637334850, 3278974502, 2859854988, 2425776485, 1882815094,
         2441629631, 1039520245, 1457843688, 198112679, 939895059]),
    'split_typed': ('random.key_data(random.split(tk, 3))', 3, True, 'uint32', (3, 2),
        [3716834203, 3481239269, 1946498123, 2217676430, 1024511538, 2603795180]),
    'fold_in_0': ('random.fold_in(k, 0)', 4, True, 'uint32', (2,),
        [696430527, 3370724820]),
    'fold_in_max': ('random.fold_in(k, 2**32 - 1)', 5, True, 'uint32', (2,),
        [3166336820, 3911873599]),
    'fold_in_i64': ('random.fold_in(k, np.int64(-2))', 6, True, 'uint32', (2,),
        [1479606752, 2677863175]),
    'fold_in_typed': ('random.key_data(random.fold_in(tk, 99))', 7, True, 'uint32', (2,),
        [1174506596, 231747863]),
    'bits_scalar': ('random.bits(k)', 8, True, 'uint32', (),
        [1248304715]),
    'bits_5': ('random.bits(k, (5,))', 9, True, 'uint32', (5,),
        [175140440, 4155647720, 1803250109, 438230345, 961291012]),
    'bits_2x3': ('random.bits(k, (2, 3))', 10, True, 'uint32', (2, 3),
        [169096361, 1572511259, 2689743692, 2228103506, 1693388374, 109711296]),
    'bits_u8': ('random.bits(k, (6,), jnp.uint8)', 11, True, 'uint8', (6,),
        [240, 106, 172, 239, 222, 54]),
    'bits_u16': ('random.bits(k, (6,), jnp.uint16)', 12, True, 'uint16', (6,),
        [38123, 3336, 30091, 48552, 46131, 20294]),
    'uniform_scalar': ('random.uniform(k)', 13, True, 'float32', (),
        [0.9202088117599487]),
    'uniform_7': ('random.uniform(k, (7,))', 14, True, 'float32', (7,),
        [0.1433013677597046, 0.8374966382980347, 0.006767988204956055, 0.03460240364074707,
         0.2964240312576294, 0.5893309116363525, 0.9121853113174438]),
    'uniform_2x3': ('random.uniform(k, (2, 3))', 15, True, 'float32', (2, 3),
        [0.3979378938674927, 0.689705491065979, 0.7230720520019531, 0.18995976448059082,
         0.8592280149459839, 0.5931369066238403]),
    'uniform_f16': ('random.uniform(k, (5,), jnp.float16)', 16, True, 'float16', (5,),
        [0.9013671875, 0.2705078125, 0.72265625, 0.3564453125, 0.6025390625]),
    'uniform_bounds': (
        'random.uniform(k, (6,), minval=-1.0, maxval=2.0)',
        17, True, 'float32', (6,),
        [-0.24330556392669678, 1.6506057977676392, 1.2968817949295044, 0.11693120002746582,
         1.2180033922195435, -0.2101595401763916]),
    'uniform_bounds2': (
        'random.uniform(k, (6,), minval=0.5, maxval=7.25)',
        18, True, 'float32', (6,),
        [4.524622917175293, 5.539017677307129, 4.674753665924072, 0.9913680553436279,
         3.630842685699463, 6.956839561462402]),
    'uniform_array_bounds': (
        'random.uniform(k, (2, 3), minval=jnp.zeros(3), maxval=jnp.array([1., 2., 4.]))',
        19, True, 'float32', (2, 3),
        [0.29395508766174316, 0.874854564666748, 3.6842541694641113, 0.853057861328125,
         1.4542176723480225, 3.300750255584717]),
    'normal_scalar': ('random.normal(k)', 20, True, 'float32', (),
        [-0.47474294900894165]),
    'normal_9': ('random.normal(k, (9,))', 21, True, 'float32', (9,),
        [0.500610888004303, 0.3763010799884796, -0.28961318731307983, 0.857758641242981,
         0.6164253950119019, -2.0320990085601807, 1.4089027643203735, 1.1882585287094116,
         0.427837073802948]),
    'normal_3x2': ('random.normal(k, (3, 2))', 22, True, 'float32', (3, 2),
        [-0.41838234663009644, -1.8006360530853271, 0.36390820145606995, -0.20517665147781372,
         1.205697774887085, 0.35092893242836]),
    'normal_f16': ('random.normal(k, (6,), jnp.float16)', 23, True, 'float16', (6,),
        [1.1416015625, -1.0380859375, -0.5986328125, -1.0810546875, -0.1591796875,
         -0.174072265625]),
    'normal_c64': ('random.normal(k, (3,), jnp.complex64)', 24, True, 'complex64', (3,),
        [[-0.10976384580135345, 0.6608721613883972], [-2.001742362976074, -0.7455647587776184],
         [-0.3656429648399353, -0.9365531206130981]]),
    'normal_typed': ('random.normal(tk, (4,))', 25, True, 'float32', (4,),
        [1.0405566692352295, -1.730342149734497, -1.2064735889434814, 0.06580799072980881]),
    'normal_64': ('random.normal(k, (64,))', 26, True, 'float32', (64,),
        [0.5807472467422485, 0.731547474861145, 0.1911943256855011, 0.6012484431266785,
         -0.4352980852127075, 2.03906512260437, 0.4087008833885193, -1.8048285245895386,
         -0.9387311935424805, -0.8115390539169312, -0.35313382744789124, -2.1762123107910156,
         1.5446410179138184, -0.19294098019599915, -1.3330035209655762, 1.3156360387802124,
         0.611178994178772, 0.6450679302215576, 0.1301477700471878, 0.41031649708747864,
         0.9753297567367554, 0.2333778440952301, 0.6597238779067993, -1.4142318964004517,
         -0.39632442593574524, -1.6810410022735596, -1.868045449256897, 0.22040560841560364,
         2.0649526119232178, -0.44419828057289124, 1.0360643863677979, -0.7736411094665527,
         -0.54224693775177, 0.4083673059940338, 0.015831567347049713, 1.2323344945907593,
         1.1095006465911865, 2.324742317199707, 0.8410383462905884, -0.7018665671348572,
         -0.25437504053115845, -0.6352936625480652, -0.019109902903437614, 0.9641585350036621,
         -1.3587093353271484, 0.5149489045143127, 1.213015079498291, 1.3664436340332031,
         1.785584807395935, 0.6432349681854248, -0.06053193658590317, 0.3597164750099182,
         1.7213035821914673, 1.9400755167007446, -0.6559039354324341, 0.8447271585464478,
         -0.5324280858039856, 0.8657175898551941, 0.32993316650390625, 0.7991604804992676,
         1.0475820302963257, -0.29972872138023376, 0.2687329053878784, -0.06793656945228577]),
    'randint_8': ('random.randint(k, (8,), 0, 10)', 27, True, 'int32', (8,),
        [6, 4, 0, 0, 8, 2, 6, 3]),
    'randint_neg': ('random.randint(k, (6,), -50, -3)', 28, True, 'int32', (6,),
        [-23, -49, -7, -30, -6, -43]),
    'randint_int8_clip': ('random.randint(k, (6,), -300, 300, jnp.int8)', 29, True, 'int8', (6,),
        [-27, 71, -103, -36, 88, 48]),
    'randint_uint8_256': ('random.randint(k, (6,), 0, 256, jnp.uint8)', 30, True, 'uint8', (6,),
        [111, 233, 123, 166, 61, 234]),
    'randint_empty_range': ('random.randint(k, (4,), 5, 5)', 31, True, 'int32', (4,),
        [5, 5, 5, 5]),
    'randint_arrays': (
        'random.randint(k, (2, 3), jnp.array([0, 10, 100]), jnp.array([5, 20, 1000]))',
        32, True, 'int32', (2, 3),
        [0, 14, 930, 0, 10, 941]),
    'randint_int16': ('random.randint(k, (5,), -1000, 1000, jnp.int16)', 33, True, 'int16', (5,),
        [-427, 411, 236, -59, -321]),
    'randint_big': ('random.randint(k, (4,), 2**31 - 5, 2**31 - 1)', 34, True, 'int32', (4,),
        [2147483643, 2147483644, 2147483646, 2147483643]),
    'randint_uint32': (
        'random.randint(k, (4,), 0, 2**31 - 1, jnp.uint32)',
        35, True, 'uint32', (4,),
        [972747057, 1145127220, 1011235887, 790634137]),
    'bernoulli_10': ('random.bernoulli(k, 0.3, (10,))', 36, True, 'bool', (10,),
        [False, False, True, True, False, False, False, True, False, False]),
    'bernoulli_p': (
        'random.bernoulli(k, jnp.array([0.1, 0.5, 0.9, 0.99]))',
        37, True, 'bool', (4,),
        [False, False, True, True]),
    'bernoulli_high': ("random.bernoulli(k, 0.5, (6,), mode='high')", 38, True, 'bool', (6,),
        [True, True, False, False, True, True]),
    'permutation_10': ('random.permutation(k, 10)', 39, True, 'int32', (10,),
        [5, 6, 7, 8, 0, 3, 4, 2, 1, 9]),
    'permutation_array': ('random.permutation(k, jnp.arange(6) * 10)', 40, True, 'int32', (6,),
        [50, 20, 0, 40, 30, 10]),
    'permutation_2d_axis1': (
        'random.permutation(k, jnp.arange(12).reshape(3, 4), axis=1)',
        41, True, 'int32', (3, 4),
        [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]),
    'permutation_2d_indep': (
        'random.permutation(k, jnp.arange(12).reshape(3, 4), axis=1, independent=True)',
        42, True, 'int32', (3, 4),
        [2, 3, 0, 1, 7, 4, 5, 6, 10, 11, 8, 9]),
    'permutation_2d_axis0': (
        'random.permutation(k, jnp.arange(12).reshape(4, 3))',
        43, True, 'int32', (4, 3),
        [0, 1, 2, 9, 10, 11, 3, 4, 5, 6, 7, 8]),
    'choice_int': ('random.choice(k, 5, (3,))', 44, True, 'int32', (3,),
        [2, 4, 1]),
    'choice_noreplace': (
        'random.choice(k, jnp.arange(5) * 10, (3,), replace=False)',
        45, True, 'int32', (3,),
        [0, 30, 10]),
    'choice_p': (
        'random.choice(k, jnp.arange(5.), (4,), p=jnp.array([.1, .2, .3, .2, .2]))',
        46, True, 'float32', (4,),
        [1.0, 4.0, 1.0, 0.0]),
    'choice_p_noreplace': (
        'random.choice(k, jnp.arange(5.), (2,), replace=False, p=jnp.array([.1, .2, .3, .2, .2]))',
        47, True, 'float32', (2,),
        [1.0, 4.0]),
    'choice_2d_axis1': (
        'random.choice(k, jnp.arange(12).reshape(3, 4), (2,), axis=1)',
        48, True, 'int32', (3, 2),
        [0, 3, 4, 7, 8, 11]),
    'categorical_6': (
        'random.categorical(k, jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(6,))',
        49, True, 'int32', (6,),
        [2, 0, 2, 2, 1, 2]),
    'categorical_axis0': (
        'random.categorical(k, jnp.zeros((2, 3)), axis=0)',
        50, True, 'int32', (3,),
        [0, 0, 1]),
    'categorical_noreplace': (
        'random.categorical(k, jnp.log(jnp.array([.2, .3, .5])), shape=(2,), replace=False)',
        51, True, 'int32', (2,),
        [2, 0]),
    'gumbel_5': ('random.gumbel(k, (5,))', 52, True, 'float32', (5,),
        [0.5130437612533569, -0.026078294962644577, 0.8355139493942261, -1.0016276836395264,
         0.5301734209060669]),
    'gumbel_high': ("random.gumbel(k, (5,), mode='high')", 53, True, 'float32', (5,),
        [0.16242831945419312, 1.4963041543960571, 0.2538975775241852, -0.7764674425125122,
         2.4525599479675293]),
    'exponential_5': ('random.exponential(k, (5,))', 54, True, 'float32', (5,),
        [0.7359728813171387, 0.33859384059906006, 0.1635245531797409, 0.13734818994998932,
         1.5320875644683838]),
    'laplace_5': ('random.laplace(k, (5,))', 55, True, 'float32', (5,),
        [1.3999384641647339, 0.9685326814651489, -0.6421604752540588, -2.229457378387451,
         0.07825231552124023]),
    'logistic_5': ('random.logistic(k, (5,))', 56, True, 'float32', (5,),
        [1.5206520557403564, 2.4843668937683105, 1.5673036575317383, -1.2659711837768555,
         -1.6579649448394775]),
    'truncated_normal_5': (
        'random.truncated_normal(k, -1.0, 2.0, (5,))',
        57, True, 'float32', (5,),
        [-0.6689856648445129, -0.25148698687553406, -0.1796903908252716, 1.2069040536880493,
         0.3841288089752197]),
    'truncated_normal_narrow': (
        'random.truncated_normal(k, -0.5, 0.5, (5,))',
        58, True, 'float32', (5,),
        [0.3573538064956665, -0.3819454312324524, 0.08246137946844101, -0.2503477931022644,
         0.24223536252975464]),
}

# Known-answer tests of Random123 for threefry2x32 with 20 rounds: (key, counter, result).
THREEFRY_KAT = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6b200159, 0x99ba4efe)),
    ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
    ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3), (0xc4923a9c, 0x483df7a0)),
]

ERF_INV_X = [0.0, -0.0, 0.5, -0.5, 0.8999999761581421, -0.9900000095367432, 0.9999989867210388,
             -0.9999998807907104, 1.0, -1.0, 1.0000000031710769e-30, 3.000000645916e-39,
             9.99999993922529e-09, 0.6435999870300293, 0.6437000036239624, 0.9966199994087219,
             0.9966300129890442, 1.5, NAN, 0.2739233672618866, -0.46042656898498535,
             -0.9180529713630676, -0.9669447541236877, 0.62654048204422, 0.8255111575126648,
             0.21327155828475952, 0.4589931070804596, 0.08724997937679291, 0.8701448440551758,
             0.6317071318626404, -0.9945229887962341, 0.7148085236549377, -0.9328288435935974,
             0.4593108892440796, -0.6486887335777283, 0.7263578176498413, 0.08292244374752045,
             -0.4005762040615082, -0.1546255648136139, -0.9433606863021851, -0.7514334321022034,
             0.34124884009361267, 0.29437902569770813, 0.23077023029327393, -0.23264488577842712,
             0.9944198727607727, 0.9616706967353821, 0.37108397483825684, 0.3009185492992401,
             0.37689346075057983, -0.22215715050697327, -0.7298070192337036, 0.4429766833782196,
             0.05070864409208298, -0.37951624393463135, -0.028329282999038696,
             0.7789756655693054, 0.8680870532989502, -0.28440961241722107]
ERF_INV_Y = [0.0, -0.0, 0.4769362807273865, -0.4769362807273865, 1.163087010383606,
             -1.821386694908142, 3.4570746421813965, -3.7439212799072266, INF, -INF,
             8.862268201809777e-31, 0.0, 8.862268252585181e-09, 0.652126669883728,
             0.6522623300552368, 2.0724480152130127, 2.0730998516082764, NAN, NAN,
             0.24773435294628143, -0.4337804913520813, -1.2300114631652832, -1.5071358680725098,
             0.6293333172798157, 0.9601950645446777, 0.19131577014923096, 0.4322481155395508,
             0.07747802883386612, 1.0710358619689941, 0.6361666917800903, -1.9640254974365234,
             0.7557060122489929, -1.2943780422210693, 0.4325876533985138, -0.6590580344200134,
             0.7740793228149414, 0.07362089306116104, -0.37139323353767395, -0.13790254294872284,
             -1.3478049039840698, -0.8158867359161377, 0.31228527426719666, 0.26710519194602966,
             0.20745280385017395, -0.209187850356102, 1.95973539352417, 1.4646414518356323,
             0.3417116105556488, 0.27333974838256836, 0.34750932455062866, -0.19949695467948914,
             -0.7796688675880432, 0.4152616560459137, 0.04496965929865837, -0.3501344919204712,
             -0.025111449882388115, 0.8653636574745178, 1.0653278827667236, -0.2576403319835663]


# Where edujax cannot match JAX bit for bit, and by how many units in the last place
# (ulp) it may differ. All of these come from how XLA compiles float code, not from the
# PRNG: the random bits are identical.
# * XLA's float32 log and log1p are its own polynomials; edujax's lax.log/lax.log1p use
#   NumPy's (gumbel, exponential, logistic; categorical only through an argmax).
# * XLA fuses ``floats * (maxval - minval) + minval`` into one fused multiply-add inside
#   the jitted _uniform; edujax rounds the product and the sum separately. This shows
#   only when minval/maxval make the product inexact (not for normal, laplace, ...).
# * truncated_normal: both of the above, and XLA's own erf.
NOT_BIT_EXACT = {"uniform_bounds": 1, "gumbel_5": 2, "gumbel_high": 8, "exponential_5": 2,
                 "logistic_5": 2, "truncated_normal_5": 4, "truncated_normal_narrow": 4}


def _run(expr: str, seed: int, under_jit: bool) -> np.ndarray:
    env = {"random": random, "jnp": jnp, "np": np, "jax": jax}
    k, tk = random.PRNGKey(seed), random.key(seed)
    if under_jit:
        return np.asarray(jax.jit(eval("lambda k, tk: " + expr, env))(k, tk))
    return np.asarray(eval(expr, {**env, "k": k, "tk": tk}))


def _expected(dtype: str, shape: tuple, data: list) -> np.ndarray:
    if dtype.startswith("complex"):
        data = [complex(re_, im) for re_, im in data]
    return np.array(data, dtype=dtype).reshape(shape)


def _ulp_distance(a: np.ndarray, b: np.ndarray) -> int:
    a, b = np.atleast_1d(a).view(np.float32).view(np.int32), np.atleast_1d(b).view(np.int32)
    return int(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64))))


# Every case eagerly, and under jit too unless it builds a key from a Python constant.
_RUNS = [(name, under_jit) for name in sorted(GOLDEN) for under_jit in (False, True)
         if GOLDEN[name][2] or not under_jit]


@pytest.mark.parametrize("name, under_jit", _RUNS,
                         ids=[f"{n}-{'jit' if j else 'eager'}" for n, j in _RUNS])
def test_matches_jax(name: str, under_jit: bool) -> None:
    expr, seed, jittable, dtype, shape, data = GOLDEN[name]
    got, want = _run(expr, seed, under_jit), _expected(dtype, shape, data)
    assert got.dtype == want.dtype and got.shape == want.shape
    if name in NOT_BIT_EXACT:
        assert _ulp_distance(got, want) <= NOT_BIT_EXACT[name]
    else:
        assert got.tobytes() == want.tobytes(), f"{got} != {want}"


# ---------------------------------------------------------------- the tutorial's output
def test_the_tutorial_prints_what_jax_prints(capsys) -> None:
    key = random.PRNGKey(42)
    print(key)
    print(random.normal(key))
    new_key, subkey = random.split(key)
    print(new_key, subkey, random.normal(subkey), random.normal(new_key))
    print(random.normal(random.PRNGKey(0), (3,)))
    assert capsys.readouterr().out.split("\n") == [
        "[ 0 42]", "-0.028304616",
        "[1832780943  270669613] [  64467757 2916123636] 0.60576403 0.07592554",
        "[ 1.6226422   2.0252647  -0.43359444]", ""]


def test_the_tutorial_values_under_jit_and_vmap() -> None:
    key = random.PRNGKey(42)
    keys = random.split(key)
    assert np.asarray(jax.jit(random.split)(key)).tolist() == np.asarray(keys).tolist()
    assert float(jax.jit(random.normal)(keys[1])) == np.float32(0.60576403)
    both = jax.vmap(random.normal)(keys)
    assert np.asarray(both).tolist() == [np.float32(0.07592554), np.float32(0.60576403)]


# ---------------------------------------------------------------- threefry2x32 itself
@pytest.mark.parametrize("key, count, result", THREEFRY_KAT)
def test_threefry_known_answers(key, count, result) -> None:
    assert prng.threefry2x32_ints(*key, *count) == result
    words = [np.array([w], np.uint32) for w in (*key, *count)]
    assert tuple(int(y[0]) for y in prng.threefry2x32_p.bind(*words)) == result


@FAST
@given(st.lists(st.tuples(*[st.integers(0, 2 ** 32 - 1)] * 4), min_size=9, max_size=40))
def test_numpy_rounds_agree_with_the_python_int_version(quads) -> None:
    k0, k1, x0, x1 = (np.array(column, np.uint32) for column in zip(*quads))
    y0, y1 = prng.threefry2x32_numpy(k0, k1, x0, x1)  # more than _FEW: the NumPy path
    assert list(zip(y0.tolist(), y1.tolist())) == [prng.threefry2x32_ints(*q) for q in quads]


def test_threefry_primitive_batches_and_prints() -> None:
    k = np.array([1, 2], np.uint32)
    out = jax.vmap(lambda c: prng.threefry_2x32(k, c))(jnp.arange(6, dtype=jnp.uint32)
                                                       .reshape(3, 2))
    want = [np.asarray(prng.threefry_2x32(k, jnp.array([2 * i, 2 * i + 1], jnp.uint32)))
            for i in range(3)]
    assert np.asarray(out).tolist() == np.stack(want).tolist()
    text = str(jax.make_jaxpr(lambda c: prng.threefry_2x32(k, c))(jnp.arange(4, dtype=jnp.uint32)))
    assert "threefry2x32" in text


# ---------------------------------------------------------------- erf_inv (XLA's algorithm)
def test_erf_inv_matches_xla_bit_for_bit() -> None:
    x = np.array(ERF_INV_X, np.float32)
    got = np.asarray(lax.erf_inv(x))
    want = np.array(ERF_INV_Y, np.float32)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.asarray(jax.jit(lax.erf_inv)(x)).tobytes() == got.tobytes()


def test_erf_inv_gradient_and_float64() -> None:
    assert math.isclose(float(jax.grad(lax.erf_inv)(0.5)), 1.112585, rel_tol=1e-6)
    x = np.linspace(-0.999, 0.999, 9)
    assert np.allclose(np.asarray(lax.erf_inv_p.bind(x)),
                       np.asarray(lax.erf_inv(x.astype(np.float32))), atol=1e-5)


# ---------------------------------------------------------------- properties
@FAST
@given(st.integers(-2 ** 63, 2 ** 63 - 1), st.integers(1, 5))
def test_split_is_deterministic_and_gives_distinct_keys(seed: int, num: int) -> None:
    key = random.PRNGKey(seed)
    keys = np.asarray(random.split(key, num))
    assert np.array_equal(keys, np.asarray(random.split(random.PRNGKey(seed), num)))
    rows = {tuple(row) for row in keys.tolist()} | {tuple(np.asarray(key).tolist())}
    assert len(rows) == num + 1


@FAST
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 2 ** 32 - 1), st.integers(0, 2 ** 32 - 1))
def test_fold_in_is_deterministic_and_separates_data(seed: int, a: int, b: int) -> None:
    key = random.PRNGKey(seed)
    fa = np.asarray(random.fold_in(key, a))
    assert np.array_equal(fa, np.asarray(random.fold_in(key, a)))
    assert np.array_equal(fa, np.asarray(jax.jit(random.fold_in)(key, np.uint32(a))))
    assert (a == b) == np.array_equal(fa, np.asarray(random.fold_in(key, b)))


@FAST
@given(st.integers(0, 2 ** 31), st.floats(-1024, 1024, width=32),
       st.floats(2 ** -10, 1024, width=32))
def test_uniform_stays_in_range(seed: int, lo: float, width: float) -> None:
    hi = np.float32(lo) + np.float32(width)
    x = np.asarray(random.uniform(random.PRNGKey(seed), (64,), minval=lo, maxval=hi))
    assert x.dtype == np.float32 and np.all(x >= np.float32(lo)) and np.all(x <= hi)
    u = np.asarray(random.uniform(random.PRNGKey(seed), (64,)))
    assert np.all((0 <= u) & (u < 1))


@FAST
@given(st.integers(0, 2 ** 31), st.integers(-2 ** 31, 2 ** 31 - 1),
       st.integers(-2 ** 31, 2 ** 31 - 1))
def test_randint_stays_in_range(seed: int, lo: int, hi: int) -> None:
    x = np.asarray(random.randint(random.PRNGKey(seed), (32,), lo, hi))
    assert x.dtype == np.int32
    assert np.all((lo <= x) & (x < hi)) if lo < hi else np.all(x == lo)


@FAST
@given(st.integers(0, 2 ** 31), st.integers(0, 200))
def test_permutation_is_a_permutation(seed: int, n: int) -> None:
    perm = np.asarray(random.permutation(random.PRNGKey(seed), n))
    assert sorted(perm.tolist()) == list(range(n))
    rows = np.asarray(random.permutation(random.PRNGKey(seed), jnp.arange(3 * n).reshape(3, n),
                                         axis=1, independent=True))
    assert all(sorted(r.tolist()) == list(range(i * n, (i + 1) * n)) for i, r in enumerate(rows))


def test_moments_of_a_million_draws() -> None:
    u = np.asarray(random.uniform(random.PRNGKey(0), (1_000_000,)), np.float64)
    assert abs(u.mean() - 0.5) < 2e-3 and abs(u.var() - 1 / 12) < 2e-3
    z = np.asarray(random.normal(random.PRNGKey(1), (1_000_000,)), np.float64)
    assert abs(z.mean()) < 5e-3 and abs(z.var() - 1) < 5e-3
    assert abs(np.mean(z ** 3)) < 2e-2 and abs(np.mean(z ** 4) - 3) < 5e-2


# ---------------------------------------------------------------- typed keys
def test_typed_keys_print_like_jax() -> None:
    key = random.key(42)
    assert repr(key) == "Array((), dtype=key<fry>) overlaying:\n[ 0 42]"
    keys = random.split(key)
    assert repr(keys) == ("Array((2,), dtype=key<fry>) overlaying:\n[[1832780943  270669613]\n"
                          " [  64467757 2916123636]]")
    assert str(keys[1]) == "Array((), dtype=key<fry>) overlaying:\n[  64467757 2916123636]"
    assert keys.shape == (2,) and key.shape == () and random.key_impl(key) == "threefry2x32"


def test_typed_keys_are_leaves_and_work_under_jit_and_vmap() -> None:
    keys = random.split(random.key(0), 3)
    assert jax.tree_util.tree_leaves({"k": keys}) == [keys]
    assert jax.tree_util.tree_map(lambda k: k.shape, {"k": keys}) == {"k": (3,)}
    data = np.asarray(random.key_data(keys))
    assert np.array_equal(np.asarray(random.key_data(random.wrap_key_data(data))), data)
    by_vmap = np.asarray(jax.vmap(lambda k: random.normal(k, (2,)))(keys))
    by_loop = np.stack([np.asarray(random.normal(k, (2,))) for k in keys])
    assert by_vmap.tobytes() == by_loop.tobytes()
    under_jit = jax.jit(lambda k: random.split(k, 3))(random.key(0))
    assert np.array_equal(np.asarray(random.key_data(under_jit)), data)
    raw = np.asarray(jax.vmap(lambda k: random.normal(k, (2,)))(random.split(random.PRNGKey(0),
                                                                             3)))
    assert raw.tobytes() == by_vmap.tobytes()  # typed and raw keys give the same numbers


def test_jaxprs_look_like_jax() -> None:
    def text(f, *args):  # edujax's key dtype prints with NumPy's bit count: key<fry>64
        return str(jax.make_jaxpr(f)(*args))
    assert text(lambda k: random.split(k), random.PRNGKey(0)) == (
        "{ lambda ; a:u32[2]. let\n"
        "    b:key<fry>[] = random_wrap[impl=fry] a\n"
        "    c:key<fry>[2] = random_split[shape=(2,)] b\n"
        "    d:u32[2,2] = random_unwrap c\n"
        "  in (d,) }")
    assert text(lambda k: random.fold_in(k, 3), random.key(0)) == (
        "{ lambda ; a:key<fry>[]. let b:key<fry>[] = random_fold_in a 3:u32[] in (b,) }")
    assert text(lambda k: random.normal(k, (3,)), random.PRNGKey(0)) == JAX_NORMAL_JAXPR


JAX_NORMAL_JAXPR = """\
let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let
    d:f32[1] = broadcast_in_dim b
    e:f32[1] = broadcast_in_dim c
    f:u32[3] = random_bits[bit_width=32 shape=(3,)] a
    g:u32[3] = shift_right_logical f 9:u32[]
    h:u32[3] = or g 1065353216:u32[]
    i:f32[3] = bitcast_convert_type[new_dtype=float32] h
    j:f32[3] = sub i 1.0:f32[]
    k:f32[1] = sub e d
    l:f32[3] = mul j k
    m:f32[3] = add l d
    n:f32[3] = max d m
  in (n,) } in
{ lambda ; o:u32[2]. let
    p:key<fry>[] = random_wrap[impl=fry] o
    q:f32[3] = jit[
      name=_normal
      jaxpr={ lambda ; p:key<fry>[]. let
          q:f32[3] = jit[
            name=_normal_real
            jaxpr={ lambda ; p:key<fry>[]. let
                r:f32[3] = jit[name=_uniform jaxpr=_uniform] p -0.9999999403953552:f32[]
                  1.0:f32[]
                s:f32[3] = erf_inv r
                q:f32[3] = mul 1.4142135381698608:f32[] s
              in (q,) }
          ] p
        in (q,) }
    ] p
  in (q,) }"""


# ---------------------------------------------------------------- errors, as in JAX
def test_errors() -> None:
    with pytest.raises(ValueError, match="split accepts a single key"):
        random.split(random.split(random.PRNGKey(0), 3))
    with pytest.raises(TypeError, match="expected key_data.dtype = uint32"):
        random.normal(jnp.array([0, 42]))
    with pytest.raises(TypeError, match="unexpected PRNG key type"):
        random.normal([0, 42])
    with pytest.raises(OverflowError):
        random.PRNGKey(2 ** 64)
    with pytest.raises(TypeError, match="seed must be an integer"):
        jax.jit(random.PRNGKey)(1.5)
    with pytest.raises(ValueError, match="dtype argument to `uniform`"):
        random.uniform(random.PRNGKey(0), dtype=jnp.int32)


# ---------------------------------------------------------------- key reuse (edujax only)
@pytest.fixture
def reuse_check():
    jax.config.update("edujax_check_key_reuse", True)
    yield
    jax.config.update("edujax_check_key_reuse", False)


def test_reusing_a_key_warns_naming_both_places(reuse_check) -> None:
    key = random.PRNGKey(1234)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        random.normal(key, (2,)); first_line = _line() - 0  # noqa: E702
        random.uniform(key); second_line = _line() - 0  # noqa: E702
    assert len(caught) == 1 and issubclass(caught[0].category, random.KeyReuseWarning)
    message = str(caught[0].message)
    assert f"random.normal at {__file__}:{first_line}" in message
    assert f"random.uniform at {__file__}:{second_line}" in message
    assert caught[0].filename == __file__ and caught[0].lineno == second_line


def test_splitting_properly_does_not_warn(reuse_check) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", random.KeyReuseWarning)
        key = random.PRNGKey(99)
        for _ in range(3):
            key, sub1, sub2 = random.split(key, 3)
            random.normal(sub1, (2,))         # calls uniform inside: not a second use
            random.permutation(random.fold_in(sub2, 1), 5)
        again = random.clone(key)
        random.bits(key)
        random.bits(again)                    # a clone may be consumed once more


def _line() -> int:
    import inspect
    return inspect.currentframe().f_back.f_lineno
