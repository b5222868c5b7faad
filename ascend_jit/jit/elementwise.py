"""The element-wise engine's kernels (SPEC-2 sections 2-6): one lane walk per arity, the op code and the element
kind as integer arguments, so one compiled kernel serves every instruction and dtype of its arity.

A run function applies an op to packed runs of elements (the count form passes UB slices; the strided form passes
the gathered lanes of one repeat, i.e. the vector register). Values are decoded in chunks into float32 or int64
buffers, the op's lane function (jit/lanes.py) runs over the chunk with the op chosen outside the inner loop, and the
store rounds to the element type with the overflow mode (SPEC-2 D35) and the 950 flush rule (D38). Half binary and
tensor-scalar ops, the common case, run fused (decode, lane, round, store in one pass); half transcendentals read
a table the lanes computed once (`half_table`).

    binary_*    Add Sub Mul Div Max Min And Or AddRelu SubRelu, and the tensor-scalar forms (Adds Muls Maxs Mins
                LeakyRelu): the scalar is a broadcast second operand (src1 < 0)
    unary_*     Abs Relu Exp Ln Sqrt Rsqrt Reciprocal
    ternary_*   MulAddDst FusedMulAdd Axpy: dst is read as well (D34), sources may be narrower than dst (D33)
    fill_*      Duplicate (bit copies of one value) and Brcb
"""
import numpy as np
from numba import njit

from .addressing import active_lanes, copy_lanes
from .lanes import (abs_lane, add_lane, div_lane, exp_float_run, exp_lane, flush, fma_lane, int_abs_lane,
                    int_div_lane, int_max_lane, int_min_lane, int_reciprocal_lane, int_relu_lane, int_stage,
                    leaky_relu_lane, ln_lane, max_lane, min_lane, mul_lane, narrow, reciprocal_lane, relu_lane,
                    rsqrt_lane, rsqrt_special, sqrt_lane, stage_round, sub_lane, uint64_div_lane, unsigned_less)
from .numerics import (KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT16, KIND_INT32, KIND_INT8, KIND_UINT16,
                       KIND_UINT32, KIND_UINT64, KIND_UINT8, bf16_bits_to_f32, f32_to_bf16_bits, float_store_bits,
                       half_bits_to_f32, half_store_bits, kind_size, round_half)

# Op codes (the op table in api/elementwise.py names them).
ADD, SUB, MUL, DIV, MAX, MIN, AND, OR, ADD_RELU, SUB_RELU, LEAKY_RELU = range(11)
ABS, RELU, EXP, LN, SQRT, RSQRT, RECIPROCAL = range(16, 23)
MUL_ADD_DST, FUSED_MUL_ADD, AXPY = range(32, 35)

# Flag bits of one call.
SAT_HALF = 1         # half overflow mode saturating (SPEC D6)
SAT_INT = 2          # int16/int32 saturation (CTRL[53], D35)
FTZ = 4              # 950 DAZ/FTZ algorithms (D38)
FUSED = 8            # 950 multiply-add: one rounding (6.3); else D39
SQRT_D49 = 16        # 950 Sqrt/Rsqrt FAST_INVERSE / PRECISION_0ULP_FTZ_FALSE domain (D49)
RSQRT_VIA_DIV = 32   # 950 Rsqrt INTRINSIC / PRECISION_1ULP_FTZ_TRUE = Div(1, Sqrt(x)) (D40, D75)

CHUNK = 1024         # elements per pass: the chunk's float32 / int64 buffers stay in L1


# --- decode / store ------------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _is_float(kind):
    return kind == KIND_HALF or kind == KIND_FLOAT or kind == KIND_BF16


@njit(cache=True, error_model="numpy")
def load_floats(kind, flags, raw, off, m, out):
    """Elements off..off+m of a packed run -> float32 (exact); DAZ when flags has FTZ."""
    if kind == KIND_HALF:
        v = raw.view(np.uint16)[off:off + m]
        for i in range(m):
            out[i] = half_bits_to_f32(v[i])
    elif kind == KIND_FLOAT:
        v32 = raw.view(np.float32)[off:off + m]
        for i in range(m):
            out[i] = v32[i]
    else:
        v = raw.view(np.uint16)[off:off + m]
        for i in range(m):
            out[i] = bf16_bits_to_f32(v[i])
    if flags & FTZ:
        for i in range(m):
            out[i] = flush(kind, out[i])


