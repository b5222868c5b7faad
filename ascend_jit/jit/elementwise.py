"""The element-wise engine's kernels (SPEC-2 sections 2-6): two kernels per arity, the count form (*_count_kernel)
and the high-dim walk (*_repeat_kernel), the op code, element kind, addresses, count, strides and mask in one int64
parameter array (P_*), so one compiled kernel per form and dtype class (marker arguments, see
binary_count_kernel) serves every instruction, dtype and device of its arity (issue 20), and a call unboxes two
arrays and a few values (issue 21).

A run function applies an op to packed runs of elements (the count form passes UB slices; the strided form passes
the gathered lanes of one repeat, i.e. the vector register). Values are decoded in chunks into float32 or int64
buffers, the op's lane function (jit/lanes.py) runs over the chunk with the op chosen outside the inner loop, and the
store rounds to the element type with the overflow mode (SPEC-2 D35) and the 950 flush rule (D38). Half binary and
tensor-scalar ops, the common case, run fused (decode, lane, round, store in one pass); half transcendentals read
a table of stored bits that this kernel computed once for every half input.

    binary_*    Add Sub Mul Div Max Min And Or AddRelu SubRelu, and the tensor-scalar forms (Adds Muls Maxs Mins
                LeakyRelu ShiftLeft ShiftRight): the scalar is a broadcast second operand (src1 < 0)
    unary_*     Abs Relu Exp Ln Sqrt Rsqrt Reciprocal (half transcendentals: a table of the 65536 results), and
                Copy and Not, every dtype through the integer class of its width (bits in, the same or the
                inverted bits out)
    ternary_*   MulAddDst FusedMulAdd Axpy: dst is read as well (D34), sources may be narrower than dst (D33)
    fill_*      Duplicate (bit copies of one value) and Brcb
"""
import numpy as np
from numba import njit

from .addressing import active_lanes, copy_lanes
from .lanes import (abs_lane, add_lane, div_lane, exp_float_run, exp_lane, float_fma_lane, flush, fma_lane,
                    int_abs_lane, int_div_lane, int_max_lane, int_min_lane, int_reciprocal_lane, int_relu_lane,
                    int_stage, leaky_relu_lane, ln_lane, max_lane, min_lane, mul_lane, narrow, reciprocal_lane,
                    relu_lane, rsqrt_lane, rsqrt_special, shift_lane, sqrt_lane, stage_round, sub_lane,
                    uint64_div_lane, unsigned_bias)
from .numerics import (KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT16, KIND_INT32, KIND_INT64, KIND_INT8, KIND_UINT64,
                       bf16_bits_to_f32, f32_from_bits, f32_to_bf16_bits, float_store_bits, half_bits_to_f32,
                       half_rne_bits, half_store_bits, internal, kind_size, round_half)
from .ubview import INT_WIDTHS, int_lanes, ub_as
from .lowered import empty_array, larger, smaller

# Op codes (the op table in api/elementwise.py names them).
ADD, SUB, MUL, DIV, MAX, MIN, AND, OR, ADD_RELU, SUB_RELU, LEAKY_RELU = range(11)
SHIFT_LEFT, SHIFT_RIGHT, SHIFT_RIGHT_ROUND = range(11, 14)  # tensor-scalar, the scalar the shift amount (devkit pages)
ABS, RELU, EXP, LN, SQRT, RSQRT, RECIPROCAL = range(16, 23)
MUL_ADD_DST, FUSED_MUL_ADD, AXPY = range(32, 35)
COPY = 48  # Copy (UB -> UB through the vector unit): the identity on the element's bits, in the integer classes
NOT = 49   # Not (devkit M/逻辑计算/Not.md): every bit of the element inverted, in the integer classes (half/float too)

# Flag bits of one call.
SAT_HALF = 1         # half overflow mode saturating (SPEC D6)
SAT_INT = 2          # int16/int32 saturation (CTRL[53], D35)
FTZ = 4              # 950 DAZ/FTZ algorithms (D38)
FUSED = 8            # 950 multiply-add: one rounding (6.3); else D39
SQRT_D49 = 16        # 950 Sqrt/Rsqrt FAST_INVERSE / PRECISION_0ULP_FTZ_FALSE domain (D49)
RSQRT_VIA_DIV = 32   # 950 Rsqrt INTRINSIC = Div(1, Sqrt(x)) (D40, D75; the other algorithms: decisions.md, correctly rounded)

CHUNK = 1024         # elements per pass: the chunk's float32 / int64 buffers stay in L1

# The kernels' parameter array: every integer a validated call shape fixes, in one int64 array the API builds once
# per shape (jit/direct.py PreparedCall), so a call unboxes two arrays and the per-call values (flags, scalar bits,
# the dtype-class markers) instead of a dozen integers (issue 21). Unused entries are 0; P_SRC1 < 0: no tensor src1.
P_OP, P_KIND, P_SKIND, P_DST, P_SRC0, P_SRC1, P_N = range(7)               # P_N >= 0: count form; < 0: high-dim
P_DBLK, P_S0BLK, P_S1BLK, P_DREP, P_S0REP, P_S1REP = range(7, 13)          # block / repeat strides (high-dim)
P_REPEAT, P_MASK_LO, P_MASK_HI, P_LAST = range(13, 17)                     # repeats, signed mask words, counter tail
N_PARAMS = 17


