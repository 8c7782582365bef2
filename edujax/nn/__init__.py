"""``edujax.nn``: JAX's neural-network helpers: activation functions and normalizations
(``functions``), ``dot_product_attention`` (``attention``), and weight initializers
(``initializers``, reached as ``jax.nn.initializers``).
"""
from edujax.nn import initializers  # noqa: F401
from edujax.nn.attention import dot_product_attention  # noqa: F401
from edujax.nn.functions import (celu, elu, gelu, glu, hard_sigmoid, hard_silu,  # noqa: F401
                                 hard_swish, hard_tanh, identity, leaky_relu, log1mexp,
                                 log_sigmoid, log_softmax, logmeanexp, logsumexp, mish, one_hot,
                                 relu, relu6, selu, sigmoid, silu, soft_sign, softmax, softplus,
                                 sparse_plus, sparse_sigmoid, squareplus, standardize, swish,
                                 tanh)
