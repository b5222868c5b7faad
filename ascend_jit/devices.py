"""Device catalogue: one frozen DeviceSpec per device family of SPEC decision D13.

This is the only place device facts live. Every field cites the SPEC.md section (or decision) it comes from; the
API layer and the kernels read device behaviour from here, never from `if device == ...` chains.
"""
from dataclasses import dataclass

from . import dtypes as dt
from .errors import UnsupportedDeviceError

# ReduceSum algorithms (SPEC 4.0 names). Count form:
TREE_SEQ = "tree-seq"            # A2/A3 count form: tree per repeat, sequential rounded accumulation (SPEC 4.2, D1)
TREE_TREE_TAIL = "tree-tree+tail"  # 910/310P/310B count form: tree-tree over full repeats, tail added last (SPEC 4.3)
VADD_TREE = "vadd-tree"          # 950 software emulation: VADD merges for 1-4 repeats, else 2/3 tree levels (SPEC 4.4)
# High-dim form:
TREE_TREE = "tree-tree"          # non-950: tree per repeat, tree over repeat results (SPEC 4.2, 4.3)
TREE_TREE_950 = "tree-tree-950"  # 950 normal mode; counter mode dispatches like the count form (SPEC 4.4, D23)

# Mask-register side effects of count-form calls (SPEC 2.6, D22).
COUNT_RESTORES_NORMAL = "restore"  # A2/A3/310P: Normal mode and an all-ones mask afterwards
COUNT_LEAVES_TAIL = "tail"         # 910: the last repeat's continuous mask stays in the register
COUNT_UNTOUCHED = "untouched"      # 950/310B: VF loops with per-repeat predicates

_B16_32 = ("int16", "half", "int32", "float")


