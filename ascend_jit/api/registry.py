"""The registry of instructions: what each one is called, its entry point, the dtypes a device offers for it,
its reference model and a minimal valid call. Cross-cutting tests (every instruction refuses the vector core,
unsupported dtypes and freed tensors, and leaves the UB untouched when it does) iterate over it, so a new
instruction gets them by being registered."""
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .. import reg as R
from ..dtypes import resolve
from ..reference import arith_progression as reference_arith_progression
from ..reference import compare as reference_compare
from ..reference import create_vec_index as reference_create_vec_index
from ..reference import convert as reference_convert
from ..reference import elementwise as reference_elementwise
from ..reference import gather as reference_gather
from ..reference import model as reference_model
from ..reference import movement as reference_movement
from ..sync import PIPE_ALL
from ..tensor import GlobalTensor
from ..reference import reductions as reference_reductions
from ..reference import reg as reference_reg
from ..reference import transpose as reference_transpose
from .arith_progression import DTYPES as ARITH_PROGRESSION_DTYPES, ArithProgression
from .cast import Cast, RoundMode
from .create_vec_index import DTYPES as CREATE_VEC_INDEX_DTYPES, CreateVecIndex
from .transpose import BASIC_DTYPES as TRANSPOSE_DTYPES, Transpose, TransposeParamsExt, TransposeType
from .truncate import Truncate
from .compare import CMPMODE, SELMODE, Compare, Compares, Select
from .elementwise import Add, Adds, BinaryRepeatParams, Copy, CopyRepeatParams, elementwise_instructions
from .data_copy_pad import DataCopyExtParams, DataCopyPad, DataCopyPadExtParams
from .gather import Gather, GatherMask, GatherMaskParams
from .reduce_max_min import ReduceMax, ReduceMin
from .reduce_pair import PairReduceSum, ReducePairElem, ReduceType
from .reduce_sum import ReduceSum
from .reductions import (BlockReduceMax, BlockReduceMin, BlockReduceSum, ReduceDataBlock, ReduceRepeat,
                         RepeatReduceSum, WholeReduceMax, WholeReduceMin, WholeReduceSum)


@dataclass(frozen=True)
class Instruction:
    name: str
    entry: Callable            # the public API function
    dtypes: Callable           # DeviceSpec -> dtype names the device offers
    reference: Callable        # the reference model's implementation
    example: Callable          # (core, dtype) -> (tensors, call): call(*tensors) is one minimal valid call
    offered: Callable = lambda spec: True  # DeviceSpec -> whether the device offers it (SPEC-2 1.9); else
    #                                        every call raises UnsupportedDeviceError
    forms: tuple = ()          # more (core, dtype) -> (tensors, call) examples, one per API form (the fuzzer's seeds)
    api: str = None            # the name its errors carry, when not `name` (the Reg API's "Add" is "Reg.Add" here)
    home: str = "atlas-a2"     # the device the device-independent checks (freed tensors) run on

    @property
    def api_name(self):
        return self.api or self.name


def _reduce_sum_example(core, dtype):
    tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src, tmp: ReduceSum(dst, src, tmp, 64)


def _pair_example(core, dtype):
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 128)
    return tensors, lambda dst, src: ReducePairElem(dst, src, 256 // src.dtype.size, 1, 1, 1, 8)


def _old_pair_example(core, dtype):
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 128)
    return tensors, lambda dst, src: PairReduceSum(dst, src, 1, 256 // src.dtype.size, 1, 1, 8)


def _add_high_dim(core, dtype):
    return tuple(core.local_tensor(dtype, 512) for _ in range(3)), lambda d, a, b: Add(
        d, a, b, 100, 2, BinaryRepeatParams(1, 2, 1, 8, 16, 8))


def _add_bits(core, dtype):
    return tuple(core.local_tensor(dtype, 512) for _ in range(3)), lambda d, a, b: Add(
        d, a, b, [0xF0F0F0F0F0F0F0F0, 3] if d.dtype.size == 2 else [0xF0F0F0F0F0F0F0F0], 2, BinaryRepeatParams())


def _add_counter(core, dtype):
    core.SetMaskCount()  # counter mode: the mask argument is the element count
    return tuple(core.local_tensor(dtype, 512) for _ in range(3)), lambda d, a, b: Add(
        d, a, b, 300, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8))


def _adds_count_from_register(core, dtype):
    core.SetMaskCount()  # SPEC-2 D32: the tensor-scalar count forms take is_set_mask; False reads the register
    core.SetVectorMask(200)
    return tuple(core.local_tensor(dtype, 512) for _ in range(2)), lambda d, a: Adds(d, a, 1, 1, is_set_mask=False)


def _copy_bits(core, dtype):
    return tuple(core.local_tensor(dtype, 512) for _ in range(2)), lambda d, s: Copy(
        d, s, [0xF0F0F0F0F0F0F0F0, 3] if d.dtype.size == 2 else [0xF0F0F0F0F0F0F0F0], 2, CopyRepeatParams(1, 2, 8, 16))


def _copy_counter(core, dtype):
    core.SetMaskCount()  # Copy's counter mode: 300 elements in each of 2 repeats, past one register's 8 blocks
    return tuple(core.local_tensor(dtype, 1024) for _ in range(2)), lambda d, s: Copy(
        d, s, 300, 2, CopyRepeatParams(1, 1, 20, 20))


_ELEMENTWISE_FORMS = {"Add": (_add_high_dim, _add_bits, _add_counter), "Adds": (_adds_count_from_register,),
                      "Copy": (_copy_bits, _copy_counter)}


