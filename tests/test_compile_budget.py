"""Compile budget (issue 20): an integer argument given as a numpy integer (np.uint8, np.int32, np.uint64, ...)
runs the kernels already compiled for Python ints. numba types a numpy scalar by its own type, so a value passed
through to a kernel unconverted compiles the kernel again (1-2 s each time, in every user's first call)."""
import os

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

import ascend_jit as aj
import ascend_jit.jit as jit_package

pytestmark = [pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1",
                                 reason="nothing is compiled without the JIT"),
              pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync",
                                          reason="calls every family on fresh tensors whose values do not matter")]


def _compiled_signatures():
    """Every compiled signature of the package's kernel modules (their entry points and helpers)."""
    import importlib
    import pkgutil
    total = 0
    for info in pkgutil.iter_modules(jit_package.__path__):
        module = importlib.import_module(f"{jit_package.__name__}.{info.name}")
        total += sum(len(v.overloads) for v in vars(module).values() if isinstance(v, Dispatcher))
    return total


def _reduce_sum_count(core, n):
    return (core.local_tensor("half", 16), core.local_tensor("half", 512), core.local_tensor("half", 64)), \
        lambda d, s, t: aj.ReduceSum(d, s, t, n(300))


def _reduce_sum_high_dim(core, n):
    return (core.local_tensor("half", 16), core.local_tensor("half", 1024), core.local_tensor("half", 64)), \
        lambda d, s, t: aj.ReduceSum(d, s, t, n(100), n(3), n(16))


def _pair(core, n):
    return (core.local_tensor("half", 512), core.local_tensor("half", 1024)), \
        lambda d, s: aj.ReducePairElem(d, s, n(128), n(3), n(2), n(1), n(8))


def _whole_reduce(entry):
    def case(core, n):
        return (core.local_tensor("half", 64), core.local_tensor("half", 512)), \
            lambda d, s: entry(d, s, n(100), n(3), n(1), n(1), n(8))
    return case


def _block_reduce(entry):
    def case(core, n):
        return (core.local_tensor("half", 64), core.local_tensor("half", 512)), \
            lambda d, s: entry(d, s, n(3), n(100), n(1), n(1), n(8))
    return case


def _reduce_max(core, n):
    return (core.local_tensor("half", 16), core.local_tensor("half", 512), core.local_tensor("half", 512)), \
        lambda d, s, t: (aj.ReduceMax(d, s, t, n(300), True), aj.ReduceMin(d, s, t, n(100), n(2), n(8), True))


def _cast(core, n):
    return (core.local_tensor("float", 256), core.local_tensor("half", 256)), \
        lambda d, s: (aj.Cast(d, s, aj.RoundMode.CAST_NONE, n(200)),
                      aj.Cast(d, s, aj.RoundMode.CAST_NONE, n(40), n(2), aj.UnaryRepeatParams(n(1), n(1), n(8), n(4))))


def _compare(core, n):
    return (core.local_tensor("uint8", 64), core.local_tensor("half", 256), core.local_tensor("half", 256)), \
        lambda d, a, b: (aj.Compare(d, a, b, aj.CMPMODE.LT, n(256)),
                         aj.Compares(d, a, 1.0, aj.CMPMODE.GE, n(128)),
                         aj.Compare(d, a, b, aj.CMPMODE.EQ, n(100), n(2),
                                    aj.BinaryRepeatParams(n(1), n(1), n(1), n(8), n(8), n(8))))


def _select(core, n):
    return (core.local_tensor("half", 256), core.local_tensor("uint8", 64), core.local_tensor("half", 256),
            core.local_tensor("half", 256)), \
        lambda d, m, a, b: (aj.Select(d, m, a, b, aj.SELMODE.VSEL_CMPMASK_SPR, n(256)),
                            aj.Select(d, m, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n(100), n(2),
                                      aj.BinaryRepeatParams(n(1), n(1), n(1), n(8), n(8), n(8))))


def _gather(core, n):
    def call(d, s, offsets):
        offsets[:] = np.arange(128, dtype=np.uint32) * 2
        aj.Gather(d, s, offsets, n(0), n(128))
        aj.GatherMask(d, s, n(1), False, n(0), aj.GatherMaskParams(n(1), n(1), n(8), n(8)))
    return (core.local_tensor("half", 256), core.local_tensor("half", 256), core.local_tensor("uint32", 128)), call


def _data_copy_pad(core, n):
    gm = aj.GlobalTensor(np.zeros(256, np.float16))

    def call(local):
        aj.DataCopyPad(local, gm, aj.DataCopyExtParams(n(2), n(30), n(2), n(0), n(0)),
                       aj.DataCopyPadExtParams(True, n(0), n(1), 0))
        local.core.PipeBarrier(aj.PIPE_ALL)   # the copy-out waits for the copy-in (MTE2 -> MTE3)
        aj.DataCopyPad(gm, local, aj.DataCopyExtParams(n(2), n(30), n(0), n(2), n(0)))
        local.core.PipeBarrier(aj.PIPE_ALL)   # and the next copy-in for this copy-out
    return (core.local_tensor("half", 256),), call


CASES = {"ReduceSum count": _reduce_sum_count, "ReduceSum high-dim": _reduce_sum_high_dim, "ReducePairElem": _pair,
         "WholeReduceSum": _whole_reduce(aj.WholeReduceSum), "WholeReduceMax": _whole_reduce(aj.WholeReduceMax),
         "BlockReduceSum": _block_reduce(aj.BlockReduceSum), "BlockReduceMin": _block_reduce(aj.BlockReduceMin),
         "ReduceMax/ReduceMin": _reduce_max, "Cast": _cast, "Compare/Compares": _compare, "Select": _select,
         "Gather/GatherMask": _gather, "DataCopyPad": _data_copy_pad}


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.parametrize("name", CASES)
def test_numpy_integer_arguments_compile_nothing_new(name, device):
    core = aj.Core(device)
    tensors, call = CASES[name](core, int)
    call(*tensors)  # compiles (or loads) the kernels for Python ints
    before = _compiled_signatures()
    for wrap in (np.uint16, np.int32, np.uint64, np.int64):
        tensors, call = CASES[name](aj.Core(device), wrap)
        call(*tensors)
    assert _compiled_signatures() == before