@dataclass(frozen=True, eq=False)  # singletons: identity equality and a cheap hash (validation caches)
class DeviceSpec:
    name: str
    product: str
    arch: int                       # __NPU_ARCH__ (SPEC 8, D13)
    aliases: tuple = ()
    ub_bytes: int = 0               # usable Unified Buffer bytes (decisions table "UB sizes", SPEC 8)
    supported: bool = True          # False: the inference Vector Core, refused by every API (D13)
    add_dtypes: tuple = ()          # SPEC 3.4, 8.1, D9
    add_count_only_dtypes: tuple = ()  # 950: 8-bit and 64-bit only through the count API / operator (SPEC 3.4)
    reduce_sum_dtypes: tuple = ()   # SPEC 4.5, 8.1
    reduce_sum_count_only_dtypes: tuple = ()  # 950 int64/uint64 (SPEC 4.5)
    pair_dtypes: tuple = ()         # SPEC 6, 8.1
    half_saturating_default: bool = False  # SPEC 5.2, D6, D4
    half_saturation_switchable: bool = False  # D6: A2/A3 (SetSaturationFlag FLOAT or CTRL[48]), 950 (CTRL[48])
    int_saturation_switchable: bool = False   # D6 + audit 7: CTRL[53] on A2/A3 (SetSaturationFlag INT) and 950
    set_saturation_flag_api: bool = False     # D21: SetSaturationFlag exists on A2/A3 only
    ctrl_spr_bits: tuple = ()       # D6/D21: CTRL bits SetCtrlSpr may write (48 half overflow, 53 integer saturation)
    reduce_sum_count_algorithm: str = TREE_TREE_TAIL  # SPEC 4.2-4.4
    reduce_sum_highdim_algorithm: str = TREE_TREE     # SPEC 4.2-4.4
    reduce_sum_highdim_repeat0: str = "nop"  # D14: "nop"; 310B "zero" (writes +0 to dst[0]); 950 "as-one" (D7)
    reduce_sum_tmp_untouched_count: bool = False  # SPEC 4.2: A2/A3 count form never touches sharedTmpBuffer
    # The implementations' own SetFlag/WaitFlag pairs, for the sanitizer (docs/decisions.md "The implementations' own
    # flags"): ReduceSum / ReduceMax / ReduceMin copy their result to dst with the scalar unit between V_S and S_V /
    # S_MTE3 pairs (every device but the 950, whose Reg implementation stores it); the high-dim ReduceSum's second
    # step has a V_S / S_V pair of its own on a repeat count with a tail (910, 310B: dav_c100 / dav_m300); the 310B's
    # bit-mask forms write the mask words to a scratch area with the scalar unit, then S_V, as its GatherMask of 4-byte
    # data by a pattern tensor in reduce mode does (dav_m300); the 310P's Brcb with a block stride of 2 or more fills
    # each block from a scalar read of src (MTE2_S, V_S, MTE3_S, then S_V per block: dav_m200)
    reduce_scalar_result: bool = True
    reduce_sum_step2_flags: bool = False
    bit_mask_scratch_flag: bool = False
    brcb_scalar_blocks: bool = False
    pair_both_masked_zero: bool = False  # SPEC 2.4: pair with both lanes masked is written 0 (950, 310B) or kept
    pair_dst_rep_stride_zero: bool = True  # SPEC 6: dstRepStride 0 refused on Atlas training (910)
    mask_zero_refused: bool = False  # D14: the 950 refuses mask 0; elsewhere it is a NOP
    count_mask_effect: str = COUNT_RESTORES_NORMAL  # SPEC 2.6, D22
    reg_api: bool = False            # SPEC 7: the Reg API exists on the 950 only
    # --- the reduction family (SPEC-2 8) ---
    reduce_repeat_sum_pairs: tuple = (("half", "half"), ("float", "float"))  # (src, dst) of ReduceRepeat SUM, 8.1
    reduce_repeat_max_min_dtypes: tuple = ("half", "float")                  # ReduceRepeat MAX/MIN, 8.1
    reduce_repeat_orders: tuple = (0, 1, 2, 3)  # ReduceOrder values offered for MAX/MIN (8.1, D50)
    repeat_reduce_sum_offered: bool = True      # the old name RepeatReduceSum (SPEC-2 1.9: not on the 310B)
    reduce_data_block_dtypes: tuple = ("half", "float")                      # ReduceDataBlock, 8.2
    reduce_block_masked: str = "keep"  # fully masked DataBlock (8.2, D51): "keep", "fill-finite-half" (310B: MAX
    #                                    half -65504, float -inf), "fill-inf" (950: -inf / +inf, then SAT)
    reduce_mask_zero_refused: bool = False  # D30: mask 0 refused by the reductions (950 and 310B)
    reduce_dst_rep_stride_zero: bool = True  # SPEC-2 8.1/8.2: dst_rep_stride 0 refused on Atlas training (910)
    high_dim_writes_mask_register: bool = True  # D31: the 310B leaves the register untouched
    reduce_max_min_dtypes: tuple = ("half", "float")  # ReduceMax/ReduceMin, 8.3
    # why a float reduction is refused where the devkit's code has it (the 910: SPEC-2 D50, X-1), for the refusal
    reduce_half_only_reason: str = ""
    reduce_max_min_count_only_dtypes: tuple = ()      # 950 int64/uint64
    reduce_max_min_per_lane: bool = False  # D53: the 950 per-lane algorithm (else the D52 level algorithm)
    reduce_repeat_sum_spr: bool = True  # GetReduceRepeatSumSpr: 950, A2, A3 only (DK its ISASI page, 产品支持情况)
    max_min_spr: str = ""  # D55 GetReduceRepeatMaxMinSpr: "value-index" (A2/A3), "value" (310P), "" (not offered)
    # Synchronisation and kernel boilerplate (issue 11). DK = mirror-cann/asc-devkit 82b89a15 (SPEC-2 0.1).
    event_ids: int = 8               # SPEC-2 10.1, D62: event ids 0..7, 0..3 on 910
    isasi_flags: bool = True         # D62: the ISASI SetFlag/WaitFlag is not offered on 310B (TQueSync is)
    tpipe_event_ids: bool = True     # DK `资源管理/TPipe/{Fetch,Alloc,Release}EventID.md`: not on 310B
    sync_all_hard: bool = True       # DK `同步控制/核间同步/SyncAll.md`: the hard form on 950, A2, A3
    sync_all_soft: bool = True       # the same page: the GM-workspace (soft) form on all but 310B
    atomic_add_dtypes: tuple = ()    # DK `原子操作/SetAtomicAdd.md` 数据类型, per device
    atomic_max_min_dtypes: tuple = ()  # DK `原子操作/SetAtomicMax(ISASI).md`, `SetAtomicMin(ISASI).md`: 950, A2, A3
    # InitSocState (DK `impl/basic_api/kernel_utils_base.h` InitSocStateImpl): Normal mask mode and an all-ones mask
    # (A2/A3, 950); the 950's CTRL := value | (CTRL & keep) (SPEC D6 table: 0x1000000000000008, bit 48 kept).
    init_soc_mask: bool = False
    init_soc_ctrl: tuple = ()
    # --- Cast, Compare/Select, DataCopyPad, Gather/GatherMask (SPEC-2 7, 9; issue 14) ---------------------------
    cast_pairs: dict = None          # SPEC-2 7.2: {(src, dst): round-mode names}; built from CAST_TABLE below
    # D47: int32 -> half is refused as SetDeqScale's on the 950/A2/A3/310P; the 910's table has no such row at all
    # (SPEC-2 7.2 "—") and the 310B converts it
    cast_int32_half_deq_scale: bool = True
    cast_trunc_switch: bool = False  # D46: CTRL[59] (1 = keep the low bits) exists on A2/A3 and the 950
    cast_ctrl60: bool = False        # D46: the 950's CTRL[60]; 0 makes the Memory Cast always saturate
    compare_dtypes: tuple = ()       # SPEC-2 9.4 table
    compares_dtypes: tuple = ()      # SPEC-2 9.4 table (empty: Compares not offered, 910)
    compare_eq_only_dtypes: tuple = ()  # SPEC-2 9.4: A2/A3 int32 offers EQ only
    compare_mask_ignored: bool = False  # D44: A2/A3/310P/910 compute every lane, whatever the mask
    compare_ne_nan: int = 0          # D43: NE with a NaN operand gives 1 on 950/310B, 0 elsewhere
    select_dtypes: tuple = ()        # SPEC-2 9.5
    select_modes: tuple = (0, 1, 2)  # SPEC-2 9.5, D59: 910 mode 0 only
    memory_count_only_dtypes: tuple = ()  # SPEC-2 9.2-9.5: 950 8-bit/64-bit types only through count forms
    pad_dtypes: tuple = ()           # SPEC-2 9.1 (empty: DataCopyPad not offered, 310P/910)
    set_pad_value: bool = False      # SPEC-2 9.1: SetPadValue on 950, A2, A3
    pad_stride_950: bool = False     # SPEC-2 9.1: the 950's stride ranges and PaddingMode.Compact
    gather_dtypes: tuple = ()        # SPEC-2 9.2 (empty: Gather not offered, 910)
    gather_offset_limited: bool = False  # SPEC-2 9.2: 950/310B limit offsets of 8/16-bit T; 8-bit repeats are 4 blocks
    gather_count_only_dtypes: tuple = ()  # SPEC-2 9.2: the 950's 8-bit Gather is count-form only
    gather_mask_dtypes: tuple = ()   # SPEC-2 9.3 (empty: GatherMask not offered, 910)
    gather_mask_max_pattern: int = 7  # SPEC-2 9.3: 310P accepts built-in patterns 1..6 only
    gather_mask_total_count: bool = False  # D58: 310P counter mode ("配置方式二"): mask is the total count

    def require_supported(self, api):
        if not self.supported:
            raise UnsupportedDeviceError(api, "device", self.name, legal=", ".join(n for n in NAMES if DEVICES[n].supported),
                                         detail="the inference Vector Core does not offer this API (SPEC 8, D13)")


