"""VFs timed by the benchmarks (a module of its own so numba caches them across benchmark runs)."""
import ascend_jit as aj

R = aj.Reg


def add_mul_vf(dst, a, b, c, count, repeats):
    """dst = (a + b) * c over `count` halves, 128 per iteration."""
    ra, rb, rc = R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("half")
    for i in range(repeats):
        mask, count = R.UpdateMask("half", count)
        R.LoadAlign(ra, a, i * 128)
        R.LoadAlign(rb, b, i * 128)
        R.LoadAlign(rc, c, i * 128)
        R.Add(ra, ra, rb, mask)
        R.Mul(ra, ra, rc, mask)
        R.StoreAlign(dst, ra, mask, i * 128)


def float_add_div_vf(dst, a, b, count, repeats):
    """dst = (a + b) / b over `count` floats, 64 per iteration: two Reg calls of the general engines (float
    registers take no hot path), each merging its results by the mask."""
    ra, rb = R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeats):
        mask, count = R.UpdateMask("float", count)
        R.LoadAlign(ra, a, i * 64)
        R.LoadAlign(rb, b, i * 64)
        R.Add(ra, ra, rb, mask)
        R.Div(ra, ra, rb, mask)
        R.StoreAlign(dst, ra, mask, i * 64)


def float_add_div_modes_vf(dst, a, b, count, repeats, mode, div_mode):
    """float_add_div_vf with the merge mode and the DivSpecificMode given as arguments (a C++ template argument's
    port, port65d): the VF call's plan passes an enum member and a NamedTuple on as it passes an int."""
    ra, rb = R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeats):
        mask, count = R.UpdateMask("float", count)
        R.LoadAlign(ra, a, i * 64)
        R.LoadAlign(rb, b, i * 64)
        R.Add(ra, ra, rb, mask, mode)
        R.Div(ra, ra, rb, mask, div_mode)
        R.StoreAlign(dst, ra, mask, i * 64)


def cast_vf(dst, src, count, repeats):
    """dst (float) = src (half), 64 per iteration: DIST_UNPACK_B16 load, Cast layout ZERO (the devkit's pattern)."""
    rs, rd = R.RegTensor("half"), R.RegTensor("float")
    trait = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)
    every_half = R.CreateMask("half")
    offset = 0
    for i in range(repeats):
        mask, count = R.UpdateMask("float", count)
        offset = R.LoadAlign(rs, src, offset, dist=R.LoadDist.DIST_UNPACK_B16, post_update_stride=64)
        R.Cast(rd, rs, every_half, trait)
        R.StoreAlign(dst, rd, mask, i * 64)


def cast_down_vf(dst, src, count, repeats):
    """dst (half) = src (float) rounded to nearest, 64 per iteration: Cast float->half CAST_RINT with layout ZERO,
    stored by DIST_PACK_B32 (the store pattern after a float computation, as the gallery's Reg softmax)."""
    rs, rd = R.RegTensor("float"), R.RegTensor("half")
    trait = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)
    for i in range(repeats):
        mask, count = R.UpdateMask("float", count)
        R.LoadAlign(rs, src, i * 64)
        R.Cast(rd, rs, mask, trait)
        R.StoreAlign(dst, rd, mask, i * 64, dist=R.StoreDist.DIST_PACK_B32)


ADD_MUL = R.simd_vf(add_mul_vf)
FLOAT_ADD_DIV = R.simd_vf(float_add_div_vf)
FLOAT_ADD_DIV_MODES = R.simd_vf(float_add_div_modes_vf)
CAST = R.simd_vf(cast_vf)
CAST_DOWN = R.simd_vf(cast_down_vf)
