"""ascend_jit: a bit-exact, numba-JIT CPU emulator of Ascend C vector instructions.

    import ascend_jit as aj
    core = aj.Core("atlas-a2")
    a, b, c = (core.local_tensor("half", 512) for _ in range(3))
    aj.Add(c, a, b, 512)
"""
__version__ = "0.1.0"

from ._cache import CacheLocationWarning, ensure_cache_location, lock_cache_saves, stamp_package_kernels

ensure_cache_location()  # before any kernel module: a read-only install must still import (README, "The numba cache")
lock_cache_saves()  # processes compiling into one cache at once keep every entry whole (_cache.py)
stamp_package_kernels()  # a kernel's cached code is reused only with the sources it was compiled from (_cache.py)

from . import reg as Reg
from . import reg as MicroAPI   # the devkit's `namespace MicroAPI = Reg;` (impl/basic_api/kernel_macros.h)
from .reg import VECTOR_REG_WIDTH, CeilDivision, GetVecLen, sizeof
from .constants import (B8_BYTE_SIZE, B16_BYTE_SIZE, B16_DATA_NUM_PER_BLOCK, B16_DATA_NUM_PER_REPEAT, B32_BYTE_SIZE,
                        B32_DATA_NUM_PER_BLOCK, B32_DATA_NUM_PER_REPEAT, B64_BYTE_SIZE, BLOCK_CUBE,
                        BRCB_BROADCAST_NUMBER, DEFAULT_BLK_NUM, DEFAULT_BLK_STRIDE, DEFAULT_REPEAT_STRIDE, FULL_MASK,
                        HALF_DEFAULT_REPEAT_STRIDE, MAX_REPEAT_TIMES, ONE_BLK_FLOAT_NUM, ONE_BLK_HALF_NUM,
                        ONE_BLK_SIZE, ONE_BLOCK_SIZE, ONE_FOURTH_DEFAULT_REPEAT_STRIDE, ONE_REPEAT_BYTE_SIZE,
                        VECTOR_REG_WIDTH_2XVL)
from . import testing
from .api._common import MASK_PLACEHOLDER, UnaryRepeatParams
from .api._scalar import ToBfloat16, ToFloat
from .api.cast import Cast, RoundMode
from .api.compare import CMPMODE, SELMODE, Compare, Compares, CompareScalar, Select
from .api.data_copy_pad import DataCopyExtParams, DataCopyPad, DataCopyPadExtParams, DataCopyPadParams, PaddingMode
from .api.arith_progression import Arange, ArithProgression
from .api.create_vec_index import CreateVecIndex
from .api.transpose import Transpose, TransposeParamsExt, TransposeType
from .api.truncate import Truncate
from .enums import LogAlgo
from .api.elementwise import Ands, Copy, CopyRepeatParams, Not, Ors, ShiftLeft, ShiftRight
from .api.elementwise import (Abs, Add, AddRelu, Adds, And, Axpy, BinaryRepeatParams, Brcb, BrcbRepeatParams, Div,
                              DivAlgo, DivConfig, Duplicate, Exp, ExpAlgo, ExpConfig, FusedMulAdd, LeakyRelu, Ln,
                              LnAlgo, LnConfig, Max, Maxs, Min, Mins, Mul, MulAddDst, Muls, Or, Reciprocal,
                              ReciprocalAlgo, ReciprocalConfig, Relu, Rsqrt, RsqrtAlgo, RsqrtConfig, Sqrt, SqrtAlgo,
                              SqrtConfig, Sub, SubRelu)
from .api.gather import Gather, GatherMask, GatherMaskParams, GetGatherMaskRemainCount
from .api.init_global_memory import Fill, InitGlobalMemory, InitOutput, PopStackBuffer
from .api.utils import (AlignUp, ConstCeil, CountBitsCntSameAsSignBit, CountLeadingZero, DivCeil, GetBitCount,
                        GetSFFValue, GetUintDivMagicAndShift, IsSameType, NumericLimits, ReadGmByPassDCache,
                        ScalarCountLeadingZero, ScalarGetCountOfValue, ScalarGetSFFValue, WriteGmByPassDCache)