# SPEC-2 7.2: Cast pairs and round modes per device (D28/D47 pairs removed; 310B int32->half per D47).
_RFCRT = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")
_N, _O = ("CAST_NONE",), ("CAST_ODD",)
_D950, _A2, _B310, _P310, _T910 = "ascend950", "a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training"
_ALL5 = (_D950, _A2, _B310, _P310, _T910)
CAST_TABLE = (  # (pairs "src>dst ...", {device: modes})
    ("int8>half uint8>half", {d: _N for d in _ALL5}),
    ("int8>int16 int8>int32 uint8>uint16 uint8>uint32", {_D950: _N}),
    ("int16>half", {_D950: _RFCRT, _A2: _RFCRT + _N, _B310: _RFCRT + _N, _P310: _N, _T910: _N}),
    ("int16>float", {_D950: _N, _A2: _N, _B310: _N}),
    ("int16>uint8 int16>int32 int16>uint32 uint16>uint8 uint16>uint32", {_D950: _N}),
    ("half>int8 half>uint8", {_D950: _RFCRT, _A2: _RFCRT + _N, _B310: _RFCRT + _N, _P310: _RFCRT[1:] + _N,
                              _T910: _RFCRT[1:] + _N}),
    ("half>int16", {_D950: _RFCRT, _A2: _RFCRT, _B310: _RFCRT, _P310: ("CAST_RINT",)}),
    ("half>int32", {d: _RFCRT for d in _ALL5}),
    ("half>float", {d: _N for d in _ALL5}),
    ("half>bfloat16 bfloat16>half", {_D950: _RFCRT}),
    ("bfloat16>int32", {_D950: _RFCRT, _A2: _RFCRT, _B310: _RFCRT}),
    ("bfloat16>float", {_D950: _N, _A2: _N, _B310: _N}),
    ("int32>uint8 int32>uint16", {_D950: _N}),
    ("int32>int16", {_D950: _N, _A2: _N, _B310: _N, _P310: _N}),
    ("int32>half", {_B310: _RFCRT + _N}),  # D47: refused elsewhere (needs SetDeqScale)
    ("int32>float", {_D950: _RFCRT, _A2: _RFCRT + _N, _B310: _RFCRT + _N, _P310: _N, _T910: _N}),
    ("int32>int64", {_D950: _N, _A2: _N, _B310: _N}),
    ("uint32>uint8 uint32>int16 uint32>uint16", {_D950: _N}),
    ("float>int16 float>int32 float>bfloat16", {_D950: _RFCRT, _A2: _RFCRT, _B310: _RFCRT}),
    ("float>half", {_D950: _RFCRT + _O + _N, _A2: _RFCRT + _O + _N, _B310: _RFCRT + _O + _N, _P310: _O + _N,
                    _T910: _O + _N}),
    ("float>float", {_D950: _RFCRT, _A2: _RFCRT, _B310: _RFCRT}),
    ("float>int64", {d: _RFCRT for d in _ALL5}),
    ("int64>int32", {_D950: _N, _A2: _N, _B310: _N}),
    ("int64>float", {_D950: _RFCRT, _A2: _RFCRT, _B310: _RFCRT}),
)


