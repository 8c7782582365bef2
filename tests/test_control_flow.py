"""Control flow (``lax.cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``, ``map``).

Three kinds of checks, each against real JAX 0.10.2:

* printed jaxprs: the texts below were recorded from ``jax.make_jaxpr`` on the
  same programs, and edujax must print them character for character;
* values, dtypes and weak types of eager calls (recorded), plus properties that
  hold for all inputs (hypothesis): a loop primitive computes what the plain
  Python loop computes;
* error types and messages for bad input (recorded).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import edujax as jax
import edujax.numpy as jnp
from edujax import lax
from edujax.jaxpr import jaxpr_as_fun
from edujax.lax.control_flow import cond_p, scan_p, while_p

make_jaxpr = jax.make_jaxpr


def _leaf_summary(x):
    """(dtype, shape, values, weak_type) of an array, to compare with JAX's recorded values."""
    a = np.asarray(x)
    return str(a.dtype), a.shape, a.tolist(), bool(getattr(x, "weak_type", False))


# ------------------------------------------------------------------ printed jaxprs
# (name, function, arguments, what real JAX printed for make_jaxpr(function)(*arguments)).
# ``\x20`` is the space JAX prints after an equation that has no operands (iota).
JAXPR_CASES = [
    ('cond_closure_outer',
     lambda p, x, y: lax.cond(p, lambda v: v * y, lambda v: v + y, x),
     (True, 1.0, 2.0,),
     """\
{ lambda ; a:bool[] b:f32[] c:f32[]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[] g:f32[]. let h:f32[] = add g f in (h,) }
        { lambda ; i:f32[] j:f32[]. let k:f32[] = mul j i in (k,) }
      )
    ] d c b
  in (e,) }"""),
    ('cond_pred_int',
     lambda p, x: lax.cond(p, lambda v: v * 2, lambda v: v, x),
     (3, 1.0,),
     """\
{ lambda ; a:i32[] b:f32[]. let
    c:bool[] = ne a 0:i32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[]. let  in (f,) }
        { lambda ; g:f32[]. let h:f32[] = mul g 2.0:f32[] in (h,) }
      )
    ] d b
  in (e,) }"""),
    ('cond_pred_float',
     lambda p, x: lax.cond(p, lambda v: v * 2, lambda v: v, x),
     (3.0, 1.0,),
     """\
{ lambda ; a:f32[] b:f32[]. let
    c:bool[] = ne a 0.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[]. let  in (f,) }
        { lambda ; g:f32[]. let h:f32[] = mul g 2.0:f32[] in (h,) }
      )
    ] d b
  in (e,) }"""),
    ('cond_forward',
     lambda p, x, y: lax.cond(p, lambda a, b: (a, b + 1), lambda a, b: (a, b), x, y),
     (True, 1.0, 2.0,),
     """\
{ lambda ; a:bool[] b:f32[] c:f32[]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[] g:f32[]. let  in (g,) }
        { lambda ; h:f32[] i:f32[]. let j:f32[] = add i 1.0:f32[] in (j,) }
      )
    ] d b c
  in (b, e) }"""),
    ('cond_no_operands',
     lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0),
     (True,),
     """\
{ lambda ; a:bool[]. let
    b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    c:f32[] = cond[
      branches=(
        { lambda ; . let  in (2.0:f32[],) }
        { lambda ; . let  in (1.0:f32[],) }
      )
    ] b
  in (c,) }"""),
    ('cond_concrete_pred',
     lambda x: lax.cond(True, lambda v: v + 1, lambda v: v - 1, x),
     (1.0,),
     """\
{ lambda ; a:f32[]. let
    b:f32[] = cond[
      branches=(
        { lambda ; c:f32[]. let d:f32[] = sub c 1.0:f32[] in (d,) }
        { lambda ; e:f32[]. let f:f32[] = add e 1.0:f32[] in (f,) }
      )
    ] 1:i32[] a
  in (b,) }"""),
    ('cond_array_const',
     lambda p, x: lax.cond(p, lambda v: v + jnp.arange(3.0),
                           lambda v: v * np.ones(3, np.float32), x),
     (True, jnp.ones(3),),
     """\
{ lambda a:f32[3]; b:bool[] c:f32[3]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    e:f32[3] = cond[
      branches=(
        { lambda ; f:f32[3] g:f32[3]. let h:f32[3] = mul g f in (h,) }
        { lambda ; i:f32[3] j:f32[3]. let
            k:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None]\x20
            l:f32[3] = add j k
          in (l,) }
      )
    ] d a c
  in (e,) }"""),
    ('cond_shared_const',
     lambda p, x, y: lax.cond(p, lambda v: v + y, lambda v: v * y, x),
     (True, jnp.ones(3), jnp.ones(3),),
     """\
{ lambda ; a:bool[] b:f32[3] c:f32[3]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    e:f32[3] = cond[
      branches=(
        { lambda ; f:f32[3] g:f32[3]. let h:f32[3] = mul g f in (h,) }
        { lambda ; i:f32[3] j:f32[3]. let k:f32[3] = add j i in (k,) }
      )
    ] d c b
  in (e,) }"""),
    ('cond_pytree',
     lambda p, d: lax.cond(p, lambda d: {'a': d['a'] + 1, 'b': d['b']},
                           lambda d: {'a': d['a'] * 2, 'b': d['b'] - 1}, d),
     (True, {'a': 1.0, 'b': jnp.ones(2)},),
     """\
{ lambda ; a:bool[] b:f32[] c:f32[2]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    e:f32[] f:f32[2] = cond[
      branches=(
        { lambda ; g:f32[] h:f32[2]. let
            i:f32[] = mul g 2.0:f32[]
            j:f32[2] = sub h 1.0:f32[]
          in (i, j) }
        { lambda ; k:f32[] l:f32[2]. let m:f32[] = add k 1.0:f32[] in (m, l) }
      )
    ] d b c
  in (e, f) }"""),
    ('cond_operand_kw',
     lambda p, x: lax.cond(p, lambda v: v + 1, lambda v: v, operand=x),
     (True, 1.0,),
     """\
{ lambda ; a:bool[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let  in (e,) }
        { lambda ; f:f32[]. let g:f32[] = add f 1.0:f32[] in (g,) }
      )
    ] c b
  in (d,) }"""),
    ('cond_closure_only',
     lambda x: lax.cond(x > 0, lambda: x, lambda: -x),
     (1.0,),
     """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = neg e in (f,) }
        { lambda ; g:f32[]. let  in (g,) }
      )
    ] c a
  in (d,) }"""),
    ('switch',
     lambda i, x: lax.switch(i, [lambda v: v, lambda v: v+1, lambda v: v*3], x),
     (1, jnp.ones(2),),
     """\
{ lambda ; a:i32[] b:f32[2]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:i32[] = clamp 0:i32[] c 2:i32[]
    e:f32[2] = cond[
      branches=(
        { lambda ; f:f32[2]. let  in (f,) }
        { lambda ; g:f32[2]. let h:f32[2] = add g 1.0:f32[] in (h,) }
        { lambda ; i:f32[2]. let j:f32[2] = mul i 3.0:f32[] in (j,) }
      )
    ] d b
  in (e,) }"""),
    ('switch_concrete',
     lambda x: lax.switch(2, [lambda v: v, lambda v: v+1, lambda v: v*3], x),
     (1.0,),
     """\
{ lambda ; a:f32[]. let
    b:i32[] = clamp 0:i32[] 2:i32[] 2:i32[]
    c:f32[] = cond[
      branches=(
        { lambda ; d:f32[]. let  in (d,) }
        { lambda ; e:f32[]. let f:f32[] = add e 1.0:f32[] in (f,) }
        { lambda ; g:f32[]. let h:f32[] = mul g 3.0:f32[] in (h,) }
      )
    ] b a
  in (c,) }"""),
    ('switch_one',
     lambda x: lax.switch(0, [lambda v: v + 1], x),
     (1.0,),
     """\
{ lambda ; a:f32[]. let b:f32[] = add a 1.0:f32[] in (b,) }"""),
    ('while_closure',
     lambda n, x: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, 1.0)),
     (5, 2.0,),
     """\
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] d:f32[] = while[
      body_jaxpr={ lambda ; e:f32[] f:i32[] g:f32[]. let
          h:i32[] = add f 1:i32[]
          i:f32[] = mul g e
        in (h, i) }
      body_nconsts=1
      cond_jaxpr={ lambda ; j:i32[] k:i32[] l:f32[]. let
          m:bool[] = lt k j
        in (m,) }
      cond_nconsts=1
    ] a b 0:i32[] 1.0:f32[]
  in (c, d) }"""),
    ('while_move_to_const',
     lambda n, x: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1]), (0, x)),
     (5, 2.0,),
     """\
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] = while[
      body_jaxpr={ lambda ; d:f32[] e:i32[]. let
          f:i32[] = add e 1:i32[]
        in (f,) }
      body_nconsts=1
      cond_jaxpr={ lambda ; g:i32[] h:i32[]. let i:bool[] = lt h g in (i,) }
      cond_nconsts=1
    ] a b 0:i32[]
  in (c, b) }"""),
    ('while_move_to_const2',
     lambda n, x: lax.while_loop(lambda c: c[0] < n,
                                 lambda c: (c[0] + 1, c[1], c[2] + c[1]), (0, x, x)),
     (5, 2.0,),
     """\
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] d:f32[] = while[
      body_jaxpr={ lambda ; e:f32[] f:i32[] g:f32[]. let
          h:i32[] = add f 1:i32[]
          i:f32[] = add g e
        in (h, i) }
      body_nconsts=1
      cond_jaxpr={ lambda ; j:i32[] k:i32[] l:f32[]. let
          m:bool[] = lt k j
        in (m,) }
      cond_nconsts=1
    ] a b 0:i32[] b
  in (c, b, d) }"""),
    ('while_move_dce',
     lambda x: lax.while_loop(lambda c: (x + 1.0 > 0) & (c[0] < 3),
                              lambda c: (c[0] + 1, c[1]), (0, x)),
     (1.0,),
     """\
{ lambda ; a:f32[]. let
    b:i32[] = while[
      body_jaxpr={ lambda ; c:f32[] d:i32[]. let
          e:i32[] = add d 1:i32[]
        in (e,) }
      body_nconsts=1
      cond_jaxpr={ lambda ; f:f32[] g:i32[]. let
          h:f32[] = add f 1.0:f32[]
          i:bool[] = gt h 0.0:f32[]
          j:bool[] = lt g 3:i32[]
          k:bool[] = convert_element_type[new_dtype=bool weak_type=False] i
          l:bool[] = convert_element_type[new_dtype=bool weak_type=False] j
          m:bool[] = and k l
        in (m,) }
      cond_nconsts=1
    ] a a 0:i32[]
  in (b, a) }"""),
    ('while_weak_promote',
     lambda x: lax.while_loop(lambda c: c < 3.0, lambda c: c + x, 0),
     (1.0,),
     """\
{ lambda ; a:f32[]. let
    b:f32[] = while[
      body_jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          f:f32[] = add d e
        in (f,) }
      body_nconsts=1
      cond_jaxpr={ lambda ; g:f32[]. let h:bool[] = lt g 3.0:f32[] in (h,) }
      cond_nconsts=0
    ] a 0.0:f32[]
  in (b,) }"""),
    ('while_plain',
     lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2), (0, x)),
     (1,),
     """\
{ lambda ; a:i32[]. let
    b:i32[] c:i32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[]. let
          f:i32[] = add d 1:i32[]
          g:i32[] = mul e 2:i32[]
        in (f, g) }
      body_nconsts=0
      cond_jaxpr={ lambda ; h:i32[] i:i32[]. let
          j:bool[] = lt h 10:i32[]
        in (j,) }
      cond_nconsts=0
    ] 0:i32[] a
  in (b, c) }"""),
    ('fori_traced',
     lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0),
     (10,),
     """\
{ lambda ; a:i32[]. let
    _:i32[] _:i32[] b:i32[] = while[
      body_jaxpr={ lambda ; c:i32[] d:i32[] e:i32[]. let
          f:i32[] = add c 1:i32[]
          g:i32[] = add e c
        in (f, d, g) }
      body_nconsts=0
      cond_jaxpr={ lambda ; h:i32[] i:i32[] j:i32[]. let
          k:bool[] = lt h i
        in (k,) }
      cond_nconsts=0
    ] 0:i32[] a 0:i32[]
  in (b,) }"""),
    ('fori_traced_closure',
     lambda n, x: lax.fori_loop(0, n, lambda i, c: c * x, 1.0),
     (5, 2.0,),
     """\
{ lambda ; a:i32[] b:f32[]. let
    _:i32[] _:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:f32[] e:i32[] f:i32[] g:f32[]. let
          h:i32[] = add e 1:i32[]
          i:f32[] = mul g d
        in (h, f, i) }
      body_nconsts=1
      cond_jaxpr={ lambda ; j:i32[] k:i32[] l:f32[]. let
          m:bool[] = lt j k
        in (m,) }
      cond_nconsts=0
    ] b 0:i32[] a 1.0:f32[]
  in (c,) }"""),
    ('fori_traced_i16',
     lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 1),
     (np.int16(3),),
     """\
{ lambda ; a:i16[]. let
    _:i16[] _:i16[] b:i16[] = while[
      body_jaxpr={ lambda ; c:i16[] d:i16[] e:i16[]. let
          f:i16[] = add c 1:i16[]
          g:i16[] = add e c
        in (f, d, g) }
      body_nconsts=0
      cond_jaxpr={ lambda ; h:i16[] i:i16[] j:i16[]. let
          k:bool[] = lt h i
        in (k,) }
      cond_nconsts=0
    ] 0:i16[] a 1:i16[]
  in (b,) }"""),
    ('fori_static',
     lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0),
     (2.0,),
     """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] = scan[
      jaxpr={ lambda ; c:f32[] d:i32[] e:f32[]. let
          f:i32[] = add d 1:i32[]
          g:f32[] = mul e c
        in (f, g) }
      length=3
      num_carry=2
      num_consts=1
      reverse=False
      unroll=1
    ] a 0:i32[] 1.0:f32[]
  in (b,) }"""),
    ('fori_static2',
     lambda x: lax.fori_loop(2, 7, lambda i, c: c + i, x),
     (2,),
     """\
{ lambda ; a:i32[]. let
    _:i32[] b:i32[] = scan[
      jaxpr={ lambda ; c:i32[] d:i32[]. let
          e:i32[] = add c 1:i32[]
          f:i32[] = add d c
        in (e, f) }
      length=5
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 2:i32[] a
  in (b,) }"""),
    ('fori_static_i16',
     lambda x: lax.fori_loop(np.int16(0), 3, lambda i, c: c + i, x),
     (1,),
     """\
{ lambda ; a:i32[]. let
    _:i32[] b:i32[] = scan[
      jaxpr={ lambda ; c:i32[] d:i32[]. let
          e:i32[] = add c 1:i32[]
          f:i32[] = add d c
        in (e, f) }
      length=3
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }"""),
    ('fori_static_unroll',
     lambda x: lax.fori_loop(0, 4, lambda i, c: c + i, x, unroll=2),
     (1,),
     """\
{ lambda ; a:i32[]. let
    _:i32[] b:i32[] = scan[
      jaxpr={ lambda ; c:i32[] d:i32[]. let
          e:i32[] = add c 1:i32[]
          f:i32[] = add d c
        in (e, f) }
      length=4
      num_carry=2
      num_consts=0
      reverse=False
      unroll=2
    ] 0:i32[] a
  in (b,) }"""),
    ('fori_static_unroll_true',
     lambda x: lax.fori_loop(0, 4, lambda i, c: c + i, x, unroll=True),
     (1,),
     """\
{ lambda ; a:i32[]. let
    _:i32[] b:i32[] = scan[
      jaxpr={ lambda ; c:i32[] d:i32[]. let
          e:i32[] = add c 1:i32[]
          f:i32[] = add d c
        in (e, f) }
      length=4
      num_carry=2
      num_consts=0
      reverse=False
      unroll=4
    ] 0:i32[] a
  in (b,) }"""),
    ('scan_cumsum',
     lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs),
     (jnp.arange(1.0, 6.0),),
     """\
{ lambda ; a:f32[5]. let
    b:f32[] c:f32[5] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          g:f32[] = add f e
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          i:f32[] = mul h e
        in (g, i) }
      length=5
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] a
  in (b, c) }"""),
    ('scan_move_to_const',
     lambda x, xs: lax.scan(lambda c, a: ((c[0] + a, c[1]), c[1] * a), (0.0, x), xs),
     (2.0, jnp.ones(3),),
     """\
{ lambda ; a:f32[] b:f32[3]. let
    c:f32[] d:f32[3] = scan[
      jaxpr={ lambda ; e:f32[] f:f32[] g:f32[]. let
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          i:f32[] = add h g
          j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
          k:f32[] = mul j g
        in (i, k) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] a 0.0:f32[] b
  in (c, a, d) }"""),
    ('scan_ext_fwd',
     lambda xs: lax.scan(lambda c, a: (c + a, a), 0.0, xs),
     (jnp.ones(3),),
     """\
{ lambda ; a:f32[3]. let
    b:f32[] = scan[
      jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          f:f32[] = add e d
        in (f,) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] a
  in (b, a) }"""),
    ('scan_retrace',
     lambda xs: lax.scan(lambda c, a: (c + a, c), 0, xs),
     (jnp.ones(3),),
     """\
{ lambda ; a:f32[3]. let
    b:f32[] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = add d e in (f, d) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] a
  in (b, c) }"""),
    ('scan_tree',
     lambda xs: lax.scan(lambda c, a: ({'s': c['s'] + a['u'], 't': c['t'] * 2}, (a['u'], c['s'])),
                         {'s': 0.0, 't': jnp.ones(2)}, {'u': xs}),
     (jnp.ones(3),),
     """\
{ lambda ; a:f32[3]. let
    b:f32[2] = broadcast_in_dim 1.0:f32[]
    c:f32[] d:f32[2] e:f32[3] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[2] h:f32[]. let
          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          j:f32[] = add i h
          k:f32[2] = mul g 2.0:f32[]
        in (j, k, f) }
      length=3
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] b a
  in (c, d, a, e) }"""),
    ('scan_nox',
     lambda c: lax.scan(lambda c, _: (c + 1, c), c, length=4),
     (1,),
     """\
{ lambda ; a:i32[]. let
    b:i32[] c:i32[4] = scan[
      jaxpr={ lambda ; d:i32[]. let e:i32[] = add d 1:i32[] in (e, d) }
      length=4
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b, c) }"""),
    ('scan_reverse_unroll',
     lambda xs: lax.scan(lambda c, a: (c + a, c*a), 0.0, xs, reverse=True, unroll=2),
     (jnp.ones(3),),
     """\
{ lambda ; a:f32[3]. let
    b:f32[] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          g:f32[] = add f e
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          i:f32[] = mul h e
        in (g, i) }
      length=3
      num_carry=1
      num_consts=0
      reverse=True
      unroll=2
    ] 0.0:f32[] a
  in (b, c) }"""),
    ('scan_unroll_true',
     lambda xs: lax.scan(lambda c, a: (c + a, c*a), 0.0, xs, unroll=True),
     (jnp.ones(3),),
     """\
{ lambda ; a:f32[3]. let
    b:f32[] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          g:f32[] = add f e
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          i:f32[] = mul h e
        in (g, i) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=3
    ] 0.0:f32[] a
  in (b, c) }"""),
    ('scan_length0',
     lambda x: lax.scan(lambda c, x: (c+1, None), 0, None, length=0),
     (1.0,),
     """\
{ lambda ; a:f32[]. let
    b:i32[] = scan[
      jaxpr={ lambda ; c:i32[]. let d:i32[] = add c 1:i32[] in (d,) }
      length=0
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[]
  in (b,) }"""),
    ('scan_consts',
     lambda xs, w: lax.scan(lambda c, a: (c + a * w, c), 0.0, xs),
     (jnp.ones(3), 2.0,),
     """\
{ lambda ; a:f32[3] b:f32[]. let
    c:f32[] d:f32[3] = scan[
      jaxpr={ lambda ; e:f32[] f:f32[] g:f32[]. let
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
          i:f32[] = mul g h
          j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          k:f32[] = add j i
        in (k, f) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] b 0.0:f32[] a
  in (c, d) }"""),
    ('scan_closure_array',
     lambda xs: lax.scan(lambda c, a: (c + a * jnp.arange(3.0), c), jnp.zeros(3), xs),
     (jnp.ones(4),),
     """\
{ lambda ; a:f32[4]. let
    b:f32[3] = broadcast_in_dim 0.0:f32[]
    c:f32[3] d:f32[4,3] = scan[
      jaxpr={ lambda ; e:f32[3] f:f32[]. let
          g:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None]\x20
          h:f32[3] = mul f g
          i:f32[3] = add e h
        in (i, e) }
      length=4
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] b a
  in (c, d) }"""),
    ('scan_2d',
     lambda xs: lax.scan(lambda c, row: (c + row.sum(), row * 2), 0.0, xs),
     (jnp.ones((4, 3)),),
     """\
{ lambda ; a:f32[4,3]. let
    b:f32[] c:f32[4,3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[3]. let
          f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          h:f32[] = add g f
          i:f32[3] = mul e 2.0:f32[]
        in (h, i) }
      length=4
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] a
  in (b, c) }"""),
    ('map',
     lambda xs: lax.map(lambda x: x * 2, xs),
     (jnp.ones(3),),
     """\
{ lambda ; a:f32[3]. let
    b:f32[3] = scan[
      jaxpr={ lambda ; c:f32[]. let d:f32[] = mul c 2.0:f32[] in (d,) }
      length=3
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b,) }"""),
    ('map_tree',
     lambda xs: lax.map(lambda x: (x['a'] * 2, x['b'].sum()), {'a': xs, 'b': jnp.ones((3, 2))}),
     (jnp.ones(3),),
     """\
{ lambda ; a:f32[3]. let
    b:f32[3,2] = broadcast_in_dim 1.0:f32[]
    c:f32[3] d:f32[3] = scan[
      jaxpr={ lambda ; e:f32[] f:f32[2]. let
          g:f32[] = mul e 2.0:f32[]
          h:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
        in (g, h) }
      length=3
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] a b
  in (c, d) }"""),
    ('nested_cond_in_while',
     lambda x: lax.while_loop(
         lambda c: c < 10.0,
         lambda c: lax.cond(c > 5.0, lambda v: v + 2.0, lambda v: v + 1.0, c), x),
     (0.0,),
     """\
{ lambda ; a:f32[]. let
    b:f32[] = while[
      body_jaxpr={ lambda ; c:f32[]. let
          d:bool[] = gt c 5.0:f32[]
          e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] d
          f:f32[] = cond[
            branches=(
              { lambda ; g:f32[]. let h:f32[] = add g 1.0:f32[] in (h,) }
              { lambda ; i:f32[]. let j:f32[] = add i 2.0:f32[] in (j,) }
            )
          ] e c
        in (f,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; k:f32[]. let l:bool[] = lt k 10.0:f32[] in (l,) }
      cond_nconsts=0
    ] a
  in (b,) }"""),
    ('nested_scan_in_cond',
     lambda p, xs: lax.cond(p, lambda v: lax.scan(lambda c, a: (c + a, c), 0.0, v)[0],
                            lambda v: jnp.sum(v), xs),
     (True, jnp.ones(3),),
     """\
{ lambda ; a:bool[] b:f32[3]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[3]. let
            f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e
          in (f,) }
        { lambda ; g:f32[3]. let
            h:f32[] i:f32[3] = scan[
              jaxpr={ lambda ; j:f32[] k:f32[]. let
                  l:f32[] = convert_element_type[
                    new_dtype=float32
                    weak_type=False
                  ] j
                  m:f32[] = add l k
                in (m, j) }
              length=3
              num_carry=1
              num_consts=0
              reverse=False
              unroll=1
            ] 0.0:f32[] g
          in (h,) }
      )
    ] c b
  in (d,) }"""),
    ('nested_fori_in_scan',
     lambda xs, n: lax.scan(lambda c, a: (lax.fori_loop(0, n, lambda i, z: z + a, c), c), 0.0, xs),
     (jnp.ones(3), 4,),
     """\
{ lambda ; a:f32[3] b:i32[]. let
    c:f32[] d:f32[3] = scan[
      jaxpr={ lambda ; e:i32[] f:f32[] g:f32[]. let
          h:i32[] i:i32[] j:f32[] = while[
            body_jaxpr={ lambda ; k:f32[] l:i32[] m:i32[] n:f32[]. let
                o:i32[] = add l 1:i32[]
                p:f32[] = convert_element_type[
                  new_dtype=float32
                  weak_type=False
                ] n
                q:f32[] = add p k
              in (o, m, q) }
            body_nconsts=1
            cond_jaxpr={ lambda ; r:i32[] s:i32[] t:f32[]. let
                u:bool[] = lt r s
              in (u,) }
            cond_nconsts=0
          ] g 0:i32[] e f
        in (j, f) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] b 0.0:f32[] a
  in (c, d) }"""),
    ('nested_closure_deep',
     lambda x, y: lax.cond(x > 0,
                           lambda: lax.while_loop(lambda c: c < y, lambda c: c + x, 0.0),
                           lambda: y),
     (1.0, 5.0,),
     """\
{ lambda ; a:f32[] b:f32[]. let
    c:bool[] = gt a 0.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[] g:f32[]. let  in (f,) }
        { lambda ; h:f32[] i:f32[]. let
            j:f32[] = while[
              body_jaxpr={ lambda ; k:f32[] l:f32[]. let
                  m:f32[] = add l k
                in (m,) }
              body_nconsts=1
              cond_jaxpr={ lambda ; n:f32[] o:f32[]. let
                  p:bool[] = lt o n
                in (p,) }
              cond_nconsts=1
            ] h i 0.0:f32[]
          in (j,) }
      )
    ] d b a
  in (e,) }"""),
]

