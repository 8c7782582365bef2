"""``edujax.lax``: the primitive operations, one thin function each.

lax is stricter than jax.numpy: no implicit dtype promotion and no rank
promotion. ``lax.add(x, y)`` needs x and y of one dtype, and of one shape
(size-1 dimensions and rank-0 scalars excepted). jax.numpy does the promotion
and then calls these functions.

Each family of primitives is a module, and in it each primitive is one block: its
definition, rules and, last, its lax function (``lax.sin(x)`` is ``sin_p.bind(x,
accuracy=None)``). The modules build on each other in
this order, every import running downward: ``registry`` (the registrars), ``base`` (casts,
broadcasts, reshapes, transposes, sums: what every other family's rules are written with),
``elementwise``, ``shape``, ``reductions``, ``dot``, ``special``, ``slicing`` (gather and
scatter), ``dynamic_slicing``, ``parallel`` (collectives) and ``control_flow/``; ``linalg``
(the matrix factorizations) is reached as ``lax.linalg``, as in JAX. This file only gathers
their public names.
"""
from __future__ import annotations

from edujax.lax.base import (_convert_element_type, asarray, broadcast, broadcast_in_dim,
                             broadcast_to_rank, convert_element_type, expand_dims, full, full_like,
                             reduce_sum, reshape, stage, transpose, stage_p, broadcast_in_dim_p,
                             convert_element_type_p, reduce_sum_p, reshape_p, transpose_p)
from edujax.lax.elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh,
                                    bitcast_convert_type, bitwise_and, bitwise_not, bitwise_or,
                                    bitwise_xor, cbrt, ceil, clamp, cos, cosh, div, eq, erf, exp,
                                    exp2, expm1, floor, ge, gt, integer_pow, is_finite, le, log,
                                    log1p, logistic, lt, max, min, mul, ne, neg, nextafter, not_,
                                    pow, rem, round, rsqrt, select, select_n, shift_left,
                                    shift_right_arithmetic, shift_right_logical, sign, sin, sinh,
                                    sqrt, square, sub, tan, tanh, abs_p, acos_p, acosh_p, add_p,
                                    and_p, asin_p, asinh_p, atan2_p, atan_p, atanh_p,
                                    bitcast_convert_type_p, cbrt_p, ceil_p, clamp_p, cos_p, cosh_p,
                                    div_p, eq_p, eq_to_p, erf_p, exp2_p, exp_p, expm1_p, floor_p,
                                    ge_p, gt_p, integer_pow_p, is_finite_p, le_p, le_to_p, log1p_p,
                                    log_p, logistic_p, lt_p, lt_to_p, max_p, min_p, mul_p, ne_p,
                                    neg_p,
                                    nextafter_p, not_p, or_p, pow_p, rem_p, round_p, rsqrt_p,
                                    select_n_p, shift_left_p, shift_right_arithmetic_p,
                                    shift_right_logical_p, sign_p, sin_p, sinh_p, sqrt_p, square_p,
                                    sub_p, tan_p, tanh_p, xor_p)
from edujax.lax.shape import (broadcasted_iota, concatenate, index_in_dim, iota, pad, rev, slice,
                              slice_in_dim, split, squeeze, stack, tile, concatenate_p, iota_p,
                              pad_p, rev_p, slice_p, split_p, squeeze_p, stack_p, tile_p,
                              unstack_p)
from edujax.lax.reductions import (argmax, argmin, cumlogsumexp, cummax, cummin, cumprod, cumsum,
                                   reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
                                   reduce_xor, sort, sort_key_val, argmax_p, argmin_p,
                                   cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p,
                                   reduce_and_p, reduce_max_p, reduce_min_p, reduce_or_p,
                                   reduce_prod_p, reduce_xor_p, sort_p)
from edujax.lax.dot import dot, dot_general, dot_general_p
from edujax.lax.dynamic_slicing import (dynamic_index_in_dim, dynamic_slice,
                                        dynamic_slice_in_dim, dynamic_update_slice,
                                        dynamic_update_slice_in_dim, dynamic_slice_p,
                                        dynamic_update_slice_p)
from edujax.lax.special import (_array_copy, copy_p, erf_inv, erf_inv_p, stop_gradient,
                                 stop_gradient_p)
