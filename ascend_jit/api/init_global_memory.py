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
import contextlib

from ..errors import OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError, UnsupportedDTypeError
from ..dtypes import resolve
from ..tensor import GlobalTensor
from ._common import as_int
from ._scalar import scalar_bits

API = "InitGlobalMemory"
# the builds the devkit header compiles it for: __NPU_ARCH__ 2201 (A2, A3), 3510 (950), 2002 (310P)
_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")
_DATA_COPY_ONLY = "atlas-inference-aicore"      # the 2002 build: DataCopy + SetValue
# T per device: the Fill page (InitGlobalMemory's current name; DK `高阶API/张量变换/Fill-97.md`, 支持的数据类型) gives
# the 950 eleven types, the A2, A3 and 310P AI Core six; the 2201 and 2002 builds' CheckFuncClassInitGlobalMemory
# checks those six, the 3510 build checks none (session 56, a port of ops-math TensorEqual: uint8 on the 950)
_DTYPES = ("half", "float", "uint16", "int16", "uint32", "int32")
_DTYPES_950 = ("uint8", "int8", "uint16", "int16", "bfloat16", "half", "uint32", "int32", "float", "uint64", "int64")
MAX_REPEAT_TIMES, MAX_REPEAT_LEN, ONE_BLK_SIZE = 255, 256, 32


def _dtypes(device):
    return _DTYPES_950 if device == "ascend950" else _DTYPES


def InitGlobalMemory(gm_workspace_addr, size, value):
    """`InitGlobalMemory<T>(gmWorkspaceAddr, size, value)`: gmWorkspaceAddr[0:size] = value (T the GlobalTensor's
    dtype; value converted as every scalar operand is, SPEC-2 D29). Needs the current core's TPipe (its event ids)
    and free UB past the pipe's buffers (the stack buffer)."""
    _fill(API, _DEVICES, _dtypes, gm_workspace_addr, size, value, barrier=True)


def Fill(gm_workspace_addr, size, value):
    """`Fill<T>(gmWorkspaceAddr, size, value)`: InitGlobalMemory under its current name (DK
    `高阶API/张量变换/Fill-97.md`; include/adv_api/utils/init_global_memory.h defines Fill as a call of the same
    InitGlobalMemoryImpl on the same builds), refused in its own name. ops-math's 950 DropOutV3 and ops-nn's 950
    Conv3DBackprop kernels call it on GM. The cube unit's Fill of an L0A/L0B/L1 LocalTensor (矩阵计算 ISASI) is
    another API, outside the brief: a LocalTensor is refused as gmWorkspaceAddr (Duplicate fills the UB)."""
    _fill("Fill", _DEVICES, _dtypes, gm_workspace_addr, size, value, barrier=True)


# InitOutput's builds (kernel_operator_common_intf_impl.h: __NPU_ARCH__ 2201 and 3510; elsewhere its body is empty)
_INIT_OUTPUT_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")


def _duplicate_count_dtypes(device):
    from .elementwise import DUPLICATE   # elementwise imports the package's api modules
    return DUPLICATE.dtypes[device] + DUPLICATE.count_only.get(device, ())


def InitOutput(gm_workspace_addr, size, value=0):
    """`InitOutput<T>(gmWorkspaceAddr, size, value = 0)` (deprecated in the devkit for Fill, still called by 30
    ops-math / ops-nn kernels; include/basic_api/kernel_operator_common_intf.h, impl in
    impl/basic_api/kernel_operator_common_intf_impl.h): InitGlobalMemory's sequence (stack buffer, count-form
    Duplicate of the value over min(it, 255 x 256 bytes) elements, V -> MTE3 on a fetched id,
    DataCopyPad of each whole run and the rest) with three differences the implementation has: value defaults to
    0, T is any type its Duplicate takes, and there is no closing PipeBarrier<PIPE_MTE3>. It is built for the 950,
    A2 and A3 only; on the other devices its body is empty, which here is an UnsupportedDeviceError rather than a
    silently unwritten output (docs/decisions.md "Kernel utilities")."""
    _fill("InitOutput", _INIT_OUTPUT_DEVICES, _duplicate_count_dtypes, gm_workspace_addr, size, value,
          barrier=False)


