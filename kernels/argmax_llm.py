"""Row argmax of an LLM serving stack's sampler: each block takes 16 rows of logits (the last block the rest), walks
each row in 4 tiles and keeps the running maximum on the scalar unit (GetValue per element; halves first widened to
float by a vector Cast into a `TBuf<QuePosition::LCM>`), then writes the 16 uint32 indices in one DataCopy. The
tiling is a struct the host copies to GM, which the kernel reads back word by word.

Ported (structure and instruction sequence; written in our own words) from
pcg-mlp/KsanaLLM @ 2db4095864746c7f940fce629540314cc0a5ba26, 3rdparty/LLM_kernels/csrc/kernels/ascend/argmax/
argmax_kernel.cc (`CopyTiling` through a `__gm__ uint32_t*`, `ArgmaxKernel<DTYPE>`: depth-1 VECIN/VECOUT queues,
`TBuf<QuePosition::LCM>` workspace, the running maximum starting at FLT_MIN with a strict `>`) with the host side of
argmax.cc (`InvokeArgmax`: `ArgmaxConfigTiling{batch_size, vocab_size, tile_num = 4, block_handle_num =
ceil(batch / 16)}` copied to device memory, block_handle_num blocks) and argmax_kernel.h
(ARGMAX_SINGLE_BLOCK_CAPACITY = 16).

Deviations (each one a report of the sanitizer on the original): (1) after the half -> float Cast the original waits
with `pipe_barrier(PIPE_V)`, which orders vector instructions only, and then reads the Cast's output with scalar
GetValue: a V -> S race; the port waits with PipeBarrier<PIPE_ALL>. (2) The last block sets only its remaining rows'
indices but copies out all 16 slots: the stale ones are uninitialised UB bytes written past the batch (into the
rounded allocation); the port zeroes those slots with SetValue first. The port's GM output is padded to 16 indices
a block, as the original's allocation must be.

Faithful quirks: the running maximum starts at FLT_MIN (1.17549435e-38), not -inf, so a row with no value above it
gets index 0; a NaN never wins (its comparisons are false). The vocabulary is fixed at 512 logits a row (4 tiles of
128, whole 32-byte blocks: the original's DataCopy of `vocab / 4` elements needs that); the size is rows x 512.

Devices: every device (DataCopy, Cast half -> float CAST_NONE, PipeBarrier and the scalar unit).

Fidelity: BIT-EXACT (Cast half -> float is exact; the comparisons are the scalar unit's float compares): checked
against numpy's first-maximum rule with the FLT_MIN start.
"""
from dataclasses import dataclass

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

ARGMAX_BUFFER_NUM = 1
ARGMAX_SINGLE_BLOCK_CAPACITY = 16
FLOAT_MIN = np.float32(1.175494351e-38)
VOCAB = 512
TILE_NUM = 4


@dataclass
class ArgmaxConfigTiling:
    """llm_kernels::ascend::ArgmaxConfigTiling: four uint32 fields, in GM as the host copied them."""
    batch_size: int = 0
    vocab_size: int = 0
    tile_num: int = 2
    block_handle_num: int = 0


def CopyTiling(tiling, tiling_gm):
    """`*tiling_ptr = *(tiling_gm_ptr + i)` for each uint32 word of the struct."""
    tiling_gm_ptr = aj.GlobalTensor()
    tiling_gm_ptr.SetGlobalBuffer(tiling_gm, dtype="uint32")
    for i, name in enumerate(("batch_size", "vocab_size", "tile_num", "block_handle_num")):
        setattr(tiling, name, int(tiling_gm_ptr.GetValue(i)))