# Cases where the text differs for reasons outside control flow; they pass once fixed.
def _jaxpr_params() -> list:
    return [pytest.param(fun, args, expected, id=name)
            for name, fun, args, expected in JAXPR_CASES]


@pytest.mark.parametrize("fun, args, expected", _jaxpr_params())
def test_jaxpr_text_matches_jax(fun, args, expected):
    assert str(make_jaxpr(fun)(*args)) == expected


def test_golden_jaxprs_evaluate_like_eager_calls():
    """Running a staged jaxpr (the reference interpreter) gives what the eager call gives."""
    for name, fun, args, _ in JAXPR_CASES:
        closed = make_jaxpr(fun)(*args)
        flat_args = jax.tree_util.tree_leaves(args)
        staged = jaxpr_as_fun(closed)(*flat_args)
        eager = jax.tree_util.tree_leaves(fun(*args))
        assert len(staged) == len(eager), name
        for s, e in zip(staged, eager):
            np.testing.assert_allclose(np.asarray(s), np.asarray(e), rtol=1e-6, err_msg=name)


# ------------------------------------------------------------------ eager values (from JAX)
# (expression, JAX's leaves as (dtype, shape, values, weak_type))
F32, I32 = "float32", "int32"
VALUE_CASES = [
    ("lax.cond(False, lambda x: x + 1, lambda x: x - 1, 3.0)", [(F32, (), 2.0, True)]),
    ("lax.cond(True, lambda x: x + 1, lambda x: x - 1, jnp.float32(3.0))",
     [(F32, (), 4.0, False)]),
    ("lax.cond(3, lambda x: x, lambda x: x + 1, 3.0)", [(F32, (), 3.0, True)]),
    ("lax.cond(True, lambda: 1.0, lambda: 2.0)", [(F32, (), 1.0, True)]),
    ("lax.cond(True, lambda d: {'a': d['a'] + 1, 'b': d['b']}, lambda d: d, "
     "{'a': 1.0, 'b': jnp.ones(2)})", [(F32, (), 2.0, True), (F32, (2,), [1.0, 1.0], False)]),
    ("lax.cond(True, lambda a, b: (a, b + 1), lambda a, b: (a, b), 1.0, 2)",
     [(F32, (), 1.0, True), (I32, (), 3, True)]),
    ("lax.cond(True, lambda a, b: (a, b + 1), lambda a, b: (a, b), np.ones(2), 2)",
     [(F32, (2,), [1.0, 1.0], False), (I32, (), 3, True)]),
    ("lax.switch(2, [lambda x: x, lambda x: 2 * x, lambda x: x ** 2], 5.0)",
     [(F32, (), 25.0, True)]),
    ("lax.switch(7, [lambda x: x, lambda x: 2 * x, lambda x: x ** 2], 5.0)",
     [(F32, (), 25.0, True)]),
    ("lax.switch(-3, [lambda x: x, lambda x: 2 * x, lambda x: x ** 2], 5.0)",
     [(F32, (), 5.0, True)]),
    ("lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2), (0, 1))",
     [(I32, (), 10, True), (I32, (), 1024, True)]),
    ("lax.while_loop(lambda c: c < 10, lambda c: c + 1.5, 0)", [(F32, (), 10.5, False)]),
    ("lax.while_loop(lambda c: c[0] < 3, lambda c: [c[0] + 1], [0])", [(I32, (), 3, True)]),
    ("lax.fori_loop(0, 10, lambda i, x: x + i, 0)", [(I32, (), 45, True)]),
    ("lax.fori_loop(0, 10, lambda i, x: x + i, 0.0)", [(F32, (), 45.0, True)]),
    ("lax.fori_loop(5, 2, lambda i, x: x + i, 0)", [(I32, (), 0, True)]),
    ("lax.fori_loop(jnp.int32(0), 3, lambda i, x: x + i, 0)", [(I32, (), 3, True)]),
    ("lax.fori_loop(jnp.array(1), jnp.array(4), lambda i, x: x + i, 0)", [(I32, (), 6, True)]),
    ("lax.fori_loop(3, 3, lambda i, x: x + i, 0.0)", [(F32, (), 0.0, True)]),
    ("lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(1.0, 6.0))",
     [(F32, (), 15.0, False), (F32, (5,), [0.0, 2.0, 9.0, 24.0, 50.0], False)]),
    ("lax.scan(lambda c, x: (c + x, c * x), 0, jnp.arange(1, 6))",
     [(I32, (), 15, False), (I32, (5,), [0, 2, 9, 24, 50], False)]),
    ("lax.scan(lambda c, x: (c + x, c * x), 0, jnp.arange(1.0, 6.0))",
     [(F32, (), 15.0, False), (F32, (5,), [0.0, 2.0, 9.0, 24.0, 50.0], False)]),
    ("lax.scan(lambda c, x: (c + 1, c), 0, length=3)",
     [(I32, (), 3, True), (I32, (3,), [0, 1, 2], True)]),
    ("lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(4.0), reverse=True)",
     [(F32, (), 6.0, False), (F32, (4,), [6.0, 5.0, 3.0, 0.0], True)]),
    ("lax.scan(lambda c, x: (c + x, c * 2), 0.0, jnp.zeros((0,)))",
     [(F32, (), 0.0, False), (F32, (0,), [], True)]),
    ("lax.scan(lambda c, x: (c + x, c), 0.0, np.arange(3.0))",
     [(F32, (), 3.0, False), (F32, (3,), [0.0, 0.0, 1.0], True)]),
    ("lax.scan(lambda c, x: (c + x, x), 0, np.arange(3))",
     [(I32, (), 3, False), (I32, (3,), [0, 1, 2], False)]),
    ("lax.scan(lambda c, row: (c + row.sum(), row * c), 1.0, jnp.arange(6.0).reshape(3, 2))",
     [(F32, (), 16.0, False), (F32, (3, 2), [[0.0, 1.0], [4.0, 6.0], [28.0, 35.0]], False)]),
    ("lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(4.0), unroll=2)",
     [(F32, (), 6.0, False), (F32, (4,), [0.0, 0.0, 1.0, 3.0], True)]),
    ("lax.map(lambda x: x * 2, jnp.arange(3))", [(I32, (3,), [0, 2, 4], False)]),
    ("lax.map(lambda x: (x['a'] * 2, x['b']), {'a': jnp.arange(3), 'b': jnp.ones((3, 2))})",
     [(I32, (3,), [0, 2, 4], False), (F32, (3, 2), [[1.0] * 2] * 3, False)]),
    ("lax.while_loop(lambda c: c < 10.0, "
     "lambda c: lax.cond(c > 5.0, lambda v: v + 2.0, lambda v: v + 1.0, c), 0.0)",
     [(F32, (), 10.0, True)]),
    ("lax.cond(True, lambda v: lax.scan(lambda c, a: (c + a, c), 0.0, v), "
     "lambda v: (jnp.sum(v), v), jnp.arange(3.0))",
     [(F32, (), 3.0, False), (F32, (3,), [0.0, 0.0, 1.0], False)]),
    ("(lambda array: lax.fori_loop(0, 10, lambda i, x: x + array[i], 0))(jnp.arange(10))",
     [(I32, (), 45, False)]),
]