def _fill(api, devices, dtypes_of, gm_workspace_addr, size, value, barrier):
    """The devkit's GM fill through the UB's stack buffer, for InitGlobalMemory and InitOutput (see the module
    docstring): every check first, so a refused call writes nothing."""
    from .. import DataCopy, DataCopyExtParams, DataCopyPad, DataCopyParams, Duplicate, HardEvent, PipeBarrier
    from ..core import current_core
    from ..sync import PIPE_MTE3, SetFlag, WaitFlag
    core = current_core(api)
    spec = core.spec
    if spec.name not in devices:
        raise UnsupportedDeviceError(api, "device", spec.name, legal=", ".join(devices),
                                     detail="the devkit builds it for " + ", ".join(devices) + " only")
    # a GlobalTensor with no buffer is the devkit's own check (docs/decisions.md "InitGlobalMemory": ParameterError),
    # not GetSize()'s StateError
    if not isinstance(gm_workspace_addr, GlobalTensor) or gm_workspace_addr.array is None \
            or gm_workspace_addr.GetSize() <= 0:
        raise ParameterError(api, "gmWorkspaceAddr", type(gm_workspace_addr).__name__, device=spec.name,
                             legal="a GlobalTensor with a buffer of at least one element")
    dtype = gm_workspace_addr.dtype
    dtypes = dtypes_of(spec.name)
    if dtype.name not in dtypes:
        raise UnsupportedDTypeError(api, "T", dtype.name, legal=", ".join(dtypes), device=spec.name)
    size = as_int(api, spec, "size", size, 0, gm_workspace_addr.GetSize())
    gm_workspace_addr._require_writable(api, "gmWorkspaceAddr")   # before the Duplicate: a refused call writes nothing (README)
    scalar_bits(api, spec, dtype, value, "value")   # refused in the caller's API's words, not the inner Duplicate's
    addr, nbytes = _stack_buffer(api, core, "its event ids and the stack buffer after its buffers are what the "
                                             "call uses")
    core.reserve(addr, nbytes, api)
    try:
        # the sanitizer names its instructions "InitGlobalMemory: Duplicate", ... at the kernel's line
        with core.sanitizer.inside(api) if core.sanitizer is not None else contextlib.nullcontext():
            pop_size = min(nbytes // dtype.size, MAX_REPEAT_TIMES * MAX_REPEAT_LEN // dtype.size)
            pop_buffer = core.local_tensor(dtype, pop_size, addr=addr)
            rounds, tail = divmod(size, pop_size)
            round_size = pop_size if rounds else 0
            Duplicate(pop_buffer, value, pop_size)
            event_id = core.tpipe.FetchEventID(HardEvent.V_MTE3)
            SetFlag(event_id, event=HardEvent.V_MTE3)
            WaitFlag(event_id, event=HardEvent.V_MTE3)
            runs = [(i * round_size, round_size) for i in range(rounds)]
            runs += [(rounds * round_size, tail)] if tail else []
            for offset, count in runs:
                if spec.name != _DATA_COPY_ONLY:
                    DataCopyPad(gm_workspace_addr[offset], pop_buffer,
                                DataCopyExtParams(1, count * dtype.size, 0, 0, 0))
                    continue
                aligned = count * dtype.size // ONE_BLK_SIZE
                if aligned:     # a run shorter than a DataBlock has no DataCopy (blockLen 0 moves nothing)
                    DataCopy(gm_workspace_addr[offset], pop_buffer, DataCopyParams(1, aligned, 0, 0))
                for i in range(offset + aligned * ONE_BLK_SIZE // dtype.size, offset + count):
                    gm_workspace_addr.SetValue(i, value)
            if barrier:
                PipeBarrier(PIPE_MTE3)
    finally:
        core.free(addr)


def _stack_buffer(api, core, why):
    """(addr, bytes) of the stack buffer: the free UB from the end of the TPipe's buffers to the UB's end (the
    devkit's PopStackBuffer: GetQueueEndAddress up to the UB's end address)."""
    spec = core.spec
    if core.tpipe is None:
        raise StateError(api, "core", "no TPipe", device=spec.name, legal="a core with a TPipe",
                         detail=f"no TPipe on this core: {why} (create aj.TPipe())")
    stack = next(((a, s) for a, s in core._free if a + s == spec.ub_bytes), None)
    if stack is None:
        raise OutOfBoundsError(api, "stack buffer", 0, device=spec.name,
                               legal="free UB after the TPipe's buffers (the devkit asserts \"No space left to "
                                     "allocate in Unified Buffer\")")
    return stack


def PopStackBuffer(dtype, pos):
    """`PopStackBuffer<T, pos>(popLocal)` (DK 资源管理/PopStackBuffer.md; impl/basic_api/kernel_pop_stack_buffer.h):
    a LocalTensor of T over the stack buffer, all the UB the current core's TPipe has not handed out past its
    buffers. Python has no out-parameters: returns (True, popLocal). The tensor owns no allocation, as on the device:
    buffers the pipe hands out later may overlap it (the page forbids mixing it with the advanced APIs that pop the
    same buffer, InitGlobalMemory / InitOutput here). No TPipe is a StateError and no free UB at the UB's end an
    OutOfBoundsError (the devkit's assertions). docs/decisions.md "Kernel utilities"."""
    from ..core import current_core
    from ..tensor import check_local_position
    api = "PopStackBuffer"
    core = current_core(api)
    core.spec.require_supported(api)
    check_local_position(api, pos, core.device)
    d = resolve(dtype, api, core.device)
    addr, nbytes = _stack_buffer(api, core, "the stack buffer is the UB after its buffers")
    return True, core.local_tensor(d, nbytes // d.size, addr=addr, position=pos)