@njit(cache=True, error_model="numpy")
def store_floats(kind, flags, r, raw, off, m):
    """Round float32 results to the element type once (RNE), FTZ when asked (D38), then the half overflow mode
    (D35); NaN as the canonical pattern."""
    sat = (flags & SAT_HALF) != 0
    if kind == KIND_HALF:
        v = raw.view(np.uint16)[off:off + m]
        if flags & FTZ:
            for i in range(m):
                v[i] = half_store_bits(round_half(flush(kind, round_half(r[i], False)), sat))
        elif sat:
            for i in range(m):
                v[i] = half_store_bits(round_half(r[i], True))
        else:
            for i in range(m):
                v[i] = half_store_bits(round_half(r[i], False))
    elif kind == KIND_FLOAT:
        v32 = raw.view(np.uint32)[off:off + m]
        if flags & FTZ:
            for i in range(m):
                v32[i] = float_store_bits(flush(kind, r[i]))
        else:
            for i in range(m):
                v32[i] = float_store_bits(r[i])
    else:
        v = raw.view(np.uint16)[off:off + m]
        for i in range(m):
            v[i] = f32_to_bf16_bits(r[i])


@njit(cache=True, error_model="numpy")
def load_ints(kind, raw, off, m, out):
    if kind == KIND_INT16:
        v16 = raw.view(np.int16)[off:off + m]
        for i in range(m):
            out[i] = v16[i]
    elif kind == KIND_UINT16:
        u16 = raw.view(np.uint16)[off:off + m]
        for i in range(m):
            out[i] = u16[i]
    elif kind == KIND_INT32:
        v32 = raw.view(np.int32)[off:off + m]
        for i in range(m):
            out[i] = v32[i]
    elif kind == KIND_UINT32:
        u32 = raw.view(np.uint32)[off:off + m]
        for i in range(m):
            out[i] = u32[i]
    elif kind == KIND_INT8:
        v8 = raw.view(np.int8)[off:off + m]
        for i in range(m):
            out[i] = v8[i]
    elif kind == KIND_UINT8:
        v8u = raw[off:off + m]
        for i in range(m):
            out[i] = v8u[i]
    else:  # int64 and uint64: the bit pattern in an int64 (add/sub/mul/and/or wrap identically)
        v64 = raw.view(np.int64)[off:off + m]
        for i in range(m):
            out[i] = v64[i]


@njit(cache=True, error_model="numpy")
def store_ints(kind, r, raw, off, m):
    """Store results already wrapped or clamped to the type (int_stage)."""
    if kind == KIND_INT16:
        v16 = raw.view(np.int16)[off:off + m]
        for i in range(m):
            v16[i] = r[i]
    elif kind == KIND_UINT16:
        u16 = raw.view(np.uint16)[off:off + m]
        for i in range(m):
            u16[i] = r[i]
    elif kind == KIND_INT32:
        v32 = raw.view(np.int32)[off:off + m]
        for i in range(m):
            v32[i] = r[i]
    elif kind == KIND_UINT32:
        u32 = raw.view(np.uint32)[off:off + m]
        for i in range(m):
            u32[i] = r[i]
    elif kind == KIND_INT8:
        v8 = raw.view(np.int8)[off:off + m]
        for i in range(m):
            v8[i] = r[i]
    elif kind == KIND_UINT8:
        v8u = raw[off:off + m]
        for i in range(m):
            v8u[i] = r[i]
    else:
        v64 = raw.view(np.int64)[off:off + m]
        for i in range(m):
            v64[i] = r[i]


@njit(cache=True, error_model="numpy")
def _fill_float(kind, flags, bits, out, m):
    """A broadcast scalar operand (given as its bit pattern) decoded into every lane of the chunk."""
    if kind == KIND_HALF:
        v = half_bits_to_f32(np.uint16(bits))
    elif kind == KIND_FLOAT:
        v = np.array([np.uint32(bits)]).view(np.float32)[0]
    else:
        v = bf16_bits_to_f32(np.uint16(bits))
    if flags & FTZ:
        v = flush(kind, v)
    for i in range(m):
        out[i] = v


