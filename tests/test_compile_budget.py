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


_MIXED_MASKS_VF = """
def vf(out, a, given):
    ra, rd = R.RegTensor("float"), R.RegTensor("float")
    made, _ = R.UpdateMask("float", 64)
    R.LoadAlign(ra, a, 0)
    R.Add(rd, ra, ra, given)
    R.Add(rd, rd, ra, made)
    R.StoreAlign(out, rd, given, 0)
    R.Reduce(rd, ra, made, R.ReduceType.MAX)
    R.StoreAlign(out, rd, made, 64)
    R.Reduce(rd, ra, given, R.ReduceType.MAX)
    R.StoreAlign(out, rd, given, 128)
"""


def test_a_reg_kernel_compiles_once_for_masks_from_every_source():
    """A MaskReg passed into a VF (a uint64 array in compiled code), one UpdateMask made in it (a tuple) and one a
    plain call reads reach every Reg kernel as the same four words (jit/reg.py MASK_WORDS): one compiled kernel
    serves them all (before: one per source, 3 s for Reduce). The VF is exec'd, so it compiles in every process and
    types its kernels even when the cache is warm."""
    from numba.core import types

    from ascend_jit.jit import reg_move, reg_ops
    namespace = {"R": aj.Reg}
    exec(_MIXED_MASKS_VF, namespace)  # noqa: S102 (the test's own source)
    vf = aj.Reg.simd_vf(namespace["vf"])
    core = aj.Core("ascend950", sanitize=False)   # a VF on a sanitizing core runs uncompiled: no kernel to type
    out, a = core.local_tensor("float", 192), core.local_tensor("float", 64)
    a[:] = np.arange(64, dtype=np.float32)
    with core:
        vf(out, a, aj.Reg.MaskReg([2**64 - 1] * 4))
        plain_src, plain_dst = aj.Reg.RegTensor("float"), aj.Reg.RegTensor("float")
        aj.Reg.LoadAlign(plain_src, a, 0)
        aj.Reg.Add(plain_dst, plain_src, plain_src, aj.Reg.UpdateMask("float", 64)[0])
        aj.Reg.StoreAlign(out, plain_dst, aj.Reg.CreateMask("float"), 0)
    got = out.numpy()
    assert np.array_equal(got[:64], 2 * np.arange(64, dtype=np.float32))
    assert got[64] == got[128] == 63.0 and np.array_equal(got[64:128], got[128:])
    words = types.UniTuple(types.uint64, 4)
    for kernel, position in ((reg_ops.binary, 3), (reg_ops.reduce, 2), (reg_move.store_norm, 2)):
        assert kernel.signatures and {sig[position] for sig in kernel.signatures} == {words}, kernel.py_func.__name__


_LOAD_INTO_MADE_MASK_VF = """
def vf(out, a, bits):
    ra = R.RegTensor("float")
    made = R.CreateMask("float")
    R.LoadAlign(made, bits, 0)
    R.LoadAlign(ra, a, 0)
    R.Add(ra, ra, ra, made)
    R.StoreAlign(out, ra, R.CreateMask("float"), 0)
"""


