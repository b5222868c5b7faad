"""Rotary position embedding of an LLM serving stack: one block per token rotates each head's two halves (x, y) of
the query, then of the key, by the cos/sin row of the token's position: x' = x cos - y sin, y' = y cos + x sin, with
four count-form Muls into a workspace TBuf<QuePosition::LCM>, a PipeBarrier<PIPE_V>, a Sub and an Add per head,
between the raw `set_mask_count()` / `set_mask_norm()` and `AscendCUtils::ResetMask()`. The same kernel object runs
Init and Process twice (query, then key) on one TPipe.

Ported (structure and instruction sequence; written in our own words) from
pcg-mlp/KsanaLLM @ 2db4095864746c7f940fce629540314cc0a5ba26, 3rdparty/LLM_kernels/csrc/kernels/ascend/
fused_rotary_embedding/fused_rotary_embedding_kernel.cc (`RotaryEmbeddingKernel<T>`: the tiling struct copied from GM
word by word, `pos = ((__gm__ int64_t*)pos_ptr)[GetBlockIdx()]`, the cos/sin row at `cache + pos * rotary_dim`,
depth-1 queues, `InvokeRotaryEmbedding{Half,Float}Kernel`) and the cos/sin cache of fused_rotary_embedding.cc
(`SetConfig`: cos and sin of pos / base**(2i / rotary_dim), computed in float and stored as T; base 10000).

Deviation: the host side at that commit launches the half kernel with six arguments for seven parameters (query as
input and output, the workspace as key output); the port launches one block per token with the kernel's own
signature: positions, query, key, cache, tiling, and query and key as their own outputs (in place, as the host
rotates them). The float kernel, which the host never launches, runs the same way.

The second Init calls InitBuffer again on the same queues and TBuf of the same TPipe: the devkit carves new buffers
after the first ones (the first ones stay allocated; the UB holds both here), as the emulator does.

Devices: every device (DataCopy, Mul/Sub/Add in counter mode, the scalar unit).

Fidelity: BIT-EXACT (Mul, Sub, Add and DataCopy are BIT-EXACT, SPEC-2 0.3): checked bit for bit against the same
operations composed from the package's reference model, with the cos/sin cache the host computed.
"""
from dataclasses import dataclass, fields

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

ROPE_EMBEDDING_BUFFER_NUM = 1
BASE = 10000.0
MAX_POSITIONS = 64
NUM_HEADS, NUM_KV_HEADS = 4, 2


@dataclass
class RotaryEmbeddingTilingConfig:
    """llm_kernels::ascend::RotaryEmbeddingTilingConfig: seven 32-bit fields (uint32 then int)."""
    seq_len: int = 0
    hidden_units_num: int = 0
    rotary_dim: int = 0
    num_heads: int = 0
    num_kv_heads: int = 0
    head_size: int = 0
    mode: int = 0