from .api.reduce_pair import PairReduceSum, ReducePairElem, ReduceType
from .api.reduce_max_min import GetReduceMaxMinTmpSize, ReduceMax, ReduceMin
from .api.reduce_sum import GetReduceSumTmpSize, ReduceSum
from .api.reductions import (BlockReduceMax, BlockReduceMin, BlockReduceSum, GetReduceMaxMinCount,
                             GetReduceRepeatMaxMinSpr, ReduceDataBlock, ReduceRepeat, RepeatReduceSum, WholeReduceMax,
                             WholeReduceMin, WholeReduceSum)
from .core import (Core, GetBlockIdx, GetBlockNum, GetCtrlSpr, GetReduceRepeatSumSpr, GetSaturationFlag, MaskMode,
                   ResetCtrlSpr, ResetMask, SaturationMode, SetCtrlSpr, SetMaskCount, SetMaskNorm, SetPadValue,
                   SetSaturationFlag, SetVectorMask, current_core)
from .devices import DEVICES, SUPPORTED_NAMES, DeviceSpec, get_device
from .debug import PRINTF, DumpTensor, Trap, ascendc_assert, printf
from .tiling import (GET_TILING_DATA, GET_TILING_DATA_MEMBER, GET_TILING_DATA_PTR_WITH_STRUCT,
                     GET_TILING_DATA_WITH_STRUCT, REGISTER_TILING_DEFAULT)
from .errors import (AlignmentError, AscendJitError, NotOfferedError, OutOfBoundsError, OverlapError, ParameterError,
                     ReadOnlyError, SanitizerError, SanitizerWarning, StateError, UncompiledVFWarning, PortingWarning,
                     UnsupportedDeviceError, UnsupportedDTypeError)
from .fidelity import FIDELITY, Fidelity, FidelityRule, fidelity
from .sanitizer import SanitizeConfig, format_reports, sanitize_session
from .launch import launch
from .processes import close_block_processes, gm_array, gm_empty, gm_zeros, is_shared_gm
from .order import ReduceOrder, ReduceTree, explain_reduce_order
from .pipe import DataCopy, DataCopyParams, TBuf, TBufPool, TPipe, TQue, TQueBind, TQueConfig
from .sweeps import sweep
from .sync import (EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7, PIPE_ALL,
                   PIPE_FIX, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V, CacheLine,
                   DataCacheCleanAndInvalid, DataSyncBarrier, DcciDst, DisableDmaAtomic, GetLibApiWorkSpaceSize,
                   GetSubBlockIdx, GetTPipePtr, GetUserWorkspace, HardEvent, InitSocState, LocalMemAllocator,
                   MemDsbT, Pipe, PipeBarrier, SetAtomicAdd,
                   SetAtomicMax, SetAtomicMin, SetAtomicNone, SetFlag, SyncAll, TQueSync, WaitFlag)
from .sync import (ASCEND_IS_AIC, ASCEND_IS_AIV, KERNEL_TASK_TYPE_DEFAULT, GetDataBlockSizeInBytes, GetSubBlockNum,
                   GetSysWorkSpacePtr, GetTaskRatio, GetTaskRation, KernelMetaType, SetSysWorkspace)
from .sync import Barrier, GetRuntimeUBSize, GetUBSizeInBytes, pipe_barrier, set_flag, wait_flag
from .tensor import CacheMode, CacheRwMode, GlobalTensor, LocalTensor, QuePosition, TPosition

# C++ spells KernelMetaType's members unscoped: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY)
(KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0, KERNEL_TYPE_MIX_AIC_1_1,
 KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE, KERNEL_TYPE_MIX_AICORE,
 KERNEL_TYPE_MIX_VECTOR_CORE, KERNEL_TYPE_MAX) = KernelMetaType

# `TEventID id = GetTPipePtr()->FetchEventID(...)`, `static_cast<event_t>(...)`: event ids are Python ints here
TEventID = event_t = int