# --- decode / store ------------------------------------------------------------------------------------------------
@internal(error_model="numpy")
def load_halves(flags, raw, off, m, out):
    """Half elements off..off+m of a packed run -> float32 (exact); DAZ when flags has FTZ. The half classes
    compile this decode alone (issue 20)."""
    v = ub_as(raw, np.uint16)[off:off + m]
    for i in range(m):
        out[i] = half_bits_to_f32(v[i])
    if flags & FTZ:
        half = flags & 0  # KIND_HALF typed int64: a literal would compile flush a second time (issue 20)
        for i in range(m):
            out[i] = flush(half, out[i])


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def load_wide(kind, flags, raw, off, m, out):
    """load_halves for float and bfloat16 elements (the float classes compile only this)."""
    if kind == KIND_FLOAT:
        v32 = ub_as(raw, np.float32)[off:off + m]
        for i in range(m):
            out[i] = v32[i]
    else:
        v = ub_as(raw, np.uint16)[off:off + m]
        for i in range(m):
            out[i] = bf16_bits_to_f32(v[i])
    if flags & FTZ:
        for i in range(m):
            out[i] = flush(kind, out[i])


@internal(error_model="numpy")
def store_halves(flags, r, raw, off, m):
    """Round float32 results to half once (RNE), FTZ when asked (D38), then the half overflow mode (D35); NaN as the
    canonical pattern. The half classes compile this store alone (issue 20)."""
    sat = (flags & SAT_HALF) != 0
    v = ub_as(raw, np.uint16)[off:off + m]
    if flags & FTZ:
        half = flags & 0  # KIND_HALF typed int64 (as load_halves)
        for i in range(m):
            v[i] = half_store_bits(round_half(flush(half, round_half(r[i], False)), sat))
    elif sat:
        for i in range(m):
            v[i] = half_store_bits(round_half(r[i], True))
    else:
        for i in range(m):
            v[i] = half_rne_bits(r[i])


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def store_wide(kind, flags, r, raw, off, m):
    """store_halves for float and bfloat16 elements (the float classes compile only this)."""
    if kind == KIND_FLOAT:
        v32 = ub_as(raw, np.uint32)[off:off + m]
        if flags & FTZ:
            for i in range(m):
                v32[i] = float_store_bits(flush(kind, r[i]))
        else:
            for i in range(m):
                v32[i] = float_store_bits(r[i])
    else:
        v = ub_as(raw, np.uint16)[off:off + m]
        for i in range(m):
            v[i] = f32_to_bf16_bits(r[i])


# binary_count_kernel's int_class is the element width's marker (ubview.INT_WIDTHS), so each width compiles its
# own lane view alone (issue 20: a first int16 And compiled all eight integer views).


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def load_ints(kind, raw, off, m, out, width):
    """Elements off..off+m of a packed run of integers of kind `kind` -> int64 (uint64: its bit pattern); `width`:
    a marker of the element width (INT_WIDTHS). The lanes are unsigned (8 bytes: int64); a signed narrower kind is
    sign-extended: (v ^ 2**(bits-1)) - 2**(bits-1)."""
    v = int_lanes(raw, width)[off:off + m]
    size = kind_size(kind)
    signed = kind == KIND_INT8 or kind == KIND_INT16 or kind == KIND_INT32
    bias = np.int64(1) << (8 * size - 1) if signed else np.int64(0)
    for i in range(m):
        out[i] = (np.int64(v[i]) ^ bias) - bias


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def store_ints(kind, r, raw, off, m, width):
    """Store int64 results already wrapped or clamped to the type (int_stage): their low bytes, through the lanes
    of the width marker `width` (load_ints)."""
    v = int_lanes(raw, width)[off:off + m]
    for i in range(m):
        v[i] = r[i]


@internal(error_model="numpy")
def _fill_float(kind, flags, bits, out, m):
    """A broadcast scalar operand (given as its bit pattern) decoded into every lane of the chunk."""
    if kind == KIND_HALF:
        v = half_bits_to_f32(np.uint16(bits))
    elif kind == KIND_FLOAT:
        v = f32_from_bits(np.uint32(bits & 0xFFFFFFFF))
    else:
        v = bf16_bits_to_f32(np.uint16(bits))
    if flags & FTZ:
        v = flush(kind, v)
    for i in range(m):
        out[i] = v


@internal(error_model="numpy")
def _fill_int(kind, bits, out, m):
    """A broadcast integer scalar (its bit pattern, as a signed 64-bit value) as the value of `kind` in every lane."""
    v = int_stage(kind, np.int64(bits), m < 0)  # (m < 0: False typed bool, not a literal: one int_stage, issue 20)
    for i in range(m):
        out[i] = v


# --- binary / tensor-scalar -----------------------------------------------------------------------------------------
# Every binary op of a dtype class compiles into one specialisation: the op picks its loop at run time, outside the
# loops (a branch per element would keep the compiler from vectorising them). Splitting the class by op group made
# each first call about 0.6 s cheaper and every class's ops together about twice as dear (issue 20, session 42:
# the count form of half, float and int16 11.2 -> 6.3 s; a first half Add 1.3 -> 1.9 s).


@internal(error_model="numpy")
def _relu_after_loop(kind, x, y, r, m, sat, subtract):
    """AddRelu / SubRelu: stage 1 rounded to the stage type, then Relu (SPEC-2 6.3). A function of its own, as the
    rounded unary loops (_exp_loop): stage_round inlines here and the loop vectorises."""
    if subtract:
        for i in range(m):
            r[i] = relu_lane(stage_round(kind, sub_lane(x[i], y[i]), sat))
    else:
        for i in range(m):
            r[i] = relu_lane(stage_round(kind, add_lane(x[i], y[i]), sat))


