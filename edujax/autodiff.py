"""The differentiation API: jvp, linearize, vjp, grad, value_and_grad, jacfwd, jacrev, hessian.

These functions handle pytrees, argnums and error messages; the mechanics live
in ``interpreters/ad.py`` (read its docstring first).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from edujax import core, dtypes, lax, source_info
from edujax import numpy as jnp
from edujax.api_util import flatten_fun_nokwargs
from edujax.interpreters import ad
from edujax.jaxpr import eval_jaxpr
from edujax.literals import canonicalize_scalar, float0_zeros
from edujax.tree_util import (Partial, register_pytree_node, tree_flatten, tree_map,
                              tree_structure, tree_transpose, tree_unflatten)
from edujax.vmap import vmap


class _Flat:
    """``fun`` as a function of flat leaves returning a flat list (``api_util``'s
    ``flatten_fun_nokwargs``), which remembers the outputs' structure for ``split``.

    With ``has_aux``, the auxiliary output's array leaves are returned *after* the
    real outputs, so the transformation hands back their primal values (never a
    tracer); non-array aux leaves are kept aside untouched.
    """

    def __init__(self, fun: Callable, in_tree: Any, has_aux: bool = False):
        self.has_aux, self.aux_arrays = has_aux, []
        self.flat_fun = flatten_fun_nokwargs(self._aux_aside(fun) if has_aux else fun, in_tree)

    def _aux_aside(self, fun: Callable) -> Callable:
        def main_output(*args: Any) -> Any:
            out, aux = fun(*args)
            aux_leaves, self.aux_tree = tree_flatten(aux)
            self.aux_is_array = [core.is_array_like(x) for x in aux_leaves]
            self.aux_other = [x for x, a in zip(aux_leaves, self.aux_is_array) if not a]
            self.aux_arrays = [x for x, a in zip(aux_leaves, self.aux_is_array) if a]
            return out
        return main_output

    def __call__(self, *leaves: Any) -> list:
        flat_out, self.out_tree = self.flat_fun(*leaves)
        self.num_out = len(flat_out)
        return [*flat_out, *self.aux_arrays]

    def split(self, values: list) -> tuple[Any, Any]:
        """(output pytree, aux pytree) from the flat values of the outputs."""
        out = tree_unflatten(self.out_tree, values[:self.num_out])
        if not self.has_aux:
            return out, None
        arrays, others = iter(values[self.num_out:]), iter(self.aux_other)
        aux = [next(arrays) if a else next(others) for a in self.aux_is_array]
        return out, tree_unflatten(self.aux_tree, aux)


def _tangent_or_zero(primal: Any, tangent: Any) -> Any:
    return tangent if ad.is_differentiable(core.get_aval(primal)) else ad.Zero.from_value(primal)


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> Any:
    """Forward mode: ``(fun(*primals), J(primals) @ tangents)``."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    flat_p, tree_p = tree_flatten(tuple(primals))
    flat_t, tree_t = tree_flatten(tuple(tangents))
    if tree_p != tree_t:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {tree_p} whereas tangents have "
                        f"tree structure {tree_t}.")
    for p, t in zip(flat_p, flat_t):
        pa, ta = core.get_aval(p), core.get_aval(t)
        if pa.shape != ta.shape:
            raise ValueError("jvp called with different primal and tangent shapes;Got primal "
                             f"shape {pa.shape} and tangent shape as {ta.shape}")
    flat_fun = _Flat(fun, tree_p, has_aux)
    with source_info.transform_name_stack("jvp"):
        outs, touts = ad.jvp_flat(flat_fun, flat_p, [_tangent_or_zero(p, t)
                                                     for p, t in zip(flat_p, flat_t)])
    out, aux = flat_fun.split(outs)
    tangent = tree_unflatten(flat_fun.out_tree,
                             [ad.instantiate_zeros(t) for t in touts[:flat_fun.num_out]])
    return (out, tangent, aux) if has_aux else (out, tangent)