def test_a_load_into_a_mask_made_in_the_vf_types_no_kernel_for_the_tuple():
    """A VF that loads into a mask CreateMask made (a tuple, which nothing can write) compiles again with its masks
    as arrays (reg.py _compile_with_mask_arrays). Its first typing must not compile LoadAlign's mask kernel for the
    tuple: that failed in every such VF (1.8 s CPU of the cold suite, session 53)."""
    from numba.core import event, types

    attempts = []

    class Listener(event.Listener):
        def on_start(self, e):
            dispatcher = e.data["dispatcher"]
            if getattr(dispatcher, "py_func", None) is not None and dispatcher.py_func.__name__ == "load_mask":
                attempts.append(e.data["args"])

        def on_end(self, e):
            pass

    namespace = {"R": aj.Reg}
    exec(_LOAD_INTO_MADE_MASK_VF, namespace)  # noqa: S102 (the test's own source)
    vf = aj.Reg.simd_vf(namespace["vf"])
    core = aj.Core("ascend950", sanitize=False)   # a VF on a sanitizing core runs uncompiled: nothing to type
    out, a, bits = core.local_tensor("float", 64), core.local_tensor("float", 64), core.local_tensor("uint8", 32)
    a[:] = np.arange(1, 65, dtype=np.float32)
    bits[:] = np.array([0x11] * 8 + [0] * 24, np.uint8)   # float lanes: one mask bit every 4 of 256; lanes 0, 1, ...
    with event.install_listener("numba:compile", Listener()), core:
        vf(out, a, bits)
    got = out.numpy()
    active = np.zeros(64, bool)
    active[:16] = True   # bits 0 and 4 of each byte: bit 4k of the mask is float lane k (SPEC-2 11.6 DIST_NORM)
    assert np.array_equal(got[active], 2 * a.numpy()[active]) and not got[~active].any()   # Add ZEROING (11.1)
    words = types.UniTuple(types.uint64, 4)
    assert not [args for args in attempts if args and args[0] == words]


@pytest.mark.parametrize("api", ["MulAddDst", "MulDstAdd", "Axpy", "AbsSub", "Abs", "Relu", "Neg", "Ln", "Log", "Sqrt"])
def test_a_reg_unary_or_ternary_call_names_its_dtype_class_alone(api, monkeypatch):
    """The Reg unary and ternary kernels compile once per dtype class, every op of the class together (session 42:
    an op group each made a process using them all compile each class two or three times): a plain call and a VF
    call's plan end with the source register's class markers, 0 for its class and None for the others (a marker of
    another class would run no lane, the call's results unwritten; all of them 0 would compile every class)."""
    from numba.core import types

    from ascend_jit import reg as reg_module
    from ascend_jit.jit import reg as jit_reg
    from ascend_jit.jit import reg_ops

    R = aj.Reg
    ternary = api in reg_module.TERNARY_OPS
    kernel = "ternary" if ternary else "unary"
    dtype = "float" if api == "MulDstAdd" else "half"
    want = (None, 0, None) if dtype == "float" else (0, None, None)  # (half, float or wide, int)
    calls = []
    monkeypatch.setattr(reg_ops, kernel, lambda *args: calls.append(args))
    core = aj.Core("ascend950")
    with core:
        regs = [R.RegTensor(dtype) for _ in range(3)]
        mask = R.CreateMask(dtype)
        third = (1.0,) if api == "Axpy" else (regs[2],) if ternary else ()
        getattr(R, api)(regs[0], regs[1], *third, mask)
    assert calls and calls[0][-4:] == (False, *want)  # merging False, then the class markers

    reg, words = types.Array(types.uint8, 1, "C"), types.UniTuple(types.uint64, 4)
    plan = (reg_module._ternary_plan if ternary else reg_module._unary_plan)(api)
    operands = plan(reg, reg, types.float64 if api == "Axpy" else reg, words) if ternary else plan(reg, reg, words)
    # a register whose dtype the VF learns at run time: every class (the kind picks one at run time)
    assert operands[-3:] == ((jit_reg.CONST, types.int64, 0),) * 3


_LITERAL_ARGUMENTS_VF = """
def vf(dst, src):
    x, y = R.RegTensor("half"), R.RegTensor("half")
    m = R.CreateMask("half")
    R.DataCopy(x, src, dist=R.LoadDist.DIST_BRC_B16)
    R.Duplicate(y, 1.5)
    R.Add(x, x, y, m)
    R.Muls(y, y, 2.0, m)
    R.Muls(y, y, 0.5, m)
    R.DataCopy(dst, x, m, dist=R.StoreDist.DIST_NORM_B16)
    R.Arange(y, 3)
    R.StoreAlign(dst, y, m, 128)
    low, high = R.MaskReg(), R.MaskReg()
    R.Interleave(low, high, m, R.MaskReg(), "half")
"""