@pytest.mark.parametrize("expr, expected", VALUE_CASES, ids=[e for e, _ in VALUE_CASES])
def test_eager_values_dtypes_and_weak_types_match_jax(expr, expected):
    out = eval(expr, {"lax": lax, "jnp": jnp, "np": np})
    leaves = jax.tree_util.tree_leaves(out)
    assert [_leaf_summary(x) for x in leaves] == [(d, tuple(s), v, w)
                                                  for d, s, v, w in expected]


def test_output_containers_follow_the_functions():
    """A list stays a list, None stays None, and a pass-through Python value is returned as is."""
    carry, ys = lax.scan(lambda c, x: (c + x, None), 0.0, jnp.arange(4.0))
    assert ys is None and float(carry) == 6.0
    out = lax.scan(lambda c, x: [c + x, c], 0.0, jnp.ones(2))
    assert type(out) is list
    i, y = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]), (0, 1.0))
    assert int(i) == 3 and y == 1.0 and type(y) is float  # JAX hands back the unchanged 1.0
    assert lax.switch(2, [lambda x: x + 1], 5.0) == 6.0  # one branch: just called


def test_fori_loop_traces_its_body_once():
    """The conformance gotcha: the body runs once, on tracers, so next() is called once."""
    iterator = iter(range(10))
    out = lax.fori_loop(0, 10, lambda i, x: x + next(iterator), 0)
    assert int(out) == 0 and next(iterator) == 1