def linearize(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """``fun(*primals)`` and its linear tangent map, as a function of tangents.

    As in JAX the map is a ``tree_util.Partial`` whose leaves are the linear jaxpr's
    constants (``cos(x)`` for ``sin``), so it can be passed through ``jit``.
    """
    flat_p, in_tree = tree_flatten(primals)
    flat_fun = _Flat(fun, in_tree, has_aux)
    outs, linear, _ = ad.linearize_flat(flat_fun, flat_p)
    out, aux = flat_fun.split(outs)
    f_jvp = Partial(functools.partial(_linearized, linear.jaxpr, flat_fun.out_tree,
                                      flat_fun.num_out), *linear.consts)
    return (out, f_jvp, aux) if has_aux else (out, f_jvp)


def _linearized(jaxpr: Any, out_tree: Any, num_out: int, *consts_and_tangents: Any) -> Any:
    """Run the linear jaxpr: its constants, then the input tangents (a pytree each)."""
    consts = consts_and_tangents[:len(jaxpr.constvars)]
    flat_t, _ = tree_flatten(consts_and_tangents[len(jaxpr.constvars):])
    touts = eval_jaxpr(jaxpr, list(consts), *flat_t)
    return tree_unflatten(out_tree, touts[:num_out])


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """Reverse mode: ``fun(*primals)`` and ``vjp_fn(cotangent) -> cotangents of primals``.

    ``vjp_fn`` is a ``tree_util.Partial`` whose leaves are the *residuals*, the values the
    backward pass needs (``cos(x)`` for ``sin``), as in JAX. So it is a pytree: it can be
    returned from a jitted function, or passed into one, like any array container.
    """
    flat_p, in_tree = tree_flatten(primals)
    # As in JAX, a Python number becomes a typed one (3.0 -> TypedFloat(3.0, dtype=float32)):
    # a function that returns its input unchanged hands that back.
    flat_p = [canonicalize_scalar(p) for p in flat_p]
    flat_fun = _Flat(fun, in_tree, has_aux)
    outs, linear, _ = ad.linearize_flat(flat_fun, flat_p)
    out, aux = flat_fun.split(outs)
    backward = _Backward(linear.jaxpr, in_tree, flat_fun.out_tree,
                         [core.get_aval(p) for p in flat_p],
                         [ad.tangent_aval(core.get_aval(x)) for x in outs[flat_fun.num_out:]])
    vjp_fn = VJP(functools.partial(_vjp_pullback, backward), linear.consts)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


class VJP(Partial):
    """The function ``jax.vjp`` returns (named as JAX 0.10 names its class): a ``Partial``,
    so a pytree whose leaves are the residuals."""


register_pytree_node(VJP, lambda v: ((v.args, v.keywords), v.func),
                     lambda func, xs: VJP(func, *xs[0], **xs[1]))


class _Backward:
    """What a VJP function knows besides its residuals: the linear jaxpr and the trees.

    It is the static part of the ``Partial`` that ``vjp`` returns (part of its treedef).
    """

    def __init__(self, jaxpr: Any, in_tree: Any, out_tree: Any, in_avals: list,
                 aux_avals: list):
        self.jaxpr, self.in_tree, self.out_tree = jaxpr, in_tree, out_tree
        self.in_avals, self.aux_avals = in_avals, aux_avals

    def __repr__(self) -> str:
        return "<vjp backward pass>"


def _vjp_pullback(backward: _Backward, residuals: list, cotangent: Any) -> Any:
    """Transpose the linear jaxpr: output cotangents in, input cotangents out."""
    flat_ct, ct_tree = tree_flatten(cotangent)
    if ct_tree != backward.out_tree:
        raise ValueError("unexpected tree structure.\n\nThe argument to a VJP function "
                         "returned by `jax.vjp` must match the pytree structure of the "
                         f"differentiated function's output: got {ct_tree}, expected "
                         f"{backward.out_tree}.")
    jaxpr = backward.jaxpr
    undefined = [ad.UndefinedPrimal(v.aval) for v in jaxpr.invars]
    aux_zeros = [ad.Zero(a) for a in backward.aux_avals]
    with source_info.transform_name_stack("transpose"):
        cts = ad.backward_pass(jaxpr, list(residuals), undefined, [*flat_ct, *aux_zeros])
    return tree_unflatten(backward.in_tree,
                          [_cotangent_like(a, ct) for a, ct in zip(backward.in_avals, cts)])


def _cotangent_like(aval: core.ShapedArray, ct: Any) -> Any:
    """The cotangent of an input has the input's dtype. Its weak type is the one it was
    computed with, as in JAX (that of grad at a Python complex is strong when it comes out
    of lax.complex); zeros, when there is none, have the input's weak type."""
    if ct is None or type(ct) is ad.Zero:
        return lax._convert_element_type(lax.full(aval.shape, 0, aval.dtype), aval.dtype,
                                         aval.weak_type)
    if core.get_aval(ct).dtype == aval.dtype:
        return ct
    return lax._convert_element_type(ct, aval.dtype, aval.weak_type)


def _check_scalar(x: Any) -> None:
    msg = "Gradient only defined for scalar-output functions. Output {}."
    try:
        aval = core.get_aval(x)
    except TypeError:
        raise TypeError(msg.format(f"was {x}") + "\nHint: reduce the output to a scalar "
                        "(e.g. with jnp.sum), or use jax.vjp / jax.jacrev.") from None
    if aval.shape != ():
        raise TypeError(msg.format(f"had shape: {aval.shape}") + "\nHint: reduce the output "
                        "to a scalar (e.g. with jnp.sum), or use jax.vjp / jax.jacrev.")


def _check_input_dtype(x: Any, allow_int: bool, holomorphic: bool = False,
                       name: str = "grad") -> None:
    aval = core.get_aval(x)
    if holomorphic and aval.dtype.kind != "c":
        raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, "
                        f"but got {aval.dtype.name}.")
    if aval.dtype.kind not in "fc" and not allow_int:
        raise TypeError(
            f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype "
            f"of np.inexact), but got {aval.dtype.name}. If you want to use Boolean- or "
            "integer-valued inputs, use vjp or set allow_int to True.\n"
            "Hint: pass a float, e.g. 3.0 instead of 3.")


