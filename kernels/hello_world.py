"""The devkit's quickstart hello_world: `printf("Hello World!!!\\n")` on 8 blocks, checked against the output its
README prints.

Ported from mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/
00_introduction/00_quickstart/hello_world/hello_world.asc (`hello_world`, `<<<8, 0, stream>>>`) and its README.md
("[AIV Block 0/8] Hello World!!!" .. "[AIV Block 7/8] Hello World!!!", one line a core). The C API build
(examples/02_simd_c_api/00_introduction/00_quickstart/hello_world_npu) prints the same.

`aj.printf` writes the page's `[AIV Block i/n] ` prefix to stdout (README porting table). The launch runs its blocks
one after another (`parallel=False`), in block order, so the lines come out as the README shows them; on the
device the cores' lines may come in another order. The run captures stdout and returns the text's bytes.

Sizes: the number of blocks (the example's 8; any count from 1 to 48). Devices: printf's, the 950, A3 and A2 (the
README's too). Fidelity: BIT-EXACT (the text).
"""
import contextlib
import io

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/00_introduction/00_quickstart/hello_world/"
          "hello_world.asc")


def hello_world():
    aj.printf("Hello World!!!\n")


def make_inputs(size, seed):
    return {"blocks": np.zeros(size, np.uint8)}   # only the block count: the kernel takes no arguments


def run(device, inputs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        aj.launch(hello_world, inputs["blocks"].size, device, parallel=False)
    return {"stdout": np.frombuffer(out.getvalue().encode(), np.uint8)}


def expected(device, inputs):
    n = inputs["blocks"].size
    text = "".join(f"[AIV Block {i}/{n}] Hello World!!!\n" for i in range(n))
    return {"stdout": np.frombuffer(text.encode(), np.uint8)}


KERNEL = KernelSpec("hello_world", "devkit quickstart hello_world (printf on 8 blocks; the README's 8 lines)",
                    make_inputs, run, expected, default_size=8, devices=("ascend950", "atlas-a3", "atlas-a2"),
                    size_rule="blocks, 1 to 48", size_ok=lambda n: 0 < n <= 48, source=SOURCE)
