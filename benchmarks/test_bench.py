"""Benchmarks: each emulated call next to a numpy baseline on the same data, in the same run.

    python -m pytest benchmarks --benchmark-enable --benchmark-json=out/bench.json
    python benchmarks/report.py out/bench.json      # the ratio table of BENCHMARKS.md
Groups pair an `emu` case with its `np` baseline; report.py divides their medians.
"""
import numpy as np
import pytest

import ascend_jit as aj
from conftest import half_tensors

N = 8320


# --- Add -------------------------------------------------------------------------------------------------------
@pytest.mark.benchmark(group="add-8320")
def test_add_half_count_8320_emu(benchmark, a2, rng):
    d, a, b = half_tensors(a2, N, 3, rng)
    benchmark(aj.Add, d, a, b, N)


@pytest.mark.benchmark(group="add-8320")
def test_add_8320_np_float32(benchmark, rng):
    a, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    c = np.empty_like(a)
    benchmark(np.add, a, b, out=c)


@pytest.mark.benchmark(group="add-8320")
def test_add_8320_np_float16(benchmark, rng):
    a, b = (rng.standard_normal(N).astype(np.float16) for _ in range(2))
    c = np.empty_like(a)
    benchmark(np.add, a, b, out=c)


@pytest.mark.benchmark(group="add-65536")
def test_add_half_count_65536_emu(benchmark, rng):
    core = aj.Core("atlas-training")  # 256 KiB UB: three 128 KiB tensors need two cores' worth, use 65536 in place
    d, a = half_tensors(core, 65536, 2, rng)
    benchmark(aj.Add, d, d, a, 65536)


@pytest.mark.benchmark(group="add-one-repeat")
def test_add_half_one_repeat_128_emu(benchmark, a2, rng):
    d, a, b = half_tensors(a2, 128, 3, rng)
    benchmark(aj.Add, d, a, b, 128)


@pytest.mark.benchmark(group="add-one-repeat")
def test_add_half_one_repeat_highdim_emu(benchmark, a2, rng):
    d, a, b = half_tensors(a2, 128, 3, rng)
    p = aj.BinaryRepeatParams()
    benchmark(aj.Add, d, a, b, 128, 1, p)


# --- ReduceSum -------------------------------------------------------------------------------------------------
@pytest.mark.benchmark(group="reducesum-8320")
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_reduce_sum_half_count_8320_emu(benchmark, device, rng):
    core = aj.Core(device)
    (src,) = half_tensors(core, N, 1, rng)
    dst, tmp = core.local_tensor("half", 16), core.local_tensor("half", 128)
    benchmark(aj.ReduceSum, dst, src, tmp, N)


@pytest.mark.benchmark(group="reducesum-8320")
def test_reduce_sum_8320_np_float32(benchmark, rng):
    x = rng.standard_normal(N).astype(np.float32)
    benchmark(np.sum, x)


@pytest.mark.benchmark(group="reducesum-65536")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-training"])
def test_reduce_sum_half_count_65536_emu(benchmark, device, rng):
    core = aj.Core(device)
    (src,) = half_tensors(core, 65536, 1, rng)
    dst, tmp = core.local_tensor("half", 16), core.local_tensor("half", 512)
    benchmark(aj.ReduceSum, dst, src, tmp, 65536)


# --- ReducePairElem ----------------------------------------------------------------------------------------------
@pytest.mark.benchmark(group="pair-255")
def test_pair_half_255_repeats_emu(benchmark, a2, rng):
    (src,) = half_tensors(a2, 255 * 128, 1, rng)
    dst = a2.local_tensor("half", 255 * 64)
    benchmark(aj.ReducePairElem, dst, src, 128, 255, 1, 1, 8)


@pytest.mark.benchmark(group="pair-255")
def test_pair_255_np_float32(benchmark, rng):
    a = rng.standard_normal(255 * 128).astype(np.float32)
    benchmark(lambda: a[0::2] + a[1::2])


# --- full-size workload -------------------------------------------------------------------------------------------
@pytest.mark.benchmark(group="tiled-16mi")
def test_tiled_reduce_sum_16mi_emu(benchmark):
    from ascend_jit.kernels import tiled_reduce_sum as tr
    inputs = tr.make_inputs(16 * 1024 * 1024, 1)
    benchmark.pedantic(tr.run, args=("atlas-a2", inputs), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="tiled-16mi")
def test_tiled_16mi_np_float32_sum(benchmark):
    x = np.random.default_rng(1).standard_normal(16 * 1024 * 1024).astype(np.float32)
    benchmark.pedantic(np.sum, args=(x,), rounds=5, warmup_rounds=1)