@internal(error_model="numpy")
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
    elif op == ADD_RELU or op == SUB_RELU:
        _relu_after_loop(kind, x, y, r, m, sat, op == SUB_RELU)
    else:  # LEAKY_RELU: y is the scalar
        for i in range(m):
            r[i] = leaky_relu_lane(x[i], y[i])


@internal(error_model="numpy")
def _int_stage_pass(kind, r, m, saturate):
    """D35 over a chunk of exact integer results: wrap, or clamp int16/int32 when saturation is on."""
    for i in range(m):
        r[i] = int_stage(kind, r[i], saturate)


@internal(error_model="numpy")
def _binary_int_chunk(op, kind, flags, x, y, r, m):
    """Exact int64 results, then one wrap/clamp pass (Div never saturates, D48; And/Or/Max/Min cannot overflow)."""
    sat = (flags & SAT_INT) != 0
    b = unsigned_bias(kind)  # Max / Min: uint64 bit patterns compare as unsigned with the sign bit flipped
    relu = op == ADD_RELU or op == SUB_RELU  # stage 1 exact here, wrapped or clamped below, then Relu
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
        if kind == KIND_UINT64:  # on the unsigned values of the bit patterns (the casts keep the bits)
            for i in range(m):
                r[i] = np.int64(uint64_div_lane(np.uint64(x[i]), np.uint64(y[i])))
        else:
            for i in range(m):
                r[i] = int_div_lane(x[i], y[i])
        sat = False
    elif op == MAX:
        for i in range(m):
            r[i] = int_max_lane(x[i] ^ b, y[i] ^ b) ^ b
    elif op == MIN:
        for i in range(m):
            r[i] = int_min_lane(x[i] ^ b, y[i] ^ b) ^ b
    elif op == AND:
        for i in range(m):
            r[i] = x[i] & y[i]
    elif op == OR:
        for i in range(m):
            r[i] = x[i] | y[i]
    else:  # SHIFT_LEFT, SHIFT_RIGHT, SHIFT_RIGHT_ROUND; y: the amount (>= 0, range-checked by the API); exact
        bits = 8 * kind_size(kind)
        signed = kind == KIND_INT8 or kind == KIND_INT16 or kind == KIND_INT32 or kind == KIND_INT64
        right, rounding = op != SHIFT_LEFT, op == SHIFT_RIGHT_ROUND
        for i in range(m):
            r[i] = shift_lane(x[i], y[i], bits, signed, right, rounding)
    _int_stage_pass(kind, r, m, sat)
    if relu and kind != KIND_UINT64:  # stage 2 (SPEC-2 6.3); uint64 Relu is identity
        for i in range(m):
            r[i] = int_relu_lane(r[i])


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def half_binary_run(op, flags, hv, d0, a0, b0, scalar_bits, m, in_place):
    """The common case (half, no FTZ) fused into one pass over runs of half bits in one uint16 array `hv` (the UB's
    view, or the gathered lanes of one repeat): dst, src0, src1 start at elements d0, a0, b0 (b0 < 0: the broadcast
    scalar, decoded once). One array rather than three slices: each array argument costs a compiled call about 30 ns
    (issue 21). Decode the half operands, the op's lane, round to half and store with one float->half conversion
    per element (`half_rne_bits`). The saturating mode is a second pass over the stored bits (D35: +-inf ->
    +-65504, NaN -> +0). An in-place call (in_place: dst shares bytes with a source) computes chunks into a scratch
    first: the compiler does not vectorise a loop whose store may alias its loads (65536 in-place halves: 14x
    slower). Each op (and the scalar and tensor forms of Add/Mul/Max/Min) has a loop of its own, not an op switch
    inside one loop: a branch per element keeps the compiler from vectorising the pass."""
    scalar = b0 < 0
    s = half_bits_to_f32(np.uint16(scalar_bits))
    sat = (flags & SAT_HALF) != 0
    step = CHUNK if in_place else larger(m, 1)
    tmp = empty_array(CHUNK if in_place else 0, np.uint16)
    for c0 in range(0, m, step):
        k = smaller(step, m - c0)
        x = hv[a0 + c0:a0 + c0 + k]
        y = x if scalar else hv[b0 + c0:b0 + c0 + k]
        o = tmp[:k] if in_place else hv[d0 + c0:d0 + c0 + k]
        if op == ADD:
            if scalar:
                for i in range(k):
                    o[i] = half_rne_bits(add_lane(half_bits_to_f32(x[i]), s))
            else:
                for i in range(k):
                    o[i] = half_rne_bits(add_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])))
        elif op == SUB:
            for i in range(k):
                o[i] = half_rne_bits(sub_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])))
        elif op == MUL:
            if scalar:
                for i in range(k):
                    o[i] = half_rne_bits(mul_lane(half_bits_to_f32(x[i]), s))
            else:
                for i in range(k):
                    o[i] = half_rne_bits(mul_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])))
        elif op == DIV:
            for i in range(k):
                o[i] = half_rne_bits(div_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])))
        elif op == MAX:
            if scalar:
                for i in range(k):
                    o[i] = half_rne_bits(max_lane(half_bits_to_f32(x[i]), s))
            else:
                for i in range(k):
                    o[i] = half_rne_bits(max_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])))
        elif op == MIN:
            if scalar:
                for i in range(k):
                    o[i] = half_rne_bits(min_lane(half_bits_to_f32(x[i]), s))
            else:
                for i in range(k):
                    o[i] = half_rne_bits(min_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])))
        elif op == ADD_RELU:  # stage 1 rounded to half, then Relu; saturating stage 1 = the bit pass below (6.3)
            for i in range(k):
                r = round_half(add_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])), False)
                o[i] = half_rne_bits(relu_lane(r))
        elif op == SUB_RELU:
            for i in range(k):
                r = round_half(sub_lane(half_bits_to_f32(x[i]), half_bits_to_f32(y[i])), False)
                o[i] = half_rne_bits(relu_lane(r))
        else:  # LEAKY_RELU (always the scalar form)
            for i in range(k):
                o[i] = half_rne_bits(leaky_relu_lane(half_bits_to_f32(x[i]), s))
        if sat:
            for i in range(k):
                h = o[i]
                h = np.uint16(0x7BFF) if h == np.uint16(0x7C00) else h
                h = np.uint16(0xFBFF) if h == np.uint16(0xFC00) else h
                o[i] = np.uint16(0) if h == np.uint16(0x7E00) else h
        if in_place:
            for i in range(k):  # (a loop, not a slice assignment: its shape check compiles string formatting)
                hv[d0 + c0 + i] = o[i]


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def binary_run(op, kind, flags, d, a, b, scalar_bits, n, fs, ints, half_ftz_class, float_class, int_class):
    """d[:n] = op(a[:n], b[:n]) on packed byte runs; b empty: the broadcast scalar `scalar_bits`. half_ftz_class /
    float_class / int_class: see binary_count_kernel (half without FTZ takes half_binary_run, the kernel's half
    class)."""
    scalar = b.size == 0
    if half_ftz_class is not None:  # the float32 chunk path on half elements (decode and store of half only)
        for c0 in range(0, n, CHUNK):
            m = smaller(CHUNK, n - c0)
            load_halves(flags, a, c0, m, fs[0])
            if scalar:
                _fill_float(kind, flags, scalar_bits, fs[1], m)
            else:
                load_halves(flags, b, c0, m, fs[1])
            _binary_float_chunk(op, kind, flags, fs[0], fs[1], fs[2], m)
            store_halves(flags, fs[2], d, c0, m)
    if float_class is not None:  # the same path on float and bfloat16 elements
        for c0 in range(0, n, CHUNK):
            m = smaller(CHUNK, n - c0)
            load_wide(kind, flags, a, c0, m, fs[0])
            if scalar:
                _fill_float(kind, flags, scalar_bits, fs[1], m)
            else:
                load_wide(kind, flags, b, c0, m, fs[1])
            _binary_float_chunk(op, kind, flags, fs[0], fs[1], fs[2], m)
            store_wide(kind, flags, fs[2], d, c0, m)
    if int_class is not None:
        for c0 in range(0, n, CHUNK):
            m = smaller(CHUNK, n - c0)
            load_ints(kind, a, c0, m, ints[0], int_class)
            if scalar:
                _fill_int(kind, scalar_bits, ints[1], m)
            else:
                load_ints(kind, b, c0, m, ints[1], int_class)
            _binary_int_chunk(op, kind, flags, ints[0], ints[1], ints[2], m)
            store_ints(kind, ints[2], d, c0, m, int_class)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def binary_count_kernel(ub, p, flags, scalar_bits, half_class, half_ftz_class, float_class, int_class):
    """The count form of the binary and tensor-scalar instructions: p[P_N] >= 0 consecutive elements (the stride,
    repeat and mask parameters are unused; a contiguous high-dim call runs here too). p: the call shape's parameters
    (P_*); p[P_SRC1] < 0 means the broadcast scalar `scalar_bits`. The high-dim walk is binary_repeat_kernel, a
    kernel of its own chosen when the call shape is validated, so a first count call compiles no mask walk or lane
    gather (issue 20; both take the same arguments).
    half_class, half_ftz_class, float_class, int_class: exactly one is not None (0; the int class: its element
    width's marker, INT_WIDTHS), the others None: the dtype class, the specialisation kept on purpose (issue 20:
    compile only what the call needs). numba removes the code under `if int_class is not None` when int_class is
    None (decided from the argument type before compiling), so a float call compiles no integer code and the
    reverse. Every op of the class compiles together (see _binary_float_chunk's section). The half class is half
    without FTZ (every half call but the 950's FTZ configs): one fused pass per run (half_binary_run) and no float32
    chunk path; the half FTZ class takes the float32 chunk path with the half decode/store alone, the float class the
    same path with the float and bfloat16 decode/store alone, each integer width the int64 chunk path with that
    width's lanes alone (each first call compiles one element width's code). Op, kind, flags and device facts stay
    values."""
    op, kind, n, dst, src0, src1 = p[P_OP], p[P_KIND], p[P_N], p[P_DST], p[P_SRC0], p[P_SRC1]
    size = kind_size(kind)
    # Each class's code sits under a test of its own marker: numba prunes a branch only when the marker it tests is
    # None, so `if half_class is None` (or code after a return) would still compile the other classes' code.
    nb = n * size
    b = ub[src1:src1 + nb] if src1 >= 0 else ub[0:0]
    if half_class is not None:  # one pass over the UB's half view (addresses are 32-byte aligned), no scratch
        u16 = ub_as(ub, np.uint16)
        e0, e1, e2 = dst // 2, src0 // 2, src1 // 2
        in_place = (dst < src0 + nb and src0 < dst + nb) or (src1 >= 0 and dst < src1 + nb and src1 < dst + nb)
        half_binary_run(op, flags, u16, e0, e1, e2 if src1 >= 0 else -1, scalar_bits, n, in_place)
    if half_ftz_class is not None:
        binary_run(op, kind, flags, ub[dst:dst + nb], ub[src0:src0 + nb], b, scalar_bits, n,
                   empty_array((3, CHUNK), np.float32), empty_array((3, 0), np.int64), half_ftz_class, float_class,
                   int_class)
    if float_class is not None:
        binary_run(op, kind, flags, ub[dst:dst + nb], ub[src0:src0 + nb], b, scalar_bits, n,
                   empty_array((3, CHUNK), np.float32), empty_array((3, 0), np.int64), half_ftz_class, float_class,
                   int_class)
    if int_class is not None:
        binary_run(op, kind, flags, ub[dst:dst + nb], ub[src0:src0 + nb], b, scalar_bits, n,
                   empty_array((3, 0), np.float32), empty_array((3, CHUNK), np.int64), half_ftz_class, float_class,
                   int_class)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def binary_repeat_kernel(ub, p, flags, scalar_bits, half_class, half_ftz_class, float_class, int_class):
    """The high-dim form of the binary and tensor-scalar instructions (p[P_N] < 0): per repeat gather the active
    lanes of the sources (the register), compute, scatter; p[P_LAST] >= 0 is counter mode: the last repeat takes
    only its first last_lanes lanes (SPEC 2.6). Arguments and dtype classes as binary_count_kernel's."""
    op, kind, dst, src0, src1 = p[P_OP], p[P_KIND], p[P_DST], p[P_SRC0], p[P_SRC1]
    size = kind_size(kind)
    fs = empty_array((3, CHUNK if half_class is None and int_class is None else 0), np.float32)  # the class's scratch
    ints = empty_array((3, CHUNK if int_class is not None else 0), np.int64)
    repeat, last_lanes = p[P_REPEAT], p[P_LAST]
    lanes = active_lanes(p[P_MASK_LO], p[P_MASK_HI], 256 // size)
    gather = flags < 0  # False, but typed bool: a literal would compile copy_lanes twice (issue 20)
    scatter = not gather
    g = empty_array(768, np.uint8)  # the register: a, b, d lanes at bytes 0, 256, 512 (one array, half_binary_run)
    g16 = ub_as(g, np.uint16)
    at_a = flags & 0  # typed int64 offsets, not literals (a literal would compile half_binary_run twice, issue 20)
    at_b, at_d = at_a + 128 if src1 >= 0 else at_a - 1, at_a + 256
    a, b, d = g[:256], g[256:512 if src1 >= 0 else 256], g[512:]
    for i in range(repeat):
        m = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, src0 + i * p[P_S0REP] * 32, p[P_S0BLK], lanes, m, size, a, gather)
        if src1 >= 0:
            copy_lanes(ub, src1 + i * p[P_S1REP] * 32, p[P_S1BLK], lanes, m, size, b, gather)
        if half_class is not None:
            half_binary_run(op, flags, g16, at_d, at_a, at_b, scalar_bits, m, gather)
        if half_ftz_class is not None:
            binary_run(op, kind, flags, d, a, b, scalar_bits, m, fs, ints, half_ftz_class, float_class, int_class)
        if float_class is not None:
            binary_run(op, kind, flags, d, a, b, scalar_bits, m, fs, ints, half_ftz_class, float_class, int_class)
        if int_class is not None:
            binary_run(op, kind, flags, d, a, b, scalar_bits, m, fs, ints, half_ftz_class, float_class, int_class)
        copy_lanes(ub, dst + i * p[P_DREP] * 32, p[P_DBLK], lanes, m, size, d, scatter)


