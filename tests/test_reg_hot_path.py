"""Reg Add/Sub/Mul in a compiled VF take a hot path (jit/reg_ops.py `half_binary_hot`, on the registers' data
pointers) when all three registers are half, every lane is active and the mode is ZEROING; anything else falls back
to the general engine (`binary`) within the same call. These tests prove that both branches give the bytes plain
Python gives over the whole UB: every op, a destination that is one or both sources, random half bit patterns with
NaNs, infinities and subnormals, the half saturation mode on and off, and a partial mask and MERGING in the same VF
(the fallback)."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
LANES = 128


def _alias_vf(out, a, b, mask_count):
    """Every op in each aliasing shape, then the same ops under a partial mask and Add with MERGING (the engine)."""
    x, y, z = R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("half")
    full = R.CreateMask("half")
    part = R.UpdateMask("half", mask_count)[0]
    slot = 0
    for op in range(3):
        for shape in range(4):
            R.LoadAlign(x, a, 0)
            R.LoadAlign(y, b, 0)
            if op == 0:
                if shape == 0:
                    R.Add(z, x, y, full)
                elif shape == 1:
                    R.Add(x, x, y, full)
                elif shape == 2:
                    R.Add(y, x, y, full)
                else:
                    R.Add(x, x, x, full)
            elif op == 1:
                if shape == 0:
                    R.Sub(z, x, y, full)
                elif shape == 1:
                    R.Sub(x, x, y, full)
                elif shape == 2:
                    R.Sub(y, x, y, full)
                else:
                    R.Sub(x, x, x, full)
            else:
                if shape == 0:
                    R.Mul(z, x, y, full)
                elif shape == 1:
                    R.Mul(x, x, y, full)
                elif shape == 2:
                    R.Mul(y, x, y, full)
                else:
                    R.Mul(x, x, x, full)
            R.StoreAlign(out, z if shape == 0 else (y if shape == 2 else x), full, slot * LANES)
            slot += 1
    R.LoadAlign(x, a, 0)
    R.LoadAlign(y, b, 0)
    R.LoadAlign(z, b, LANES)
    R.Add(z, x, y, part)
    R.StoreAlign(out, z, full, slot * LANES)
    R.LoadAlign(z, b, LANES)
    R.Add(z, x, y, part, R.MaskMergeMode.MERGING)
    R.StoreAlign(out, z, full, (slot + 1) * LANES)
    R.Mul(z, x, y, part)
    R.StoreAlign(out, z, full, (slot + 2) * LANES)


ALIAS_VF = R.simd_vf(_alias_vf)
SLOTS = 12 + 3


def _half_bits(rng, n):
    """Random half bit patterns weighted towards the edges: NaNs (quiet and signalling), infinities, the largest
    finite values (to overflow a sum or product) and subnormals."""
    bits = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    edges = np.array([0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFE01, 0x7BFF, 0xFBFF, 0x0001, 0x8001, 0x03FF, 0x0000, 0x8000,
                      0x3C00, 0x5BFF], np.uint16)
    pick = rng.random(n) < 0.3
    bits[pick] = rng.choice(edges, int(pick.sum()))
    return bits


@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_the_hot_path_and_its_fallback_give_the_plain_bytes(seed, saturate):
    rng = np.random.default_rng(seed)
    a_bits, b_bits = _half_bits(rng, 2 * LANES), _half_bits(rng, 2 * LANES)
    mask_count = int(rng.integers(1, LANES))
    runs, outs = [], []
    for vf in (ALIAS_VF, ALIAS_VF.py_func):
        core = aj.Core("ascend950")
        core.SetCtrlSpr(48, 48, 0 if saturate else 1)
        a, b = core.local_tensor("half", 2 * LANES), core.local_tensor("half", 2 * LANES)
        out = core.local_tensor("half", SLOTS * LANES)
        a[:] = a_bits.view(np.float16)
        b[:] = b_bits.view(np.float16)
        with core:
            vf(out, a, b, mask_count)
        runs.append(core.ub.copy())
        outs.append(out.numpy().view(np.uint16).copy())
    assert np.array_equal(runs[0], runs[1])
    out_bits = outs[0]
    assert out_bits.any()
    if saturate:  # SPEC-2 D35: +-inf -> +-65504 and NaN -> +0, so every full-mask result is finite
        finite = (out_bits[:12 * LANES] & 0x7C00) != 0x7C00
        assert finite.all()


def _store_vf(out, src, offset, step, count):
    """StoreAlign DIST_NORM with every lane active (its hot path) and its post-update offset, `count` times, then once
    with a partial mask (store_norm itself)."""
    x = R.RegTensor("half")
    full = R.CreateMask("half")
    R.LoadAlign(x, src, 0)
    for _ in range(count):
        offset = R.StoreAlign(out, x, full, offset, post_update_stride=step)
    R.StoreAlign(out, x, R.UpdateMask("half", 5)[0], offset)
    return offset


STORE_VF = R.simd_vf(_store_vf)


@pytest.mark.parametrize("offset, step, count", [(0, 128, 3), (16, 0, 2), (256, -128, 2), (48, 16, 4)])
def test_the_store_hot_path_gives_the_plain_bytes_and_offset(offset, step, count):
    bits = _half_bits(np.random.default_rng(offset + step), LANES)
    runs, results = [], []
    for vf in (STORE_VF, STORE_VF.py_func):
        core = aj.Core("ascend950")
        src, out = core.local_tensor("half", LANES), core.local_tensor("half", 6 * LANES)
        src[:] = bits.view(np.float16)
        with core:
            results.append(vf(out, src, offset, step, count))
        runs.append(core.ub.copy())
    assert np.array_equal(runs[0], runs[1])
    assert results[0] == results[1] == offset + count * step


@pytest.mark.parametrize("offset, step, error", [
    (8, 0, aj.errors.AlignmentError),            # 16 bytes: not 32-byte aligned
    (6 * LANES - 64, 0, aj.errors.OutOfBoundsError),  # the last 128 bytes of 256 outside the tensor
    (-16, 0, aj.errors.OutOfBoundsError),         # before the tensor
    (0, 8, aj.errors.AlignmentError),             # a step of 16 bytes
    (2 ** 31, 0, aj.errors.ParameterError),       # an offset outside int32
])
def test_the_store_hot_path_leaves_refusals_to_store_norm(offset, step, error):
    """What the hot path declines, store_norm refuses: the same error as plain Python, the UB unchanged."""
    for vf in (STORE_VF, STORE_VF.py_func):
        core = aj.Core("ascend950")
        src, out = core.local_tensor("half", LANES), core.local_tensor("half", 6 * LANES)
        src[:] = np.arange(LANES, dtype=np.float16)
        before = core.ub.copy()
        with core, pytest.raises(error):
            vf(out, src, offset, step, 1)
        assert np.array_equal(core.ub, before)
