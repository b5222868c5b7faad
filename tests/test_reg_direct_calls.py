"""LoadAlign, StoreAlign, their earlier name DataCopy, Duplicate, Arange, Store, LocalMemBar, Select, Copy, Move,
the MaskReg operations (And, Or, Xor, Not, MaskSel, Pack, UnPack, Interleave, DeInterleave), MaskReg(),
CeilDivision, and RegTensor / UpdateMask / CreateMask of a kind known when the VF compiles, compile in a VF as
direct calls of their kernels (reg.py _load_form, _store_form, _data_copy_form, _duplicate_form, _arange_form,
_store_lanes_form, _barrier_form, _select_form, _copy_form, _move_form, _mask_logic_form, _pack_form,
_interleave_form, _mask_register_form, _ceil_division_form, _register_form, _update_mask_form, _create_mask_form),
not as overload closures that numba compiled once per register kind and argument types in every process (issue 20:
about 80 s CPU of the cold test suite). These tests prove that every form gives the bytes plain Python gives over
the whole UB, for three dtype classes, and that a fresh process compiles none of those closures for them."""
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
# run last: the child process then loads the kernels this suite compiled (conftest)
pytestmark = pytest.mark.child_processes(seconds=8)


def _forms_vf(out, src, bits, x, T):
    a, b, c = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    part = R.UpdateMask(T, 40)[0]
    full = R.CreateMask(T)
    mask = R.MaskReg()
    lanes = R.GetVecLen() // 4  # a float's lanes: 256-byte slots of every dtype's output
    R.LoadAlign(a, src, 8, dist=R.LoadDist.DIST_BRC_B16 if T == "half" else R.LoadDist.DIST_BRC_B32)
    R.StoreAlign(out, a, full, 0, dist=R.StoreDist.DIST_NORM_B16 if T == "half" else R.StoreDist.DIST_NORM_B32)
    if T == "half":  # the dual forms' default distributions interleave 16-bit lanes
        R.LoadAlign(b, c, src, offset=0)
        R.StoreAlign(out, b, c, part, 2 * lanes)
    else:
        R.LoadAlign(b, c, src, offset=0, dist=R.LoadDist.DIST_DINTLV_B32)
        R.StoreAlign(out, b, c, part, 2 * lanes, dist=R.StoreDist.DIST_INTLV_B32)
    R.LoadAlign(a, src, 0, data_block_stride=2, mask=part)
    R.StoreAlign(out, a, 4 * lanes, data_block_stride=1, mask=full, repeat_stride=0,
                 post_mode=R.PostLiteral.POST_MODE_UPDATE)
    R.LoadAlign(mask, bits, 0)
    R.StoreAlign(bits, mask, 32, dist=R.MaskDist.DIST_PACK)
    R.Duplicate(a, x)
    R.StoreAlign(out, a, mask=full, offset=5 * lanes)
    R.Duplicate(b, 3, part, R.MaskMergeMode.MERGING)
    R.Duplicate(a, src_reg=b, mask=part)
    R.StoreAlign(out, a, full, 6 * lanes)
    R.DataCopy(c, src, 16)
    R.DataCopy(out, c, part, 7 * lanes)
    R.DataCopy(b, src, 0, data_block_stride=3, mask=full)
    R.DataCopy(out, b, 8 * lanes, data_block_stride=1, mask=part)
    R.Arange(c, x)
    R.StoreAlign(out, c, full, 9 * lanes)
    R.LocalMemBar(R.MemType.VEC_STORE, R.MemType.VEC_LOAD)
    R.Store(out, c, 10 * lanes + 3, R.CeilDivision(-33, -7))  # 5: (-33 - 7 - 1) / -7, truncated as in C++
    R.Store(out, b, 11 * lanes)
    chosen = R.MaskReg()
    R.Select(chosen, part, full, mask)  # the MaskReg Select: part's bits where mask's are set, full's elsewhere
    R.Select(c, a, b, chosen)
    R.Copy(a, c)
    R.Copy(b, a, part)
    R.Copy(c, b, chosen, R.MaskMergeMode.MERGING)
    R.StoreAlign(out, c, full, 12 * lanes)
    m2, m3 = R.MaskReg(), R.MaskReg()  # the MaskReg operations, their result a Copy's mask
    R.And(m2, part, chosen, mask)
    R.Or(m3, m2, mask, full)
    R.Xor(m2, m3, part, full)
    R.Not(m3, m2, chosen)
    R.Move(m2, m3)
    R.Move(m3, m2, part)
    R.MaskSel(m2, m3, mask, part)
    R.Pack(m3, m2)
    R.UnPack(m2, m3, R.HighLowPart.HIGHEST)
    R.Interleave(m3, m2, m2, mask, T)
    R.DeInterleave(m2, m3, m3, part, T)
    R.Move(a, c, m2)
    R.StoreAlign(out, a, full, 13 * lanes)


FORMS_VF = R.simd_vf(_forms_vf)


@pytest.mark.parametrize("dtype, x", [("half", 2.5), ("float", np.float32(-1.25)), ("int32", 7)])
def test_every_form_gives_the_plain_bytes(dtype, x):
    runs = []
    for vf in (FORMS_VF, FORMS_VF.py_func):
        core = aj.Core("ascend950")
        src, out = core.local_tensor(dtype, 1024), core.local_tensor(dtype, 14 * 64 * 4 // np.dtype(
            aj.dtypes.resolve(dtype).np_dtype).itemsize)
        bits = core.local_tensor("uint8", 64)
        src[:] = (np.arange(1024) % 97 - 40).astype(src.numpy().dtype)
        bits[:] = (np.arange(64) * 37 % 256).astype(np.uint8)
        with core:
            vf(out, src, bits, x, dtype)
        runs.append(core.ub.copy())
    assert np.array_equal(runs[0], runs[1])
    assert runs[0].any()


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_fresh_process_compiles_no_overload_closure_for_them(tmp_path):
    """Fails if a form stops being a direct call: an overload closure of reg.py (an `_ol_*` function's,
    _ol_data_copy's forward, or the dtype-name comparison's for `T == "half"`) compiles for the VF again."""
    (tmp_path / "forms_vf.py").write_text("import ascend_jit as aj\nR = aj.Reg\n\n\n" + inspect.getsource(_forms_vf))
    script = """
import sys

from numba.core import event
import ascend_jit as aj
from forms_vf import _forms_vf
compiled = []


class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(getattr(getattr(ev.data["dispatcher"], "py_func", None), "__qualname__", "?"))

    def on_end(self, ev):
        pass


event.register("numba:compile", Listener())
vf = aj.Reg.simd_vf(_forms_vf)
for dtype, x in (("half", 2.5), ("int32", 7)):
    core = aj.Core("ascend950")
    with core:
        vf(core.local_tensor(dtype, 1024), core.local_tensor(dtype, 1024), core.local_tensor("uint8", 64), x, dtype)
print(compiled.count("_forms_vf"))
print(" ".join(sorted({n for n in compiled if n.startswith(("_ol_", "_dtype_name_")) or n == "forward"})))
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), str(tmp_path)]))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         check=True, cwd=tmp_path).stdout.splitlines()
    assert out[0] == "2"  # the VF compiled in this process, once per kind: the listener saw its compiles
    assert out[1:] == [""]
