"""custom_linear_solve and custom_root: differentiate a solver by the equation it solves.

A solver (conjugate gradients, Newton's method, bisection...) is a loop; differentiating
its iterations would be slow, memory-hungry and often wrong (the loop may not be
differentiable at all). The equation the answer satisfies is a better description:

* ``custom_linear_solve(matvec, b, solve)``: ``x`` solves ``A x = b`` where ``A`` is the
  linear function ``matvec``. Differentiating ``A x = b`` gives ``A dx = db - dA x``: the
  tangent is *another linear solve* with the same ``A``. Its transpose (for reverse mode)
  is a solve with ``Aᵀ`` (``transpose_solve``, or ``solve`` itself when ``symmetric``).
* ``custom_root(f, guess, solve, tangent_solve)``: ``x`` solves ``f(x) = 0``. The implicit
  function theorem gives ``dx = -(∂f/∂x)⁻¹ (∂f/∂θ dθ)`` for whatever ``θ`` f closes over;
  ``tangent_solve(g, y)`` solves the linear system ``g(dx) = y``.

As in JAX, the functions are traced to jaxprs and the arrays they close over become
explicit operands (``consts``), so the transformations see them.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from edujax import core
from edujax.core import Primitive
from edujax.custom_derivatives import custom_jvp
from edujax.interpreters import ad, batching
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import eval_jaxpr
from edujax.lax import elementwise as ew
from edujax.lax.control_flow.tracing import _trace
from edujax.lax.special import stop_gradient
from edujax.tree_util import tree_flatten, tree_structure, tree_unflatten


class _LinearSolveTuple(NamedTuple):
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self) -> _LinearSolveTuple:
        return type(self)(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _split(args, const_lengths: _LinearSolveTuple):
    """(*matvec consts, *vecmat consts, *solve consts, *transpose_solve consts, *b)."""
    parts, start = [], 0
    for n in const_lengths:
        parts.append(list(args[start:start + n]))
        start += n
    return _LinearSolveTuple(*parts), list(args[start:])


def _run(closed, args) -> list:
    return eval_jaxpr(closed.jaxpr, list(closed.consts), *args)


def _linear_solve_impl(*args, const_lengths, jaxprs):
    params, b = _split(args, const_lengths)
    return _run(jaxprs.solve, [*params.solve, *b])


linear_solve_p = Primitive("custom_linear_solve")
linear_solve_p.multiple_results = True
core.abstract_eval_rules[linear_solve_p] = lambda *avals, const_lengths, jaxprs: [
    core.ShapedArray(a.shape, a.dtype) for a in avals[sum(const_lengths):]]
core.impl_rules[linear_solve_p] = _linear_solve_impl


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    """A x = b  =>  A dx = db - (dA) x: one more solve, on the right-hand side
    ``db - jvp(matvec wrt its consts)(x)``."""
    x = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    params, _ = _split(primals, const_lengths)
    params_dot, b_dot = _split(tangents, const_lengths)
    if all(type(t) is ad.Zero for t in params_dot.matvec):
        rhs = b_dot
    else:
        matvec_at_x = lambda *consts: _run(jaxprs.matvec, [*consts, *x])  # noqa: E731
        consts_dot = [ad.instantiate_zeros(t) for t in params_dot.matvec]
        _, dA_x = ad.jvp_flat(matvec_at_x, list(params.matvec), consts_dot)
        rhs = [ad.add_tangents(db, ew.neg(d)) for db, d in zip(b_dot, dA_x)]
    rhs = [ad.instantiate_zeros(t) for t in rhs]
    flat_params = [p for group in params for p in group]
    x_dot = linear_solve_p.bind(*flat_params, *rhs, const_lengths=const_lengths, jaxprs=jaxprs)
    return x, x_dot


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
    """x = A⁻¹ b is linear in b; its transpose is (A⁻¹)ᵀ = (Aᵀ)⁻¹: the transpose solve."""
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    params, b = _split(args, const_lengths)
    assert all(ad.is_undefined_primal(x) for x in b)
    cts = [ad.instantiate_zeros(ct) for ct in cts]
    flat_t = [p for group in params.transpose() for p in group]
    ct_b = linear_solve_p.bind(*flat_t, *cts, const_lengths=const_lengths.transpose(),
                               jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + list(ct_b)


def _linear_solve_batch(args, dims, *, const_lengths, jaxprs):
    """Batch all four jaxprs and solve once. Which parts of x and b are batched must agree
    across them (solve and vecmat map b to x, matvec and transpose_solve x to b), so the
    batched sets grow until nothing changes (JAX's fixpoint)."""
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    params, b = _split(args, const_lengths)
    params_dims, b_dims = _split(dims, const_lengths)
    params_bat = _LinearSolveTuple(*[[d is not None for d in ds] for ds in params_dims])
    orig_b_bat = [d is not None for d in b_dims]
    matvec, vecmat, solve, solve_t = jaxprs
    b_bat, x_bat = orig_b_bat, [False] * len(solve.out_avals)
    for _ in range(1 + len(orig_b_bat) + len(solve.out_avals)):
        solve_b, solve_x_bat = _batch(solve, size, params_bat.solve + b_bat, x_bat)
        if vecmat is None:
            vecmat_b, x_bat_out = None, solve_x_bat
        else:
            vecmat_b, vecmat_x_bat = _batch(vecmat, size, params_bat.vecmat + b_bat, b_bat)
            x_bat_out = [v or s for v, s in zip(vecmat_x_bat, solve_x_bat)]
        matvec_b, matvec_b_bat = _batch(matvec, size, params_bat.matvec + x_bat_out, b_bat)
        if solve_t is None:
            solve_t_b, b_bat_out = None, [m or o for m, o in zip(matvec_b_bat, orig_b_bat)]
        else:
            solve_t_b, solve_t_b_bat = _batch(solve_t, size, params_bat.transpose_solve
                                              + x_bat_out, x_bat_out)
            b_bat_out = [m or s or o for m, s, o in zip(matvec_b_bat, solve_t_b_bat,
                                                        orig_b_bat)]
        if x_bat_out == x_bat and b_bat_out == b_bat:
            break
        x_bat, b_bat = x_bat_out, b_bat_out
    else:
        raise AssertionError("custom_linear_solve batching: fixed point not reached")
    batched = _LinearSolveTuple(matvec_b, vecmat_b, solve_b, solve_t_b)
    new_params = [batching.moveaxis(x, d, 0) if d is not None and d != 0 else x
                  for x, d in zip([p for ps in params for p in ps],
                                  [d for ds in params_dims for d in ds])]
    new_b = [batching.broadcast(x, size, 0) if now and not was else
             batching.moveaxis(x, d, 0) if now and d != 0 else x
             for x, d, was, now in zip(b, b_dims, orig_b_bat, b_bat)]
    outs = linear_solve_p.bind(*new_params, *new_b, const_lengths=const_lengths,
                               jaxprs=batched)
    return outs, [0 if bat else None for bat in solve_x_bat]


def _batch(closed, size: int, in_batched: list, instantiate: list) -> tuple:
    """``closed`` batched (at dimension 0) in the inputs marked, and which outputs are
    batched: those that depend on a batched input, and those ``instantiate`` forces."""
    in_dims = [0 if b else batching.not_mapped for b in in_batched]
    jaxpr, out_dims = batching.batch_jaxpr(closed, size, in_dims, instantiate=instantiate)
    return jaxpr, [d is not batching.not_mapped for d in out_dims]


ad.jvp_rules[linear_solve_p] = _linear_solve_jvp
ad.transpose_rules[linear_solve_p] = _linear_solve_transpose
batching.batching_rules[linear_solve_p] = _linear_solve_batch


def _transpose_function(matvec: Callable, b: Any) -> Callable:
    """``vecmat``: the transpose of the linear function ``matvec``, as JAX's
    ``linear_transpose`` builds it: trace matvec once (keeping even the equations that only
    pass a value on), then run that jaxpr backwards with the transpose rules."""
    b_flat, tree = tree_flatten(b)
    avals = [core.get_aval(x) for x in b_flat]

    def matvec_flat(*xs):
        return tree_flatten(matvec(tree_unflatten(tree, list(xs))))[0], None
    closed, _ = trace_to_jaxpr(matvec_flat, avals, forwarding=False)

    def vecmat(y):
        undefined = [ad.UndefinedPrimal(a) for a in avals]
        cts = ad.backward_pass(closed.jaxpr, list(closed.consts), undefined, tree_flatten(y)[0])
        return tree_unflatten(tree, [ad.instantiate_zeros(ct) for ct in cts])
    return vecmat


def custom_linear_solve(matvec: Callable, b: Any, solve: Callable,
                        transpose_solve: Callable | None = None, symmetric: bool = False,
                        has_aux: bool = False):
    """Solve ``matvec(x) = b`` with ``solve(matvec, b)``, differentiating through the linear
    system rather than through ``solve``'s iterations (see the module docstring)."""
    if has_aux:
        raise NotImplementedError("custom_linear_solve(has_aux=True) is not implemented in "
                                  "edujax")
    b_flat, tree = tree_flatten(b)
    avals = [core.get_aval(x) for x in b_flat]
    in_tree = tree_structure((b,))
    matvec_jaxpr, matvec_consts, out_tree = _trace(matvec, in_tree, avals, "custom_linear_solve")
    if out_tree != tree:
        raise TypeError(f"matvec() output pytree structure must match b, got {out_tree} "
                        f"and {tree}.")
    solve_jaxpr, solve_consts, _ = _trace(lambda x: solve(matvec, x), in_tree, avals,
                                          "custom_linear_solve")
    if symmetric:
        vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
        tsolve_jaxpr, tsolve_consts = solve_jaxpr, solve_consts
    else:
        vecmat = _transpose_function(matvec, b)
        vecmat_jaxpr, vecmat_consts, _ = _trace(vecmat, in_tree, avals, "custom_linear_solve")
        if transpose_solve is None:
            tsolve_jaxpr, tsolve_consts = None, []
        else:
            tsolve_jaxpr, tsolve_consts, _ = _trace(lambda x: transpose_solve(vecmat, x),
                                                    in_tree, avals, "custom_linear_solve")
    all_consts = [matvec_consts, vecmat_consts, solve_consts, tsolve_consts]
    const_lengths = _LinearSolveTuple(*map(len, all_consts))
    jaxprs = _LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tsolve_jaxpr)
    out = linear_solve_p.bind(*[c for cs in all_consts for c in cs], *b_flat,
                              const_lengths=const_lengths, jaxprs=jaxprs)
    return tree_unflatten(tree, out)