# --- Reg API: the seed's VF loop, compiled --------------------------------------------------------------------------
@pytest.mark.benchmark(group="reg-vf-8320")
def test_reg_reduce_data_block_vf_8320_halves_emu(benchmark, rng):
    from ascend_jit.kernels.reduce_data_block_seed import ReduceDataBlockVF_compiled
    core = aj.Core("ascend950")
    (src,) = half_tensors(core, N, 1, rng)
    dst = core.local_tensor("half", N)
    with core:
        benchmark(ReduceDataBlockVF_compiled, dst, src, N, 128, N // 128, "half")


@pytest.mark.benchmark(group="reg-vf-8320")
def test_reg_vf_8320_np_float32_block_sums(benchmark, rng):
    x = rng.standard_normal(N).astype(np.float32)
    benchmark(lambda: x.reshape(-1, 16).sum(axis=1))


# --- Reg API: compiled VFs of issue 16 (benchmarks/reg_vfs.py) ------------------------------------------------------
@pytest.mark.benchmark(group="reg-add-mul-8320")
def test_reg_add_mul_vf_8320_halves_emu(benchmark, rng):
    from reg_vfs import ADD_MUL
    core = aj.Core("ascend950")
    dst, a, b, c = half_tensors(core, N, 4, rng)
    with core:
        benchmark(ADD_MUL, dst, a, b, c, N, N // 128)


@pytest.mark.benchmark(group="reg-add-mul-8320")
def test_reg_add_mul_8320_np_float32(benchmark, rng):
    a, b, c = (rng.standard_normal(N).astype(np.float32) for _ in range(3))
    out = np.empty_like(a)

    def add_mul():
        np.add(a, b, out=out)
        np.multiply(out, c, out=out)
    benchmark(add_mul)


def _float_add_div_tensors(rng):
    """A 950 core and the add-div VFs' dst, a and b (b kept away from 0)."""
    core = aj.Core("ascend950")
    dst, a, b = (core.local_tensor("float", N) for _ in range(3))
    a[:] = rng.standard_normal(N).astype(np.float32)
    b[:] = (rng.standard_normal(N) + 4).astype(np.float32)
    return core, dst, a, b


@pytest.mark.benchmark(group="reg-float-add-div-8320")
def test_reg_float_add_div_vf_8320_emu(benchmark, rng):
    from reg_vfs import FLOAT_ADD_DIV
    core, dst, a, b = _float_add_div_tensors(rng)
    with core:
        benchmark(FLOAT_ADD_DIV, dst, a, b, N, N // 64)


@pytest.mark.benchmark(group="reg-float-add-div-8320")
def test_reg_float_add_div_vf_modes_as_arguments_8320_emu(benchmark, rng):
    from reg_vfs import FLOAT_ADD_DIV_MODES
    core, dst, a, b = _float_add_div_tensors(rng)
    zeroing = aj.Reg.MaskMergeMode.ZEROING
    with core:
        benchmark(FLOAT_ADD_DIV_MODES, dst, a, b, N, N // 64, zeroing, aj.Reg.DivSpecificMode(zeroing, False))


@pytest.mark.benchmark(group="reg-float-add-div-8320")
def test_reg_float_add_div_8320_np_float32(benchmark, rng):
    a = rng.standard_normal(N).astype(np.float32)
    b = (rng.standard_normal(N) + 4).astype(np.float32)
    out = np.empty_like(a)

    def add_div():
        np.add(a, b, out=out)
        np.divide(out, b, out=out)
    benchmark(add_div)


@pytest.mark.benchmark(group="reg-cast-8320")
def test_reg_cast_half_to_float_vf_8320_emu(benchmark, rng):
    from reg_vfs import CAST
    core = aj.Core("ascend950")
    (src,) = half_tensors(core, N, 1, rng)
    dst = core.local_tensor("float", N)
    with core:
        benchmark(CAST, dst, src, N, N // 64)


@pytest.mark.benchmark(group="reg-cast-8320")
def test_reg_cast_8320_np_astype(benchmark, rng):
    x = (rng.standard_normal(N) * 100).astype(np.float16)
    benchmark(x.astype, np.float32)


@pytest.mark.benchmark(group="reg-cast-down-8320")
def test_reg_cast_float_to_half_vf_8320_emu(benchmark, rng):
    from reg_vfs import CAST_DOWN
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("float", N), core.local_tensor("half", N)
    src[:] = (rng.standard_normal(N) * 100).astype(np.float32)
    with core:
        benchmark(CAST_DOWN, dst, src, N, N // 64)


@pytest.mark.benchmark(group="reg-cast-down-8320")
def test_reg_cast_down_8320_np_astype(benchmark, rng):
    x = (rng.standard_normal(N) * 100).astype(np.float32)
    benchmark(x.astype, np.float16)


# --- Cast, Compare + Select, DataCopyPad (issue 14) -------------------------------------------------------------
@pytest.mark.benchmark(group="cast-h2f-8320")
def test_cast_half_to_float_8320_emu(benchmark, a2, rng):
    (src,) = half_tensors(a2, N, 1, rng)
    dst = a2.local_tensor("float", N)
    benchmark(aj.Cast, dst, src, aj.RoundMode.CAST_NONE, N)


@pytest.mark.benchmark(group="cast-h2f-8320")
def test_cast_half_to_float_8320_np_astype(benchmark, rng):
    x = (rng.standard_normal(N) * 100).astype(np.float16)
    benchmark(x.astype, np.float32)


@pytest.mark.benchmark(group="cast-f2h-8320")
def test_cast_float_to_half_8320_emu(benchmark, a2, rng):
    src = a2.local_tensor("float", N)
    src[:] = (rng.standard_normal(N) * 100).astype(np.float32)
    dst = a2.local_tensor("half", N)
    benchmark(aj.Cast, dst, src, aj.RoundMode.CAST_RINT, N)


@pytest.mark.benchmark(group="cast-f2h-8320")
def test_cast_float_to_half_8320_np_astype(benchmark, rng):
    x = (rng.standard_normal(N) * 100).astype(np.float32)
    benchmark(x.astype, np.float16)


# the typed conversion (session 67): int8 -> half (quantised data in), half -> int8 CAST_ROUND (out), float ->
# int32 CAST_FLOOR; numpy's counterparts on the same data
@pytest.mark.benchmark(group="cast-i8h-8320")
def test_cast_int8_to_half_8320_emu(benchmark, a2, rng):
    src, dst = a2.local_tensor("int8", N), a2.local_tensor("half", N)
    src[:] = rng.integers(-128, 128, N).astype(np.int8)
    benchmark(aj.Cast, dst, src, aj.RoundMode.CAST_NONE, N)


@pytest.mark.benchmark(group="cast-i8h-8320")
def test_cast_int8_to_half_8320_np_astype(benchmark, rng):
    x = rng.integers(-128, 128, N).astype(np.int8)
    benchmark(x.astype, np.float16)


@pytest.mark.benchmark(group="cast-hi8-8320")
def test_cast_half_to_int8_round_8320_emu(benchmark, a2, rng):
    src, dst = a2.local_tensor("half", N), a2.local_tensor("int8", N)
    src[:] = (rng.standard_normal(N) * 40).astype(np.float16)
    benchmark(aj.Cast, dst, src, aj.RoundMode.CAST_ROUND, N)


@pytest.mark.benchmark(group="cast-hi8-8320")
def test_cast_half_to_int8_round_8320_np(benchmark, rng):
    x = (rng.standard_normal(N) * 40).astype(np.float16)
    benchmark(lambda: np.clip(np.trunc(x + np.copysign(np.float16(0.5), x)), -128, 127).astype(np.int8))


@pytest.mark.benchmark(group="cast-fi32-8320")
def test_cast_float_to_int32_floor_8320_emu(benchmark, a2, rng):
    src, dst = a2.local_tensor("float", N), a2.local_tensor("int32", N)
    src[:] = (rng.standard_normal(N) * 1000).astype(np.float32)
    benchmark(aj.Cast, dst, src, aj.RoundMode.CAST_FLOOR, N)


@pytest.mark.benchmark(group="cast-fi32-8320")
def test_cast_float_to_int32_floor_8320_np(benchmark, rng):
    x = (rng.standard_normal(N) * 1000).astype(np.float32)
    benchmark(lambda: np.floor(x).astype(np.int32))


@pytest.mark.benchmark(group="compare-select-8320")
def test_compare_select_half_8320_emu(benchmark, a2, rng):
    a, b, d = half_tensors(a2, N, 3, rng)
    bits = a2.local_tensor("uint8", N // 8)

    def run():
        aj.Compare(bits, a, b, aj.CMPMODE.LT, N)
        aj.Select(d, bits, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, N)
    benchmark(run)


@pytest.mark.benchmark(group="compare-select-8320")
def test_compare_select_8320_np_where_float32(benchmark, rng):
    a, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    benchmark(lambda: np.where(a < b, a, b))


@pytest.mark.benchmark(group="datacopypad-8320")
def test_data_copy_pad_half_row_8320_emu(benchmark, a2, rng):
    n = N - 3   # a row that is not a multiple of 32 bytes: 3 pad elements complete the last DataBlock
    gm = aj.GlobalTensor((rng.standard_normal(n) * 100).astype(np.float16))
    ub = a2.local_tensor("half", N)
    params, pad = aj.DataCopyExtParams(1, n * 2, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 3, 0)
    benchmark(aj.DataCopyPad, ub, gm, params, pad)


@pytest.mark.benchmark(group="datacopypad-8320")
def test_data_copy_pad_8320_np_slice_copy_and_fill(benchmark, rng):
    n = N - 3
    x = (rng.standard_normal(n) * 100).astype(np.float16)
    out = np.empty(N, np.float16)

    def run():
        out[:n] = x
        out[n:] = 0
    benchmark(run)


# --- DataCopy and the queue operations (issue 21) ------------------------------------------------------------------
@pytest.mark.benchmark(group="datacopy-16ki")
def test_data_copy_gm_to_ub_16ki_halves_emu(benchmark, a2, rng):
    gm = aj.GlobalTensor((rng.standard_normal(1 << 20) * 100).astype(np.float16))
    ub = a2.local_tensor("half", 16384)
    src = gm[4096]  # a sub-tensor, as a tiled kernel copies from
    benchmark(aj.DataCopy, ub, src, 16384)


@pytest.mark.benchmark(group="datacopy-16ki")
def test_data_copy_tile_round_16ki_halves_emu(benchmark, a2, rng):
    """AllocTensor, DataCopy GM -> UB, EnQue, DeQue, FreeTensor: one tile's copy-in through a queue."""
    gm = aj.GlobalTensor((rng.standard_normal(1 << 20) * 100).astype(np.float16))
    with a2:
        pipe = aj.TPipe()
        que = aj.TQue(aj.TPosition.VECIN, 2)
        pipe.InitBuffer(que, 2, 16384 * 2)

    def tile():
        local = que.AllocTensor("half")
        aj.DataCopy(local, gm[4096], 16384)
        que.EnQue(local)
        que.FreeTensor(que.DeQue("half"))
    benchmark(tile)


@pytest.mark.benchmark(group="datacopy-16ki")
def test_data_copy_16ki_np_slice_copy(benchmark, rng):
    gm = (rng.standard_normal(1 << 20) * 100).astype(np.float16).view(np.uint8)
    ub = np.zeros(196608, np.uint8)
    benchmark(lambda: ub.__setitem__(slice(0, 32768), gm[8192:8192 + 32768]))


# --- the reduction family (SPEC-2 8) --------------------------------------------------------------------------------
@pytest.mark.benchmark(group="wholereducesum-65x128")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_whole_reduce_sum_65x128_halves_emu(benchmark, device, rng):
    core = aj.Core(device)
    (src,) = half_tensors(core, N, 1, rng)
    dst = core.local_tensor("half", 80)
    benchmark(aj.WholeReduceSum, dst, src, 128, 65, 1, 1, 8)


@pytest.mark.benchmark(group="wholereducesum-65x128")
def test_whole_reduce_sum_65x128_np_float32(benchmark, rng):
    x = rng.standard_normal(N).astype(np.float32)
    benchmark(lambda: x.reshape(65, 128).sum(1))


@pytest.mark.benchmark(group="reducemax-index-8320")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_reduce_max_index_8320_halves_emu(benchmark, device, rng):
    core = aj.Core(device)
    (src,) = half_tensors(core, N, 1, rng)
    dst = core.local_tensor("half", 16)
    tmp = core.local_tensor("half", max(aj.GetReduceMaxMinTmpSize(device, "half", count=N, cal_index=True), 16))
    benchmark(aj.ReduceMax, dst, src, tmp, N, True)


@pytest.mark.benchmark(group="reducemax-index-8320")
def test_reduce_max_index_8320_np_float32(benchmark, rng):
    x = rng.standard_normal(N).astype(np.float32)
    benchmark(lambda: (x.argmax(), x.max()))


@pytest.mark.benchmark(group="reducemin-index-float-8320")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_reduce_min_index_8320_floats_emu(benchmark, device, rng):
    core = aj.Core(device)
    src, dst = core.local_tensor("float", N), core.local_tensor("float", 16)
    src[:] = rng.standard_normal(N).astype(np.float32)
    tmp = core.local_tensor("float", max(aj.GetReduceMaxMinTmpSize(device, "float", count=N, cal_index=True), 16))
    benchmark(aj.ReduceMin, dst, src, tmp, N, True)


@pytest.mark.benchmark(group="reducemin-index-float-8320")
def test_reduce_min_index_8320_np_float32(benchmark, rng):
    x = rng.standard_normal(N).astype(np.float32)
    benchmark(lambda: (x.argmin(), x.min()))


@pytest.mark.benchmark(group="blockreducesum-8320")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_block_reduce_sum_8320_halves_emu(benchmark, device, rng):
    core = aj.Core(device)
    (src,) = half_tensors(core, N, 1, rng)
    dst = core.local_tensor("half", N // 16)
    benchmark(aj.BlockReduceSum, dst, src, 65, 128, 1, 1, 8)


@pytest.mark.benchmark(group="blockreducesum-8320")
def test_block_reduce_sum_8320_np_float32(benchmark, rng):
    x = rng.standard_normal(N).astype(np.float32)
    benchmark(lambda: x.reshape(-1, 16).sum(1))