__all__ = [
    "CacheLocationWarning", "UncompiledVFWarning", "PortingWarning", "CeilDivision", "GetVecLen", "VECTOR_REG_WIDTH",
    "sizeof",
    "Abs", "AddRelu", "Adds", "And", "Axpy", "Brcb", "BrcbRepeatParams", "Div", "DivAlgo", "DivConfig", "Duplicate",
    "Exp", "ExpAlgo", "ExpConfig", "FIDELITY", "Fidelity", "FidelityRule", "FusedMulAdd", "LeakyRelu", "Ln", "LnAlgo",
    "LnConfig", "LogAlgo", "Max", "Maxs", "Min", "Mins", "Mul", "MulAddDst", "Muls", "Or", "Reciprocal",
    "ReciprocalAlgo",
    "ReciprocalConfig", "Relu", "Rsqrt", "RsqrtAlgo", "RsqrtConfig", "SanitizeConfig", "SanitizerError",
    "SanitizerWarning", "Sqrt",
    "SqrtAlgo", "SqrtConfig", "Sub", "SubRelu", "fidelity", "format_reports", "sanitize_session",
    "Add", "AlignmentError", "AscendJitError", "BinaryRepeatParams", "BlockReduceMax", "BlockReduceMin",
    "BlockReduceSum", "Core", "DEVICES", "DataCopy", "DataCopyParams", "GetReduceMaxMinTmpSize",
    "GetReduceMaxMinCount", "GetReduceRepeatMaxMinSpr", "ReduceDataBlock", "ReduceMax", "ReduceMin", "ReduceRepeat",
    "ReduceTree",
    "RepeatReduceSum", "WholeReduceMax", "WholeReduceMin", "WholeReduceSum",
    "CMPMODE", "Cast", "Compare", "CompareScalar", "Compares", "DataCopyExtParams", "DataCopyPad",
    "DataCopyPadExtParams", "DataCopyPadParams", "Gather",
    "GatherMask", "GatherMaskParams", "InitGlobalMemory", "Fill", "PaddingMode", "RoundMode", "SELMODE", "Select",
    "SetPadValue",
    "UnaryRepeatParams",
    "Copy", "CopyRepeatParams", "ShiftLeft", "ShiftRight", "Not", "ArithProgression", "Arange", "CreateVecIndex",
    # porting surface (session 18): the 950's tensor-scalar And / Or (docs/decisions.md "Ands, Ors")
    "Ands", "Ors",
    # porting surface (session 18, port18b): the 950's Memory-API Truncate (docs/decisions.md "Truncate")
    "Truncate",
    "DeviceSpec", "GetBlockIdx", "GetBlockNum", "GetCtrlSpr", "GetReduceRepeatSumSpr", "GetReduceSumTmpSize",
    "GetSaturationFlag", "GlobalTensor", "LocalTensor", "MASK_PLACEHOLDER", "MaskMode", "OutOfBoundsError",
    # porting surface (session 7): GlobalTensor.SetL2CacheHint's enums, AscendC::ToFloat
    "CacheMode", "CacheRwMode", "ToFloat",
    # porting surface (session 9): AscendC::ToBfloat16
    "ToBfloat16",
    "OverlapError", "ParameterError", "NotOfferedError", "ReadOnlyError", "ReduceOrder", "ReducePairElem", "PairReduceSum", "ReduceSum", "ReduceType",
    "Reg", "ResetMask",
    "SUPPORTED_NAMES", "SaturationMode", "SetCtrlSpr", "SetMaskCount", "SetMaskNorm", "SetSaturationFlag",
    "SetVectorMask", "StateError", "TBuf", "TPipe", "TPosition", "QuePosition", "TQue", "TQueBind", "TBufPool", "UnsupportedDTypeError",
    "UnsupportedDeviceError", "current_core", "explain_reduce_order", "get_device", "launch", "sweep", "testing",
    "__version__",
    # porting surface (session 54, port54a): TQue's third template argument
    "TQueConfig",
    # multi-block launches in host processes (processes.py)
    "close_block_processes", "gm_array", "gm_empty", "gm_zeros", "is_shared_gm",
    # synchronisation and kernel boilerplate (sync.py)
    "CacheLine", "DataCacheCleanAndInvalid", "DcciDst", "DisableDmaAtomic", "EVENT_ID0", "EVENT_ID1", "EVENT_ID2",
    "EVENT_ID3", "EVENT_ID4", "EVENT_ID5", "EVENT_ID6",
    "EVENT_ID7", "GetSubBlockIdx", "GetTPipePtr", "HardEvent", "InitSocState", "LocalMemAllocator", "PIPE_ALL",
    "PIPE_FIX", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_S", "PIPE_V", "Pipe", "PipeBarrier",
    "SetAtomicAdd", "SetAtomicMax", "SetAtomicMin", "SetAtomicNone", "SetFlag", "SyncAll", "TQueSync", "WaitFlag",
    # session 13 (vecindex13): DataSyncBarrier<MemDsbT>, the workspace split
    "DataSyncBarrier", "MemDsbT", "GetUserWorkspace", "GetLibApiWorkSpaceSize",
    # session 14 (apigap14): kernel utilities the ops-math / ops-nn vector kernels call (docs/decisions.md
    # "Kernel utilities")
    "MicroAPI", "InitOutput", "PopStackBuffer", "AlignUp", "ConstCeil", "CountBitsCntSameAsSignBit", "CountLeadingZero", "DivCeil",
    "GetBitCount", "GetSFFValue", "GetUintDivMagicAndShift", "IsSameType", "NumericLimits", "ScalarCountLeadingZero",
    "ScalarGetCountOfValue", "ScalarGetSFFValue", "GetDataBlockSizeInBytes", "GetSubBlockNum", "GetSysWorkSpacePtr",
    "GetTaskRatio", "GetTaskRation", "SetSysWorkspace", "TEventID", "event_t", "KernelMetaType",
    "KERNEL_TASK_TYPE_DEFAULT", "ASCEND_IS_AIV", "ASCEND_IS_AIC", "KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_AIC_ONLY",
    "KERNEL_TYPE_MIX_AIV_1_0", "KERNEL_TYPE_MIX_AIC_1_0", "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2",
    "KERNEL_TYPE_AICORE", "KERNEL_TYPE_VECTORCORE", "KERNEL_TYPE_MIX_AICORE", "KERNEL_TYPE_MIX_VECTOR_CORE",
    "KERNEL_TYPE_MAX",
    "printf", "PRINTF", "DumpTensor", "ascendc_assert", "Trap",
    # session 39 (port39s): the 950's UB size queries, the CCE sync intrinsics older kernels call
    "GetUBSizeInBytes", "GetRuntimeUBSize", "pipe_barrier", "set_flag", "wait_flag",
    # session 39 (port39u): CTRL bits back to their defaults, GM scalar access bypassing the data cache
    "ResetCtrlSpr", "ReadGmByPassDCache", "WriteGmByPassDCache",
    # session 39 (port39t): the RSVD_CNT register GatherMask writes
    "GetGatherMaskRemainCount",
    # session 40 (port40pa): the compiler barrier; the basic API's Transpose (docs/decisions.md "Transpose")
    "Barrier", "Transpose", "TransposeParamsExt", "TransposeType",
    "REGISTER_TILING_DEFAULT", "GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_PTR_WITH_STRUCT",
    "GET_TILING_DATA_MEMBER",
    "ONE_BLK_SIZE", "ONE_BLOCK_SIZE", "DEFAULT_BLK_NUM", "DEFAULT_BLK_STRIDE", "DEFAULT_REPEAT_STRIDE",
    "HALF_DEFAULT_REPEAT_STRIDE", "ONE_FOURTH_DEFAULT_REPEAT_STRIDE", "MAX_REPEAT_TIMES", "ONE_REPEAT_BYTE_SIZE",
    "FULL_MASK", "B8_BYTE_SIZE", "B16_BYTE_SIZE", "B32_BYTE_SIZE", "B64_BYTE_SIZE", "B16_DATA_NUM_PER_BLOCK",
    "B32_DATA_NUM_PER_BLOCK", "B16_DATA_NUM_PER_REPEAT", "B32_DATA_NUM_PER_REPEAT", "ONE_BLK_HALF_NUM",
    "ONE_BLK_FLOAT_NUM", "BRCB_BROADCAST_NUMBER", "VECTOR_REG_WIDTH_2XVL", "BLOCK_CUBE"]

# devkit names the emulator does not offer: a NotOfferedError saying why (api/registry.py NOT_OFFERED)
from .api.registry import NOT_OFFERED as _NOT_OFFERED, NOT_OFFERED_FAMILIES as _NOT_OFFERED_FAMILIES  # noqa: E402
from .errors import not_offered_lookup as _not_offered_lookup  # noqa: E402

__getattr__ = _not_offered_lookup(__name__, "", _NOT_OFFERED, families=_NOT_OFFERED_FAMILIES, implementations=True)
