"""The differentiation API: jvp, linearize, vjp, grad, value_and_grad, jacfwd, jacrev, hessian.

These functions handle pytrees, argnums and error messages; the mechanics live
in ``interpreters/ad.py`` (read its docstring first).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from edujax import core, lax
from edujax.interpreters import ad
from edujax.tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten


def _flat_fun(fun: Callable, in_tree: Any, out_store: list) -> Callable:
    """Wrap ``fun`` to take and return flat lists; remember the output tree."""
    def flat(*leaves):
        out = fun(*tree_unflatten(in_tree, list(leaves)))
        flat_out, out_tree = tree_flatten(out)
        out_store[:] = [out_tree]
        return flat_out
    return flat


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
    out_tree: list = []
    aux_store: list = []

    def fun_no_aux(*args):
        out = fun(*args)
        if has_aux:
            out, aux = out
            aux_store.append(aux)
        return out
    flat_fun = _flat_fun(fun_no_aux, tree_p, out_tree)
    outs, touts = ad.jvp_flat(flat_fun, flat_p, [_tangent_or_zero(p, t)
                                                 for p, t in zip(flat_p, flat_t)])
    touts = [ad.instantiate_zeros(t) for t in touts]
    result = (tree_unflatten(out_tree[0], outs), tree_unflatten(out_tree[0], touts))
    return (*result, aux_store[0]) if has_aux else result


def linearize(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """``fun(*primals)`` and its linear tangent map, as a function of tangents."""
    flat_p, in_tree = tree_flatten(primals)
    out_tree: list = []
    aux_store: list = []
    flat_fun = _flat_fun(_strip_aux(fun, has_aux, aux_store), in_tree, out_tree)
    outs, linear, _ = ad.linearize_flat(flat_fun, flat_p)

    def f_jvp(*tangents):
        from edujax.jaxpr import eval_jaxpr
        flat_t, _ = tree_flatten(tangents)
        return tree_unflatten(out_tree[0], eval_jaxpr(linear.jaxpr, linear.consts, *flat_t))
    result = (tree_unflatten(out_tree[0], outs), f_jvp)
    return (*result, aux_store[0]) if has_aux else result


def _strip_aux(fun: Callable, has_aux: bool, aux_store: list) -> Callable:
    if not has_aux:
        return fun

    def f(*args):
        out, aux = fun(*args)
        aux_store.append(aux)
        return out
    return f


def vjp(fun: Callable, *primals: Any, has_aux: bool = False) -> Any:
    """Reverse mode: ``fun(*primals)`` and ``vjp_fn(cotangent) -> cotangents of primals``."""
    flat_p, in_tree = tree_flatten(primals)
    out_tree: list = []
    aux_store: list = []
    flat_fun = _flat_fun(_strip_aux(fun, has_aux, aux_store), in_tree, out_tree)
    outs, pullback = ad.vjp_flat(flat_fun, flat_p)

    def vjp_fn(cotangent):
        flat_ct, ct_tree = tree_flatten(cotangent)
        if ct_tree != out_tree[0]:
            raise ValueError("unexpected tree structure of argument to vjp function: got "
                             f"{ct_tree}, but expected to match {out_tree[0]}")
        cts = pullback(flat_ct)
        cts = [ad.instantiate_zeros(ad.Zero.from_value(p)) if ct is None or type(ct) is ad.Zero
               else ct for p, ct in zip(flat_p, cts)]
        return tree_unflatten(in_tree, cts)
    result = (tree_unflatten(out_tree[0], outs), vjp_fn)
    return (*result, aux_store[0]) if has_aux else result


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


def _check_input_dtype(x: Any, allow_int: bool) -> None:
    aval = core.get_aval(x)
    if aval.dtype.kind not in "fc" and not allow_int:
        raise TypeError(
            "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
            f"np.inexact), but got {aval.dtype.name}. If you want to use Boolean- or "
            "integer-valued inputs, use vjp or set allow_int to True.\n"
            "Hint: pass a float, e.g. 3.0 instead of 3.")


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
        tree_map(lambda x: _check_input_dtype(x, allow_int), diff_args)

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
        grads = vjp_fn(lax.full_like(ans, 1))
        g = grads[0] if isinstance(argnums, int) else grads
        return ((ans, aux), g) if has_aux else (ans, g)
    return value_and_grad_f


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
    """
    import numpy as np

    from edujax import numpy as jnp
    leaves, treedef = tree_flatten(tree)
    sizes = [int(np.prod(core.get_aval(x).shape)) for x in leaves]
    total = sum(sizes)
    dtype = jnp.result_type(*leaves) if leaves else jnp.float32
    eye = jnp.eye(total, dtype=dtype)
    parts, start = [], 0
    for x, n in zip(leaves, sizes):
        block = eye[:, start:start + n] if n else jnp.zeros((total, 0), dtype)
        parts.append(jnp.reshape(block, (total, *core.get_aval(x).shape)))
        start += n
    return tree_unflatten(treedef, parts)


