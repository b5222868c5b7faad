"""Same call, same bits: across runs, threads, processes and with NUMBA_DISABLE_JIT=1 (issue 8)."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import ascend_jit as aj

SCRIPT = """
import numpy as np, ascend_jit as aj
out = []
for dev in ("atlas-a2", "ascend950", "atlas-training"):
    core = aj.Core(dev, bounds="ub")  # the strided Add below reads past a's 256 elements on purpose
    rng = np.random.default_rng(4)
    src, dst, tmp = core.local_tensor("half", 700), core.local_tensor("half", 16), core.local_tensor("half", 64)
    src[:] = (rng.standard_normal(700) * 50).astype(np.float16)
    aj.ReduceSum(dst, src, tmp, 700)
    aj.ReduceSum(dst[1:], src, tmp, 128, 5, 8)
    a, b, c = (core.local_tensor("half", 256) for _ in range(3))
    a[:] = rng.standard_normal(256) * 60000
    b[:] = rng.standard_normal(256) * 60000
    aj.Add(c, a, b, 256)
    aj.Add(c, a, b, [0xF0F0F0F0F0F0F0F0, 3], 2, aj.BinaryRepeatParams(1, 2, 1, 8, 16, 8))
    p = core.local_tensor("half", 64)
    aj.ReducePairElem(p, a, 100, 1, 1, 1, 8)
    out.append(dst.numpy()[:2].tobytes().hex() + c.numpy().tobytes().hex() + p.numpy().tobytes().hex())