def test_both_branches_are_traced_even_for_a_python_bool():
    calls = []
    out = lax.cond(True, lambda x: calls.append("t") or x + 1, lambda x: calls.append("f") or x,
                   1.0)
    assert calls == ["t", "f"] and float(out) == 2.0


def test_fori_loop_lowers_to_scan_or_while():
    """Static bounds give a scan (reverse-differentiable); traced bounds give a while."""
    static = make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x))(1)
    traced = make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 1))(3)
    assert [e.primitive for e in static.eqns] == [scan_p]
    assert [e.primitive for e in traced.eqns] == [while_p]


def test_closed_over_values_become_leading_operands():
    w = jnp.arange(3.0)
    closed = make_jaxpr(lambda p, x: lax.cond(p, lambda v: v * w, lambda v: v, x))(True, w)
    eqn = closed.eqns[-1]
    assert eqn.primitive is cond_p
    assert len(eqn.invars) == 3  # index, the constant w, the operand x
    assert all(len(b.in_avals) == 2 for b in eqn.params["branches"])


# ------------------------------------------------------------------ properties (vs Python loops)

@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-100, 100, width=32), min_size=1, max_size=12))
def test_scan_cumulative_sum_is_numpy_cumsum(values):
    xs = np.array(values, np.float32)
    total, sums = lax.scan(lambda c, x: (c + x, c + x), np.float32(0), xs)
    np.testing.assert_allclose(np.asarray(sums), np.cumsum(xs), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(float(total), np.cumsum(xs)[-1], rtol=1e-5, atol=1e-3)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=12))
