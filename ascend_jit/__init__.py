"""ascend_jit: a bit-exact, numba-JIT CPU emulator of Ascend C vector instructions.

    import ascend_jit as aj
    core = aj.Core("atlas-a2")
    a, b, c = (core.local_tensor("half", 512) for _ in range(3))
    aj.Add(c, a, b, 512)
"""
__version__ = "0.1.0"

from ._cache import CacheLocationWarning, ensure_cache_location

ensure_cache_location()  # before any kernel module: a read-only install must still import (README, "The numba cache")

from . import reg as Reg
from . import testing
from .api._common import MASK_PLACEHOLDER
from .api.add import Add, BinaryRepeatParams
from .api.reduce_pair import ReducePairElem, ReduceType
from .api.reduce_sum import GetReduceSumTmpSize, ReduceSum
from .core import (Core, GetBlockIdx, GetBlockNum, GetCtrlSpr, GetReduceRepeatSumSpr, GetSaturationFlag, MaskMode,
                   ResetMask, SaturationMode, SetCtrlSpr, SetMaskCount, SetMaskNorm, SetSaturationFlag, SetVectorMask,
                   current_core)
from .devices import DEVICES, SUPPORTED_NAMES, DeviceSpec, get_device
from .errors import (AlignmentError, AscendJitError, OutOfBoundsError, OverlapError, ParameterError, StateError,
                     UnsupportedDeviceError, UnsupportedDTypeError)
from .launch import launch
from .order import ReduceOrder, explain_reduce_order
from .pipe import DataCopy, DataCopyParams, TBuf, TPipe, TQue
from .tensor import GlobalTensor, LocalTensor, TPosition

__all__ = [
    "CacheLocationWarning",
    "Add", "AlignmentError", "AscendJitError", "BinaryRepeatParams", "Core", "DEVICES", "DataCopy", "DataCopyParams",
    "DeviceSpec", "GetBlockIdx", "GetBlockNum", "GetCtrlSpr", "GetReduceRepeatSumSpr", "GetReduceSumTmpSize",
    "GetSaturationFlag", "GlobalTensor", "LocalTensor", "MASK_PLACEHOLDER", "MaskMode", "OutOfBoundsError",
    "OverlapError", "ParameterError", "ReduceOrder", "ReducePairElem", "ReduceSum", "ReduceType", "Reg", "ResetMask",
    "SUPPORTED_NAMES", "SaturationMode", "SetCtrlSpr", "SetMaskCount", "SetMaskNorm", "SetSaturationFlag",
    "SetVectorMask", "StateError", "TBuf", "TPipe", "TPosition", "TQue", "UnsupportedDTypeError",
    "UnsupportedDeviceError", "current_core", "explain_reduce_order", "get_device", "launch", "testing",
    "__version__"]
