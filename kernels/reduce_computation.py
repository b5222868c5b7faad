"""The devkit example `examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/reduce_computation`
(mirror-cann/asc-devkit), scenarios 5 (count-form ReduceSum of 288 halves, dst[1] = GetReduceRepeatSumSpr read
after a V_S flag with an id from FetchEventID) and 6 (high-dim ReduceSum of 8320 halves, mask 128, repeat 65),
ported line by line, InitSocState and the final PipeBarrier<PIPE_ALL> included. Scenarios 1-4 (ReduceMax/ReduceMin)
need instructions of their own issue. The expectation replays the documented orders (explain_reduce_order)."""
import numpy as np

import ascend_jit as aj

from ascend_jit.kernels._base import KernelSpec
from ascend_jit.order import explain_reduce_order

SCENARIOS = {5: 288, 6: 8320}


def reduce_computation_custom(x, z, scenarioNum):
    aj.InitSocState()
    dstDataSize = 16
    repStride = 8
    elePerRepeat = 256 // 2
    elePerBlock = 32 // 2
    mask = elePerRepeat
    srcDataSize = SCENARIOS[scenarioNum]
    workSizeFactor = 1
    repeat = (srcDataSize + elePerRepeat - 1) // elePerRepeat
    iter1OutputCount = repeat * workSizeFactor
    workSize = (iter1OutputCount + elePerBlock - 1) // elePerBlock * elePerBlock  # ReduceSum: iter1 rounded to 32 B
    pipe = aj.TPipe()
    inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
    workQueue = aj.TQue(aj.TPosition.VECOUT, 1)
    outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
    srcGlobal, dstGlobal = aj.GlobalTensor(), aj.GlobalTensor()
    srcGlobal.SetGlobalBuffer(x)
    dstGlobal.SetGlobalBuffer(z)
    pipe.InitBuffer(inQueueSrc, 1, srcDataSize * 2)
    pipe.InitBuffer(workQueue, 1, workSize * 2)
    pipe.InitBuffer(outQueueDst, 1, dstDataSize * 2)
    srcLocalIn = inQueueSrc.AllocTensor("half")
    aj.DataCopy(srcLocalIn, srcGlobal, srcDataSize)
    inQueueSrc.EnQue(srcLocalIn)
    srcLocal = inQueueSrc.DeQue("half")
    dstLocal = outQueueDst.AllocTensor("half")
    sharedTmpBuffer = workQueue.AllocTensor("half")
    if scenarioNum == 5:
        aj.ReduceSum(dstLocal, srcLocal, sharedTmpBuffer, srcDataSize)
        eventID = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
        aj.SetFlag(eventID, event=aj.HardEvent.V_S)
        aj.WaitFlag(eventID, event=aj.HardEvent.V_S)
        val = aj.GetReduceRepeatSumSpr()
        dstLocal.SetValue(1, val)
    else:
        aj.ReduceSum(dstLocal, srcLocal, sharedTmpBuffer, mask, repeat, repStride)
    outQueueDst.EnQue(dstLocal)
    inQueueSrc.FreeTensor(srcLocal)
    workQueue.FreeTensor(sharedTmpBuffer)
    dstLocalOut = outQueueDst.DeQue("half")
    aj.DataCopy(dstGlobal, dstLocalOut, dstDataSize)
    outQueueDst.FreeTensor(dstLocalOut)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    x = np.ones(size, np.float16) if seed == 0 else np.random.default_rng(seed).standard_normal(size).astype(np.float16)
    return {"x": x}


def run(device, inputs):
    out = {}
    for scenario, n in SCENARIOS.items():
        z = np.zeros(16, np.float16)
        aj.launch(reduce_computation_custom, 1, device, inputs["x"][:n].copy(), z, scenario)
        out[f"scenario{scenario}"] = z
    return out


def expected(device, inputs):
    sat = aj.Core(device).half_saturating
    x = inputs["x"]
    count = explain_reduce_order(device, "count", "half", count=288).evaluate(x[:288], saturate=sat)
    high = explain_reduce_order(device, "highdim", "half", mask=128, repeat_time=65).evaluate(x, saturate=sat)
    s5, s6 = np.zeros(16, np.float16), np.zeros(16, np.float16)
    s5[0] = s5[1] = count
    s6[0] = high
    return {"scenario5": s5, "scenario6": s6}


KERNEL = KernelSpec("reduce_computation", "devkit reduce_computation scenarios 5 and 6 (ReduceSum count form with "
                    "FetchEventID/SetFlag/WaitFlag, high-dim form)", make_inputs, run, expected, default_size=8320,
                    devices=tuple(n for n, d in aj.DEVICES.items() if d.supported and d.tpipe_event_ids),
                    size_rule="8320 (the example's data)", size_ok=lambda n: n == 8320)