def _cast_pairs(key):
    pairs = {}
    for names, per_device in CAST_TABLE:
        if key in per_device:
            for pair in names.split():
                pairs[tuple(pair.split(">"))] = per_device[key]
    return pairs


_ALL_TYPES = ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64", "uint64")
_HF = ("half", "float")
_A2_FAMILY_MEMORY = dict(  # SPEC-2 7.2, 9.1-9.5 for A2 and A3
    cast_pairs=_cast_pairs(_A2), cast_trunc_switch=True, compare_dtypes=("half", "float", "int32"),
    compares_dtypes=("half", "float", "int32"), compare_eq_only_dtypes=("int32",), compare_mask_ignored=True,
    select_dtypes=_HF, pad_dtypes=_ALL_TYPES, set_pad_value=True,
    gather_dtypes=("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"),
    gather_mask_dtypes=("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"))

_ATOMIC_FULL = ("int8", "int16", "half", "bfloat16", "int32", "float")

_A2_COMMON = dict(
    arch=2201, ub_bytes=196608, add_dtypes=_B16_32, reduce_sum_dtypes=("half", "float"), pair_dtypes=("half", "float"),
    half_saturating_default=False, half_saturation_switchable=True, int_saturation_switchable=True,
    set_saturation_flag_api=True, ctrl_spr_bits=(48, 53, 59), reduce_sum_count_algorithm=TREE_SEQ,
    reduce_sum_tmp_untouched_count=True, count_mask_effect=COUNT_RESTORES_NORMAL,
    atomic_add_dtypes=_ATOMIC_FULL, atomic_max_min_dtypes=_ATOMIC_FULL, init_soc_mask=True, max_min_spr="value-index", **_A2_FAMILY_MEMORY)

