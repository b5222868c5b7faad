"""The devkit's introductory Add examples (the first kernels a user ports): z = x + y over 8 blocks of 2048 floats.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/00_introduction/01_add/:
- add/add.asc (`add_custom<2048>`, 8 blocks): InitSocState; per block three GlobalTensor windows at
  `block_idx * blockLength`; a LocalMemAllocator's three tiles; DataCopy x and y in; PipeBarrier<PIPE_ALL>; Add;
  PipeBarrier<PIPE_ALL>; DataCopy z out; PipeBarrier<PIPE_ALL>. The host fills x[i] = i * 0.1f, y[i] = i * 0.2f and
  checks z == x + y exactly (std::equal). The original's `#if 0` block of printf / DumpTensor calls is kept behind
  the `dump` argument (aj.printf, aj.DumpTensor), off by default as there.
- add_tpipe_tque/add_tpipe_tque.asc (`add_custom`, 8 blocks, totalLength 8 * 2048): blockLength = totalLength /
  GetBlockNum(); a TPipe with TQue<VECIN, 1> x2 and TQue<VECOUT, 1>; AllocTensor, DataCopy, EnQue / DeQue, Add, EnQue
  / DeQue, DataCopy out (the original frees no tensor: a kernel's queues end with it). scripts/gen_data.py draws x and
  y uniform in [1, 10) and the golden is numpy's float32 x + y.

`block_idx` (the C++ global) is `aj.GetBlockIdx()`: Python has no per-block module variable.

Sizes: the examples' 8 * 2048 floats by default; any total that splits into 8 blocks of whole 32-byte DataBlocks
(a multiple of 64 floats) whose three tiles fit the UB (at most 8 * 16384). Devices: the READMEs list the 950, A3 and
A2; Add of floats and these scaffolds run on every device, so the ports run everywhere the emulator does.
Fidelity: BIT-EXACT (float Add, SPEC-2 0.3): the expectation is numpy's float32 x + y, the examples' golden.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

NUM_BLOCKS = 8
SOURCE = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/00_introduction/01_add/"


def add_custom(x, y, z, blockLength, dump=False):
    """add/add.asc: LocalMemAllocator tiles and PipeBarrier<PIPE_ALL> between the stages."""
    aj.InitSocState()
    block_idx = aj.GetBlockIdx()
    xGm, yGm, zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x[block_idx * blockLength:], blockLength)
    yGm.SetGlobalBuffer(y[block_idx * blockLength:], blockLength)
    zGm.SetGlobalBuffer(z[block_idx * blockLength:], blockLength)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("float", blockLength)
    yLocal = ubAllocator.Alloc("float", blockLength)
    zLocal = ubAllocator.Alloc("float", blockLength)
    aj.DataCopy(xLocal, xGm, blockLength)
    aj.DataCopy(yLocal, yGm, blockLength)
    aj.PipeBarrier(aj.PIPE_ALL)
    aj.Add(zLocal, xLocal, yLocal, blockLength)
    aj.PipeBarrier(aj.PIPE_ALL)
    if dump:  # the original's `#if 0` debugging block
        aj.printf("%s\n", "[ DumpTensor in xLocal]")
        aj.DumpTensor(xLocal, 1, 32)
        aj.printf("%s\n", "[ DumpTensor in yLocal]")
        aj.DumpTensor(yLocal, 2, 32)
        aj.printf("%s\n", "[ DumpTensor in zLocal]")
        aj.DumpTensor(zLocal, 3, 32)
    aj.DataCopy(zGm, zLocal, blockLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def add_custom_tpipe_tque(x, y, z, totalLength):
    """add_tpipe_tque/add_tpipe_tque.asc: the same Add through a TPipe's queues."""
    pipe = aj.TPipe()
    inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
    inQueueY = aj.TQue(aj.TPosition.VECIN, 1)
    outQueueZ = aj.TQue(aj.TPosition.VECOUT, 1)
    xGm, yGm, zGm = aj.GlobalTensor("float"), aj.GlobalTensor("float"), aj.GlobalTensor("float")
    blockLength = totalLength // aj.GetBlockNum()
    xGm.SetGlobalBuffer(x[blockLength * aj.GetBlockIdx():], blockLength)
    yGm.SetGlobalBuffer(y[blockLength * aj.GetBlockIdx():], blockLength)
    zGm.SetGlobalBuffer(z[blockLength * aj.GetBlockIdx():], blockLength)
    pipe.InitBuffer(inQueueX, 1, blockLength * 4)
    pipe.InitBuffer(inQueueY, 1, blockLength * 4)
    pipe.InitBuffer(outQueueZ, 1, blockLength * 4)
    xLocal = inQueueX.AllocTensor("float")
    yLocal = inQueueY.AllocTensor("float")
    aj.DataCopy(xLocal, xGm, blockLength)
    aj.DataCopy(yLocal, yGm, blockLength)
    inQueueX.EnQue(xLocal)
    inQueueY.EnQue(yLocal)
    xLocal = inQueueX.DeQue("float")
    yLocal = inQueueY.DeQue("float")
    zLocal = outQueueZ.AllocTensor("float")
    aj.Add(zLocal, xLocal, yLocal, blockLength)
    outQueueZ.EnQue("float", zLocal)
    zLocal = outQueueZ.DeQue("float")
    aj.DataCopy(zGm, zLocal, blockLength)


