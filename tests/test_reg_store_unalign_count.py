"""StoreUnAlign / DataCopyUnAlign without the count (docs/decisions.md "Reg DataCopy names"): the devkit's PostUpdate
form `DataCopyUnAlign(dstAddr, srcReg, ureg, postUpdateStride)` (ops-math PadV3's PadBothSide) ports with the
address as (tensor, offset) and the count after it; written literally it leaves the count out, which was a Python
TypeError (plain) or a numba TypingError (compiled VF) and is now a ParameterError naming the missing count."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg


def _literal_four_arguments(dst, add, n):
    v, u = R.RegTensor("half"), R.UnalignRegForStore()
    R.DataCopy(v, add)
    R.DataCopyUnAlign(dst, v, u, n)
    R.DataCopyUnAlignPost(dst, u, 0)


def _new_name_four_arguments(dst, add, n):
    v, u = R.RegTensor("half"), R.UnalignRegForStore()
    R.LoadAlign(v, add)
    R.StoreUnAlign(dst, v, u, n)
    R.StoreUnAlignPost(dst, u, 0)


@pytest.mark.parametrize("fn", [_literal_four_arguments, _new_name_four_arguments])
@pytest.mark.parametrize("compiled", [True, False])
def test_a_store_without_its_count_is_a_parameter_error(fn, compiled):
    core = aj.Core("ascend950")
    dst, add = core.local_tensor("half", 64), core.local_tensor("half", 128)
    dst[:] = np.zeros(64, np.float16)
    add[:] = np.ones(128, np.float16)
    before = core.ub.copy()
    with core:
        with pytest.raises(aj.ParameterError, match="post_update_stride"):
            (R.simd_vf(fn) if compiled else fn)(dst[3], add, 5)
    assert np.array_equal(core.ub, before)
