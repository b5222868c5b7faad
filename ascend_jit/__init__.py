"""ascend_jit: a bit-exact, numba-JIT CPU emulator of Ascend C vector instructions.

    import ascend_jit as aj
    core = aj.Core("atlas-a2")
    a = core.local_tensor("half", 512); ...
    aj.Add(dst, a, b, 512)
"""

from .api._common import MASK_PLACEHOLDER
from .api.add import Add, BinaryRepeatParams
from .api.reduce_pair import ReducePairElem, ReduceType
from .api.reduce_sum import GetReduceSumTmpSize, ReduceSum
from .core import (Core, current_core, GetBlockIdx, GetBlockNum, GetCtrlSpr, GetReduceRepeatSumSpr, GetSaturationFlag, MaskMode,
                   ResetMask, SaturationMode, SetCtrlSpr, SetMaskCount, SetMaskNorm, SetSaturationFlag, SetVectorMask)
from .devices import DEVICES, SUPPORTED_NAMES, DeviceSpec, get_device
from .errors import (AlignmentError, AscendJitError, OutOfBoundsError, OverlapError, ParameterError, StateError,
                     UnsupportedDeviceError, UnsupportedDTypeError)
from .launch import launch
from .order import ReduceOrder, explain_reduce_order
from .pipe import DataCopy, DataCopyParams, TBuf, TPipe, TQue
from .tensor import GlobalTensor, LocalTensor, TPosition

__version__ = "0.1.0"
from . import reg as Reg  # noqa: E402  (aj.Reg.RegTensor, aj.Reg.ReduceDataBlock, ...)
from . import testing  # noqa: E402  (aj.testing.assert_bit_equal, ...)