from edujax.lax.control_flow import cond, fori_loop, map, scan, switch, while_loop
from edujax.lax.parallel import (all_gather, axis_index, pmax, pmean, pmin, ppermute, psum)
from edujax.lax import linalg
from edujax.lax.sharding_constraint import sharding_constraint_p, with_sharding_constraint  # noqa: F401,E501
# Complex numbers (issue 17, slice cplx).
from edujax.lax.complex_numbers import complex, conj, imag, real, complex_p, conj_p, imag_p, real_p
from edujax.lax.fft import FftType, fft, fft_p
# reduce_precision (toplevel slice of issue 17: jax.checkpoint marks saved residuals with it).
from edujax.lax.reduce_precision import reduce_precision, reduce_precision_p  # noqa: E402
# issue 17, scipy/nn/random slice: the special functions behind jax.scipy.special and jax.random
from edujax.lax.special_functions import (bessel_i0e, bessel_i1e, betainc, digamma, erfc, igamma,
                                          igamma_grad_a, igammac, lgamma, polygamma,
                                          random_gamma_grad, zeta, bessel_i0e_p, bessel_i1e_p,
                                          digamma_p, erfc_p, igamma_grad_a_p, igamma_p,
                                          igammac_p, lgamma_p, polygamma_p,
                                          regularized_incomplete_beta_p, zeta_p)
# ---- issue 17, lax breadth: convolutions (convolution.py), reduce_window
# (windowed_reductions.py), associative_scan (associative_scan.py), top_k/bits/reduce and
# conveniences (extras.py), the public gather/scatter API (slicing.py),
# custom_linear_solve/custom_root (custom_solvers.py), approx_top_k/reduce_precision/patches/
# ragged_dot (more.py), and the primitives JAX exports by name.
from edujax.lax.precision import DotAlgorithm, DotAlgorithmPreset, Precision
from edujax.lax.convolution import (ConvDimensionNumbers, ConvGeneralDilatedDimensionNumbers,
                                    conv, conv_dimension_numbers, conv_general_dilated,
                                    conv_general_permutations, conv_general_shape_tuple,
                                    conv_shape_tuple, conv_transpose, conv_transpose_shape_tuple,
                                    conv_with_general_padding, padtype_to_pads,
                                    conv_general_dilated_p)
from edujax.lax.windowed_reductions import (reduce_window, reduce_window_shape_tuple,
                                            reduce_window_p, reduce_window_max_p,
                                            reduce_window_min_p, reduce_window_sum_p)
from edujax.lax.associative_scan import associative_scan
from edujax.lax.extras import (RoundingMethod, batch_matmul, broadcast_shapes,
                               clz, collapse, dynamic_update_index_in_dim, empty, index_take,
                               mulhi, optimization_barrier, population_count, reciprocal,
                               reduce, top_k, unstack, clz_p, mulhi_p, optimization_barrier_p,
                               population_count_p, reduce_p, top_k_p)
from edujax.lax.custom_solvers import custom_linear_solve, custom_root, linear_solve_p
from edujax.lax.more import (AccuracyMode, DotDimensionNumbers, PrecisionLike, RandomAlgorithm,
                             approx_max_k, approx_min_k, broadcast_like,
                             conv_general_dilated_local, conv_general_dilated_patches, dtype,
                             ragged_dot, approx_top_k_p)
from edujax.lax.slicing import (GatherDimensionNumbers, GatherScatterMode,
                                ScatterDimensionNumbers, gather, scatter, scatter_add,
                                scatter_apply, scatter_max, scatter_min, scatter_mul,
                                scatter_sub, gather_p, scatter_p, scatter_add_p, scatter_max_p,
                                scatter_min_p, scatter_mul_p, scatter_sub_p)
from edujax.lax.control_flow.conditionals import cond_p, platform_dependent
from edujax.lax.control_flow.loops import while_p
from edujax.lax.control_flow.scan import scan_p
from edujax.lax.parallel import all_gather_p, axis_index_p, pmax_p, pmin_p, ppermute_p, psum_p
# ---- issue 17, lax finish: the remaining collectives (parallel_more.py), XLA's rng
# primitives (rng.py), Tolerance and ragged_dot_general (more.py), scaled_dot (scaled_dot.py).
from edujax.lax.parallel_more import (all_to_all, axis_size, pcast, pshuffle, psum_scatter,
                                      pswapaxes, all_to_all_p)
from edujax.lax.rng import rng_bit_generator, rng_uniform, rng_bit_generator_p, rng_uniform_p
from edujax.lax.more import RaggedDotDimensionNumbers, Tolerance, ragged_dot_general
from edujax.lax.scaled_dot import scaled_dot