# Complex outputs: the gradient of a function C -> C is the complex derivative only if the
# function is holomorphic (complex-differentiable), which edujax cannot check; JAX asks the
# caller to promise it with ``holomorphic=True``. A real-valued function of complex inputs
# (a loss) needs no promise. Anything else should use vjp, which takes any cotangent.
def _check_output_dtype(x: Any, holomorphic: bool, name: str = "grad") -> None:
    dtype = core.get_aval(x).dtype
    if holomorphic:
        if dtype.kind != "c":
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex "
                            f"dtype, but got {dtype.name}.")
    elif dtype.kind == "c":
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a "
                        f"sub-dtype of np.floating), but got {dtype.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex outputs, use jax.vjp "
                        "directly.")
    elif dtype.kind != "f":
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a "
                        f"sub-dtype of np.floating), but got {dtype.name}. For "
                        "differentiation of functions with integer outputs, use jax.vjp "
                        "directly.")


def _check_jacfwd_dtypes(x: Any, holomorphic: bool) -> None:
    """jacfwd pushes real basis vectors forward, so without the holomorphic promise it
    needs real inputs (JAX's rule); with it, complex inputs."""
    dtype = core.get_aval(x).dtype
    if holomorphic:
        if dtype.kind != "c":
            raise TypeError("jacfwd with holomorphic=True requires inputs with complex "
                            f"dtype, but got {dtype.name}.")
    elif dtype.kind != "f":
        raise TypeError("jacfwd requires real-valued inputs (input dtype that is a sub-dtype "
                        f"of np.floating), but got {dtype.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex inputs or integer "
                        "inputs, use jax.jvp directly.")


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False,
                   reduce_axes: Sequence = ()) -> Callable:
    """A function returning ``(fun(*args), gradient of fun w.r.t. args[argnums])``."""
    @functools.wraps(fun, updated=())
    def value_and_grad_f(*args: Any, **kwargs: Any):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for i in nums:
            if not -len(args) <= i < len(args):
                raise TypeError(f"differentiating with respect to argnums={argnums} requires "
                                f"at least {max(nums) + 1} positional arguments to be passed "
                                f"by the caller, but got only {len(args)} positional "
                                "arguments.")
        nums = tuple(i % len(args) for i in nums)
        diff_args = tuple(args[i] for i in nums)
        tree_map(lambda x: _check_input_dtype(x, allow_int, holomorphic), diff_args)

        def f_of_diff(*diff):
            full = list(args)
            for i, d in zip(nums, diff):
                full[i] = d
            return fun(*full, **kwargs)
        if has_aux:
            ans, vjp_fn, aux = vjp(f_of_diff, *diff_args, has_aux=True)
        else:
            ans, vjp_fn = vjp(f_of_diff, *diff_args)
        _check_scalar(ans)
        _check_output_dtype(ans, holomorphic)
        grads = vjp_fn(lax.full_like(ans, 1))
        if allow_int and core.at_top_level():  # an integer input's gradient is float0
            grads = tree_map(_float0_if_int, diff_args, grads)
        g = grads[0] if isinstance(argnums, int) else grads
        return ((ans, aux), g) if has_aux else (ans, g)
    return value_and_grad_f