# --- unary ------------------------------------------------------------------------------------------------------------
# Every unary op of a float class compiles into one specialisation, as the binary ones (see _binary_float_chunk's
# section): split by op group, all seven groups of half and float took 11.5 s to compile where they take 4.5 s
# together; a first half Exp 1.8 -> 2.5 s (issue 20, session 42).


# Each rounded unary op's loop is a function of its own, called once per chunk: optimised alone, its lane and
# `narrow` have one call site and inline, so the loop vectorises. Written inline in the chunk function beside the
# other ops', they are called from several loops, stay calls, and the loop does not vectorise (float Sqrt 3.3 ->
# 22 us for 8192 elements). The loops take no class marker: one compiled loop serves the half and float classes.
@internal(error_model="numpy")
def _exp_loop(kind, x, r, m):
    for i in range(m):
        r[i] = narrow(kind, exp_lane(x[i]))


@internal(error_model="numpy")
def _ln_loop(kind, x, r, m):
    for i in range(m):
        r[i] = narrow(kind, ln_lane(x[i]))


@internal(error_model="numpy")
def _sqrt_loop(kind, x, r, m, d49):
    for i in range(m):
        r[i] = narrow(kind, sqrt_lane(x[i], d49))


@internal(error_model="numpy")
def _rsqrt_loop(kind, x, r, m, d49):
    for i in range(m):
        r[i] = narrow(kind, rsqrt_lane(x[i], d49))