class RotaryEmbeddingKernel:
    def __init__(self, dtype):
        self.T = dtype
        self.tiling = RotaryEmbeddingTilingConfig()
        self.pipe = aj.TPipe()
        self.input_queue = aj.TQue(aj.QuePosition.VECIN, ROPE_EMBEDDING_BUFFER_NUM)
        self.cos_sin_cache_queue = aj.TQue(aj.QuePosition.VECIN, ROPE_EMBEDDING_BUFFER_NUM)
        self.output_queue = aj.TQue(aj.QuePosition.VECOUT, ROPE_EMBEDDING_BUFFER_NUM)
        self.workspace_buf = aj.TBuf(aj.QuePosition.LCM)

    def Init(self, pos_ptr, input_ptr, cos_sin_cache_ptr, tiling_gm, output_ptr, is_query=True):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        tmp_tiling_gm = aj.GlobalTensor()
        tmp_tiling_gm.SetGlobalBuffer(tiling_gm, dtype="uint32")
        for i, field in enumerate(fields(self.tiling)):     # *tmp_tiling = *tmp_tiling_gm, word by word
            setattr(self.tiling, field.name, int(tmp_tiling_gm.GetValue(i)))
        if aj.GetBlockIdx() >= self.tiling.seq_len:
            return
        self.pos = int(aj.GlobalTensor(pos_ptr, dtype="int64").GetValue(aj.GetBlockIdx()))
        self.embed_dim = self.tiling.rotary_dim // 2
        heads = self.tiling.num_heads if is_query else self.tiling.num_kv_heads
        self.elem_num = heads * self.tiling.head_size
        self.loop_round = self.elem_num // self.tiling.rotary_dim
        size = 2 if self.T == "half" else 4
        self.input_global, self.cos_sin_cache_global, self.output_global = (aj.GlobalTensor() for _ in range(3))
        self.input_global.SetGlobalBuffer(input_ptr[self.elem_num * aj.GetBlockIdx():], self.elem_num)
        self.pipe.InitBuffer(self.input_queue, ROPE_EMBEDDING_BUFFER_NUM, self.elem_num * size)
        self.cos_sin_cache_global.SetGlobalBuffer(cos_sin_cache_ptr[self.pos * self.tiling.rotary_dim:],
                                                  self.tiling.rotary_dim)
        self.pipe.InitBuffer(self.cos_sin_cache_queue, ROPE_EMBEDDING_BUFFER_NUM, self.tiling.rotary_dim * size)
        self.output_global.SetGlobalBuffer(output_ptr[self.elem_num * aj.GetBlockIdx():], self.elem_num)
        self.pipe.InitBuffer(self.output_queue, ROPE_EMBEDDING_BUFFER_NUM, self.elem_num * size)
        self.workspace_elem_num = self.tiling.rotary_dim * 2
        self.pipe.InitBuffer(self.workspace_buf, self.workspace_elem_num * size)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        input_local = self.input_queue.AllocTensor(self.T)
        cos_sin_cache_local = self.cos_sin_cache_queue.AllocTensor(self.T)
        aj.DataCopy(input_local, self.input_global[0], self.elem_num)
        aj.DataCopy(cos_sin_cache_local, self.cos_sin_cache_global[0], self.tiling.rotary_dim)
        self.input_queue.EnQue(input_local)
        self.cos_sin_cache_queue.EnQue(cos_sin_cache_local)

    def Compute(self):
        input_local = self.input_queue.DeQue(self.T)
        cos_sin_cache_local = self.cos_sin_cache_queue.DeQue(self.T)
        workspace_local = self.workspace_buf.Get(self.T)
        output_local = self.output_queue.AllocTensor(self.T)
        e, r = self.embed_dim, self.tiling.rotary_dim
        aj.SetMaskCount()
        for head_idx in range(self.loop_round):
            x, y = input_local[head_idx * r], input_local[head_idx * r + e]
            aj.Mul(workspace_local[0], x, cos_sin_cache_local[0], e)            # x cos
            aj.Mul(workspace_local[e], y, cos_sin_cache_local[e], e)            # y sin
            aj.Mul(workspace_local[2 * e], y, cos_sin_cache_local[0], e)        # y cos
            aj.Mul(workspace_local[3 * e], x, cos_sin_cache_local[e], e)        # x sin
            aj.PipeBarrier(aj.PIPE_V)
            aj.Sub(output_local[head_idx * r], workspace_local[0], workspace_local[e], e)
            aj.Add(output_local[head_idx * r + e], workspace_local[2 * e], workspace_local[3 * e], e)
        aj.SetMaskNorm()
        aj.ResetMask()
        self.output_queue.EnQue(output_local)
        self.input_queue.FreeTensor(input_local)
        self.cos_sin_cache_queue.FreeTensor(cos_sin_cache_local)

    def CopyOut(self):
        output_local = self.output_queue.DeQue(self.T)
        aj.DataCopy(self.output_global[0], output_local, self.elem_num)
        self.output_queue.FreeTensor(output_local)


def invoke_rotary_embedding_kernel(pos_ptr, query_ptr, key_ptr, cos_sin_cache_ptr, tiling_gm, query_output_ptr,
                                   key_output_ptr, dtype):
    rope_emb_kernel = RotaryEmbeddingKernel(dtype)
    rope_emb_kernel.Init(pos_ptr, query_ptr, cos_sin_cache_ptr, tiling_gm, query_output_ptr, is_query=True)
    rope_emb_kernel.Process()
    rope_emb_kernel.Init(pos_ptr, key_ptr, cos_sin_cache_ptr, tiling_gm, key_output_ptr, is_query=False)
    rope_emb_kernel.Process()