# ---------------------------------------------------------------- custom_root
def custom_root(f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
    """Find ``x`` with ``f(x) = 0`` as ``solve(f, initial_guess)``, differentiated implicitly
    (see the module docstring): the solver's iterations are never differentiated."""
    if has_aux:
        raise NotImplementedError("custom_root(has_aux=True) is not implemented in edujax")
    guess_flat, guess_tree = tree_flatten(initial_guess)
    avals = [core.get_aval(x) for x in guess_flat]
    in_tree = tree_structure((initial_guess,))
    f_jaxpr, f_consts, f_tree = _trace(f, in_tree, avals, "custom_root")
    if f_tree != guess_tree:
        raise TypeError(f"f() output pytree structure must match initial_guess, got "
                        f"{f_tree} and {guess_tree}.")

    def f_of(consts, x_flat):
        return _run(f_jaxpr, [*consts, *x_flat])

    @custom_jvp
    def root(consts, guess):
        # the solver sees f with its closed-over values held constant
        frozen = [stop_gradient(c) for c in consts]

        def f_frozen(x):
            return tree_unflatten(guess_tree, f_of(frozen, tree_flatten(x)[0]))
        return tree_flatten(solve(f_frozen, guess))[0]

    @root.defjvp
    def root_jvp(primals, tangents):
        consts, guess = primals
        consts_dot, _ = tangents
        solution = root(consts, guess)
        # how f moves when only its closed-over values move, at the solution:
        consts_dot = [ad.instantiate_zeros(t) for t in consts_dot]
        _, rhs = ad.jvp_flat(lambda *c: f_of(list(c), solution), list(consts), consts_dot)

        def f_jvp(dx):
            """The derivative of f in x at the solution, applied to ``dx``."""
            _, out = ad.jvp_flat(lambda *x: f_of(list(consts), list(x)), list(solution),
                                 tree_flatten(dx)[0])
            return tree_unflatten(guess_tree, out)

        dx = tangent_solve(f_jvp, tree_unflatten(guess_tree, list(rhs)))
        return solution, [ew.neg(d) for d in tree_flatten(dx)[0]]

    return tree_unflatten(guess_tree, root(list(f_consts), initial_guess))