@internal(error_model="numpy")
def _rsqrt_via_div_loop(kind, x, r, m):
    """The 950's INTRINSIC Rsqrt (RSQRT_VIA_DIV), D40/D75: Div(1, Sqrt(x)) for finite x > 0, each stage rounded
    (and flushed)."""
    off = m < 0  # False typed bool (a literal would compile the lanes a second time, issue 20)
    for i in range(m):
        s = rsqrt_special(x[i], off)
        if s != -1.0:
            r[i] = s
        else:
            root = flush(kind, stage_round(kind, narrow(kind, sqrt_lane(x[i], off)), off))
            r[i] = narrow(kind, 1.0 / np.float64(root))


@internal(error_model="numpy")
def _reciprocal_loop(kind, x, r, m):
    for i in range(m):
        r[i] = narrow(kind, reciprocal_lane(x[i]))


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def _unary_float_chunk(op, kind, flags, x, r, m, float_class):
    """float_class: None in the half class, which never takes the float-only vectorised Exp (pruned, issue 20)."""
    if op == ABS:
        for i in range(m):
            r[i] = abs_lane(x[i])
    elif op == RELU:
        for i in range(m):
            r[i] = relu_lane(x[i])
    elif op == EXP:
        fast = False
        if float_class is not None:
            fast = kind == KIND_FLOAT
            if fast:  # the same bits as _exp_loop, in a vectorised pass (lanes.exp_float_run)
                exp_float_run(x, r, m)
        if not fast:
            _exp_loop(kind, x, r, m)
    elif op == LN:
        _ln_loop(kind, x, r, m)
    elif op == SQRT:
        _sqrt_loop(kind, x, r, m, (flags & SQRT_D49) != 0)
    elif op == RSQRT and (flags & RSQRT_VIA_DIV) == 0:
        _rsqrt_loop(kind, x, r, m, (flags & SQRT_D49) != 0)
    elif op == RSQRT:
        _rsqrt_via_div_loop(kind, x, r, m)
    else:  # RECIPROCAL
        _reciprocal_loop(kind, x, r, m)