def _reduce_sum_high_dim(core, dtype):
    tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 1024), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src, tmp: ReduceSum(dst, src, tmp, 100, 3, 16)


def _pair_bits(core, dtype):
    tensors = core.local_tensor(dtype, 512), core.local_tensor(dtype, 1024)
    return tensors, lambda dst, src: ReducePairElem(dst, src, [0x0FF00FF00FF00FF0], 3, 2, 1, 8)


_SUM_DST = {"int16": "int32", "uint16": "uint32"}  # 950 widening ReduceRepeat SUM (SPEC-2 8.1)


def _repeat_example(entry, old_order=False, sum_dst=False, dst_blk=False, **kw):
    """One full repeat reduced into a 16-element dst; old_order: repeatTime before mask (the old names), dst_blk:
    with RepeatReduceSum's dstBlkStride."""
    def example(core, dtype):
        lanes = resolve(dtype).lanes_per_repeat
        src = core.local_tensor(dtype, lanes)
        dst = core.local_tensor(_SUM_DST.get(src.dtype.name, dtype) if sum_dst else dtype, 16)
        strides = (1, 1, 1, 8) if dst_blk else (1, 1, 8)
        if old_order:
            return (dst, src), lambda d, s: entry(d, s, 1, lanes, *strides, **kw)
        return (dst, src), lambda d, s: entry(d, s, lanes, 1, *strides, **kw)
    return example


def _max_min_example(entry):
    def example(core, dtype):
        tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 128), core.local_tensor(dtype, 64)
        return tensors, lambda dst, src, tmp: entry(dst, src, tmp, 64, True)
    return example


def _pairs_src(pairs):
    return tuple(s for s, _ in pairs)


def _cast_example(core, dtype):
    """dtype is the source; the destination is the first one the device's table offers for it (SPEC-2 7.2)."""
    pairs = core.spec.cast_pairs or {}
    dst_name, modes = next(((b, m) for (a, b), m in pairs.items() if a == dtype), ("float", ("CAST_NONE",)))
    tensors = core.local_tensor(dst_name, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src: Cast(dst, src, RoundMode[modes[0]], 64)


def _truncate_example(core, dtype):
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src: Truncate(dst, src, RoundMode.CAST_FLOOR, 64)


def _compare_example(core, dtype):
    """One whole repeat of EQ (the mode every dtype offers, SPEC-2 9.4)."""
    n = 256 // resolve(dtype).size
    tensors = core.local_tensor("uint8", 32), core.local_tensor(dtype, n), core.local_tensor(dtype, n)
    return tensors, lambda dst, a, b: Compare(dst, a, b, CMPMODE.EQ, a.size)


def _compares_example(core, dtype):
    n = 256 // resolve(dtype).size
    tensors = core.local_tensor("uint8", 32), core.local_tensor(dtype, n)
    return tensors, lambda dst, a: Compares(dst, a, 0, CMPMODE.EQ, a.size)


def _select_example(core, dtype):
    tensors = (core.local_tensor(dtype, 64), core.local_tensor("uint8", 32), core.local_tensor(dtype, 64),
               core.local_tensor(dtype, 64))
    return tensors, lambda dst, sel, a, b: Select(dst, sel, a, b, SELMODE.VSEL_CMPMASK_SPR, 64)


def _data_copy_pad_example(core, dtype):
    """GM -> UB of 3 elements padded to a DataBlock, then back (SPEC-2 9.1)."""
    d = resolve(dtype)
    gm = GlobalTensor(np.zeros(64, d.np_dtype))

    def call(local):
        DataCopyPad(local, gm, DataCopyExtParams(1, 3 * d.size, 0, 0, 0), DataCopyPadExtParams(True, 0, 1, 0))
        local.core.PipeBarrier(PIPE_ALL)   # the copy-out waits for the copy-in (MTE2 -> MTE3)
        DataCopyPad(gm, local, DataCopyExtParams(1, 3 * d.size, 0, 0, 0))
        local.core.PipeBarrier(PIPE_ALL)   # and a repeated call's copy-in waits for this copy-out (MTE3 -> MTE2)
    return (core.local_tensor(dtype, 64),), call


def _gather_example(core, dtype):
    """dst[k] = src[k] through byte offsets k * sizeof(T) (SPEC-2 9.2)."""
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 64), core.local_tensor("uint32", 64)
    if core.spec.supported:
        tensors[2][:] = np.arange(64, dtype=np.uint32) * resolve(dtype).size
    return tensors, lambda dst, src, offsets: Gather(dst, src, offsets, 0, 64)


def _create_vec_index_example(core, dtype):
    """A ramp of 100: past one repeat off the register devices (scalar block, block Adds, a tail repeat of 36)."""
    return (core.local_tensor(dtype, 128),), lambda dst: CreateVecIndex(dst, 1, 100)


def _arith_progression_example(core, dtype):
    """64 elements: the scalar part, then the block Adds (A2/A3/310P) or the register chain (950)."""
    return (core.local_tensor(dtype, 64),), lambda dst: ArithProgression(dst, 1, 2, 64)


def _transpose_example(core, dtype):
    """One 16 x 16 block, in place (the page allows src and dst the same)."""
    t = core.local_tensor(dtype, 256)
    return (t, t), lambda dst, src: Transpose(dst, src)