def cos_sin_cache(rotary_dim, np_dtype):
    """SetConfig's cache: row pos holds cos(pos * inv_freq) then sin, inv_freq = 1 / base**(2i / rotary_dim), in
    float, stored as the kernel's type."""
    cache = np.zeros((MAX_POSITIONS, rotary_dim), np.float32)
    i = np.arange(rotary_dim // 2, dtype=np.float32)
    inv_freq = (np.float32(1.0) / np.power(np.float32(BASE), i * 2 / np.float32(rotary_dim))).astype(np.float32)
    freq = np.arange(MAX_POSITIONS, dtype=np.float32)[:, None] * inv_freq[None, :]
    cache[:, :rotary_dim // 2], cache[:, rotary_dim // 2:] = np.cos(freq), np.sin(freq)
    return cache.astype(np_dtype).reshape(-1)


def _make_inputs(np_dtype, head_size):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {"positions": rng.integers(0, MAX_POSITIONS, size, dtype=np.int64),
                "query": rng.standard_normal(size * NUM_HEADS * head_size).astype(np_dtype),
                "key": rng.standard_normal(size * NUM_KV_HEADS * head_size).astype(np_dtype),
                "cos_sin_cache": cos_sin_cache(head_size, np_dtype)}
    return make_inputs


def _run(dtype, head_size):
    def run(device, inputs):
        tokens = inputs["positions"].size
        tiling = np.array([tokens, head_size // 2, head_size, NUM_HEADS, NUM_KV_HEADS, head_size, 0], np.uint32)
        query, key = inputs["query"].copy(), inputs["key"].copy()   # rotated in place, as the host does
        aj.launch(invoke_rotary_embedding_kernel, tokens, device, inputs["positions"], query, key,
                  inputs["cos_sin_cache"], tiling, query, key, dtype)
        return {"query": query, "key": key}
    return run


def expected(device, inputs):
    from ascend_jit.reference import elementwise as ref
    env = ref.Env(device, sat_half=aj.Core(device).half_saturating)
    q = inputs["query"]
    lane = "half" if q.dtype == np.float16 else "float"
    rotary = inputs["cos_sin_cache"].size // MAX_POSITIONS
    cache = inputs["cos_sin_cache"].reshape(MAX_POSITIONS, rotary).astype(np.float64)
    out = {}
    for name in ("query", "key"):
        v = inputs[name].reshape(inputs["positions"].size, -1, rotary).astype(np.float64)
        cos = cache[inputs["positions"], None, :rotary // 2]
        sin = cache[inputs["positions"], None, rotary // 2:]
        x, y = v[..., :rotary // 2], v[..., rotary // 2:]
        mul = lambda a, b: ref.mul(lane, env, a, b)
        rotated = np.concatenate([ref.sub(lane, env, mul(x, cos), mul(y, sin)),
                                  ref.add(lane, env, mul(y, cos), mul(x, sin))], axis=-1)
        out[name] = rotated.reshape(-1).astype(q.dtype)
    return out


_SOURCE = ("pcg-mlp/KsanaLLM@2db40958 3rdparty/LLM_kernels/csrc/kernels/ascend/fused_rotary_embedding/"
           "fused_rotary_embedding_kernel.cc")
KERNELS = [
    KernelSpec("rotary_embedding", "rotary position embedding over half query/key (4 and 2 heads of 128), one token a "
               "block: count-form Mul/Sub/Add on head halves between SetMaskCount and SetMaskNorm/ResetMask, Init "
               "and Process twice on one TPipe", _make_inputs(np.float16, 128), _run("half", 128), expected,
               default_size=6, size_rule="the number of tokens (blocks)", source=_SOURCE),
    KernelSpec("rotary_embedding_float", "the float kernel with heads of 96 (halves of 48 floats: one partial repeat "
               "a call)", _make_inputs(np.float32, 96), _run("float", 96), expected, default_size=6,
               size_rule="the number of tokens (blocks)", source=_SOURCE),
]