@njit(cache=True, error_model="numpy")
def _fill_int(kind, bits, out, m):
    v = np.int64(bits)
    if kind == KIND_INT16 or kind == KIND_INT8 or kind == KIND_INT32:
        size = kind_size(kind) * 8
        v = ((v + (1 << (size - 1))) & ((1 << size) - 1)) - (1 << (size - 1))
    for i in range(m):
        out[i] = v


# --- binary / tensor-scalar -----------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _binary_float_chunk(op, kind, flags, x, y, r, m):
    sat = (flags & SAT_HALF) != 0
    if op == ADD:
        for i in range(m):
            r[i] = add_lane(x[i], y[i])
    elif op == SUB:
        for i in range(m):
            r[i] = sub_lane(x[i], y[i])
    elif op == MUL:
        for i in range(m):
            r[i] = mul_lane(x[i], y[i])
    elif op == DIV:
        for i in range(m):
            r[i] = div_lane(x[i], y[i])
    elif op == MAX:
        for i in range(m):
            r[i] = max_lane(x[i], y[i])
    elif op == MIN:
        for i in range(m):
            r[i] = min_lane(x[i], y[i])
    elif op == ADD_RELU:
        for i in range(m):
            r[i] = relu_lane(stage_round(kind, add_lane(x[i], y[i]), sat))
    elif op == SUB_RELU:
        for i in range(m):
            r[i] = relu_lane(stage_round(kind, sub_lane(x[i], y[i]), sat))
    else:  # LEAKY_RELU: y is the scalar
        for i in range(m):
            r[i] = leaky_relu_lane(x[i], y[i])


@njit(cache=True, error_model="numpy")
def _int_stage_pass(kind, r, m, saturate):
    """D35 over a chunk of exact integer results: wrap, or clamp int16/int32 when saturation is on."""
    for i in range(m):
        r[i] = int_stage(kind, r[i], saturate)


@njit(cache=True, error_model="numpy")
def _binary_int_chunk(op, kind, flags, x, y, r, m):
    """Exact int64 results, then one wrap/clamp pass (Div never saturates, D48; And/Or/Max/Min cannot overflow)."""
    sat = (flags & SAT_INT) != 0
    if op == ADD or op == ADD_RELU:
        for i in range(m):
            r[i] = x[i] + y[i]
    elif op == SUB or op == SUB_RELU:
        for i in range(m):
            r[i] = x[i] - y[i]
    elif op == MUL:
        for i in range(m):
            r[i] = x[i] * y[i]
    elif op == DIV:
        for i in range(m):
            r[i] = int_div_lane(x[i], y[i])
        sat = False
    elif op == MAX:
        if kind == KIND_UINT64:
            for i in range(m):
                r[i] = x[i] if unsigned_less(y[i], x[i]) else y[i]
        else:
            for i in range(m):
                r[i] = int_max_lane(x[i], y[i])
    elif op == MIN:
        if kind == KIND_UINT64:
            for i in range(m):
                r[i] = x[i] if unsigned_less(x[i], y[i]) else y[i]
        else:
            for i in range(m):
                r[i] = int_min_lane(x[i], y[i])
    elif op == AND:
        for i in range(m):
            r[i] = x[i] & y[i]
    else:  # OR
        for i in range(m):
            r[i] = x[i] | y[i]
    _int_stage_pass(kind, r, m, sat)
    if (op == ADD_RELU or op == SUB_RELU) and kind != KIND_UINT64:  # stage 2 (SPEC-2 6.3); uint64 Relu is identity
        for i in range(m):
            r[i] = int_relu_lane(r[i])