@internal(error_model="numpy")
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


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def unary_run(op, kind, flags, d, a, n, fs, ints, table, half_class, float_class, int_class):
    """table: for half transcendentals, the stored bits of every half input under these flags (the API computes it
    once per op and flags with this kernel, issue 13: one lookup per element); else empty. half_class /
    float_class / int_class: see unary_count_kernel."""
    if half_class is not None and table.size > 0:
        v, dv = ub_as(a, np.uint16), ub_as(d, np.uint16)
        for i in range(n):
            dv[i] = table[v[i]]
        return
    if int_class is not None and op == COPY:  # the lanes as unsigned integers of the element's width, as they are
        av, cv = int_lanes(a, int_class), int_lanes(d, int_class)
        for i in range(n):
            cv[i] = av[i]
        return
    if int_class is not None and op == NOT:  # the same lanes, every bit inverted (a float's bits too)
        av, cv = int_lanes(a, int_class), int_lanes(d, int_class)
        for i in range(n):
            cv[i] = ~av[i]
        return
    for c0 in range(0, n, CHUNK):
        m = smaller(CHUNK, n - c0)
        if half_class is not None:
            load_halves(flags, a, c0, m, fs[0])
            _unary_float_chunk(op, kind, flags, fs[0], fs[1], m, float_class)
            store_halves(flags, fs[1], d, c0, m)
        if float_class is not None:
            load_wide(kind, flags, a, c0, m, fs[0])
            _unary_float_chunk(op, kind, flags, fs[0], fs[1], m, float_class)
            store_wide(kind, flags, fs[1], d, c0, m)
        if int_class is not None:
            load_ints(kind, a, c0, m, ints[0], int_class)
            _unary_int_chunk(op, kind, flags, ints[0], ints[1], m)
            store_ints(kind, ints[1], d, c0, m, int_class)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def unary_count_kernel(ub, p, flags, table, half_class, float_class, int_class):
    """The count form of the unary instructions (p[P_N] >= 0 consecutive elements; p: the call shape's parameters,
    P_*, no P_SRC1); the high-dim walk is unary_repeat_kernel (same arguments), as binary_count_kernel's.
    half_class / float_class / int_class: the dtype class as binary_count_kernel's (no FTZ class of its own): the
    half class is every half call (FTZ included): the table lookup and the half-only decode/store that computes the
    tables, without the float/bfloat16 paths or the float-only vectorised Exp, so the first half Exp compiles only
    what half needs (issue 20); the float class is float and bfloat16; the int class one element width
    (INT_WIDTHS); every op of a class compiles together. table: see unary_run."""
    op, kind, n, dst, src = p[P_OP], p[P_KIND], p[P_N], p[P_DST], p[P_SRC0]
    fs = empty_array((2, CHUNK if int_class is None and table.size == 0 else 0), np.float32)  # (lookups: none)
    ints = empty_array((2, CHUNK if int_class is not None else 0), np.int64)
    nb = n * kind_size(kind)
    unary_run(op, kind, flags, ub[dst:dst + nb], ub[src:src + nb], n, fs, ints, table, half_class, float_class,
              int_class)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def unary_repeat_kernel(ub, p, flags, table, half_class, float_class, int_class):
    """The high-dim form of the unary instructions (p[P_N] < 0): per repeat gather the active lanes, compute,
    scatter (counter mode as binary_repeat_kernel's). Arguments as unary_count_kernel's."""
    op, kind, dst, src = p[P_OP], p[P_KIND], p[P_DST], p[P_SRC0]
    size = kind_size(kind)
    fs = empty_array((2, CHUNK if int_class is None and table.size == 0 else 0), np.float32)  # (lookups: none)
    ints = empty_array((2, CHUNK if int_class is not None else 0), np.int64)
    repeat, last_lanes = p[P_REPEAT], p[P_LAST]
    lanes = active_lanes(p[P_MASK_LO], p[P_MASK_HI], 256 // size)
    a = empty_array(256, np.uint8)
    d = empty_array(256, np.uint8)
    gather = flags < 0  # False, but typed bool: a literal would compile copy_lanes twice (issue 20)
    scatter = not gather
    for i in range(repeat):
        m = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, src + i * p[P_S0REP] * 32, p[P_S0BLK], lanes, m, size, a, gather)
        unary_run(op, kind, flags, d, a, m, fs, ints, table, half_class, float_class, int_class)
        copy_lanes(ub, dst + i * p[P_DREP] * 32, p[P_DBLK], lanes, m, size, d, scatter)


