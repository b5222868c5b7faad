"""ArithProgression (AscendC::ArithProgression, the 高阶API the current devkit names Arange): dst[i] = firstValue +
i * diffValue for i < count, built as the devkit builds it, so the float and half bits are the device's.

Not in the SPECs: the page is devkit `docs/zh/api/SIMD-API/高阶API/索引计算/Arange-94.md` (devices, dtypes, count > 0,
diffValue >= 0, the algorithm's three steps); the order of operations is that of its implementations (read, not
copied), `impl/adv_api/detail/index/arithprogression/arithprogression_common_impl.h` (A2/A3/310P) and
`arithprogression_3510_impl.h` (950). docs/decisions.md "ArithProgression" records what they leave open.

Both are compositions of instructions the emulator already has, run through the element-wise engine
(`elementwise.composed_call`), so they are BIT-EXACT as those instructions are and compile nothing of their own:
- A2/A3/310P: the first B = 32/sizeof(T) values by the scalar unit (first + diff * i in T's C++ arithmetic, half
  through float), then Adds of one repeat: block b+1 = block b + RN(B * diff) over B lanes up to one repeat
  (R = 256/sizeof(T) elements), then repeat r+1 = repeat r + RN(R * diff), the last repeat over the tail rounded up
  to whole blocks. The device's Adds write whole DataBlocks: ceil(count / B) * B elements when count > B (at most to
  the end of the DataBlock holding dst's last element). The mask
  register is left as the implementation's SetVectorMask / ResetMask leave it.
- 950: one register of L = 256/sizeof(T) lanes (64 for int64, two registers) holds RN(RN(j * diff) + first), the
  step is RN(L * diff), and each stored register (count elements in all) is followed by register += step; the mask
  register is untouched.
"""
import numpy as np

from ..errors import OutOfBoundsError, ParameterError, StateError
from ..sanitizer import PIPE_S, PIPE_V, Access, own_flag_pairs, vector_access
from ..tensor import LocalTensor
from . import elementwise as E
from ._common import UnaryRepeatParams, as_int, check_align, check_count_within, check_offered, operands
from ._scalar import scalar_value

API = "ArithProgression"
D950, A3, A2, P310 = "ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore"
_FOUR = ("int16", "half", "int32", "float")
DTYPES = {D950: _FOUR + ("int64",), A3: _FOUR, A2: _FOUR, P310: _FOUR}  # the page's 支持的数据类型
_PAGE = "devkit 高阶API/索引计算/Arange-94.md"


def _wrap(dtype, v):
    """A C++ integer result converted to the signed type T (modular)."""
    bits = 8 * dtype.size
    return dtype.np_dtype.type(((v + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)))


def _scalar_base(dtype, first, diff, n):
    """GetBaseArithProgression: first + diff * i by the scalar unit, i < n. float: two float32 roundings (product,
    then sum); half: the same in float32, the sum converted to half (RNE) by SetValue; int16/int32: the exact value
    converted to T (modular)."""
    if not dtype.is_float:
        return np.array([_wrap(dtype, int(first) + int(diff) * i) for i in range(n)], dtype.np_dtype)
    f, d = np.float32(first), np.float32(diff)
    with np.errstate(all="ignore"):
        values = [f + d * np.float32(i) for i in range(n)]
        return np.array(values, np.float32).astype(dtype.np_dtype)


def _scalar_step(dtype, diff, n):
    """GetArithProgressionStep: diff * n as int64 then T (integers), or as float32 then T (half, float)."""
    if not dtype.is_float:
        return _wrap(dtype, int(diff) * n)
    with np.errstate(all="ignore"):
        return dtype.np_dtype.type(np.float32(diff) * np.float32(n))


def _at(dst, k, n):
    """The LocalTensor of n elements from element k of dst (proven inside the footprint by ArithProgression)."""
    return LocalTensor._proven(dst._core, dst._dtype, dst._addr + k * dst._dtype.size, n, dst._position, dst._lease)


def offered_fill(api, dst, dtypes, page):
    """(core, spec, dtype) of a fill's dst when its device and dtype are on the page's table `dtypes` (device name
    -> dtype names); the first refusals ArithProgression and CreateVecIndex share."""
    core = operands(api, dst)
    check_offered(api, core.spec, dst.dtype, dtypes, page)
    return core, core.spec, dst.dtype


