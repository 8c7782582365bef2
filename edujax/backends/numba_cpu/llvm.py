"""LLVM-level helpers for the kernels: bit casts, fused multiply-add, vector width.

Numba compiles Python to LLVM IR; these few functions are written directly in LLVM IR
(Numba's ``@intrinsic``) because Python has no spelling for them.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from edujax.backends.fast_start import translate


def _bitcast(from_type: types.Type, to_type: types.Type, llvm_type: ir.Type):
    """Reinterpret the bits of a value as another type of the same size (free, vectorizable)."""
    @intrinsic
    def cast(typingctx, x):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], llvm_type)
        return to_type(from_type), codegen
    return cast


f32_bits = _bitcast(types.float32, types.int32, ir.IntType(32))
f32_from_bits = _bitcast(types.int32, types.float32, ir.FloatType())
f64_bits = _bitcast(types.float64, types.int64, ir.IntType(64))
f64_from_bits = _bitcast(types.int64, types.float64, ir.DoubleType())


@intrinsic
def fma(typingctx, a, b, c):
    """a * b + c with a single rounding (the CPU's fused multiply-add instruction)."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return a(a, a, a), codegen


@intrinsic
def scale_by_pow2(typingctx, x, k):
    """x * 2^k for a float32 x and an int32 k, rounded once: one ``vscalefps`` on CPUs with
    AVX-512, two multiplies elsewhere (the IR is ``translate.scale_by_pow2``'s, which
    edujax's own compiler writes for the same call)."""
    if x != types.float32 or k != types.int32:
        return None

    def codegen(context, builder, signature, args):
        return translate.scale_by_pow2(builder, *args)
    return types.float32(types.float32, types.int32), codegen


@intrinsic
def prefer_wide_vectors(typingctx):
    """Let LLVM vectorize the calling function with the widest vectors the CPU has.

    NB: on Intel CPUs with AVX-512, LLVM prefers 256-bit vectors unless told otherwise
    (512-bit instructions once lowered the clock of older chips). For our kernels, which
    stream through memory doing arithmetic, 512-bit vectors are about 1.7x faster. On a CPU
    without AVX-512 this changes nothing. (llvmlite only accepts a fixed list of function
    attributes, hence the plain ``set.add`` of LLVM's string attribute.)
    """
    def codegen(context, builder, signature, args):
        set.add(builder.function.attributes, '"prefer-vector-width"="512"')
        return context.get_dummy_value()
    return types.none(), codegen


def inline_into_callers() -> None:
    """Ask LLVM to paste the calling function into every function that calls it.

    The helpers of ``math.py`` and ``scalar.py`` start with this call. They are compiled
    once each (and cached on disk); a kernel calling ``tanh_f32`` links that compiled code
    and LLVM's inliner copies it into the kernel's loop, which can then be vectorized.
    Without the attribute LLVM decides by size, and keeps the larger helpers (tanh, pow)
    as calls, leaving the loop scalar. Numba's own ``inline="always"`` reaches the same
    loop, but by pasting the helper's Python-level IR at each call site, where it is typed
    and lowered again every time: most of the compile time of a long program (see
    docs/performance.md, "Compile time").
    """
    # Run as plain Python (Numba's CUDA simulator runs the helpers that way, see
    # numba_cuda/device_math.py) there is nothing to inline: do nothing.


@intrinsic
def _mark_alwaysinline(typingctx):
    def codegen(context, builder, signature, args):
        builder.function.attributes.add("alwaysinline")
        return context.get_dummy_value()
    return types.none(), codegen


# Compiled, the call becomes the intrinsic above, pasted (inline="always", a one-line body)
# into the helper itself, so that the attribute lands on the helper's own function.
@overload(inline_into_callers, inline="always")
def _inline_into_callers_compiled():
    def impl():
        _mark_alwaysinline()
    return impl