# --- ternary (multiply-add) ---------------------------------------------------------------------------------------------
@internal(error_model="numpy")
def _axpy_bf16_lane(s, x, c):
    """950 Axpy bfloat16 (D40): Mul then Add, each rounded to float32 then to bfloat16."""
    p = bf16_bits_to_f32(f32_to_bf16_bits(s * x))
    return p + c


@internal(error_model="numpy")
def _fma_chunk(op, dkind, flags, x, y, c, m, mixed_class, float_class):
    """The multiply-add of one chunk of decoded operands (x, y: the sources, or y the Axpy scalar; c: dst), into c.
    mixed_class / float_class: ternary_count_kernel's markers; the mixed loop and the bfloat16 Axpy compile only in
    their classes (issue 20)."""
    sat = (flags & SAT_HALF) != 0
    fused = (flags & FUSED) != 0
    off = flags < 0     # False typed bool (a literal would compile fma_lane twice, issue 20)
    # a float destination loops over float_fma_lane: fma_lane tests the kind and the flag in every lane
    if op == FUSED_MUL_ADD:
        if float_class is not None and dkind == KIND_FLOAT:   # (the float class's marker: a half call compiles none)
            for i in range(m):
                c[i] = float_fma_lane(x[i], c[i], y[i], fused)
        else:
            for i in range(m):
                c[i] = fma_lane(dkind, x[i], c[i], y[i], fused, sat)
        return
    if mixed_class is not None:  # half sources, float dst: exact product, one float32 rounding (D33)
        for i in range(m):
            c[i] = float_fma_lane(x[i], y[i], c[i], not off)
        return
    if float_class is not None and op == AXPY and dkind == KIND_BF16:
        for i in range(m):
            c[i] = _axpy_bf16_lane(y[i], x[i], c[i])
        return
    if float_class is not None and dkind == KIND_FLOAT:
        for i in range(m):
            c[i] = float_fma_lane(x[i], y[i], c[i], fused)
    else:
        for i in range(m):
            c[i] = fma_lane(dkind, x[i], y[i], c[i], fused, sat)


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def ternary_run(op, dkind, skind, flags, d, a, b, scalar_bits, n, fs, ints, half_class, mixed_class, float_class,
                int_class):
    """MulAddDst d = a*b + d; FusedMulAdd d = a*d + b; Axpy d = scalar*a + d (b unused). Sources of kind skind,
    dst of kind dkind (half -> float mixed forms: products exact in float32, one float add, D33/6.3).
    half_class / mixed_class / float_class / int_class: see ternary_count_kernel; each float class decodes its sources
    and dst and stores with its own widths' helpers around the shared _fma_chunk."""
    plain = flags & 0   # the sources load without DAZ; zero typed int64, not a literal (one load_halves, issue 20)
    off = flags < 0     # False typed bool, for the same reason
    x, y, c = fs[0], fs[1], fs[2]
    for c0 in range(0, n, CHUNK):
        m = smaller(CHUNK, n - c0)
        if half_class is not None:  # (see binary_count_kernel)
            load_halves(plain, a, c0, m, x)
            if op == AXPY:
                _fill_float(skind, plain, scalar_bits, y, m)
            else:
                load_halves(plain, b, c0, m, y)
            load_halves(plain, d, c0, m, c)
            _fma_chunk(op, dkind, flags, x, y, c, m, mixed_class, float_class)
            store_halves(flags, c, d, c0, m)
        if mixed_class is not None:
            load_halves(plain, a, c0, m, x)
            if op == AXPY:
                _fill_float(skind, plain, scalar_bits, y, m)
            else:
                load_halves(plain, b, c0, m, y)
            load_wide(dkind, plain, d, c0, m, c)
            _fma_chunk(op, dkind, flags, x, y, c, m, mixed_class, float_class)
            store_wide(dkind, flags, c, d, c0, m)
        if float_class is not None:
            load_wide(skind, plain, a, c0, m, x)
            if op == AXPY:
                _fill_float(skind, plain, scalar_bits, y, m)
            else:
                load_wide(skind, plain, b, c0, m, y)
            load_wide(dkind, plain, d, c0, m, c)
            _fma_chunk(op, dkind, flags, x, y, c, m, mixed_class, float_class)
            store_wide(dkind, flags, c, d, c0, m)
        if int_class is not None:  # integer multiply-add: exact, then wrap (never saturated: 64-bit, 310B types, 6.3)
            load_ints(skind, a, c0, m, ints[0], int_class)
            if op == AXPY:
                _fill_int(skind, scalar_bits, ints[1], m)
            else:
                load_ints(skind, b, c0, m, ints[1], int_class)
            load_ints(dkind, d, c0, m, ints[2], int_class)
            xi, yi, ci = ints[0], ints[1], ints[2]
            if op == FUSED_MUL_ADD:
                for i in range(m):
                    ci[i] = xi[i] * ci[i] + yi[i]
            else:
                for i in range(m):
                    ci[i] = xi[i] * yi[i] + ci[i]
            _int_stage_pass(dkind, ci, m, off)
            store_ints(dkind, ci, d, c0, m, int_class)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def ternary_count_kernel(ub, p, flags, scalar_bits, half_class, mixed_class, float_class, int_class):
    """The count form of the multiply-adds (p[P_N] >= 0 consecutive elements; p: the call shape's parameters, P_*;
    p[P_SKIND] is the sources' kind); the high-dim walk is ternary_repeat_kernel (same arguments), as
    binary_count_kernel's. half_class / mixed_class / float_class / int_class: the dtype class, as
    binary_count_kernel's: half (dst and sources), mixed (half sources, float dst, D33), float and bfloat16, and the
    integer widths (INT_WIDTHS); each compiles its own widths' decode and store alone. Each operand is addressed with
    its own element size."""
    op, dkind, skind, n = p[P_OP], p[P_KIND], p[P_SKIND], p[P_N]
    dst, src0, src1 = p[P_DST], p[P_SRC0], p[P_SRC1]
    fs = empty_array((3, CHUNK if int_class is None else 0), np.float32)
    ints = empty_array((3, CHUNK if int_class is not None else 0), np.int64)
    ns = n * kind_size(skind)
    b = ub[src1:src1 + ns] if src1 >= 0 else ub[0:0]
    ternary_run(op, dkind, skind, flags, ub[dst:dst + n * kind_size(dkind)], ub[src0:src0 + ns], b, scalar_bits, n,
                fs, ints, half_class, mixed_class, float_class, int_class)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def ternary_repeat_kernel(ub, p, flags, scalar_bits, half_class, mixed_class, float_class, int_class):
    """The high-dim form of the multiply-adds (p[P_N] < 0): per repeat gather the active lanes of the sources and of
    dst (which they read), compute, scatter (counter mode as binary_repeat_kernel's). Lanes count by the wider type
    (the dst, D33). Arguments as ternary_count_kernel's."""
    op, dkind, skind = p[P_OP], p[P_KIND], p[P_SKIND]
    dst, src0, src1 = p[P_DST], p[P_SRC0], p[P_SRC1]
    dsize, ssize = kind_size(dkind), kind_size(skind)
    fs = empty_array((3, CHUNK if int_class is None else 0), np.float32)
    ints = empty_array((3, CHUNK if int_class is not None else 0), np.int64)
    repeat, last_lanes = p[P_REPEAT], p[P_LAST]
    lanes = active_lanes(p[P_MASK_LO], p[P_MASK_HI], 256 // dsize)
    a = empty_array(256, np.uint8)
    b = empty_array(256 if src1 >= 0 else 0, np.uint8)
    d = empty_array(256, np.uint8)
    gather = flags < 0  # False, but typed bool: a literal would compile copy_lanes twice (issue 20)
    scatter = not gather
    for i in range(repeat):
        m = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, src0 + i * p[P_S0REP] * 32, p[P_S0BLK], lanes, m, ssize, a, gather)
        if src1 >= 0:
            copy_lanes(ub, src1 + i * p[P_S1REP] * 32, p[P_S1BLK], lanes, m, ssize, b, gather)
        copy_lanes(ub, dst + i * p[P_DREP] * 32, p[P_DBLK], lanes, m, dsize, d, gather)
        ternary_run(op, dkind, skind, flags, d, a, b, scalar_bits, m, fs, ints, half_class, mixed_class, float_class,
                    int_class)
        copy_lanes(ub, dst + i * p[P_DREP] * 32, p[P_DBLK], lanes, m, dsize, d, scatter)