def _transpose_format_example(core, dtype):
    """[1, 3, 4, 8] NCHW -> NHWC through a tmp buffer of the page's minimum (16-bit types; others the 16x16's dtype
    refusal): 96 elements, h * w * 2 = 64 bytes."""
    tensors = core.local_tensor(dtype, 96), core.local_tensor(dtype, 96), core.local_tensor("uint8", 2560)
    return tensors, lambda dst, src, tmp: Transpose(dst, src, tmp, TransposeParamsExt(
        1, 3, 4, 8, TransposeType.TRANSPOSE_NCHW2NHWC))


def _gather_mask_example(core, dtype):
    tensors = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
    return tensors, lambda dst, src: GatherMask(dst, src, 1, False, 0, GatherMaskParams(1, 1, 8, 8))


# --- the Reg API (Ascend 950, SPEC-2 11): register instructions run inside `with core:` (the device of a register-
# only call is the current core's); each example calls its instruction first, so a non-950 core refuses that one,
# and moves the result through a tensor, so the UB shows what the call did. The calls go through `R.` (not a
# captured entry point): the fuzzer fuzzes their tensors. ------------------------------------------------------------
def _reg_example(body):
    """(core, dtype) -> ((tensor,), call): a 256-byte tensor of dtype and `body(core, tensor, dtype)` in `with core:`."""
    def example(core, dtype):
        def call(tensor):
            with core:
                body(tensor, dtype)
        tensor = core.local_tensor(dtype, 256 // resolve(dtype).size)
        core.ub_written_by_host(tensor.addr, tensor.nbytes)  # its bytes count as data: a sanitizing core's loads of it
        return (tensor,), call                                # read no uninitialised bytes
    return example


def _lanes(part="all"):
    """A MaskReg of plain words (CreateMask would refuse a non-950 core before the instruction, SPEC-2 11.1): every
    lane, the low half of the lanes, or lane 0, for any dtype (the bits CreateMask ALL / H set; VL1's lowest bit)."""
    ones = 2**64 - 1
    return R.MaskReg({"all": (ones,) * 4, "H": (ones, ones, 0, 0), "VL1": (1, 0, 0, 0)}[part])


def _reg_load(t, dtype):
    R.LoadAlign(R.RegTensor(dtype), t, 0)


def _reg_store(t, dtype):
    R.StoreAlign(t, R.RegTensor(dtype), _lanes(), 0)


def _reg_arith(op):
    def body(t, dtype):
        r, mask = R.RegTensor(dtype), _lanes()
        getattr(R, op)(r, r, r, mask)
        R.LoadAlign(r, t, 0)
        getattr(R, op)(r, r, r, mask)
        R.StoreAlign(t, r, mask, 0)
    return body


def _reg_exp(t, dtype):
    r, mask = R.RegTensor(dtype), _lanes()
    R.Exp(r, r, mask)
    R.LoadAlign(r, t, 0)
    R.Exp(r, r, mask)
    R.StoreAlign(t, r, mask, 0)


def _reg_scalar(op):
    """dst = src op 1 (a scalar every register type holds, D29)."""
    def body(t, dtype):
        r, mask = R.RegTensor(dtype), _lanes()
        getattr(R, op)(r, r, 1, mask)
        R.LoadAlign(r, t, 0)
        getattr(R, op)(r, r, 1, mask)
        R.StoreAlign(t, r, mask, 0)
    return body


def _reg_unary(op):
    def body(t, dtype):
        r, mask = R.RegTensor(dtype), _lanes()
        getattr(R, op)(r, r, mask)
        R.LoadAlign(r, t, 0)
        getattr(R, op)(r, r, mask)
        R.StoreAlign(t, r, mask, 0)
    return body


def _reg_shift(op):
    """ShiftLefts/ShiftRights of a data register by 3."""
    def body(t, dtype):
        r, mask = R.RegTensor(dtype), _lanes()
        for load in (False, True):
            if load:
                R.LoadAlign(r, t, 0)
            getattr(R, op)(r, r, 3, mask)
        R.StoreAlign(t, r, mask, 0)
    return body


def _reg_select_registers(t, dtype):
    a, b = R.RegTensor(dtype), R.RegTensor(dtype)
    R.Select(a, a, b, _lanes("H"))
    R.LoadAlign(b, t, 0)
    R.Select(a, a, b, _lanes("H"))
    R.StoreAlign(t, a, _lanes(), 0)


def _reg_arange(t, dtype):
    r = R.RegTensor(dtype)
    R.Arange(r, 1)
    R.StoreAlign(t, r, _lanes(), 0)


def _reg_duplicate(t, dtype):
    r = R.RegTensor(dtype)
    R.Duplicate(r, 1)
    R.StoreAlign(t, r, _lanes(), 0)


def _reg_reduce(t, dtype):
    """SUM into the widened type of SPEC-2 11.4 (half/float/32/64-bit: the same type)."""
    src = R.RegTensor(dtype)
    dst = R.RegTensor(R.REDUCE_SUM_DST.get(dtype, dtype))
    R.Reduce(dst, src, _lanes())
    R.LoadAlign(src, t, 0)
    R.Reduce(dst, src, _lanes())
    R.StoreAlign(t, dst, _lanes("VL1"), 0)


def _reg_pair_reduce(t, dtype):
    src, dst = R.RegTensor(dtype), R.RegTensor(dtype)
    R.PairReduceElem(dst, src, _lanes())
    R.LoadAlign(src, t, 0)
    R.PairReduceElem(dst, src, _lanes())
    R.StoreAlign(t, dst, _lanes(), 0)


def _reg_cast(t, dtype):
    """To the first destination SPEC-2 11.5 pairs with dtype, with the lowest trait values its row accepts."""
    dst_name = next((b for a, b in R.CAST_PAIRS if a == dtype), "float")
    src, dst = R.RegTensor(dtype), R.RegTensor(dst_name)
    row = R.cv.TRAITS[src.dtype.kind, dst.dtype.kind]
    lowest = [(int(bits) & -int(bits)).bit_length() - 1 for bits in row] if row[0] else [0, 0, 0]
    trait = R.CastTrait(lowest[0], lowest[1], R.MaskMergeMode.ZEROING, lowest[2])
    R.Cast(dst, src, _lanes(), trait)
    R.LoadAlign(src, t, 0)
    R.Cast(dst, src, _lanes(), trait)
    R.StoreAlign(t, dst, _lanes("VL1"), 0)


def _reg_mask_op(op):
    def body(t, dtype):
        a, b, out = _lanes(), _lanes("H"), R.MaskReg()
        if op in ("Not", "Move"):
            getattr(R, op)(out, a, b)
        elif op in ("Pack", "UnPack"):
            getattr(R, op)(out, a)
        else:
            getattr(R, op)(out, a, b, a)
        R.StoreAlign(t, out, 0)
    return body


_REG_REFERENCE = {"Max": reference_elementwise.max_, "Min": reference_elementwise.min_,
                  "Div": reference_reg.div, "Exp": reference_elementwise.exp, "LoadAlign": reference_reg.load, "StoreAlign": reference_reg.store, "Add": reference_reg.binary,
                  "Sub": reference_reg.binary, "Mul": reference_reg.binary, "Duplicate": reference_reg.duplicate,
                  "Arange": reference_reg.arange,
                  "Reduce": reference_reg.reduce, "Cast": reference_reg.cast_lanes, "Pack": reference_reg.pack,
                  "UnPack": reference_reg.unpack, "PairReduceElem": reference_reg.pair_reduce,
                  **{op: reference_reg.tensor_scalar for op in R.SCALAR_DTYPES},
                  **{op: reference_reg.unary for op in R.UNARY_DTYPES}, "Prelu": reference_reg.prelu,
                  **{op: reference_reg.ternary for op in R.TERNARY_DTYPES},
                  **{op: reference_reg.shift for op in R.SHIFT_DTYPES}}


def _reg(name, body, dtypes=lambda spec: R.REGISTER_DTYPES):
    def offered_dtypes(spec):
        return tuple(dtypes(spec)) if spec.name == R.DEVICE else ()
    return Instruction(f"Reg.{name}", getattr(R, name), offered_dtypes,
                       _REG_REFERENCE.get(name, reference_reg.mask_logic), _reg_example(body),
                       offered=lambda spec: spec.name == R.DEVICE, api=name, home=R.DEVICE)


REG_INSTRUCTIONS = (
    _reg("LoadAlign", _reg_load), _reg("StoreAlign", _reg_store),
    *(_reg(op, _reg_arith(op), lambda spec, op=op: R.ARITH_DTYPES[op]) for op in ("Add", "Sub", "Mul")),
    *(_reg(op, _reg_arith(op), lambda spec, op=op: R.ENGINE_DTYPES[op]) for op in ("Max", "Min", "Div", "Prelu")),
    _reg("Exp", _reg_exp, lambda spec: R.ENGINE_DTYPES["Exp"]),
    *(_reg(op, _reg_scalar(op), lambda spec, op=op: R.SCALAR_DTYPES[op]) for op in R.SCALAR_DTYPES),
    *(_reg(op, _reg_unary(op), lambda spec, op=op: R.UNARY_DTYPES[op]) for op in R.UNARY_DTYPES),
    *(_reg(op, _reg_scalar(op) if op == "Axpy" else _reg_arith(op), lambda spec, op=op: R.TERNARY_DTYPES[op])
      for op in R.TERNARY_DTYPES),
    replace(_reg("Select", _reg_select_registers), name="Reg.Select (registers)",
            reference=reference_reg.select),
    *(_reg(op, _reg_shift(op), lambda spec, op=op: R.SHIFT_DTYPES[op]) for op in R.SHIFT_DTYPES),
    _reg("Duplicate", _reg_duplicate), _reg("Reduce", _reg_reduce, lambda spec: tuple(R.REDUCE_SUM_DST)),
    _reg("Arange", _reg_arange, lambda spec: R.ARANGE_DTYPES),
    _reg("PairReduceElem", _reg_pair_reduce, lambda spec: ("half", "float")),
    _reg("Cast", _reg_cast, lambda spec: tuple(sorted({a for a, _ in R.CAST_PAIRS}))),
    *(_reg(op, _reg_mask_op(op)) for op in ("And", "Or", "Xor", "Not", "Move", "Select", "Pack", "UnPack")),
)


INSTRUCTIONS = (
    Instruction("ReduceSum", ReduceSum, lambda spec: spec.reduce_sum_dtypes, reference_model.reduce_sum_count,
                _reduce_sum_example, forms=(_reduce_sum_high_dim,)),
    Instruction("ReducePairElem", ReducePairElem, lambda spec: spec.pair_dtypes, reference_model.reduce_pair,
                _pair_example, forms=(_pair_bits,)),
    Instruction("PairReduceSum", PairReduceSum, lambda spec: spec.pair_dtypes, reference_model.reduce_pair,
                _old_pair_example),
    Instruction("ReduceRepeat", ReduceRepeat, lambda spec: spec.reduce_repeat_max_min_dtypes,
                reference_reductions.reduce_repeat, _repeat_example(ReduceRepeat, reduce_type=ReduceType.MAX)),
    Instruction("WholeReduceSum", WholeReduceSum, lambda spec: _pairs_src(spec.reduce_repeat_sum_pairs),
                reference_reductions.reduce_repeat, _repeat_example(WholeReduceSum, sum_dst=True)),
    Instruction("WholeReduceMax", WholeReduceMax, lambda spec: spec.reduce_repeat_max_min_dtypes,
                reference_reductions.reduce_repeat, _repeat_example(WholeReduceMax)),
    Instruction("WholeReduceMin", WholeReduceMin, lambda spec: spec.reduce_repeat_max_min_dtypes,
                reference_reductions.reduce_repeat, _repeat_example(WholeReduceMin)),
    Instruction("RepeatReduceSum", RepeatReduceSum,
                lambda spec: _pairs_src(spec.reduce_repeat_sum_pairs) if spec.repeat_reduce_sum_offered else (),
                reference_reductions.reduce_repeat,
                _repeat_example(RepeatReduceSum, old_order=True, sum_dst=True, dst_blk=True),
                lambda spec: spec.repeat_reduce_sum_offered),
    Instruction("ReduceDataBlock", ReduceDataBlock, lambda spec: spec.reduce_data_block_dtypes,
                reference_reductions.reduce_data_block, _repeat_example(ReduceDataBlock, reduce_type=ReduceType.SUM)),
    Instruction("BlockReduceSum", BlockReduceSum, lambda spec: spec.reduce_data_block_dtypes,
                reference_reductions.reduce_data_block, _repeat_example(BlockReduceSum, old_order=True)),
    Instruction("BlockReduceMax", BlockReduceMax, lambda spec: spec.reduce_data_block_dtypes,
                reference_reductions.reduce_data_block, _repeat_example(BlockReduceMax, old_order=True)),
    Instruction("BlockReduceMin", BlockReduceMin, lambda spec: spec.reduce_data_block_dtypes,
                reference_reductions.reduce_data_block, _repeat_example(BlockReduceMin, old_order=True)),
    Instruction("ReduceMax", ReduceMax, lambda spec: spec.reduce_max_min_dtypes,
                reference_reductions.reduce_max_min_levels, _max_min_example(ReduceMax)),
    Instruction("ReduceMin", ReduceMin, lambda spec: spec.reduce_max_min_dtypes,
                reference_reductions.reduce_max_min_levels, _max_min_example(ReduceMin)),
    Instruction("Cast", Cast, lambda spec: sorted({a for a, _ in spec.cast_pairs}), reference_convert.cast_count,
                _cast_example),
    Instruction("Compare", Compare, lambda spec: spec.compare_dtypes, reference_compare.compare_count,
                _compare_example),
    Instruction("Compares", Compares, lambda spec: spec.compares_dtypes, reference_compare.compare_count,
                _compares_example, offered=lambda spec: bool(spec.compares_dtypes)),
    Instruction("Select", Select, lambda spec: spec.select_dtypes, reference_compare.select_count, _select_example),
    Instruction("DataCopyPad", DataCopyPad, lambda spec: spec.pad_dtypes, reference_movement.data_copy_pad_gm_to_ub,
                _data_copy_pad_example, offered=lambda spec: bool(spec.pad_dtypes)),
    Instruction("Gather", Gather, lambda spec: spec.gather_dtypes, reference_gather.gather, _gather_example,
                offered=lambda spec: bool(spec.gather_dtypes)),
    Instruction("GatherMask", GatherMask, lambda spec: spec.gather_mask_dtypes, reference_gather.gather_mask,
                _gather_mask_example, offered=lambda spec: bool(spec.gather_mask_dtypes)),
    Instruction("ArithProgression", ArithProgression, lambda spec: ARITH_PROGRESSION_DTYPES.get(spec.name, ()),
                reference_arith_progression.arith_progression, _arith_progression_example,
                offered=lambda spec: spec.name in ARITH_PROGRESSION_DTYPES),
    Instruction("CreateVecIndex", CreateVecIndex, lambda spec: CREATE_VEC_INDEX_DTYPES.get(spec.name, ()),
                reference_create_vec_index.create_vec_index, _create_vec_index_example,
                offered=lambda spec: spec.name in CREATE_VEC_INDEX_DTYPES),
    Instruction("Transpose", Transpose, lambda spec: TRANSPOSE_DTYPES.get(spec.name, ()),
                reference_transpose.transpose_16x16, _transpose_example, forms=(_transpose_format_example,)),
    # the reference is Cast's with the source type as the destination (api/truncate.py)
    Instruction("Truncate", Truncate, lambda spec: ("half", "float", "bfloat16") if spec.name == "ascend950" else (),
                reference_convert.cast_count,
                _truncate_example, offered=lambda spec: spec.name == "ascend950", home="ascend950"),
) + tuple(replace(i, forms=_ELEMENTWISE_FORMS.get(i.name, ())) for i in elementwise_instructions(Instruction)) + \
    REG_INSTRUCTIONS


# --- devkit Memory-API names the emulator does not offer (SPEC-2 14) ------------------------------------------------
# Looked up on `aj`, a NotOfferedError saying why and what to use (port39r met Interleave in some sixteen arch35
# files), not a bare AttributeError; `aj.Reg` has its own table (reg.py).
_OUT_OF_BRIEF = "not offered (SPEC-2 14: not in the brief)"
_NO_SORT = ("no sort instruction is offered: sort on the host between two launches "
            "(numpy's stable argsort on the keys negated, for the devkit's descending order), or write a "
            "compare-exchange network of aj.Max / aj.Min, or of Compare and Select to carry indices")
# a raw pointer's element type, as the tensors a port passes in its place take it
_POINTER_TYPES = (" (the LocalTensor's ReinterpretCast(\"uint32\"), for one, and for the GM side an "
                  "aj.GlobalTensor(\"uint32\") over the same host array: GlobalTensor.ReinterpretCast is the 950's "
                  "only)")

NOT_OFFERED = {
    **dict.fromkeys(("Interleave", "DeInterleave"), "not offered (the 950's Memory-API pages are outside the brief); "
                    "inside a VF a DIST_DINTLV_B16/B32 aj.Reg.LoadAlign into two registers de-interleaves and a "
                    "DIST_INTLV_B16/B32 aj.Reg.StoreAlign of two registers interleaves"),
    **dict.fromkeys(("SetCmpMask", "GetCmpMask"), "not offered (SPEC-2 14, D59: the CMPMASK register's layout after "
                    "Compare is not documented per device); Select takes its selMask as a tensor here"),
    **dict.fromkeys(("CastDequant", "SetDeqScale"), "not offered (SPEC-2 14, D47: the dequantisation scale's format "
                    "and rounding are undocumented); to dequantise, Cast the integers to float, Muls by the scale and "
                    "Cast to the destination type (each step rounded once: the device's deq path may differ in the "
                    "last bit)"),
    **dict.fromkeys(("MulAddRelu", "AddReluCast", "SubReluCast", "MulCast", "Mull", "Prelu", "BilinearInterpolation"),
                    _OUT_OF_BRIEF),
    "Neg": f"{_OUT_OF_BRIEF}; aj.Muls(dst, src, -1.0, count) negates a float lane exactly",
    **dict.fromkeys(("Subs", "Divs"), "not offered (SPEC-2 14: the 950's flexible-scalar variants are outside the "
                    "brief); Adds and Muls take the scalar"),
    **dict.fromkeys(("SetLoopModePara", "ResetLoopModePara"), "not offered (SPEC-2 14: DataCopyPad's 950 loop mode is "
                    "outside the brief); copy each loop's rows with its own DataCopyPad"),
    **dict.fromkeys(("CrossCoreSetFlag", "CrossCoreWaitFlag"), "not offered (SPEC-2 14: cross-core flags are not "
                    "modelled); aj.SyncAll orders the blocks of a launch"),
    # the devkit's advanced (高阶API) pages, its math, activation, normalisation, quantisation, reduction, sort and
    # tensor-transform folders; those also basic instructions here (Exp, Axpy, ReduceSum, ...) are found before this
    **dict.fromkeys((
        "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor",
        "Ceil", "Clamp", "ClampMax", "ClampMin", "Cos", "Cosh", "CumSum", "Digamma", "Erf", "Erfc", "Floor", "Fma",
        "Fmod", "Frac", "Hypot", "IsFinite", "IsInf", "IsNan", "Lgamma", "Log", "LogicalAnd", "LogicalAnds",
        "LogicalNot", "LogicalOr", "LogicalOrs", "LogicalXor", "Rint", "Round", "Sign", "Sin", "SinCos",
        "Sinh", "Tan", "Tanh", "Trunc", "Where", "Xor",
        "AdjustSoftMaxRes", "FasterGelu", "FasterGeluV2", "GeGLU", "Gelu", "LogSoftMax", "ReGlu", "Sigmoid", "Silu",
        "SimpleSoftMax", "SoftMax", "SoftmaxFlash", "SoftmaxFlashV2", "SoftmaxFlashV3", "SoftmaxGrad",
        "SoftmaxGradFront", "SwiGLU", "Swish",
        "BatchNorm", "DeepNorm", "GroupNorm", "LayerNorm", "LayerNormGrad", "LayerNormGradBeta", "Normalize",
        "RmsNorm", "WelfordFinalize", "WelfordUpdate", "DropOut", "AntiQuantize", "AscendAntiQuant", "AscendDequant",
        "AscendQuant", "Dequantize", "Quantize", "Mean", "ReduceAll", "ReduceAny", "ReduceMean", "ReduceProd",
        "ReduceXorSum", "Sum", "Pad",
        "UnPad", "TransData", "ConfusionTranspose", "PhiloxRandom", "SelectWithBytesMask"),
        "an advanced (高阶) API, built by the devkit from basic instructions: not offered; write its basic "
        "instructions, the ones the devkit's impl/adv_api/detail/<area>/<name>/ uses for the device (the gallery's "
        "ports do, e.g. kernels/softmax.py)"),
    # ops-math MulAddn spells it BroadCast<T, dim, axis> (port62b), the devkit's impl name Broadcast forwards to
    **dict.fromkeys(("Broadcast", "BroadCast", "GetBroadCastMaxMinTmpSize"),
                    "an advanced (高阶) API, built by the devkit from basic instructions: not offered; write the "
                    "devkit's own sequence for the device (impl/adv_api/detail/pad/broadcast/): on A2 / A3 "
                    "broadcast_v220_impl.h (BroadCast<T, 2, 1>, a column to rows: aj.Brcb of the column into one "
                    "32-byte block per element, PipeBarrier<PIPE_V>, then an aj.Copy with source block stride 0 for "
                    "rows of whole 32-byte blocks, or into 32-byte aligned rows and a reduce-mode GatherMask "
                    "otherwise), on the 310P broadcast_v200_impl.h (a Duplicate'd zero block, a high-dim Or of "
                    "uint16 with source block stride 0, then Transpose NCHW2NHWC; its Copy is not offered there), on "
                    "the 950 broadcast_3510_impl.h (a Reg VF)"),
    # the devkit's LogImpl off the 950 is one counter-mode Ln (impl/adv_api/detail/math/log/log_common_impl.h;
    # port60c)
    "Log": "an advanced (高阶) API: off the 950 the devkit builds Log(dst, src, count) as one counter-mode Ln, "
           "aj.Ln(dst, src, count) here (its 950 build is a VF of its own)",
    # port63i (ops-nn ApplyAdamWV2's bias correction, Power<float, false>(dst, src, scalar, n)): the devkit's
    # CommonPowerF is some sixty instructions; the usual case in three. port68c: for a positive base its value path
    # on the A2 / A3 is Abs, Ln, Mul by the Duplicate'd exponent, Exp and selects that keep that value, so the three
    # give its bits (0 differences over 5 exponents x 4096 bases); the 950's power_3510_impl.h is another algorithm
    "Power": "an advanced (高阶) API, built by the devkit from basic instructions: not offered; for a positive base "
             "and a scalar exponent, aj.Ln, aj.Muls by the exponent and aj.Exp of float give base ** exponent: on the "
             "A2 / A3 the bits of the devkit's CommonPowerF for such a base (its value path is Abs, Ln, Mul, Exp; Ln "
             "and Exp MODELLED; for half it Casts to float with CAST_NONE, computes so and Casts back with "
             "CAST_NONE), on the 950 not those of its power_3510_impl.h; the devkit's whole sequence (negative bases, "
             "zeros, integer exponents; every overload runs in counter mode, and one without a tmp buffer takes the "
             "stack buffer, aj.PopStackBuffer) is impl/adv_api/detail/math/power/ (power_common_impl.h, "
             "power_float_impl.h)",
    # the advanced reductions' template argument (ReduceSum<T, Pattern::Reduce::AR>(dst, src, tmp, srcShape,
    # srcInnerPad), called by ops-nn's arch35 kernels; the call itself: _common.refuse_advanced_reduce_form)
    "Pattern": "the advanced (高阶) reductions' pattern (ReduceSum<T, Pattern::Reduce::AR>(dst, src, [tmp,] srcShape, "
               "srcInnerPad)): not offered; reduce each row with the count form aj.ReduceSum(dst, src, tmp, count) "
               "(ReduceMax / ReduceMin alike), or with a Reg VF on the 950",
    # basic instructions of the devkit's Memory-API pages that SPEC-2 does not specify (数据排布转换, 排序组合)
    # the 950's multi-dimensional DMA DataCopy<T, dim, NdDmaConfig>(dst, src, MultiCopyParams) (port60i: ops-nn
    # SoftplusV2Grad's broadcast copy-in)
    # port65j: DequantBias declares MultiCopyConfig first; port65i: Scale's rows of 12 floats and its scale (C,)
    # broadcast along W, which a row's DataCopyPad cannot write
    **dict.fromkeys(("MultiCopyParams", "NdDmaConfig", "MultiCopyLoopInfo", "MultiCopyConfig"),
                    f"{_OUT_OF_BRIEF}; copy each row of the destination with its own DataCopyPad (a broadcast row: "
                    "the same GM source each time); a DataCopyPad lands at a 32-byte-aligned UB address, so rows "
                    "that are not whole 32-byte blocks take a padded layout (rows at 32-byte strides) instead of "
                    "NDDMA's dense one; an element broadcast along a row (a zero innermost stride): DataCopyPad the "
                    "elements, then GetValue and Duplicate per row, or Brcb (one 32-byte block per element)"),
    # port67c: ops-cv GridSample's A2/A3 kernels transpose (C, 16) tiles with it; no instruction here does what it does
    "TransDataTo5HD": f"{_OUT_OF_BRIEF}: no instruction here does its 16-address gather and scatter; aj.Transpose "
                      "transposes 16 x 16 blocks of 2-byte types (TransposeType.TRANSPOSE_NCHW2NHWC / NHWC2NCHW the "
                      "format conversions the devkit builds on TransDataTo5HD), otherwise reorder with GetValue / "
                      "SetValue or on the host between launches",
    "VectorPadding": _OUT_OF_BRIEF,
    # the sort family: the advanced Sort / TopK / Concat / Extract are built from Sort32 and MrgSort (sort_impl.h),
    # basic instructions outside the brief too, so "write its basic instructions" led nowhere (port63c)
    **dict.fromkeys(("Sort", "TopK", "Concat", "Extract", "GetSortLen", "GetSortOffset"),
                    "an advanced (高阶) API, built by the devkit from basic instructions (Sort32 and MrgSort: "
                    "impl/adv_api/detail/sort/) that are not offered either (SPEC-2 14: not in the brief); "
                    f"{_NO_SORT}"),
    **dict.fromkeys(("Sort32", "MrgSort", "MrgSort4", "GetMrgSortResult", "MrgSortSrcList", "RpSort16",
                     "ProposalConcat", "ProposalExtract"), f"{_OUT_OF_BRIEF}; {_NO_SORT}"),
    **dict.fromkeys(("AtomicAdd", "AtomicMax", "AtomicMin", "AtomicCas", "AtomicExch"),
                    "not offered (the scalar unit's atomics on one GM element are not in the brief); "
                    "aj.SetAtomicAdd / SetAtomicMax / SetAtomicMin, a DataCopyPad of the element from a LocalTensor, "
                    "then aj.SetAtomicNone do an atomic update of it"),
    # port68l3: the devkit's ScalarCast<float, half> rounds to odd only (kernel_scalar.h), ops-nn's six uses so
    "ScalarCast": "not offered (a scalar-unit conversion outside the brief); the devkit's ScalarCast<float, half> "
                  "rounds to odd (CAST_ODD) only and <float, int32> takes CAST_ROUND / CEIL / FLOOR / RINT "
                  "(kernel_scalar.h): Cast a one-element tensor with that mode (aj.Cast, SPEC-2 7), whose bits are "
                  "the vector unit's; numpy's np.float16(np.float32(v)) rounds to nearest even, not to odd",
    "AscendCUtils": "not offered: its SetMask is aj.SetVectorMask, its GetRsvdCnt GatherMask's returned count (or "
                    "aj.GetGatherMaskRemainCount on A2/A3/310P)",
    # the host tiling's query object itself (port63f: `platform_ascendc::PlatformAscendC ascendcPlatform(...)`)
    **dict.fromkeys(("PlatformAscendC", "platform_ascendc"),
                    "not offered (the host's per-chip platform queries): a port's tiling takes the block count as a "
                    "parameter, launched with aj.launch(kernel, block_dim, device, ...), for GetCoreNumAiv() and "
                    "the like; GetCoreMemSize(CoreMemType::UB, ubSize) is aj.get_device(device).ub_bytes"),
    # the host tiling's PlatformAscendC queries (a port's tiling function calls them first)
    **dict.fromkeys(("GetCoreNum", "GetCoreNumAic", "GetCoreNumAiv", "GetCoreNumVector"),
                    "not offered: the host's PlatformAscendC answers for one chip (its core count is the SKU's, not "
                    "the device family's, and the SPECs give none); a port's tiling takes the block count as a "
                    "parameter, launched with aj.launch(kernel, block_dim, device, ...) (block_dim from 1 to 65535)"),
    "GetCoreMemSize": "not offered (a host PlatformAscendC query); the UB's bytes are aj.get_device(device).ub_bytes "
                      "(aj.GetUBSizeInBytes() inside a kernel on the 950)",
    "asc_vf_call": "the VF launcher is aj.Reg.asc_vf_call(vf, *args) (the C API's other asc_* functions are not "
                   "offered)",
    "GetSocVersion": "not offered (a host PlatformAscendC query); the device is the name a port gives aj.Core or "
                     "aj.launch (one of aj.SUPPORTED_NAMES); inside a kernel aj.current_core().device",
    # the devkit's own implementations of DataCopy / DataCopyPad on raw pointers (port64b: ops-nn ScatterElementsV2
    # copies its int64 indices as uint32 with DataCopyPadGm2UBImpl)
    **dict.fromkeys(("DataCopyPadGm2UBImpl", "DataCopyPadUB2GMImpl"),
                    "not offered (the devkit's implementation of DataCopyPad on raw pointers, under its API): write "
                    "aj.DataCopyPad(dst, src, DataCopyExtParams, DataCopyPadExtParams) on tensors of the pointers' "
                    f"type{_POINTER_TYPES} (the 310P and 910 offer no DataCopyPad: aj.DataCopy of whole 32-byte "
                    "blocks)"),
    # port64h: the 310P GeGluGradV2's MemSetZero copies with DataCopyUB2GMImpl, which has no DataCopyPad there
    # port65a: ops-nn FusedSgd and the foreach kernels read their tensor lists through these (README's porting table)
    **dict.fromkeys(("ListTensorDesc", "TensorDesc", "GetTensorAddr"),
                    "not offered (the devkit's descriptor table of a dynamic tensor list in GM): give the kernel a "
                    "Python list of host arrays (or GlobalTensors); GetTensorAddr(desc, i) / GetDataPtr<T>(i) is "
                    "list[i], and a tensor's GetDim / GetShape its host array's shape (pass the shapes as a list)"),
    **dict.fromkeys(("DataCopyGM2UBImpl", "DataCopyUB2GMImpl"),
                    "not offered (the devkit's implementation of DataCopy on raw pointers, under its API): write "
                    "aj.DataCopy(dst, src, aj.DataCopyParams(blockCount, blockLen, srcStride, dstStride)) on tensors "
                    f"of the pointers' type{_POINTER_TYPES}"),
}

# Whole devkit families by name prefix. The C API (`asc_copy_gm2ub`, `asc_add`, ...: the samples' first
# vector_add_c_api, port61c) is a thin layer over the C++ calls (the devkit's impl/c_api): named with what each one
# is, not a bare AttributeError (docs/decisions.md "What the session-61 ports found")
NOT_OFFERED_FAMILIES = (
    ("asc_", "not offered: the devkit's C API (asc_* functions) is a layer over the C++ API, which is what the "
             "emulator offers; write the call it stands for: asc_init() nothing, asc_get_block_idx() "
             "aj.GetBlockIdx(), asc_copy_gm2ub / asc_copy_ub2gm aj.DataCopy (whole 32-byte blocks; aj.DataCopyPad "
             "for a byte length), asc_add(dst, a, b, count) aj.Add(dst, a, b, count) (asc_sub, asc_mul, ... the "
             "same), a *_sync variant the call then aj.PipeBarrier(aj.PIPE_ALL), a __ubuf__ array a TBuf's tensor "
             "(aj.TPipe().InitBuffer) or core.local_tensor"),
)
