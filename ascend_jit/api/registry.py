"""The registry of instructions: what each one is called, its entry point, the dtypes a device offers for it,
its reference model and a minimal valid call. Cross-cutting tests (every instruction refuses the vector core,
unsupported dtypes and freed tensors, and leaves the UB untouched when it does) iterate over it, so a new
instruction gets them by being registered."""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..dtypes import resolve
from ..tensor import GlobalTensor

from ..reference import compare as reference_compare
from ..reference import convert as reference_convert
from ..reference import gather as reference_gather
from ..reference import movement as reference_movement
from ..reference import model as reference_model
from .add import Add
from .cast import Cast, RoundMode
from .compare import CMPMODE, SELMODE, Compare, Compares, Select
from .data_copy_pad import DataCopyPad, DataCopyPadExtParams, DataCopyExtParams
from .gather import Gather, GatherMask, GatherMaskParams
from .reduce_pair import ReducePairElem
from .reduce_sum import ReduceSum


@dataclass(frozen=True)
class Instruction:
    name: str
    entry: Callable            # the public API function
    dtypes: Callable           # DeviceSpec -> dtype names the device offers
    reference: Callable        # the reference model's implementation
    example: Callable          # (core, dtype) -> (tensors, call): call(*tensors) is one minimal valid call


def _add_example(core, dtype):
    return tuple(core.local_tensor(dtype, 64) for _ in range(3)), lambda d, a, b: Add(d, a, b, 64)


def _reduce_sum_example(core, dtype):
    tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src, tmp: ReduceSum(dst, src, tmp, 64)


def _pair_example(core, dtype):
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 128)
    return tensors, lambda dst, src: ReducePairElem(dst, src, 256 // src.dtype.size, 1, 1, 1, 8)


def _cast_example(core, dtype):
    """dtype is the source; the destination is the first one the device's table offers for it (SPEC-2 7.2)."""
    pairs = core.spec.cast_pairs or {}
    dst_name, modes = next(((b, m) for (a, b), m in pairs.items() if a == dtype), ("float", ("CAST_NONE",)))
    tensors = core.local_tensor(dst_name, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src: Cast(dst, src, RoundMode[modes[0]], 64)


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
        DataCopyPad(gm, local, DataCopyExtParams(1, 3 * d.size, 0, 0, 0))
    return (core.local_tensor(dtype, 64),), call


def _gather_example(core, dtype):
    """dst[k] = src[k] through byte offsets k * sizeof(T) (SPEC-2 9.2)."""
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 64), core.local_tensor("uint32", 64)
    if core.spec.supported:
        tensors[2][:] = np.arange(64, dtype=np.uint32) * resolve(dtype).size
    return tensors, lambda dst, src, offsets: Gather(dst, src, offsets, 0, 64)


def _gather_mask_example(core, dtype):
    tensors = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
    return tensors, lambda dst, src: GatherMask(dst, src, 1, False, 0, GatherMaskParams(1, 1, 8, 8))


INSTRUCTIONS = (
    Instruction("Add", Add, lambda spec: spec.add_dtypes, reference_model.add_high_dim, _add_example),
    Instruction("ReduceSum", ReduceSum, lambda spec: spec.reduce_sum_dtypes, reference_model.reduce_sum_count,
                _reduce_sum_example),
    Instruction("ReducePairElem", ReducePairElem, lambda spec: spec.pair_dtypes, reference_model.reduce_pair,
                _pair_example),
    Instruction("Cast", Cast, lambda spec: sorted({a for a, _ in spec.cast_pairs}), reference_convert.cast_count,
                _cast_example),
    Instruction("Compare", Compare, lambda spec: spec.compare_dtypes, reference_compare.compare_count,
                _compare_example),
    Instruction("Compares", Compares, lambda spec: spec.compares_dtypes, reference_compare.compare_count,
                _compares_example),
    Instruction("Select", Select, lambda spec: spec.select_dtypes, reference_compare.select_count, _select_example),
    Instruction("DataCopyPad", DataCopyPad, lambda spec: spec.pad_dtypes, reference_movement.data_copy_pad_gm_to_ub,
                _data_copy_pad_example),
    Instruction("Gather", Gather, lambda spec: spec.gather_dtypes, reference_gather.gather, _gather_example),
    Instruction("GatherMask", GatherMask, lambda spec: spec.gather_mask_dtypes, reference_gather.gather_mask,
                _gather_mask_example),
)