def _float0_if_int(x: Any, g: Any) -> Any:
    dtype = core.get_aval(x).dtype
    return float0_zeros(np.shape(x)) if dtype.kind not in "fc" else g


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False,
         reduce_axes: Sequence = ()) -> Callable:
    """The gradient of a scalar function w.r.t. the argument(s) ``argnums``."""
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun, updated=())
    def grad_f(*args: Any, **kwargs: Any):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]
    return grad_f


def _argnums_partial(fun: Callable, argnums: int | Sequence[int], args: tuple):
    """``fun`` as a function of ``args[argnums]`` only, and those arguments."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    nums = tuple(i % len(args) for i in nums)

    def f(*diff):
        full = list(args)
        for i, d in zip(nums, diff):
            full[i] = d
        return fun(*full)
    return f, tuple(args[i] for i in nums)


def _std_basis(tree: Any) -> Any:
    """The rows of an identity matrix, one per scalar in ``tree``, shaped like ``tree``.

    Leaf ``x`` gets an array of shape ``(N, *x.shape)``, N being the total number of
    scalars in the tree; vmapping over the leading axis feeds one basis vector per example.
    As in JAX, the identity is one ``eye`` split into a block per leaf, each block with its
    leaf's dtype and weak type.
    """
    leaves = tree_flatten(tree)[0]
    total = sum(_size(x) for x in leaves)
    dtype = jnp.result_type(*leaves) if leaves else jnp.float32
    return _unravel_array_into_pytree(tree, 1, None, jnp.eye(total, dtype=dtype), cast=True)


def _size(x: Any) -> int:
    return int(np.prod(core.get_aval(x).shape))


def _unravel_array_into_pytree(tree: Any, axis: int, example: Any, arr: Any,
                               cast: bool = False) -> Any:
    """Cut ``arr``'s ``axis`` into one block per leaf of ``tree`` (as many entries as the
    leaf has scalars), give each block the leaf's shape in place of that axis, and the dtype
    and weak type of ``example`` (of the leaf itself when ``example`` is None).

    ``cast``: always write the cast, even when it changes nothing, as JAX's basis does (its
    cast also sets a sharding, so it is never skipped): jaxprs of jacfwd and jacrev show it."""
    leaves, treedef = tree_flatten(tree)
    axis = axis % arr.ndim
    shapes = [arr.shape[:axis] + core.get_aval(x).shape + arr.shape[axis + 1:] for x in leaves]
    parts = jnp.split(arr, np.cumsum([_size(x) for x in leaves[:-1]], dtype=int), axis)
    return tree_unflatten(treedef, [
        _possible_downcast(jnp.reshape(part, shape), leaf if example is None else example, cast)
        for part, shape, leaf in zip(parts, shapes, leaves)])


def _possible_downcast(x: Any, example: Any, always: bool = False) -> Any:
    """A Jacobian block with the dtype and weak type of ``example`` (JAX's rule: the
    output's for jacfwd, the input's for jacrev), its real part if only ``x`` is complex."""
    dtype, weak = dtypes.dtype_and_weak(example)
    if core.get_aval(x).dtype.kind == "c" and dtype.kind != "c":
        x = lax.real(x)
    if always:
        # NB: JAX's cast here carries the sharding of the basis it split, one that differs
        # from the block's, so staging keeps even a cast to the same dtype (it forwards only
        # a cast with no sharding, or the array's own). The marker does the same here.
        return lax.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak,
                                               sharding=_BASIS_SHARDING)
    return lax._convert_element_type(x, dtype, weak)


# The sharding JAX's basis cast sets (edujax has no shardings: this only stands for one). A
# cast that sets a sharding is not a no-op, so staging records it even when the dtype and
# weak type do not change (see ``forwarding_rules``); the printer hides the parameter.
_BASIS_SHARDING = "P(None, None, None)"  # what JAX's spec prints as; never read otherwise


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """The Jacobian by forward mode: ``vmap`` a JVP over the standard basis of the input."""

    def jacfun(*args):
        f_partial, diff = _argnums_partial(fun, argnums, args)
        for leaf in tree_flatten(diff)[0]:
            _check_jacfwd_dtypes(leaf, holomorphic)
        push_forward = functools.partial(jvp, f_partial, diff, has_aux=has_aux)
        # The aux output, like the primal output, is the same for every basis vector.
        outs = vmap(lambda *t: push_forward(t), out_axes=(None, -1, None) if has_aux
                    else (None, -1))(*_std_basis(diff))
        y, jac = outs[:2]
        if holomorphic:
            for leaf in tree_flatten(y)[0]:
                if core.get_aval(leaf).dtype.kind != "c":
                    raise TypeError("jacfwd with holomorphic=True requires outputs with "
                                    f"complex dtype, but got {core.get_aval(leaf).dtype.name}.")
        inputs = diff[0] if isinstance(argnums, int) else diff
        # Each output leaf's Jacobian has one column per input scalar: cut into the inputs.
        jac_tree = tree_map(lambda y_leaf, j: _unravel_array_into_pytree(inputs, -1, y_leaf, j),
                            y, jac)
        return (jac_tree, outs[2]) if has_aux else jac_tree
    return jacfun


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """The Jacobian by reverse mode: ``vmap`` the VJP over the standard basis of the output."""

    def jacfun(*args):
        f_partial, diff = _argnums_partial(fun, argnums, args)
        for leaf in tree_flatten(diff)[0]:
            _check_input_dtype(leaf, allow_int, holomorphic, "jacrev")
        y, pullback, *maybe_aux = vjp(f_partial, *diff, has_aux=has_aux)
        for leaf in tree_flatten(y)[0]:
            _check_output_dtype(leaf, holomorphic, "jacrev")
        rows = vmap(pullback)(_std_basis(y))  # one tuple of input cotangents per output scalar
        single = isinstance(argnums, int)
        rows = rows[0] if single else rows
        inputs = diff[0] if single else diff
        # Each input leaf's rows: one per output scalar, cut into the outputs; then the tree
        # of inputs of trees of outputs is turned around into JAX's layout.
        by_input = tree_map(lambda x, r: _unravel_array_into_pytree(y, 0, x, r), inputs, rows)
        jac_tree = tree_transpose(tree_structure(inputs), tree_structure(y), by_input)
        return (jac_tree, *maybe_aux) if has_aux else jac_tree
    return jacfun


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """Second derivatives: ``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                  has_aux=has_aux, holomorphic=holomorphic)