def _split_last_axis(arr: Any, pieces: list) -> list:
    """Split ``arr``'s last axis into the sizes of ``pieces`` and reshape to their shapes."""
    import numpy as np

    from edujax import numpy as jnp
    out, start = [], 0
    lead = arr.shape[:-1]
    for x in pieces:
        shape = core.get_aval(x).shape
        n = int(np.prod(shape))
        out.append(jnp.reshape(arr[..., start:start + n], (*lead, *shape)))
        start += n
    return out


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """The Jacobian by forward mode: ``vmap`` a JVP over the standard basis of the input."""
    from edujax.vmap import vmap

    def jacfun(*args):
        f_partial, diff = _argnums_partial(fun, argnums, args)
        for leaf in tree_flatten(diff)[0]:
            _check_input_dtype(leaf, allow_int=False)
        y, jac = vmap(lambda *t: jvp(f_partial, diff, t), out_axes=(None, -1))(
            *_std_basis(diff))
        in_leaves = tree_flatten(diff)[0]
        single = isinstance(argnums, int)
        in_tree = tree_structure(diff[0] if single else diff)

        def unravel(y_leaf, jac_leaf):
            return tree_unflatten(in_tree, _split_last_axis(jac_leaf, in_leaves))
        return tree_map(unravel, y, jac)
    return jacfun


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """The Jacobian by reverse mode: ``vmap`` the VJP over the standard basis of the output."""
    from edujax import numpy as jnp
    from edujax.tree_util import tree_transpose
    from edujax.vmap import vmap

    def jacfun(*args):
        f_partial, diff = _argnums_partial(fun, argnums, args)
        y, pullback = vjp(f_partial, *diff)
        rows = vmap(pullback)(_std_basis(y))  # one tuple of input cotangents per output scalar
        single = isinstance(argnums, int)
        rows = rows[0] if single else rows
        inputs = diff[0] if single else diff
        y_leaves, y_tree = tree_flatten(y)

        def per_input(x, row):
            moved = jnp.moveaxis(row, 0, -1) if jnp.ndim(row) else row
            pieces = _split_last_axis(moved, y_leaves)
            x_ndim = jnp.ndim(x)
            return [jnp.moveaxis(p, tuple(range(x_ndim)),
                                 tuple(range(p.ndim - x_ndim, p.ndim))) for p in pieces]
        by_input = tree_map(per_input, inputs, rows)
        # by_input: input tree of [one block per output leaf]: transpose to output tree
        # of input trees, the layout JAX returns.
        in_tree = tree_structure(inputs)
        flat_blocks = [tree_unflatten(y_tree, blocks) for blocks in tree_flatten(
            by_input, is_leaf=lambda v: isinstance(v, list))[0]]
        return tree_transpose(in_tree, y_tree, tree_unflatten(in_tree, flat_blocks))
    return jacfun


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """Second derivatives: ``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums), argnums)


__all__ = ["jvp", "linearize", "vjp", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian",
           "tree_structure"]