def _validate(dst, first_value, diff_value, count):
    """Every refusal before anything is written; returns (core, first, diff, count, elements written)."""
    core, spec, dtype = offered_fill(API, dst, DTYPES, _PAGE)
    count = as_int(API, spec, "count", count)
    if not 0 < count <= 2**31 - 1:
        raise ParameterError(API, "count", count, legal="[1, 2**31 - 1] (the page: count > 0)", device=spec.name)
    first = scalar_value(API, spec, dtype, first_value, "first_value")
    diff = scalar_value(API, spec, dtype, diff_value, "diff_value")
    if not float(diff) >= 0:  # (NaN too: the implementation asserts static_cast<float>(diffValue) >= 0)
        raise ParameterError(API, "diff_value", diff, legal=">= 0 (the page: 应大于等于0)", device=spec.name)
    check_align(API, spec, "dst", dst.addr, 32)
    check_count_within(API, spec, "dst", dst.size, count)
    block = 32 // dtype.size
    # Off the 950 the Adds write whole DataBlocks: up to the end of the DataBlock holding element count - 1, which
    # (dst 32-byte aligned, count <= GetSize()) never passes the DataBlock holding dst's last element. Past dst's
    # elements is refused under the tensor bounds rule (issue 11), as DataCopyPad's dummy bytes are; a core made
    # with bounds="ub" writes them, as the device does (docs/decisions.md "ArithProgression").
    written = count if spec.name == D950 or count <= block else -(-count // block) * block
    if written > dst.size and core.bounds == "tensor":
        raise OutOfBoundsError(API, "dst", f"elements [0, {written})", device=spec.name,
                               legal=f"inside dst's tensor [0, {dst.size}) ({dst.size} x {dtype.name}): off the 950 "
                                     f"the device's Adds write whole 32-byte DataBlocks, {written} elements for "
                                     f"count {count}; size dst in whole DataBlocks, or make the core with "
                                     f'bounds="ub" (aj.launch(..., bounds="ub") for a launch\'s cores) to allow writes '
                                     "past a tensor")
    if spec.name != D950 and count > block and core.counter_mode:
        raise StateError(API, "mask mode", "counter", device=spec.name,
                         legal="Normal mask mode (SetMaskNorm)",
                         detail="the implementation sets lane masks with SetVectorMask, which counter mode reads as "
                                "element counts: call SetMaskNorm first")
    return core, first, diff, count, written


def ArithProgression(dst, first_value, diff_value, count):
    """`ArithProgression(dst, firstValue, diffValue, count)` (also `aj.Arange`): dst[i] = firstValue + i * diffValue,
    i < count, in the device's order of operations (module docstring); diffValue >= 0, count > 0."""
    core, first, diff, count, written = _validate(dst, first_value, diff_value, count)
    dtype, spec = dst.dtype, core.spec
    if core.sanitizer is not None:  # one access for the whole call (its Adds read only what it wrote)
        if spec.name != D950 and count <= 32 // dtype.size:
            # the scalar unit's SetValue only, bracketed as ArithProgressionImpl brackets it: SetFlag/WaitFlag V_S
            # before and S_V after (events of the implementation's own, not ones the kernel holds)
            sanitizer = core.sanitizer
            own_flag_pairs(sanitizer, API, ((PIPE_V, PIPE_S),))
            sanitizer.instruction(API, PIPE_S, [Access.of_run("dst", dst.addr, count * dtype.size, True, dst)])
            own_flag_pairs(sanitizer, API, ((PIPE_S, PIPE_V),))
        else:
            # past one DataBlock: the scalar unit's SetValues of the first block, S_V, then the Adds (no V_S before;
            # the first block is recorded with the vector writes, the pair under "device-sync": docs/decisions.md
            # "The implementations' own flags")
            own = (((PIPE_S, PIPE_V),) if spec.name != D950 else (), ())
            vector_access(core, API, writes=[(("dst", dst.addr, written * dtype.size), dst)], own_flags=own)
    if spec.name == D950:
        _register_chain(core, dst, first, diff, count)
    else:
        _block_chain(core, dst, _scalar_base(dst.dtype, first, diff, min(count, 32 // dst.dtype.size)), diff, count)


Arange = ArithProgression


def _block_chain(core, dst, base, diff, count, whole_blocks=True):
    """A2/A3/310P (arithprogression_common_impl.h; CreateVecIndex: dav_c220 / dav_m200
    kernel_operator_vec_createvecindex_impl.h): `base` (the scalar unit's first min(count, B) values) stored, then
    block b + 1 = block b + RN(B * diff) up to one repeat, then repeat r + 1 = repeat r + RN(R * diff).
    whole_blocks: ArithProgression's Adds round a partial block or tail up to whole DataBlocks (and set the mask
    register as its SetVectorMask / ResetMask leave it); CreateVecIndex's run exactly the remaining lanes (mask =
    tailSize) and leave the last Adds' mask."""
    dtype = dst.dtype
    block, repeat_lanes = 32 // dtype.size, 256 // dtype.size
    core.ub[dst.addr:dst.addr + base.nbytes] = base.view(np.uint8)
    if count <= block:
        return
    adds = E.ADDS
    step = _scalar_step(dtype, diff, block)
    first_repeat = min(count, repeat_lanes)
    for b in range(-(-first_repeat // block) - 1):  # block b + 1 = block b + B * diff
        lanes = block if whole_blocks else min(block, first_repeat - (b + 1) * block)
        E.composed_call(adds, core, (_at(dst, (b + 1) * block, lanes), _at(dst, b * block, lanes)), step,
                        mask=lanes, repeat_params=UnaryRepeatParams(1, 1, 1, 1))
    if count <= repeat_lanes:
        if whole_blocks:  # (the register as the implementation leaves it, also where high-dim calls do not
            core.SetVectorMask(0, (1 << block) - 1)  # record their masks)
        return
    step = _scalar_step(dtype, diff, repeat_lanes)
    for r in range(-(-count // repeat_lanes) - 1):  # repeat r + 1 = repeat r + R * diff (the last: the tail)
        lanes = min(repeat_lanes, count - (r + 1) * repeat_lanes)
        if whole_blocks:  # the tail rounded up to whole blocks (SetVectorMask(tail_aligned))
            lanes = -(-lanes // block) * block
        E.composed_call(adds, core, (_at(dst, (r + 1) * repeat_lanes, lanes), _at(dst, r * repeat_lanes, lanes)),
                        step, mask=lanes, repeat_params=UnaryRepeatParams())
    if whole_blocks:
        if count % repeat_lanes:
            core.SetVectorMask(lanes, dtype=dtype.name)
        else:  # ResetMask: every lane
            core.ResetMask()


def _register_chain(core, dst, first, diff, count):
    """950 (arithprogression_3510_impl.h), on dst's own elements: the lanes j < min(L, count) of the base register
    Muls(Arange(0), diff) then Adds(first); step = Muls(Duplicate(L), diff), made in dst[0] first; then each next
    register's stored lanes = the previous one's + step (Reg Add = Adds of the broadcast step, one rounding).
    diff None: CreateVecIndex's register (950 Reg::Arange(first), 310B vci(first)): the base is Adds(Arange(0),
    first) with no Muls, and the step is L converted to T (modular: int8's 256 is 0, as the implementation's
    Adds(vreg, vreg, sregLower) converts it)."""
    dtype = dst.dtype
    lanes = 256 // dtype.size if dtype.size != 8 else 64  # int64: two registers of 32 lanes (RegTraitNumTwo)
    muls, adds = E.MULS, E.ADDS
    view = core.ub[dst.addr:dst.addr + count * dtype.size].view(dtype.np_dtype)
    step = None
    if count > lanes and diff is None:
        step = _wrap(dtype, lanes) if not dtype.is_float else dtype.np_dtype.type(lanes)
    elif count > lanes:
        view[0] = dtype.np_dtype.type(lanes)
        E.composed_call(muls, core, (_at(dst, 0, 1), _at(dst, 0, 1)), diff, count=1)
        step = view[0]
    n = min(lanes, count)
    view[:n] = np.arange(n).astype(dtype.np_dtype)  # (int8's 128..255 wrap, as the register's lanes do)
    if diff is not None:
        E.composed_call(muls, core, (_at(dst, 0, n), _at(dst, 0, n)), diff, count=n)
    E.composed_call(adds, core, (_at(dst, 0, n), _at(dst, 0, n)), first, count=n)
    for start in range(lanes, count, lanes):
        n = min(lanes, count - start)
        E.composed_call(adds, core, (_at(dst, start, n), _at(dst, start - lanes, n)), step, count=n)
