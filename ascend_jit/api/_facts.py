"""The core and tensor facts a memoised validator passes to `_common.check_tensor_bounds`, rebuilt from its memo key
(the validator sees plain values, never the live objects, so its cache cannot keep them alive)."""
from dataclasses import dataclass

from ._common import check_inside_ub, check_tensor_bounds


@dataclass(frozen=True)
class CoreFacts:
    """What check_tensor_bounds reads of a core."""
    bounds: str
    device: str


@dataclass(frozen=True)
class TensorFacts:
    """What check_tensor_bounds reads of a tensor."""
    addr: int
    size: int
    dtype: object

    @property
    def nbytes(self):
        return self.size * self.dtype.size


def check_operand_bounds(api, spec, bounds, op, addr, size, d, ext=None):
    """decisions.md "Tensor bounds": the operand's bytes inside the UB (unless `ext`, its extent, was proved inside
    already) and, with bounds="tensor", inside its tensor (`size` elements of `d` at `addr`); returns the extent."""
    if ext is None:
        ext = check_inside_ub(api, spec, op)
    check_tensor_bounds(api, CoreFacts(bounds, spec.name), op, TensorFacts(addr, size, d), ext)
    return ext