def make_inputs_ramp(size, seed):
    """add.asc's host data: x[i] = i * 0.1f, y[i] = i * 0.2f (float products); `seed` > 0 adds a random sign per
    element so the subtraction side of Add shows too."""
    i = np.arange(size, dtype=np.float32)
    x, y = i * np.float32(0.1), i * np.float32(0.2)
    if seed:
        y = y * np.where(np.random.default_rng(seed).random(size) < 0.5, np.float32(-1), np.float32(1))
    return {"x": x, "y": y}


def make_inputs_uniform(size, seed):
    """add_tpipe_tque's gen_data.py: x and y uniform in [1, 10) as float32; the specials (+-0, +-inf, NaN, the
    largest float) in the first lanes."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(1, 10, size).astype(np.float32)
    y = rng.uniform(1, 10, size).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, np.inf, np.nan, np.finfo(np.float32).max]
    y[:6] = [-0.0, -0.0, -np.inf, 1.0, 1.0, np.finfo(np.float32).max]
    return {"x": x, "y": y}


def run_add(device, inputs, dump=False):
    x, y = inputs["x"], inputs["y"]
    z = np.zeros_like(x)
    aj.launch(add_custom, NUM_BLOCKS, device, x, y, z, x.size // NUM_BLOCKS, dump)
    return {"z": z}


def run_add_tpipe_tque(device, inputs):
    x, y = inputs["x"], inputs["y"]
    z = np.zeros_like(x)
    aj.launch(add_custom_tpipe_tque, NUM_BLOCKS, device, x, y, z, x.size)
    return {"z": z}


def expected(device, inputs):
    """numpy's float32 x + y with every NaN the canonical 0x7FC00000 (SPEC-2 D35: x86 numpy gives inf + -inf the
    sign-set default NaN)."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = inputs["x"] + inputs["y"]
    z[np.isnan(z)] = np.float32(np.nan)
    return {"z": z}


def _spec(name, description, make_inputs, run, path):
    return KernelSpec(name, description, make_inputs, run, expected, default_size=NUM_BLOCKS * 2048,
                      devices=tuple(n for n, d in aj.DEVICES.items() if d.supported),
                      size_rule="8 blocks of whole DataBlocks: a multiple of 512 floats, at most 131072",
                      size_ok=lambda n: 0 < n <= NUM_BLOCKS * 16384 and n % (NUM_BLOCKS * 64) == 0,
                      source=SOURCE + path)


KERNELS = [
    _spec("add_intro", "devkit introductory add (8 blocks: LocalMemAllocator tiles, PipeBarrier<PIPE_ALL> between "
          "DataCopy, Add and DataCopy; x = i * 0.1f, y = i * 0.2f)", make_inputs_ramp, run_add, "add/add.asc"),
    _spec("add_tpipe_tque", "devkit introductory add_tpipe_tque (8 blocks: TPipe, VECIN / VECOUT TQues, EnQue / "
          "DeQue around Add)", make_inputs_uniform, run_add_tpipe_tque, "add_tpipe_tque/add_tpipe_tque.asc"),
]
