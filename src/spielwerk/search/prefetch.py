"""A hint to the processor to start loading an array element into its caches (numba only).

:func:`prefetch` compiles to LLVM's ``prefetch`` intrinsic: no result, no fault for
any address, no effect on the program's values. A search that knows a few steps
ahead which table cells it will read (the endgame database values of a node's
children, their transposition-table buckets) issues it as soon as each index is
known, so the memory latency of those reads overlaps the work that computes the
next index instead of following it.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _prefetch_typer(typingctx, arr, index):  # type: ignore[no-untyped-def]
    """``prefetch(arr, i)``: start loading ``arr[i]`` (a 1-d array, an integer index; no
    bounds check is needed: a prefetch never faults)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and isinstance(index, types.Integer)):
        return None
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        addr = builder.gep(ary.data, [args[1]])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        name = "llvm.prefetch.p0"
        fn = builder.module.globals.get(name) or ir.Function(builder.module, fnty, name)
        # read (0), keep in all cache levels (locality 3), data cache (1)
        builder.call(fn, [builder.bitcast(addr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


prefetch: Any = intrinsic(_prefetch_typer)
"""Start loading ``arr[i]`` into the caches (numba kernels only)."""