class ArgmaxKernel:
    def __init__(self, dtype):
        self.DTYPE = dtype
        self.tiling_ = ArgmaxConfigTiling()

    def Init(self, input, output, tiling_gm):
        CopyTiling(self.tiling_, tiling_gm)
        self.current_block_handle_capacity_ = ARGMAX_SINGLE_BLOCK_CAPACITY
        if aj.GetBlockIdx() == aj.GetBlockNum() - 1:     # the tail rows in the last block
            self.current_block_handle_capacity_ = (self.tiling_.batch_size
                                                   - aj.GetBlockIdx() * ARGMAX_SINGLE_BLOCK_CAPACITY)
        self.tile_elem_num_ = self.tiling_.vocab_size // ARGMAX_BUFFER_NUM // self.tiling_.tile_num
        size = 2 if self.DTYPE == "half" else 4
        self.input_gm_, self.output_gm_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.input_gm_.SetGlobalBuffer(input)
        self.output_gm_.SetGlobalBuffer(output)
        self.pipe_ = aj.TPipe()
        self.input_queue_ = aj.TQue(aj.QuePosition.VECIN, ARGMAX_BUFFER_NUM)
        self.output_queue_ = aj.TQue(aj.QuePosition.VECOUT, ARGMAX_BUFFER_NUM)
        self.workspace_buf_ = aj.TBuf(aj.QuePosition.LCM)
        self.pipe_.InitBuffer(self.input_queue_, ARGMAX_BUFFER_NUM, self.tile_elem_num_ * size)
        self.pipe_.InitBuffer(self.output_queue_, ARGMAX_BUFFER_NUM, ARGMAX_SINGLE_BLOCK_CAPACITY * 4)
        self.pipe_.InitBuffer(self.workspace_buf_, self.tile_elem_num_ * 4)

    def CopyIn(self, current_batch_offset, loop_idx):
        input_local = self.input_queue_.AllocTensor(self.DTYPE)
        aj.DataCopy(input_local, self.input_gm_[current_batch_offset + loop_idx * self.tile_elem_num_],
                    self.tile_elem_num_)
        self.input_queue_.EnQue(input_local)

    def ArgmaxCompute(self, max_value, max_index, loop_idx):
        input_local = self.input_queue_.DeQue(self.DTYPE)
        workspace_local = self.workspace_buf_.Get("float")
        candidates = input_local
        if self.DTYPE == "half":
            aj.Cast(workspace_local, input_local, aj.RoundMode.CAST_NONE, self.tile_elem_num_)
            aj.PipeBarrier(aj.PIPE_ALL)    # deviation (1): the original's pipe_barrier(PIPE_V) leaves V -> S open
            candidates = workspace_local
        for idx in range(self.tile_elem_num_):
            val = candidates.GetValue(idx)
            if val > max_value:
                max_index = loop_idx * self.tile_elem_num_ + idx
                max_value = val
        self.input_queue_.FreeTensor(input_local)
        return max_value, max_index

    def Process(self):
        if aj.GetBlockIdx() >= self.tiling_.batch_size:
            return
        output_local = self.output_queue_.AllocTensor("uint32")
        for slot in range(self.current_block_handle_capacity_, ARGMAX_SINGLE_BLOCK_CAPACITY):
            output_local.SetValue(slot, 0)   # deviation (2): the slots past the batch are copied out too
        loop_count = self.tiling_.tile_num * ARGMAX_BUFFER_NUM
        for batch_idx in range(self.current_block_handle_capacity_):
            current_batch_offset = (aj.GetBlockIdx() * ARGMAX_SINGLE_BLOCK_CAPACITY * self.tiling_.vocab_size
                                    + batch_idx * self.tiling_.vocab_size)
            max_value, max_index = FLOAT_MIN, 0
            for loop_idx in range(loop_count):
                self.CopyIn(current_batch_offset, loop_idx)
                max_value, max_index = self.ArgmaxCompute(max_value, max_index, loop_idx)
            output_local.SetValue(batch_idx, max_index)
        self.output_queue_.EnQue(output_local)
        output_local = self.output_queue_.DeQue("uint32")
        aj.DataCopy(self.output_gm_[aj.GetBlockIdx() * ARGMAX_SINGLE_BLOCK_CAPACITY], output_local,
                    ARGMAX_SINGLE_BLOCK_CAPACITY)
        self.output_queue_.FreeTensor(output_local)


def argmax_kernel(input, output, tiling_gm, dtype):
    op = ArgmaxKernel(dtype)
    op.Init(input, output, tiling_gm)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        logits = (rng.standard_normal(size) * 4).astype(np_dtype).reshape(-1, VOCAB)
        logits[0] = -np.abs(logits[0])           # a row with no value above FLT_MIN: index 0
        if logits.shape[0] > 1:
            logits[1, [7, 300]] = 50             # a tie: the first index wins
        return {"logits": logits.reshape(-1)}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        logits = inputs["logits"]
        batch = logits.size // VOCAB
        tiling = ArgmaxConfigTiling(batch, VOCAB, TILE_NUM, -(-batch // ARGMAX_SINGLE_BLOCK_CAPACITY))
        tiling_device = np.array([tiling.batch_size, tiling.vocab_size, tiling.tile_num, tiling.block_handle_num],
                                 np.uint32)
        result = np.zeros(tiling.block_handle_num * ARGMAX_SINGLE_BLOCK_CAPACITY, np.uint32)
        aj.launch(argmax_kernel, tiling.block_handle_num, device, logits.copy(), result, tiling_device, dtype)
        return {"indices": result[:batch]}
    return run


def expected(device, inputs):
    rows = inputs["logits"].reshape(-1, VOCAB).astype(np.float32)
    best = rows.max(axis=1)
    return {"indices": np.where(best > FLOAT_MIN, rows.argmax(axis=1), 0).astype(np.uint32)}


_SOURCE = "pcg-mlp/KsanaLLM@2db40958 3rdparty/LLM_kernels/csrc/kernels/ascend/argmax/argmax_kernel.cc"
_RULE = f"a multiple of {VOCAB} (rows of {VOCAB} logits)"
KERNELS = [
    KernelSpec("argmax_llm", "row argmax of float logits: 16 rows a block, 4 tiles a row, scalar GetValue running "
               "maximum from FLT_MIN; tiling struct read from GM word by word", _make_inputs(np.float32),
               _run("float"), expected, default_size=32 * VOCAB, size_rule=_RULE,
               size_ok=lambda n: n > 0 and n % VOCAB == 0, source=_SOURCE),
    KernelSpec("argmax_llm_half", "row argmax of half logits, widened by a vector Cast into a TBuf<LCM> first",
               _make_inputs(np.float16), _run("half"), expected, default_size=32 * VOCAB, size_rule=_RULE,
               size_ok=lambda n: n > 0 and n % VOCAB == 0, source=_SOURCE),
]