print("|".join(out))
"""


def _run(env_extra):
    env = dict(os.environ, **env_extra)
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_same_bits_in_another_process_and_without_jit():
    jitted = _run({})
    assert jitted == _run({})
    assert jitted == _run({"NUMBA_DISABLE_JIT": "1"})


def test_a_sample_of_the_suite_passes_with_jit_disabled():
    """The same tests, the kernels run as plain Python (the @overload fallbacks): same bits, same verdicts."""
    sample = ["tests/test_add.py::test_seed_example_every_form", "tests/test_add.py::test_half_boundary_table",
              "tests/test_add.py::test_integer_boundary_table", "tests/test_add.py::test_counter_mode_with_placeholder",
              "tests/test_reduce_sum.py::test_seed_saturation_example", "tests/test_reduce_sum.py::test_seed_count_288_ones_and_spr", "tests/test_reduce_sum.py::test_table_41",
              "tests/test_reduce_pair.py::test_seed_example", "tests/test_reg.py::test_spec_9_block_rows",
              "tests/test_reg.py::test_official_float_example_and_seed_vf_compiled_equals_python",
              "tests/test_cast.py::test_pc_worked_examples", "tests/test_cast.py::test_regbv_t34_rows_on_the_950",
              "tests/test_compare.py::test_k5_bit_order", "tests/test_compare.py::test_select_doc_printouts",
              "tests/test_data_copy_pad.py::test_d3_compact_on_the_950",
              "tests/test_gather.py::test_gather_mask_doc_example",
              "tests/test_reductions.py::test_r1_reduce_repeat_max_every_order", "tests/test_reductions.py::test_r3_reduce_data_block",
              "tests/test_reductions.py::test_r5_950_and_h5", "tests/test_reductions.py::test_950_integer_reduce_max_min",
              "tests/test_reductions.py::test_r5_reduce_max_min_non_950",
              "tests/test_reg_ops.py::test_boundary_rows", "tests/test_reg_cast.py::test_c_rows",
              "tests/test_reg_move.py::test_g4_load_vectors", "tests/test_reg_move.py::test_g5_mask_vectors",
              # issue 12: numpy scalars, equal-value twins and malformed Reg arguments give the same bits and refusals
              "tests/test_hostile.py::test_numpy_uint8_stride_is_not_multiplied_in_8_bits",
              "tests/test_hostile.py::test_numpy_integers_behave_as_python_ints[reduce_sum_high_dim_stride-uint8]",
              "tests/test_hostile.py::test_numpy_integers_behave_as_python_ints[add_high_dim_strides-uint8]",
              "tests/test_hostile.py::test_numpy_integers_behave_as_python_ints[add_count_910_mask_register-uint32]",
              "tests/test_hostile.py::test_numpy_integers_behave_as_python_ints[add_partial_overlap_stride-uint8]",
              "tests/test_hostile.py::test_equal_values_of_other_types_never_share_a_cache_entry",
              "tests/test_hostile.py::test_reduce_sum_accepts_dst_and_tmp_in_the_gaps_of_a_strided_src",
              "tests/test_hostile.py::test_reg_api_malformed_arguments_raise_ascend_jit_errors",
              "tests/test_hostile.py::test_count_form_with_is_set_mask_false_uses_the_counter_register",
              # session 15: the Reg Div modes, the earlier names and Copy (importing the Div modes had failed here)
              "tests/test_reg_div_mode.py::test_the_pages_subnormal_table",
              "tests/test_reg_div_mode.py::test_refusals_of_the_mode_shape",
              "tests/test_reg_old_names.py::test_old_name_refusals_name_the_new_name_and_change_nothing",
              "tests/test_reg_old_mask_names.py::test_mask_sel_takes_mask_registers_only",
              "tests/test_reg_copy.py::test_copy_refusals_change_nothing"]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *sample], cwd=root, env=env,
                       capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-3000:]
    assert " passed" in r.stdout


def test_same_bits_across_threads():
    def once():
        core = aj.Core("atlas-a2")
        src, dst, tmp = core.local_tensor("half", 5000), core.local_tensor("half", 16), core.local_tensor("half", 64)
        src[:] = np.random.default_rng(1).standard_normal(5000).astype(np.float16)
        aj.ReduceSum(dst, src, tmp, 5000)
        return dst.numpy().tobytes()
    expected = once()
    results = []
    threads = [threading.Thread(target=lambda: results.append(once())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


def _stdout_of_new_process(code):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_compiles_nothing():
    """Importing the package leaves every kernel uncompiled (cache loading happens on first call)."""
    code = ("import ascend_jit, numba\n"
            "from ascend_jit.jit import elementwise, lanes, reduce, pair, orders, addressing, reductions\n"
            "mods = (elementwise, lanes, reduce, pair, orders, addressing, reductions)\n"
            "d = [f for m in mods for f in vars(m).values() if isinstance(f, numba.core.registry.CPUDispatcher)]\n"
            "assert d and all(not f.signatures for f in d), [f.__name__ for f in d if f.signatures]\n"
            "print(len(d))")
    assert int(_stdout_of_new_process(code)) >= 10


def test_import_leaves_ml_dtypes_until_bfloat16_is_used_on_the_host():
    """ml_dtypes 0.7 takes about a second to import: the package imports it when a bfloat16 numpy value is first
    needed (docs/decisions.md "bfloat16 through ml_dtypes, imported when first needed"). bfloat16 work on the core
    needs no numpy bfloat16; a host view of it, a bfloat16 GM array by name and ToFloat's refusal of a non-bfloat16
    value all work with or without ml_dtypes imported. Fails if a module imports ml_dtypes at import time again."""
    code = ("import sys, pickle, numpy as np, ascend_jit as aj\n"
            "loaded = lambda: 'ml_dtypes' in sys.modules\n"
            "print(loaded())\n"
            "core = aj.Core('ascend950')\n"
            "t = core.local_tensor('bfloat16', 16)\n"
            "t.ReinterpretCast('uint16')[:] = 0x4040\n"
            "try:\n"
            "    aj.ToFloat(np.float16(1))\n"
            "except aj.ParameterError:\n"
            "    print(loaded(), 'refused')\n"
            "print(pickle.loads(pickle.dumps(aj.dtypes.BFLOAT16)) is aj.dtypes.BFLOAT16, loaded())\n"
            "aj.Adds(t, t, 1.0, 16)\n"
            "print(t.numpy().dtype, float(t.numpy()[0]), loaded())\n"
            "print(aj.gm_array((2,), 'bfloat16').dtype, aj.ToFloat(t.GetValue(0)))\n")
    assert _stdout_of_new_process(code).split() == ["False", "False", "refused", "True", "False", "bfloat16", "4.0",
                                                    "True", "bfloat16", "4.0"]


def test_dtypes_are_immutable_singletons_through_pickle_and_copy():
    import copy
    import pickle
    for d in aj.dtypes.ALL:
        assert pickle.loads(pickle.dumps(d)) is d and copy.deepcopy(d) is d and copy.copy(d) is d
        with pytest.raises(AttributeError, match="immutable"):
            d.kind = 0
        with pytest.raises(AttributeError, match="immutable"):
            del d.size
    assert [d.size for d in aj.dtypes.ALL] == [2, 4, 2, 1, 1, 2, 2, 4, 4, 8, 8]


def test_every_registered_form_same_bits_across_threads():
    """Registry-driven, so new instructions are covered as they land: each form's example on 4 threads at once (one
    core each) gives the bytes of the same call run alone."""
    from ascend_jit.api.registry import INSTRUCTIONS

    def once(example, dtype, out, device):
        core = aj.Core(device)
        core.ub[:] = np.random.default_rng(2).integers(0, 256, core.ub.size, dtype=np.uint8)
        core.ub.view(np.uint16)[:] &= 0x3BFF
        tensors, call = example(core, dtype)
        core.ub_written_by_host()   # raw UB bytes (the allocations made them undefined): initialised
        for _ in range(20):
            call(*tensors)
        out.append(core.ub.tobytes())
    for inst in INSTRUCTIONS:
        for example in (inst.example,) + tuple(inst.forms):
            dtype = inst.dtypes(aj.get_device(inst.home))[0]
            expected = []
            once(example, dtype, expected, inst.home)
            results = []
            threads = [threading.Thread(target=once, args=(example, dtype, results, inst.home)) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert results == expected * 4, inst.name