# --- fill (Duplicate, Brcb: bit copies, SPEC-2 5) ------------------------------------------------------------------------
@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def fill_kernel(ub, p, bits):
    """Duplicate: elements of kind p[P_KIND] receive the bit pattern `bits` (its low bytes). p[P_N] >= 0: the count
    form, n consecutive elements, stored through a view of the element width; else high-dim (as
    binary_repeat_kernel)."""
    size, dst, n = kind_size(p[P_KIND]), p[P_DST], p[P_N]
    if n >= 0:  # (element loops, not broadcast slice assignments: fewer numpy implementations to compile)
        run = ub[dst:dst + n * size]
        if size == 2:
            v16, h = ub_as(run, np.uint16), np.uint16(bits & 0xFFFF)
            for i in range(n):
                v16[i] = h
        elif size == 4:
            v32, w = ub_as(run, np.uint32), np.uint32(bits & 0xFFFFFFFF)
            for i in range(n):
                v32[i] = w
        elif size == 8:
            v64 = ub_as(run, np.int64)
            for i in range(n):
                v64[i] = bits
        else:
            b8 = np.uint8(bits & 0xFF)
            for i in range(n):
                run[i] = b8
        return
    repeat, last_lanes = p[P_REPEAT], p[P_LAST]
    lanes = active_lanes(p[P_MASK_LO], p[P_MASK_HI], 256 // size)
    d = empty_array(256, np.uint8)
    for k in range(256 // size):
        for j in range(size):
            d[k * size + j] = (bits >> (8 * j)) & 0xFF  # the element's bytes, little-endian
    scatter = repeat > 0  # True whenever the loop runs, typed bool like the other kernels' (one copy_lanes)
    for i in range(repeat):
        m = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, dst + i * p[P_DREP] * 32, p[P_DBLK], lanes, m, size, d, scatter)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True, error_model="numpy")
def brcb(ub, size, dst, src, dblk, drep, repeat):
    """Block (i, j) at dst + (i*drep + j*dblk)*32 is filled with src[8i + j] (SPEC-2 5.2). The element's bytes
    repeated to 8 (size is a power of two) are stored as four uint64 words: dst is 32-byte aligned (the API checks
    it), blocks never overlap src (SPEC-2 D34), so block by block is the byte walk's result."""
    words = ub_as(ub, np.uint64)
    for i in range(repeat):
        for j in range(8):
            s = src + (8 * i + j) * size
            pattern = np.uint64(0)
            for k in range(8):  # little-endian, as the UB's multi-byte elements
                pattern |= np.uint64(ub[s + (k & (size - 1))]) << np.uint64(8 * k)
            w = (dst + (i * drep + j * dblk) * 32) >> 3
            for k in range(4):
                words[w + k] = pattern
