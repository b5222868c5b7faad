"""InitGlobalMemory (= Fill): fill `size` elements of a GlobalTensor with one value, as the devkit's utility does it
(mirror-cann/asc-devkit @ 82b89a15, include/adv_api/utils/init_global_memory.h and impl/adv_api/detail/utils/
init_global_memory/init_global_memory_v220_impl.h, _v200_impl.h, _v310_impl.h). The SPECs are silent on it; the
choices are in docs/decisions.md "InitGlobalMemory".

The devkit pops the UB's stack buffer (PopStackBuffer<T, TPosition::LCM>: the free UB from the TPipe's buffers to the
UB's end), Duplicates the value over min(that, 255 repeats of 256 bytes) elements, orders V -> MTE3 on an event id
the core's TPipe fetches, copies that run to GM once per whole run and once for the rest, and ends with
PipeBarrier<PIPE_MTE3>. The copies are DataCopyPad with a DataCopyExtParams (A2, A3, 950); the 310P build, which has
no DataCopyPad, copies whole DataBlocks by DataCopy and writes each run's last elements (less than a DataBlock) by
GlobalTensor::SetValue on the scalar unit. This is that sequence composed from the package's own calls, so values,
bounds, refusals and the sanitizer's view are theirs; the stack buffer is taken out of the free UB for the call and
given back (its bytes keep the value, as the device's do)."""
from ..errors import OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError, UnsupportedDTypeError
from ..tensor import GlobalTensor
from ._common import as_int

API = "InitGlobalMemory"
# the builds the devkit header compiles it for: __NPU_ARCH__ 2201 (A2, A3), 3510 (950), 2002 (310P)
_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")
_DATA_COPY_ONLY = "atlas-inference-aicore"      # the 2002 build: DataCopy + SetValue
# CheckFuncClassInitGlobalMemory: T in half/float/uint16_t/int16_t/uint32_t/int32_t
_DTYPES = ("half", "float", "uint16", "int16", "uint32", "int32")
MAX_REPEAT_TIMES, MAX_REPEAT_LEN, ONE_BLK_SIZE = 255, 256, 32


def InitGlobalMemory(gm_workspace_addr, size, value):
    """`InitGlobalMemory<T>(gmWorkspaceAddr, size, value)`: gmWorkspaceAddr[0:size] = value (T the GlobalTensor's
    dtype; value converted as every scalar operand is, SPEC-2 D29). Needs the current core's TPipe (its event ids)
    and free UB past the pipe's buffers (the stack buffer)."""
    from .. import DataCopy, DataCopyExtParams, DataCopyPad, DataCopyParams, Duplicate, HardEvent, PipeBarrier
    from ..core import current_core
    from ..sync import PIPE_MTE3, SetFlag, WaitFlag
    core = current_core(API)
    spec = core.spec
    if spec.name not in _DEVICES:
        raise UnsupportedDeviceError(API, "device", spec.name, legal=", ".join(_DEVICES),
                                     detail="the devkit builds it for the A2/A3, 950 and 310P only")
    if not isinstance(gm_workspace_addr, GlobalTensor) or gm_workspace_addr.GetSize() <= 0:
        raise ParameterError(API, "gmWorkspaceAddr", type(gm_workspace_addr).__name__, device=spec.name,
                             legal="a GlobalTensor with a buffer of at least one element")
    dtype = gm_workspace_addr.dtype
    if dtype.name not in _DTYPES:
        raise UnsupportedDTypeError(API, "T", dtype.name, legal=", ".join(_DTYPES), device=spec.name)
    size = as_int(API, spec, "size", size, 0, gm_workspace_addr.GetSize())
    gm_workspace_addr._require_writable(API, "gmWorkspaceAddr")   # before the Duplicate: a refused call writes nothing (README)
    if core.tpipe is None:
        raise StateError(API, device=spec.name, detail="no TPipe on this core: its event ids and the stack buffer "
                                                       "after its buffers are what the call uses (create aj.TPipe())")
    stack = next(((a, s) for a, s in core._free if a + s == spec.ub_bytes), None)
    if stack is None:
        raise OutOfBoundsError(API, "stack buffer", 0, device=spec.name,
                               legal="free UB after the TPipe's buffers (the devkit asserts \"No space left to "
                                     "allocate in Unified Buffer\")")
    addr, nbytes = stack
    core.reserve(addr, nbytes, API)
    try:
        pop_size = min(nbytes // dtype.size, MAX_REPEAT_TIMES * MAX_REPEAT_LEN // dtype.size)
        pop_buffer = core.local_tensor(dtype, pop_size, addr=addr)
        rounds, tail = divmod(size, pop_size)
        round_size = pop_size if rounds else 0
        Duplicate(pop_buffer, value, pop_size)
        event_id = core.tpipe.FetchEventID(HardEvent.V_MTE3)
        SetFlag(event_id, event=HardEvent.V_MTE3)
        WaitFlag(event_id, event=HardEvent.V_MTE3)
        runs = [(i * round_size, round_size) for i in range(rounds)] + ([(rounds * round_size, tail)] if tail else [])
        for offset, count in runs:
            if spec.name != _DATA_COPY_ONLY:
                DataCopyPad(gm_workspace_addr[offset], pop_buffer, DataCopyExtParams(1, count * dtype.size, 0, 0, 0))
                continue
            aligned = count * dtype.size // ONE_BLK_SIZE
            if aligned:     # a run shorter than a DataBlock has no DataCopy (blockLen 0 moves nothing)
                DataCopy(gm_workspace_addr[offset], pop_buffer, DataCopyParams(1, aligned, 0, 0))
            for i in range(offset + aligned * ONE_BLK_SIZE // dtype.size, offset + count):
                gm_workspace_addr.SetValue(i, value)
        PipeBarrier(PIPE_MTE3)
    finally:
        core.free(addr)