@njit(cache=True, error_model="numpy")
def _half_binary_chunk(op, av, bv, dv, m, sat):
    """The common case fused into one pass: decode both half operands, the op's lane, round to half and store; the
    saturating mode is a second pass over the stored bits (D35: +-inf -> +-65504, NaN -> +0)."""
    if op == ADD:
        for i in range(m):
            dv[i] = half_store_bits(round_half(add_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])), False))
    elif op == SUB:
        for i in range(m):
            dv[i] = half_store_bits(round_half(sub_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])), False))
    elif op == MUL:
        for i in range(m):
            dv[i] = half_store_bits(round_half(mul_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])), False))
    elif op == DIV:
        for i in range(m):
            dv[i] = half_store_bits(round_half(div_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])), False))
    elif op == MAX:
        for i in range(m):
            dv[i] = half_store_bits(round_half(max_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])), False))
    elif op == MIN:
        for i in range(m):
            dv[i] = half_store_bits(round_half(min_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])), False))
    elif op == ADD_RELU:  # stage 1 rounded to half, then Relu; saturating stage 1 = the bit pass below (6.3)
        for i in range(m):
            dv[i] = half_store_bits(relu_lane(round_half(add_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])),
                                                         False)))
    elif op == SUB_RELU:
        for i in range(m):
            dv[i] = half_store_bits(relu_lane(round_half(sub_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])),
                                                         False)))
    else:  # LEAKY_RELU (bv: the scalar)
        for i in range(m):
            dv[i] = half_store_bits(round_half(leaky_relu_lane(half_bits_to_f32(av[i]), half_bits_to_f32(bv[i])),
                                               False))
    if sat:
        for i in range(m):
            h = dv[i]
            h = np.uint16(0x7BFF) if h == np.uint16(0x7C00) else h
            h = np.uint16(0xFBFF) if h == np.uint16(0xFC00) else h
            dv[i] = np.uint16(0) if h == np.uint16(0x7E00) else h


@njit(cache=True, error_model="numpy")
def binary_run(op, kind, flags, d, a, b, scalar_bits, n, fs, ints):
    """d[:n] = op(a[:n], b[:n]) on packed byte runs; b empty: the broadcast scalar `scalar_bits`."""
    scalar = b.size == 0
    fused_half = kind == KIND_HALF and (flags & FTZ) == 0  # every binary half op (And/Or take no half)
    broadcast = np.full(CHUNK if scalar and fused_half else 0, np.uint16(scalar_bits & 0xFFFF))
    for c0 in range(0, n, CHUNK):
        m = min(CHUNK, n - c0)
        if fused_half:
            bv = broadcast[:m] if scalar else b.view(np.uint16)[c0:c0 + m]
            _half_binary_chunk(op, a.view(np.uint16)[c0:c0 + m], bv, d.view(np.uint16)[c0:c0 + m], m,
                               (flags & SAT_HALF) != 0)
        elif _is_float(kind):
            load_floats(kind, flags, a, c0, m, fs[0])
            if scalar:
                _fill_float(kind, flags, scalar_bits, fs[1], m)
            else:
                load_floats(kind, flags, b, c0, m, fs[1])
            _binary_float_chunk(op, kind, flags, fs[0], fs[1], fs[2], m)
            store_floats(kind, flags, fs[2], d, c0, m)
        elif kind == KIND_UINT64 and op == DIV:
            av, dv = a.view(np.uint64), d.view(np.uint64)
            if scalar:
                s = np.array([np.int64(scalar_bits)]).view(np.uint64)[0]
                for i in range(m):
                    dv[c0 + i] = uint64_div_lane(av[c0 + i], s)
            else:
                bv = b.view(np.uint64)
                for i in range(m):
                    dv[c0 + i] = uint64_div_lane(av[c0 + i], bv[c0 + i])
        else:
            load_ints(kind, a, c0, m, ints[0])
            if scalar:
                _fill_int(kind, scalar_bits, ints[1], m)
            else:
                load_ints(kind, b, c0, m, ints[1])
            _binary_int_chunk(op, kind, flags, ints[0], ints[1], ints[2], m)
            store_ints(kind, ints[2], d, c0, m)