def test_reverse_scan_is_a_scan_of_the_reversed_input(values):
    xs = np.array(values, np.int32)
    carry, ys = lax.scan(lambda c, x: (c * 2 + x, c), 0, xs, reverse=True)
    expected_ys, c = [], 0
    for x in xs[::-1]:
        expected_ys.append(c)
        c = c * 2 + int(x)
    assert int(carry) == np.int32(c) and np.asarray(ys).tolist() == expected_ys[::-1]


@settings(max_examples=30, deadline=None)
@given(st.integers(-5, 40), st.integers(1, 7))
def test_while_loop_counts_like_python(limit, step):
    def python(n):
        count = 0
        while n < limit:
            n, count = n + step, count + 1
        return n, count

    out = lax.while_loop(lambda c: c[0] < limit, lambda c: (c[0] + step, c[1] + 1), (0, 0))
    assert tuple(int(v) for v in out) == python(0)


@settings(max_examples=30, deadline=None)
@given(st.integers(-3, 12), st.integers(-3, 12))
def test_fori_loop_matches_range_for_static_and_traced_bounds(lower, upper):
    expected = sum(i * i for i in range(lower, upper))
    assert int(lax.fori_loop(lower, upper, lambda i, x: x + i * i, 0)) == expected
    closed = make_jaxpr(lambda lo, hi: lax.fori_loop(lo, hi, lambda i, x: x + i * i, 0))(
        lower, upper)
    assert int(jaxpr_as_fun(closed)(lower, upper)[0]) == expected