_DEVICES = (
    DeviceSpec(
        name="ascend950", product="Ascend 950PR / 950DT", arch=3510, aliases=("950", "950pr", "950dt", "dav-3510"),
        ub_bytes=253952,
        add_dtypes=("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64", "uint64"),
        add_count_only_dtypes=("int8", "uint8", "int64", "uint64"),
        reduce_sum_dtypes=("half", "float", "int32", "uint32", "int64", "uint64"),
        reduce_sum_count_only_dtypes=("int64", "uint64"), pair_dtypes=("half", "float"),
        half_saturating_default=False, half_saturation_switchable=True, int_saturation_switchable=True,
        set_saturation_flag_api=False, ctrl_spr_bits=(48, 53, 59, 60), reduce_sum_count_algorithm=VADD_TREE,
        reduce_sum_highdim_algorithm=TREE_TREE_950, reduce_sum_highdim_repeat0="as-one", pair_both_masked_zero=True,
        mask_zero_refused=True, count_mask_effect=COUNT_UNTOUCHED, reg_api=True,
        atomic_add_dtypes=_ATOMIC_FULL, atomic_max_min_dtypes=_ATOMIC_FULL, init_soc_mask=True,
        init_soc_ctrl=(0x1000000000000008, 1 << 48),
        reduce_repeat_sum_pairs=(("half", "half"), ("float", "float"), ("int16", "int32"), ("int32", "int32"),
                                 ("uint16", "uint32"), ("uint32", "uint32")),
        reduce_repeat_max_min_dtypes=("int16", "uint16", "half", "int32", "uint32", "float"),
        reduce_block_masked="fill-inf", reduce_mask_zero_refused=True,
        reduce_max_min_dtypes=("int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64"),
        reduce_max_min_count_only_dtypes=("int64", "uint64"), reduce_max_min_per_lane=True, reduce_scalar_result=False,
        cast_pairs=_cast_pairs(_D950), cast_trunc_switch=True, cast_ctrl60=True, compare_dtypes=_ALL_TYPES,
        compares_dtypes=_ALL_TYPES, compare_ne_nan=1, select_dtypes=_ALL_TYPES,
        memory_count_only_dtypes=("int8", "uint8", "int64", "uint64"), pad_dtypes=_ALL_TYPES, set_pad_value=True,
        pad_stride_950=True, gather_dtypes=_ALL_TYPES, gather_offset_limited=True,
        gather_count_only_dtypes=("int8", "uint8"),
        gather_mask_dtypes=("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float")),
    DeviceSpec(name="atlas-a3", product="Atlas A3 training / inference", aliases=("a3", "910c"), **_A2_COMMON),
    DeviceSpec(name="atlas-a2", product="Atlas A2 training / inference", aliases=("a2", "910b"), **_A2_COMMON),
    DeviceSpec(
        name="atlas-200i-500-a2", product="Atlas 200I/500 A2 inference", arch=3002,
        aliases=("310b", "200i-a2", "500-a2", "dav-3002"), ub_bytes=253952, add_dtypes=_B16_32,
        reduce_sum_dtypes=("half", "float"), pair_dtypes=("half", "float"), half_saturating_default=False,
        reduce_sum_highdim_repeat0="zero", pair_both_masked_zero=True, count_mask_effect=COUNT_UNTOUCHED,
        isasi_flags=False, tpipe_event_ids=False, sync_all_hard=False, sync_all_soft=False,
        atomic_add_dtypes=("int16", "half", "int32", "float"),
        reduce_repeat_orders=(0, 2), repeat_reduce_sum_offered=False, reduce_block_masked="fill-finite-half",
        reduce_mask_zero_refused=True, high_dim_writes_mask_register=False, reduce_repeat_sum_spr=False,
        cast_pairs=_cast_pairs(_B310), compare_dtypes=_HF,
        compares_dtypes=("int16", "uint16", "half", "int32", "uint32", "float"), compare_ne_nan=1, select_dtypes=_HF,
        pad_dtypes=_ALL_TYPES[:9], gather_dtypes=("int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float"),
        gather_offset_limited=True, gather_mask_dtypes=("int16", "uint16", "half", "int32", "uint32", "float"),
        reduce_sum_step2_flags=True, bit_mask_scratch_flag=True),
    DeviceSpec(
        name="atlas-inference-aicore", product="Atlas inference AI Core (310P)", arch=2002,
        aliases=("310p", "310p-aicore", "dav-2002"), ub_bytes=262144, add_dtypes=_B16_32,
        reduce_sum_dtypes=("half", "float"), pair_dtypes=("half", "float"), half_saturating_default=True,
        count_mask_effect=COUNT_RESTORES_NORMAL, sync_all_hard=False, atomic_add_dtypes=("int16", "half", "float"),
        reduce_repeat_orders=(0, 1), max_min_spr="value", reduce_repeat_sum_spr=False,
        cast_pairs=_cast_pairs(_P310), compare_dtypes=_HF, compares_dtypes=_HF,
        compare_mask_ignored=True, select_dtypes=_HF,
        gather_dtypes=("int16", "uint16", "half", "int32", "uint32", "float"),
        gather_mask_dtypes=("int16", "uint16", "half", "int32", "uint32", "float"), gather_mask_max_pattern=6,
        gather_mask_total_count=True, brcb_scalar_blocks=True),
    DeviceSpec(
        name="atlas-training", product="Atlas training (910)", arch=1001, aliases=("910", "dav-1001"),
        ub_bytes=262144, add_dtypes=("half", "int32", "float"), reduce_sum_dtypes=("half",), pair_dtypes=("half",),
        half_saturating_default=True, pair_dst_rep_stride_zero=False, count_mask_effect=COUNT_LEAVES_TAIL,
        event_ids=4, sync_all_hard=False, atomic_add_dtypes=("float",), reduce_repeat_sum_spr=False,
        reduce_repeat_sum_pairs=(("half", "half"),), reduce_repeat_max_min_dtypes=("half",), reduce_repeat_orders=(0,),
        reduce_data_block_dtypes=("half",), reduce_dst_rep_stride_zero=False, reduce_max_min_dtypes=("half",),
        cast_pairs=_cast_pairs(_T910), cast_int32_half_deq_scale=False, compare_dtypes=_HF, compare_mask_ignored=True, select_dtypes=_HF,
        select_modes=(0,), reduce_sum_step2_flags=True,
        reduce_half_only_reason="the 910's reductions take half only (SPEC 4.5, 6, SPEC-2 8, D50, X-1: the newer "
                                "ReduceRepeat page); for the sums the older WholeReduceSum page (DK-0610) and the "
                                "devkit's dav_c100 code take float too, a hardware question (docs/decisions.md "
                                "\"910 float reductions\")"),
    DeviceSpec(
        name="atlas-inference-vectorcore", product="Atlas inference Vector Core (310P)", arch=2002,
        aliases=("310p-vectorcore",), ub_bytes=262144, supported=False),
)