@njit(cache=True, nogil=True, error_model="numpy")
def binary_contiguous(ub, op, kind, flags, dst, src0, src1, scalar_bits, n):
    """Count form: n consecutive elements; src1 < 0 means the broadcast scalar."""
    nb = n * kind_size(kind)
    b = ub[src1:src1 + nb] if src1 >= 0 else ub[0:0]
    floats = _is_float(kind) and not (kind == KIND_HALF and (flags & FTZ) == 0)
    binary_run(op, kind, flags, ub[dst:dst + nb], ub[src0:src0 + nb], b, scalar_bits, n,
               np.empty((3, CHUNK if floats else 0), np.float32),
               np.empty((3, 0 if _is_float(kind) else CHUNK), np.int64))  # scratch only for the path taken


@njit(cache=True, nogil=True, error_model="numpy")
def binary_strided(ub, op, kind, flags, dst, src0, src1, scalar_bits, dblk, s0blk, s1blk, drep, s0rep, s1rep,
                   repeat, mask_lo, mask_hi, last_lanes):
    """High-dim form: per repeat gather the active lanes of the sources (the register), compute, scatter.
    last_lanes >= 0 is counter mode: the last repeat takes only its first last_lanes lanes (SPEC 2.6)."""
    size = kind_size(kind)
    lanes = active_lanes(mask_lo, mask_hi, 256 // size)
    a = np.empty(256, np.uint8)
    b = np.empty(256 if src1 >= 0 else 0, np.uint8)
    d = np.empty(256, np.uint8)
    fs, ints = np.empty((3, CHUNK), np.float32), np.empty((3, CHUNK), np.int64)
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, src0 + i * s0rep * 32, s0blk, lanes, n, size, a, False)
        if src1 >= 0:
            copy_lanes(ub, src1 + i * s1rep * 32, s1blk, lanes, n, size, b, False)
        binary_run(op, kind, flags, d, a, b, scalar_bits, n, fs, ints)
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, size, d, True)


# --- unary ------------------------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _unary_float_chunk(op, kind, flags, x, r, m):
    d49 = (flags & SQRT_D49) != 0
    if op == ABS:
        for i in range(m):
            r[i] = abs_lane(x[i])
    elif op == RELU:
        for i in range(m):
            r[i] = relu_lane(x[i])
    elif op == EXP:
        if kind == KIND_FLOAT:  # the same bits as the loop below, in a vectorised pass (lanes.exp_float_run)
            exp_float_run(x, r, m, np.empty((3, m)), np.empty(m, np.bool_))
        else:
            for i in range(m):
                r[i] = narrow(kind, exp_lane(x[i]))
    elif op == LN:
        for i in range(m):
            r[i] = narrow(kind, ln_lane(x[i]))
    elif op == SQRT:
        for i in range(m):
            r[i] = narrow(kind, sqrt_lane(x[i], d49))
    elif op == RSQRT:
        if flags & RSQRT_VIA_DIV:  # D40/D75: Div(1, Sqrt(x)) for finite x > 0, each stage rounded (and flushed)
            for i in range(m):
                s = rsqrt_special(x[i], False)
                if s != -1.0:
                    r[i] = s
                else:
                    root = flush(kind, stage_round(kind, narrow(kind, sqrt_lane(x[i], False)), False))
                    r[i] = narrow(kind, 1.0 / np.float64(root))
        else:
            for i in range(m):
                r[i] = narrow(kind, rsqrt_lane(x[i], d49))
    else:  # RECIPROCAL
        for i in range(m):
            r[i] = narrow(kind, reciprocal_lane(x[i]))


@njit(cache=True, error_model="numpy")
def _unary_int_chunk(op, kind, flags, x, r, m):
    sat = (flags & SAT_INT) != 0
    if op == ABS:
        for i in range(m):
            r[i] = int_abs_lane(x[i])
        _int_stage_pass(kind, r, m, sat)
    elif op == RELU:
        for i in range(m):
            r[i] = int_relu_lane(x[i])
    else:  # RECIPROCAL (950 int64/uint64)
        for i in range(m):
            r[i] = int_reciprocal_lane(kind, x[i])


@njit(cache=True, error_model="numpy")
def half_table(op, flags):
    """The unrounded float32 result of a unary op for every half bit pattern (the lanes as unary_run computes them,
    DAZ included): half transcendentals then cost one lookup per element."""
    raw = np.arange(65536).astype(np.uint16).view(np.uint8)
    x = np.empty(65536, np.float32)
    r = np.empty(65536, np.float32)
    load_floats(KIND_HALF, flags, raw, 0, 65536, x)
    _unary_float_chunk(op, KIND_HALF, flags, x, r, 65536)
    return r


