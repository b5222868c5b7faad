"""The registry of instructions: what each one is called, its entry point, the dtypes a device offers for it,
its reference model and a minimal valid call. Cross-cutting tests (every instruction refuses the vector core,
unsupported dtypes and freed tensors, and leaves the UB untouched when it does) iterate over it, so a new
instruction gets them by being registered."""
from dataclasses import dataclass
from typing import Callable

from ..dtypes import resolve
from ..reference import model as reference_model
from ..reference import reductions as reference_reductions
from .add import Add
from .reduce_max_min import ReduceMax, ReduceMin
from .reduce_pair import ReducePairElem, ReduceType
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


def _add_example(core, dtype):
    return tuple(core.local_tensor(dtype, 64) for _ in range(3)), lambda d, a, b: Add(d, a, b, 64)


def _reduce_sum_example(core, dtype):
    tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src, tmp: ReduceSum(dst, src, tmp, 64)


def _pair_example(core, dtype):
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 128)
    return tensors, lambda dst, src: ReducePairElem(dst, src, 256 // src.dtype.size, 1, 1, 1, 8)


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


INSTRUCTIONS = (
    Instruction("Add", Add, lambda spec: spec.add_dtypes, reference_model.add_high_dim, _add_example),
    Instruction("ReduceSum", ReduceSum, lambda spec: spec.reduce_sum_dtypes, reference_model.reduce_sum_count,
                _reduce_sum_example),
    Instruction("ReducePairElem", ReducePairElem, lambda spec: spec.pair_dtypes, reference_model.reduce_pair,
                _pair_example),
    Instruction("ReduceRepeat", ReduceRepeat, lambda spec: spec.reduce_repeat_max_min_dtypes,
                reference_reductions.reduce_repeat, _repeat_example(ReduceRepeat, reduce_type=ReduceType.MAX)),
    Instruction("WholeReduceSum", WholeReduceSum, lambda spec: _pairs_src(spec.reduce_repeat_sum_pairs),
                reference_reductions.reduce_repeat, _repeat_example(WholeReduceSum, sum_dst=True)),
    Instruction("WholeReduceMax", WholeReduceMax, lambda spec: spec.reduce_repeat_max_min_dtypes,
                reference_reductions.reduce_repeat, _repeat_example(WholeReduceMax)),
    Instruction("WholeReduceMin", WholeReduceMin, lambda spec: spec.reduce_repeat_max_min_dtypes,
                reference_reductions.reduce_repeat, _repeat_example(WholeReduceMin)),
    Instruction("RepeatReduceSum", RepeatReduceSum, lambda spec: _pairs_src(spec.reduce_repeat_sum_pairs),
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
)