__all__ = ["jvp", "linearize", "vjp", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian",
           "tree_structure"]


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: Sequence = ()) -> Callable:
    """The transpose of a *linear* function: ``ct_out -> ct_in`` with ``<ct_out, f(x)> ==
    <ct_in, x>`` for every x.

    ``primals`` give only shapes and dtypes (arrays or ``ShapeDtypeStruct``s). ``fun`` is
    traced once into a jaxpr and that jaxpr is walked backwards with the transpose rules,
    the same backward pass that reverse mode uses on the linear part of a JVP. A function
    that is not linear fails there: a primitive such as ``sin`` has no transpose rule.
    """
    flat_p, in_tree = tree_flatten(primals)
    in_avals = [_abstract(p) for p in flat_p]
    flat_fun = _Flat(fun, in_tree)
    closed, _ = ad.trace_to_jaxpr(lambda *xs: (flat_fun(*xs), None), in_avals)
    out_tree = flat_fun.out_tree

    def transposed(cotangent: Any) -> tuple:
        flat_ct, ct_tree = tree_flatten(cotangent)
        if ct_tree != out_tree:
            raise TypeError("cotangent tree does not match function output, expected "
                            f"{out_tree} but got {ct_tree}")
        out_avals = closed.out_avals
        if any(core.get_aval(c).shape != a.shape or core.get_aval(c).dtype != a.dtype
               for c, a in zip(flat_ct, out_avals)):
            raise TypeError("cotangent type does not match function output, expected "
                            f"{tuple(out_avals)} but got {flat_ct}")
        undefined = [ad.UndefinedPrimal(a) for a in in_avals]
        with source_info.transform_name_stack("transpose"):
            cts = ad.backward_pass(closed.jaxpr, closed.consts, undefined, flat_ct)
        cts = [lax.full(a.shape, 0, a.dtype) if ct is None or type(ct) is ad.Zero
               else jnp.asarray(ct) for a, ct in zip(in_avals, cts)]
        return tuple(tree_unflatten(in_tree, cts))
    return transposed


def _abstract(x: Any) -> core.ShapedArray:
    """The aval of an array, or of a ``ShapeDtypeStruct`` (anything with shape and dtype)."""
    if isinstance(x, core.Tracer) or core.is_array_like(x):
        return core.get_aval(x)
    return core.ShapedArray(tuple(x.shape), np.dtype(x.dtype), getattr(x, "weak_type", False))


jacobian = jacrev  # JAX's name for the reverse-mode Jacobian