@njit(cache=True, error_model="numpy")
def unary_run(op, kind, flags, d, a, n, fs, ints, table):
    """table: half_table(op, flags) for half transcendentals, else empty."""
    for c0 in range(0, n, CHUNK):
        m = min(CHUNK, n - c0)
        if kind == KIND_HALF and table.size > 0:
            v = a.view(np.uint16)[c0:c0 + m]
            r = fs[1]
            for i in range(m):
                r[i] = table[v[i]]
            store_floats(kind, flags, r, d, c0, m)
        elif _is_float(kind):
            load_floats(kind, flags, a, c0, m, fs[0])
            _unary_float_chunk(op, kind, flags, fs[0], fs[1], m)
            store_floats(kind, flags, fs[1], d, c0, m)
        else:
            load_ints(kind, a, c0, m, ints[0])
            _unary_int_chunk(op, kind, flags, ints[0], ints[1], m)
            store_ints(kind, ints[1], d, c0, m)


@njit(cache=True, nogil=True, error_model="numpy")
def unary_contiguous(ub, op, kind, flags, dst, src, n, table):
    nb = n * kind_size(kind)
    unary_run(op, kind, flags, ub[dst:dst + nb], ub[src:src + nb], n, np.empty((2, CHUNK), np.float32),
              np.empty((2, CHUNK), np.int64), table)


@njit(cache=True, nogil=True, error_model="numpy")
def unary_strided(ub, op, kind, flags, dst, src, dblk, sblk, drep, srep, repeat, mask_lo, mask_hi, last_lanes,
                  table):
    size = kind_size(kind)
    lanes = active_lanes(mask_lo, mask_hi, 256 // size)
    a = np.empty(256, np.uint8)
    d = np.empty(256, np.uint8)
    fs, ints = np.empty((2, CHUNK), np.float32), np.empty((2, CHUNK), np.int64)
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, src + i * srep * 32, sblk, lanes, n, size, a, False)
        unary_run(op, kind, flags, d, a, n, fs, ints, table)
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, size, d, True)


# --- ternary (multiply-add) ---------------------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _axpy_bf16_lane(s, x, c):
    """950 Axpy bfloat16 (D40): Mul then Add, each rounded to float32 then to bfloat16."""
    p = bf16_bits_to_f32(f32_to_bf16_bits(s * x))
    return p + c


@njit(cache=True, error_model="numpy")
def ternary_run(op, dkind, skind, flags, d, a, b, scalar_bits, n, fs, ints):
    """MulAddDst d = a*b + d; FusedMulAdd d = a*d + b; Axpy d = scalar*a + d (b unused). Sources of kind skind,
    dst of kind dkind (half -> float mixed forms: products exact in float32, one float add, D33/6.3)."""
    sat = (flags & SAT_HALF) != 0
    fused = (flags & FUSED) != 0
    for c0 in range(0, n, CHUNK):
        m = min(CHUNK, n - c0)
        if _is_float(dkind):
            load_floats(skind, 0, a, c0, m, fs[0])
            if op == AXPY:
                _fill_float(skind, 0, scalar_bits, fs[1], m)
            else:
                load_floats(skind, 0, b, c0, m, fs[1])
            load_floats(dkind, 0, d, c0, m, fs[2])
            x, y, c = fs[0], fs[1], fs[2]
            if op == FUSED_MUL_ADD:
                for i in range(m):
                    c[i] = fma_lane(dkind, x[i], c[i], y[i], fused, sat)
            elif op == AXPY and dkind == KIND_BF16:
                for i in range(m):
                    c[i] = _axpy_bf16_lane(y[i], x[i], c[i])
            elif dkind != skind:  # half sources, float dst: exact product, one float32 rounding
                for i in range(m):
                    c[i] = fma_lane(dkind, x[i], y[i], c[i], True, False)
            else:
                for i in range(m):
                    c[i] = fma_lane(dkind, x[i], y[i], c[i], fused, sat)
            store_floats(dkind, flags, c, d, c0, m)
        else:  # integer multiply-add: exact, then wrap (never saturated: 64-bit and 310B types, 6.3)
            load_ints(skind, a, c0, m, ints[0])
            if op == AXPY:
                _fill_int(skind, scalar_bits, ints[1], m)
            else:
                load_ints(skind, b, c0, m, ints[1])
            load_ints(dkind, d, c0, m, ints[2])
            x, y, c = ints[0], ints[1], ints[2]
            if op == FUSED_MUL_ADD:
                for i in range(m):
                    c[i] = x[i] * c[i] + y[i]
            else:
                for i in range(m):
                    c[i] = x[i] * y[i] + c[i]
            _int_stage_pass(dkind, c, m, False)
            store_ints(dkind, c, d, c0, m)


