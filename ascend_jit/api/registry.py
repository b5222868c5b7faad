"""The registry of instructions: what each one is called, its entry point, the dtypes a device offers for it,
its reference model and a minimal valid call. Cross-cutting tests (every instruction refuses the vector core,
unsupported dtypes and freed tensors, and leaves the UB untouched when it does) iterate over it, so a new
instruction gets them by being registered."""
from dataclasses import dataclass
from typing import Callable

from ..reference import model as reference_model
from .add import Add, BinaryRepeatParams
from .reduce_pair import ReducePairElem
from .reduce_sum import ReduceSum


@dataclass(frozen=True)
class Instruction:
    name: str
    entry: Callable            # the public API function
    dtypes: Callable           # DeviceSpec -> dtype names the device offers
    reference: Callable        # the reference model's implementation
    example: Callable          # (core, dtype) -> (tensors, call): call(*tensors) is one minimal valid call
    forms: tuple = ()          # more (core, dtype) -> (tensors, call) examples, one per API form (the fuzzer's seeds)


def _add_example(core, dtype):
    return tuple(core.local_tensor(dtype, 64) for _ in range(3)), lambda d, a, b: Add(d, a, b, 64)


def _reduce_sum_example(core, dtype):
    tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src, tmp: ReduceSum(dst, src, tmp, 64)


def _pair_example(core, dtype):
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 128)
    return tensors, lambda dst, src: ReducePairElem(dst, src, 256 // src.dtype.size, 1, 1, 1, 8)


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


def _add_count_from_register(core, dtype):
    core.SetMaskCount()
    core.SetVectorMask(200)
    return tuple(core.local_tensor(dtype, 512) for _ in range(3)), lambda d, a, b: Add(d, a, b, 1, is_set_mask=False)


def _reduce_sum_high_dim(core, dtype):
    tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 1024), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src, tmp: ReduceSum(dst, src, tmp, 100, 3, 16)


def _pair_bits(core, dtype):
    tensors = core.local_tensor(dtype, 512), core.local_tensor(dtype, 1024)
    return tensors, lambda dst, src: ReducePairElem(dst, src, [0x0FF00FF00FF00FF0], 3, 2, 1, 8)


INSTRUCTIONS = (
    Instruction("Add", Add, lambda spec: spec.add_dtypes, reference_model.add_high_dim, _add_example,
                (_add_high_dim, _add_bits, _add_counter, _add_count_from_register)),
    Instruction("ReduceSum", ReduceSum, lambda spec: spec.reduce_sum_dtypes, reference_model.reduce_sum_count,
                _reduce_sum_example, (_reduce_sum_high_dim,)),
    Instruction("ReducePairElem", ReducePairElem, lambda spec: spec.pair_dtypes, reference_model.reduce_pair,
                _pair_example, (_pair_bits,)),
)