def test_constants_in_a_vf_reach_the_kernels_as_run_time_values():
    """The constants the Reg overloads pass on (an omitted offset's 0, Duplicate's and Arange's API names, the
    unused integer of a float scalar, Arange's flag and dtype set, Interleave's direction) reach the kernels as
    int64 / bool / unicode values. scalar_bits needs its float/int flag as a literal (it picks the path), and numba,
    typing a call again with literals, then passed every constant of the call as a literal too: each compiled a
    kernel once more (0.4-1.3 s each, issue 20)."""
    from numba.core import types

    from ascend_jit.jit import reg_move, reg_ops
    namespace = {"R": aj.Reg}
    exec(_LITERAL_ARGUMENTS_VF, namespace)  # noqa: S102 (the test's own source): compiled in this process
    vf = aj.Reg.simd_vf(namespace["vf"])
    core = aj.Core("ascend950", sanitize=False)  # a VF on a sanitizing core runs uncompiled
    dst, src = core.local_tensor("half", 256), core.local_tensor("half", 128)
    src[:] = np.full(128, 2.0, np.float16)
    with core:
        vf(dst, src)
    got = dst.numpy().astype(np.float64)
    assert np.array_equal(got[:128], np.full(128, 3.5)) and np.array_equal(got[128:], np.arange(128) + 3.0)
    assert vf.compiled.signatures

    def literals(sig, allowed=()):
        return [t for t in sig if isinstance(t, types.Literal) and not isinstance(t, allowed)]
    # Duplicate's and Arange's direct calls (session 21) reach scalar_bits inside cached kernels: the VF calls
    # scalar_bits_of and arange, which this process compiles or loads (scalar_bits, then, only on an empty cache)
    assert reg_ops.scalar_bits_of.signatures and reg_ops.arange.signatures
    for kernel in (reg_move.load, reg_move.store, reg_move.store_norm, reg_ops.binary, reg_ops.arange_register,
                   reg_move.interleave, reg_ops.interleave_group, reg_ops.scalar_int_bits, reg_ops.scalar_bits_of,
                   reg_ops.arange):
        for sig in kernel.signatures:
            assert not literals(sig), (kernel.py_func.__name__, sig)
    for sig in reg_ops.scalar_bits.signatures:
        assert not literals(sig, types.BooleanLiteral), sig


@aj.Reg.simd_vf
def _scalar_kinds_vf(dst, scalar):
    y = aj.Reg.RegTensor("int32")
    m = aj.Reg.CreateMask("int32")
    aj.Reg.Arange(y, scalar)
    aj.Reg.Adds(y, y, scalar, m)
    aj.Reg.StoreAlign(dst, y, m)
    aj.Reg.Duplicate(y, scalar, m)
    aj.Reg.StoreAlign(dst, y, m, 64)


def test_a_vf_scalar_reaches_its_kernel_as_one_type_per_kind():
    """Arange's, Adds's and Duplicate's scalar, whatever numeric type the VF passes, reaches arange /
    scalar_register / scalar_bits_of widened (the SCALAR plan operand): int64, uint64 (values past int64) or
    float64, so a VF called with an int8, an int16, a uint32 and an int64 compiles those kernels once for ints
    (each type had compiled each of them again, 0.5-0.8 s apiece, issue 20), with the values unchanged."""
    from ascend_jit.jit import reg_ops
    core = aj.Core("ascend950", sanitize=False)  # a VF on a sanitizing core runs uncompiled
    dst = core.local_tensor("int32", 128)
    with core:
        for scalar in (np.int8(-3), np.int16(300), np.uint32(7), np.int64(2**20), 5):
            _scalar_kinds_vf(dst, scalar)
            got = dst.numpy()
            assert np.array_equal(got[:64], np.arange(64) + 2 * int(scalar)) and (got[64:] == int(scalar)).all()
    widened = {"int64", "uint64", "float64", "bool"}
    for kernel, position in ((reg_ops.arange, 3), (reg_ops.scalar_register, 4), (reg_ops.scalar_bits_of, 2)):
        assert kernel.signatures
        assert {str(sig[position]) for sig in kernel.signatures} <= widened, (kernel.py_func.__name__,
                                                                               kernel.signatures)