@settings(max_examples=30, deadline=None)
@given(st.integers(-5, 8), st.floats(-10, 10, width=32))
def test_switch_clamps_its_index(index, x):
    branches = [lambda v: v + 1.0, lambda v: v * 2.0, lambda v: v - 3.0]
    expected = branches[min(max(index, 0), 2)](np.float32(x))
    np.testing.assert_allclose(float(lax.switch(index, branches, np.float32(x))), expected)


@settings(max_examples=30, deadline=None)
@given(st.booleans(), st.floats(-10, 10, width=32))
def test_cond_is_python_if(pred, x):
    out = lax.cond(pred, lambda v: v * 3.0, lambda v: -v, np.float32(x))
    assert float(out) == (np.float32(x) * np.float32(3.0) if pred else -np.float32(x))


# ------------------------------------------------------------------ errors (recorded from JAX)
# (expression, exception type, JAX's first message line)
ERROR_CASES = [
    ("lax.switch(2.0, [lambda x: x + 1, lambda x: x], 5.0)", TypeError,
     "Index type must be an integer, got 2.0 as float32"),
    ("lax.switch(jnp.array([1]), [lambda x: x + 1, lambda x: x], 5.0)", TypeError,
     "Branch index must be scalar, got [1] of shape (1,)."),
    ("lax.switch(0, [], 5.0)", ValueError, "Empty branch sequence"),
    ("lax.switch(1, [lambda x: x, lambda x: jnp.ones(3)], 3.0)", TypeError,
     "switch branches must have equal output types but they differ."),
    ("lax.cond(True, lambda x: x + 1, lambda x: (x - 1).astype(jnp.int32), 3.0)", TypeError,
     "cond branches must have equal output types but they differ."),
    ("lax.cond(True, lambda x: (x, x), lambda x: x, 3.0)", TypeError,
     "cond branch outputs must have the same pytree structure, but they differ:"),
    ("lax.cond(jnp.array([True, False]), lambda x: x, lambda x: x, 3.0)", TypeError,
     "Pred must be a scalar, got [ True False] of shape (2,)."),
    ("lax.cond(None, lambda x: x, lambda x: x + 1, 3.0)", TypeError, "cond predicate is None"),
    ("lax.cond(True, 1, lambda x: x + 1, 3.0)", TypeError,
     "lax.cond: true_fun and false_fun arguments should be callable."),
    ("lax.cond(True, lambda x: 1.0, lambda x: 2.0, 'abc')", TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ("lax.cond('a', lambda: 1.0, lambda: 2.0)", TypeError,
     "Pred must be a scalar, got a of type <class 'str'>"),
    ("lax.cond(1j, lambda: 1.0, lambda: 2.0)", TypeError,
     "Pred type must be either boolean or number, got complex64."),
    ("lax.while_loop(lambda c: c < 10, lambda c: (c + 1).astype(jnp.float32), jnp.int32(0))",
     TypeError, "while_loop body function carry input and carry output must have equal types, "
     "but they differ:"),
    ("lax.while_loop(lambda c: c[0] < 10, lambda c: c[0], (1, 2))", TypeError,
     "while_loop body function carry input and carry output must have the same pytree "
     "structure, but they differ:"),
    ("lax.while_loop(lambda c: c, lambda c: c - 1, 10)", TypeError,
     "cond_fun must return a boolean scalar, but got output type(s) "
     "[ShapedArray(int32[], weak_type=True)]."),
    ("lax.while_loop(lambda c: (c < 1, c < 2), lambda c: c - 1, 1.0)", TypeError,
     "cond_fun must return a boolean scalar, but got pytree PyTreeDef((*, *))."),
    ("lax.fori_loop(0, 3, lambda i, x: x + 1.5, jnp.int32(0))", TypeError,
     "scan body function carry input and carry output must have equal types, but they "
     "differ:"),
    ("lax.fori_loop(0.0, 3, lambda i, x: x + 1.5, jnp.int32(0))", TypeError,
     "lower and upper arguments to fori_loop must have equal types, got float32 and int32"),
    ("make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, x: x, 0, unroll=2))(3)", ValueError,
     "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."),
    ("lax.scan(lambda c, x: (c + 1, c), 0)", ValueError,
     "scan got no values to scan over and `length` not provided."),
    ("lax.scan(lambda c, x: (c + 1, c), 0, jnp.ones(3), length=4)", ValueError,
     "scan got `length` argument of 4 which disagrees with leading axis sizes [3]."),
    ("lax.scan(lambda c, x: (c + 1, c), 0, (jnp.ones(3), jnp.ones(4)))", ValueError,
     "scan got values with different leading axis sizes: 3, 4."),
    ("lax.scan(lambda c, x: (c + x, c), 0.0, [1.0, 2.0])", ValueError,
     "scan got value with no leading axis to scan over: 1.0, 2.0."),
    ("lax.scan(lambda c, x: c + x, 0.0, jnp.ones(3))", TypeError,
     "scan body output must be a pair, got float32[]."),
    ("lax.scan(lambda c, x: c, 0.0, length=3)", TypeError,
     "scan body output must be a pair, got ~float32[]."),
    ("lax.scan(lambda c, x: (c + x, c), jnp.int32(0), jnp.ones(3))", TypeError,
     "scan body function carry input and carry output must have equal types, but they "
     "differ:"),
    ("make_jaxpr(lambda n: lax.scan(lambda c, x: (c, c), 0, length=n))(3)",
     jax.errors.ConcretizationTypeError,
     "Abstract tracer value encountered where concrete value is expected: traced array with "
     "shape int32[]"),
    ("lax.scan(lambda c, x: (c, c), 0, length=3, unroll=-1)", ValueError,
     "`unroll` must be a `bool` or a non-negative `int`."),
    ("lax.scan(lambda c, x: (c, c), 0, jnp.float32(1))", IndexError, "tuple index out of range"),
    ("lax.scan(1, 0.0, jnp.arange(4.0))", TypeError,
     "lax.scan: f argument should be a callable."),
    ("lax.while_loop(1, lambda x: x, 0.0)", TypeError,
     "lax.while_loop: body_fun and cond_fun arguments should be callable."),
    ("lax.fori_loop(0, 1, 1, 0.0)", TypeError,
     "lax.fori_loop: body_fun argument should be callable."),
    ("make_jaxpr(lambda p: 1.0 if p else 0.0)(True)", jax.errors.TracerBoolConversionError,
     "Attempted boolean conversion of traced array with shape bool[]."),
]


@pytest.mark.parametrize("expr, exc, first_line", ERROR_CASES, ids=[e for e, _, _ in ERROR_CASES])
def test_errors_match_jax(expr, exc, first_line):
    with pytest.raises(exc) as info:
        eval(expr, {"lax": lax, "jnp": jnp, "np": np, "make_jaxpr": make_jaxpr})
    assert type(info.value) is exc
    assert str(info.value).split("\n")[0] == first_line


def test_full_messages_match_jax():
    """Whole messages, for the errors a learner meets most (file names differ, so we cut them)."""
    def message(f):
        with pytest.raises(TypeError) as info:
            f()
        return "\n".join(line for line in str(info.value).split("\n") if " at " not in line
                         or line.startswith(("  *", "The")))

    assert message(lambda: lax.cond(True, lambda x: (x, x),
                                    lambda x: (jnp.ones(2), 1), 3.0)) == (
        "cond branches must have equal output types but they differ.\n\n\n"
        "  * the output of true_fun at path [0] has type float32[] but the corresponding output "
        "of false_fun has type float32[2], so the shapes do not match;\n"
        "  * the output of true_fun at path [1] has type float32[] but the corresponding output "
        "of false_fun has type int32[], so the dtypes do not match.\n\n"
        "Revise true_fun and/or false_fun so that all output types match.")

    def body(carry, x):
        return (carry[0] + x, carry[1].astype(jnp.float32)), x
    assert message(lambda: lax.scan(body, (jnp.int32(0), jnp.int32(1)),
                                    jnp.ones(3, jnp.int32))) == (
        "scan body function carry input and carry output must have equal types, but they "
        "differ:\n\n"
        "The input carry component carry[1] has type int32[] but the corresponding output carry "
        "component has type float32[], so the dtypes do not match.\n\n"
        "Revise the function so that all output types match the corresponding input types.")
    assert message(lambda: lax.cond(True, lambda x: (x, x), lambda x: x, 3.0)) == (
        "cond branch outputs must have the same pytree structure, but they differ:\n\n\n"
        "true_fun output is a <class 'tuple'> but false_fun output is a pytree leaf, so their "
        "Python types differ.\n\n"
        "Revise true_fun and/or false_fun so that they have the same pytree structure.")


def test_errors_inside_a_body_name_the_function_and_argument():
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        lax.fori_loop(0, 3, lambda i, c: c if i > 0 else c + 1, 0.0)
    second = str(info.value).split("\n")[1]
    assert second.endswith("for fori_loop. This concrete value was not available in Python "
                           "because it depends on the value of the argument i.")
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] if c[1] > 0 else 0.0),
                       (0, 1.0))
    assert str(info.value).split("\n")[1].endswith("argument c[1].")