@njit(cache=True, nogil=True, error_model="numpy")
def ternary_contiguous(ub, op, dkind, skind, flags, dst, src0, src1, scalar_bits, n):
    ns = n * kind_size(skind)
    b = ub[src1:src1 + ns] if src1 >= 0 else ub[0:0]
    ternary_run(op, dkind, skind, flags, ub[dst:dst + n * kind_size(dkind)], ub[src0:src0 + ns], b, scalar_bits, n,
                np.empty((3, CHUNK), np.float32), np.empty((3, CHUNK), np.int64))


@njit(cache=True, nogil=True, error_model="numpy")
def ternary_strided(ub, op, dkind, skind, flags, dst, src0, src1, scalar_bits, dblk, s0blk, s1blk, drep, s0rep,
                    s1rep, repeat, mask_lo, mask_hi, last_lanes):
    """Lanes count by the wider type (the dst, D33); each operand is addressed with its own element size."""
    dsize, ssize = kind_size(dkind), kind_size(skind)
    lanes = active_lanes(mask_lo, mask_hi, 256 // dsize)
    a = np.empty(256, np.uint8)
    b = np.empty(256 if src1 >= 0 else 0, np.uint8)
    d = np.empty(256, np.uint8)
    fs, ints = np.empty((3, CHUNK), np.float32), np.empty((3, CHUNK), np.int64)
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, src0 + i * s0rep * 32, s0blk, lanes, n, ssize, a, False)
        if src1 >= 0:
            copy_lanes(ub, src1 + i * s1rep * 32, s1blk, lanes, n, ssize, b, False)
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, dsize, d, False)
        ternary_run(op, dkind, skind, flags, d, a, b, scalar_bits, n, fs, ints)
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, dsize, d, True)


# --- fill (Duplicate, Brcb: bit copies, SPEC-2 5) ------------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def fill_contiguous(ub, size, dst, bits, n):
    """Duplicate count form: n elements of `size` bytes receive the bit pattern `bits` (the first element's bytes,
    then copies of the filled part doubling in length: a few block copies instead of a byte loop)."""
    word = np.array([bits]).view(np.uint8)
    out = ub[dst:dst + n * size]
    out[:min(size, out.size)] = word[:min(size, out.size)]
    filled = size
    while filled < out.size:
        step = min(filled, out.size - filled)
        out[filled:filled + step] = out[:step]
        filled += step


@njit(cache=True, nogil=True, error_model="numpy")
def fill_strided(ub, size, dst, bits, dblk, drep, repeat, mask_lo, mask_hi, last_lanes):
    lanes = active_lanes(mask_lo, mask_hi, 256 // size)
    word = np.array([bits]).view(np.uint8)
    d = np.empty(256, np.uint8)
    for k in range(256 // size):
        for j in range(size):
            d[k * size + j] = word[j]
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, size, d, True)


@njit(cache=True, nogil=True, error_model="numpy")
def brcb(ub, size, dst, src, dblk, drep, repeat):
    """Block (i, j) at dst + (i*drep + j*dblk)*32 is filled with src[8i + j] (SPEC-2 5.2)."""
    for i in range(repeat):
        for j in range(8):
            s = src + (8 * i + j) * size
            base = dst + (i * drep + j * dblk) * 32
            for k in range(32):
                ub[base + k] = ub[s + k % size]