DEVICES = {d.name: d for d in _DEVICES}
NAMES = tuple(DEVICES)
SUPPORTED_NAMES = tuple(n for n in NAMES if DEVICES[n].supported)
_LOOKUP = {}
for _d in _DEVICES:
    _LOOKUP[_d.name] = _d
    for _a in _d.aliases:
        _LOOKUP[_a] = _d


def get_device(name):
    """Resolve a device name or alias (case-insensitive; D13) to its DeviceSpec."""
    if isinstance(name, DeviceSpec):
        return name
    key = str(name).strip().lower()
    spec = _LOOKUP.get(key)
    if spec is None and key.startswith("ascend"):  # the SoC spelling of an alias: Ascend910B, Ascend310P, Ascend910
        spec = _LOOKUP.get(key[len("ascend"):])
    if spec is None:
        raise UnsupportedDeviceError("Core", "device", name, legal=", ".join(NAMES) + " (or an alias such as 910B, 310P, 950PR)")
    return spec


def table_rows():
    """Rows for `ascend-jit devices`: one line per device with the facts users ask about first."""
    rows = []
    for d in _DEVICES:
        if not d.supported:
            rows.append((d.name, d.product, str(d.arch), str(d.ub_bytes), "refused by every API", "", "", ""))
            continue
        overflow = "saturating" if d.half_saturating_default else "INF/NaN"
        overflow += " (switchable)" if d.half_saturation_switchable else " (fixed)"
        rows.append((d.name, d.product, str(d.arch), str(d.ub_bytes), overflow,
                     f"{d.reduce_sum_count_algorithm} / {d.reduce_sum_highdim_algorithm}",
                     "zero" if d.pair_both_masked_zero else "keep", ",".join(d.add_dtypes)))
    return rows


TABLE_HEADER = ("device", "product", "arch", "UB bytes", "half overflow", "ReduceSum count / high-dim",
                "pair both-masked", "Add dtypes")


def format_table():
    rows = [TABLE_HEADER] + table_rows()
    widths = [max(len(r[i]) for r in rows) for i in range(len(TABLE_HEADER))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    aliases = ["aliases: " + "; ".join(f"{d.name}: {', '.join(d.aliases)}" for d in _DEVICES)]
    return "\n".join(lines + [""] + aliases)


# Keep the dtype names honest: every name used above is a known dtype.
assert all(n in dt.BY_NAME for d in _DEVICES
           for n in d.add_dtypes + d.reduce_sum_dtypes + d.pair_dtypes + d.atomic_add_dtypes + d.atomic_max_min_dtypes)
