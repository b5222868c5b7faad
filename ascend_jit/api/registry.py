"""The registry of instructions: what each one is called, its entry point, the dtypes a device offers for it,
its reference model and a minimal valid call. Cross-cutting tests (every instruction refuses the vector core,
unsupported dtypes and freed tensors, and leaves the UB untouched when it does) iterate over it, so a new
instruction gets them by being registered."""
from dataclasses import dataclass
from typing import Callable

from ..reference import model as reference_model
from .elementwise import elementwise_instructions
from .reduce_pair import ReducePairElem
from .reduce_sum import ReduceSum


@dataclass(frozen=True)
class Instruction:
    name: str
    entry: Callable            # the public API function
    dtypes: Callable           # DeviceSpec -> dtype names the device offers
    reference: Callable        # the reference model's implementation
    example: Callable          # (core, dtype) -> (tensors, call): call(*tensors) is one minimal valid call


def _reduce_sum_example(core, dtype):
    tensors = core.local_tensor(dtype, 16), core.local_tensor(dtype, 64), core.local_tensor(dtype, 64)
    return tensors, lambda dst, src, tmp: ReduceSum(dst, src, tmp, 64)


def _pair_example(core, dtype):
    tensors = core.local_tensor(dtype, 64), core.local_tensor(dtype, 128)
    return tensors, lambda dst, src: ReducePairElem(dst, src, 256 // src.dtype.size, 1, 1, 1, 8)


INSTRUCTIONS = (
    Instruction("ReduceSum", ReduceSum, lambda spec: spec.reduce_sum_dtypes, reference_model.reduce_sum_count,
                _reduce_sum_example),
    Instruction("ReducePairElem", ReducePairElem, lambda spec: spec.pair_dtypes, reference_model.reduce_pair,
                _pair_example),
) + elementwise_instructions(Instruction)
