"""The devkit's basic Memory-API reduction examples: `reduce_data_block` (ReduceDataBlock MAX over 256 halves, MIN over
512 halves, SUM over 128 floats) and `reduce_repeat` (ReduceRepeat MAX values only, MIN with indices, SUM over
floats, and SUM over 13 rows of 57 floats padded to 32-byte rows by DataCopyPad), every scenario in one run.

Ported (structure, synchronisation and calls; written in our own words) from mirror-cann/asc-devkit @
82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
{reduce_data_block/reduce_data_block.asc, reduce_repeat/reduce_repeat.asc}.

Each keeps the original's InitSocState, LocalMemAllocator or TQue buffers, the MTE2_V / V_MTE3 flag pairs and the
closing PipeBarrier<PIPE_ALL>. Fidelity: BIT-EXACT; `expected` runs the package's reference model on a host UB.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec


def reduce_data_block_kernel(x_gm, y_gm, reduce_type, dtype, src_len, dst_len, repeat):
    aj.InitSocState()
    src_gm, dst_gm = aj.GlobalTensor(x_gm), aj.GlobalTensor(y_gm)
    allocator = aj.LocalMemAllocator()
    src = allocator.Alloc(dtype, src_len)
    dst = allocator.Alloc(dtype, dst_len)
    aj.DataCopy(src, src_gm, src_len)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.Duplicate(dst, 0.0, dst_len)
    aj.ReduceDataBlock(dst, src, 256 // src.dtype.size, repeat, 1, 1, 8, reduce_type=reduce_type)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dst_gm, dst, dst_len)
    aj.PipeBarrier(aj.PIPE_ALL)


def reduce_repeat_kernel(x_gm, z_gm, scenario, dtype, rows, cols, dst_len):
    aj.InitSocState()
    esize = 4 if dtype == "float" else 2
    mask_full = 256 // esize
    col_align_bytes = -(-cols * esize // 32) * 32
    pipe = aj.TPipe()
    in_q, out_q = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
    src_gm, dst_gm = aj.GlobalTensor(x_gm), aj.GlobalTensor(z_gm)
    pipe.InitBuffer(in_q, 1, rows * col_align_bytes)
    pipe.InitBuffer(out_q, 1, dst_len * esize)
    src = in_q.AllocTensor(dtype)
    rpad = (col_align_bytes - cols * esize) // esize
    aj.DataCopyPad(src, src_gm, aj.DataCopyExtParams(rows, cols * esize, 0, 0, 0),
                   aj.DataCopyPadExtParams(False, 0, rpad, 0))
    in_q.EnQue(src)
    src = in_q.DeQue(dtype)
    dst = out_q.AllocTensor(dtype)
    repeat = rows * cols // mask_full
    if scenario == 1:
        aj.ReduceRepeat(dst, src, mask_full, repeat, 1, 1, 8, aj.ReduceOrder.ORDER_ONLY_VALUE,
                        reduce_type=aj.ReduceType.MAX)
    elif scenario == 2:
        aj.ReduceRepeat(dst, src, mask_full, repeat, 1, 1, 8, reduce_type=aj.ReduceType.MIN)
    elif scenario == 3:
        aj.ReduceRepeat(dst, src, mask_full, repeat, 1, 1, 8, reduce_type=aj.ReduceType.SUM)
    else:
        aj.ReduceRepeat(dst, src, cols, rows, 1, 1, col_align_bytes // 32, reduce_type=aj.ReduceType.SUM)
    out_q.EnQue(dst)
    in_q.FreeTensor(src)
    dst = out_q.DeQue(dtype)
    aj.DataCopyPad(dst_gm, dst, aj.DataCopyExtParams(1, dst_len * esize, 0, 0, 0))
    out_q.FreeTensor(dst)
    aj.PipeBarrier(aj.PIPE_ALL)


# --- host expectations: the reference model on a host UB laid out like the kernel's ---------------------------------
def _host_ub(spec, dtype, src_values, src_addr=0):
    ub = np.zeros(spec.ub_bytes, np.uint8)
    raw = np.ascontiguousarray(src_values).reshape(-1).view(np.uint8)
    ub[src_addr:src_addr + raw.size] = raw
    return ub


def _np(dtype):
    return np.float16 if dtype == "half" else np.float32


DATA_BLOCK_SCENARIOS = {"max": ("half", 256, 16, 2), "min": ("half", 512, 32, 4), "sum": ("float", 128, 16, 2)}


def _data_block_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {op: (rng.standard_normal(n) * 8).astype(_np(dt)) for op, (dt, n, _, _) in DATA_BLOCK_SCENARIOS.items()}


def _data_block_run(device, inputs):
    out = {}
    for op, (dtype, n, dst_len, repeat) in DATA_BLOCK_SCENARIOS.items():
        y = np.zeros(dst_len, _np(dtype))
        aj.launch(reduce_data_block_kernel, 1, device, inputs[op].copy(), y, aj.ReduceType[op.upper()], dtype, n,
                  dst_len, repeat)
        out[op] = y
    return out


def _data_block_expected(device, inputs):
    from ascend_jit.reference.reductions import reduce_data_block
    spec, sat = aj.get_device(device), aj.Core(device).half_saturating
    out = {}
    for op, (dtype, n, dst_len, repeat) in DATA_BLOCK_SCENARIOS.items():
        size = 2 if dtype == "half" else 4
        dst_addr = -(-n * size // 32) * 32
        ub = _host_ub(spec, dtype, inputs[op])
        reduce_data_block(ub, spec, op, dtype, dst_addr, 0, list(range(256 // size)), repeat, 1, 1, 8, sat)
        out[op] = ub[dst_addr:dst_addr + dst_len * size].view(_np(dtype)).copy()
    return out


REPEAT_SCENARIOS = {1: ("half", 8, 128, 8), 2: ("half", 8, 128, 16), 3: ("float", 8, 64, 8), 4: ("float", 13, 57, 13)}


def _repeat_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {f"scenario{k}": (rng.standard_normal((rows, cols)) * 8).astype(_np(dt))
            for k, (dt, rows, cols, _) in REPEAT_SCENARIOS.items()}


def _repeat_run(device, inputs):
    out = {}
    for k, (dtype, rows, cols, dst_len) in REPEAT_SCENARIOS.items():
        z = np.zeros(dst_len, _np(dtype))
        aj.launch(reduce_repeat_kernel, 1, device, inputs[f"scenario{k}"].reshape(-1).copy(), z, k, dtype, rows, cols,
                  dst_len)
        out[f"scenario{k}"] = z
    return out


def _repeat_expected(device, inputs):
    from ascend_jit.reference.reductions import reduce_repeat
    spec, sat = aj.get_device(device), aj.Core(device).half_saturating
    out = {}
    for k, (dtype, rows, cols, dst_len) in REPEAT_SCENARIOS.items():
        size = 2 if dtype == "half" else 4
        row_bytes = -(-cols * size // 32) * 32
        padded = np.zeros((rows, row_bytes // size), _np(dtype))
        padded[:, :cols] = inputs[f"scenario{k}"]
        ub = _host_ub(spec, dtype, padded)
        dst = rows * row_bytes
        op = {1: "max", 2: "min", 3: "sum", 4: "sum"}[k]
        order = {1: 2, 2: 0}.get(k, 2)       # ORDER_ONLY_VALUE / ORDER_VALUE_INDEX (D27 numbering)
        if k == 4:
            reduce_repeat(ub, spec, op, dtype, dtype, dst, 0, list(range(cols)), rows, 1, 1, row_bytes // 32, order, sat)
        else:
            lanes = 256 // size
            reduce_repeat(ub, spec, op, dtype, dtype, dst, 0, list(range(lanes)), rows * cols // lanes, 1, 1, 8,
                          order, sat)
        out[f"scenario{k}"] = ub[dst:dst + dst_len * size].view(_np(dtype)).copy()
    return out


_ORIGINAL = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/"
DATA_BLOCK_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")   # ISASI SetFlag: not on 310B
PAD_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
KERNELS = [
    KernelSpec("reduce_data_block_memory", "devkit reduce_data_block: ReduceDataBlock MAX (256 halves), MIN (512 "
               "halves), SUM (128 floats)", _data_block_inputs, _data_block_run, _data_block_expected, default_size=896,
               devices=DATA_BLOCK_DEVICES, size_rule="896 (the example's data)", size_ok=lambda n: n == 896,
               source=_ORIGINAL + "reduce_data_block/reduce_data_block.asc"),
    KernelSpec("reduce_repeat", "devkit reduce_repeat: ReduceRepeat MAX values, MIN with indices, SUM of floats, SUM "
               "of 13 DataCopyPad-padded rows of 57 floats", _repeat_inputs, _repeat_run, _repeat_expected,
               default_size=3813, devices=PAD_DEVICES, size_rule="3813 (the example's data)",
               size_ok=lambda n: n == 3813, source=_ORIGINAL + "reduce_repeat/reduce_repeat.asc"),
]
