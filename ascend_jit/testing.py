"""Helpers to pin numerical results bit for bit in CI: bit equality with ulp reports, golden files, and
order-independent inputs that separate logic bugs from accumulation-order effects."""
import json
import os
import uuid
import zipfile
from pathlib import Path

import numpy as np

from . import __version__
from .dtypes import BFLOAT16, from_np_dtype, resolve
from .errors import AscendJitError

GOLDEN_FORMAT = 1
# a golden's own fields: user metadata may not replace them (a "dtype" or "shape" key made the golden unreadable)
GOLDEN_FIELDS = ("format", "dtype", "shape", "device", "ascend_jit", "spec_decisions")
# SPEC decisions a golden of a reduction depends on (stored with every golden so a changed decision is visible).
DECISIONS = ("D1", "D2", "D6", "D8", "D11", "D12", "D14", "D17", "D20", "D22", "D23", "D26")
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_ULP_TYPES = ("half", "float", "bfloat16")


def _bits(a):
    return a.view(_UINT[a.dtype.itemsize])


def _is_float(a):
    return a.dtype.kind == "f" or from_np_dtype(a.dtype) is BFLOAT16


def _ordered(a):
    """Map float bits to integers whose order is the order of the values (-0 and +0 adjacent, 1 apart)."""
    bits = _bits(a).astype(np.int64)
    sign = np.int64(1) << (a.dtype.itemsize * 8 - 1)
    return np.where(bits & sign, -(bits & (sign - 1)) - 1, bits)


def _ulp_type(np_dtype):
    """The emulator's name of a half / float / bfloat16 numpy dtype, else None (float64 and the integers)."""
    try:
        name = resolve(np_dtype).name
    except AscendJitError:
        return None
    return name if name in _ULP_TYPES else None


def ulp_diff(a, b):
    """Distance in units in the last place between two float arrays of the same dtype (half, float, bfloat16):
    how many representable values lie between them (+1). 0 means the same value; -0 vs +0 is 1; NaN against
    anything that is not NaN is reported as the int64 maximum, and two NaNs are 0 apart whatever their payloads
    (bit_mismatches tells payloads apart; mismatch_report names such an element "NaN payload changed")."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or _ulp_type(a.dtype) is None:
        raise TypeError(f"ulp_diff needs two arrays of one of {_ULP_TYPES}, got {a.dtype} and {b.dtype}")
    if a.shape != b.shape:  # not broadcast: one value against many is no element-wise distance
        raise ValueError(f"ulp_diff needs two arrays of one shape, got {a.shape} and {b.shape}")
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    d = np.abs(_ordered(a) - _ordered(b))
    an, bn = np.isnan(a.astype(np.float32)), np.isnan(b.astype(np.float32))
    d[an != bn] = np.iinfo(np.int64).max
    d[an & bn] = 0
    return d


def bit_mismatches(actual, expected, nan_equal=False):
    """Indices (flat) where the bits differ. nan_equal: NaNs of any payload count as equal."""
    a, e = np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)
    diff = _bits(a) != _bits(e)
    if nan_equal and _is_float(a):
        diff &= ~(np.isnan(a.astype(np.float32)) & np.isnan(e.astype(np.float32)))
    return np.flatnonzero(diff)


def _hex(v, size):
    return f"0x{int(v):0{2 * size}x}"


def _decimal(v):
    """The element's exact value in decimal (floats widen exactly to a Python float)."""
    return repr(float(v)) if _is_float(np.asarray(v)) else str(int(v))


def mismatch_report(actual, expected, nan_equal=False, max_items=10):
    """A readable report of the elements whose bits differ; '' when none do."""
    a, e = np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)
    bad = bit_mismatches(a, e, nan_equal)
    if bad.size == 0:
        return ""
    size = a.dtype.itemsize
    ulps = nan_pairs = None
    if _ulp_type(a.dtype) is not None:
        ulps = ulp_diff(a[bad], e[bad])
        # two NaNs of other payloads differ in their bits but are 0 ulp apart: named as what changed
        nan_pairs = np.isnan(a[bad].astype(np.float32)) & np.isnan(e[bad].astype(np.float32))
    lines = [f"{bad.size} of {a.size} elements differ in their bits"]
    for k, i in enumerate(bad[:max_items]):
        if ulps is not None:
            moved = "NaN payload changed" if nan_pairs[k] else f"moved by {ulps[k]} ulp"
        else:  # integers by their difference; a float64 (no emulator dtype, no ulp here) or bool only as differing
            moved = f"differs by {int(a[i]) - int(e[i]):+d}" if a.dtype.kind in "iu" else "differs"
        lines.append(f"  element {i} {moved}: actual {_decimal(a[i])} ({_hex(_bits(a)[i], size)}), "
                     f"expected {_decimal(e[i])} ({_hex(_bits(e)[i], size)})")
    if bad.size > max_items:
        lines.append(f"  ... and {bad.size - max_items} more")
    if ulps is not None:
        moved = ulps[~nan_pairs]
        payloads = int(nan_pairs.sum())
        summary = [f"max ulp difference: {int(moved.max())}"] if moved.size else []
        if payloads:
            summary.append(f"{payloads} NaN payload{'s' if payloads != 1 else ''} changed")
        lines.append("; ".join(summary))
    return "\n".join(lines)


def assert_bit_equal(actual, expected, nan_equal=False):
    """Assert identical dtype, shape and bits (-0 differs from +0; NaN payloads differ unless nan_equal)."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.dtype != e.dtype:
        raise AssertionError(f"dtype differs: actual {a.dtype}, expected {e.dtype}")
    if a.shape != e.shape:
        raise AssertionError(f"shape differs: actual {a.shape}, expected {e.shape}")
    report = mismatch_report(a, e, nan_equal)
    if report:
        raise AssertionError(report)


# --- golden files -------------------------------------------------------------------------------------------------
def _golden_path(name, directory):
    if not name or any(c in name for c in "/\\") or name.startswith("."):
        raise ValueError(f"golden name {name!r}: use a plain file name")
    return Path(directory) / f"{name}.npz"


class GoldenFileError(ValueError):
    """A golden file that cannot be read as one (damaged, truncated, written by another format or tool): names the
    golden, its file and what is wrong, never numpy's or zipfile's internal error."""


def record_golden(name, array, directory, device=None, metadata=None):
    """Write `name.npz` in `directory`: the raw bits, the dtype name and shape (a 0-d array or numpy scalar keeps its
    shape ()), and metadata (device, dtype, ascend_jit version, the SPEC decisions results depend on, and the
    caller's `metadata`, whose keys may not be one of GOLDEN_FIELDS). Portable: plain npz, no pickle. The file is
    written beside its final name and renamed onto it, so a reader (another process checking it) sees the old golden
    or the new one, never half of one."""
    a = np.asarray(array)
    # a bool output (a ported kernel's mask, one byte an element) is kept by its bytes under its own name
    dtype_name = "bool" if a.dtype == np.bool_ else resolve(a.dtype).name
    clash = sorted(set(metadata or {}) & set(GOLDEN_FIELDS))
    if clash:
        raise ValueError(f"golden {name!r}: metadata key {clash[0]!r} is one of the golden's own fields "
                         f"{GOLDEN_FIELDS}; name it differently (e.g. 'input_{clash[0]}')")
    meta = {"format": GOLDEN_FORMAT, "dtype": dtype_name, "shape": list(a.shape), "device": device,
            "ascend_jit": __version__, "spec_decisions": list(DECISIONS)}
    meta.update(metadata or {})
    path = _golden_path(name, directory)
    os.makedirs(path.parent, exist_ok=True)
    # a name of this writer's own beside the golden (opened as any file, so the umask sets its mode: mkstemp's 0600
    # would have left goldens unreadable to the other users of a shared checkout)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "xb") as f:
            np.savez(f, bits=_bits(np.ascontiguousarray(a.reshape(-1))),
                     meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return path


def load_golden(name, directory):
    """(array, metadata) of a recorded golden; GoldenFileError naming it when the file is no readable golden of
    this format."""
    path = _golden_path(name, directory)

    def damaged(problem):
        return GoldenFileError(f"golden {name!r} ({path}) {problem}: record it again (pytest --update-goldens, "
                               "record_golden or ascend-jit golden record)")
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            bits = z["bits"]
    except (FileNotFoundError, PermissionError):
        raise
    except (zipfile.BadZipFile, EOFError, KeyError, OSError, ValueError) as err:
        # numpy reads a file that is no zip as a pickle it refuses to load: say what the file is instead
        raise damaged(f"is damaged or no golden file ({type(err).__name__}: "
                      f"{'not an npz archive' if 'pickle' in str(err) else err})") from None
    if not isinstance(meta, dict) or meta.get("format") != GOLDEN_FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else None
        raise damaged(f"has format {found!r}, and this ascend_jit {__version__} reads format {GOLDEN_FORMAT}")
    try:
        np_dtype = np.dtype(np.bool_) if meta["dtype"] == "bool" else resolve(meta["dtype"]).np_dtype
        return bits.view(np_dtype).reshape(meta["shape"]), meta
    except (KeyError, TypeError, ValueError, AscendJitError) as err:
        raise damaged(f"has unreadable contents ({type(err).__name__}: {err})") from None


def check_golden(name, array, directory, nan_equal=False):
    """Assert `array` equals the golden bit for bit; the AssertionError carries the ulp report, and says so when the
    golden was recorded under other SPEC decisions than this version's (DECISIONS) or by another ascend_jit."""
    path = _golden_path(name, directory)
    if not path.exists():
        raise AssertionError(f"no golden {path} (record it with --update-goldens or record_golden)")
    expected, meta = load_golden(name, directory)
    try:
        assert_bit_equal(np.asarray(array), expected, nan_equal)
    except AssertionError as err:
        recorded = meta.get("spec_decisions")
        decisions = "" if recorded == list(DECISIONS) else (
            f"\nrecorded under the SPEC decisions {', '.join(map(str, recorded or []))}; this version's results "
            f"depend on {', '.join(DECISIONS)}: a changed decision can explain the difference")
        raise AssertionError(f"golden {name!r} ({meta.get('device')}, {meta['dtype']}, recorded by ascend_jit "
                             f"{meta.get('ascend_jit')}):\n{err}{decisions}") from None


# --- order-independent inputs -------------------------------------------------------------------------------------
_SIGNIFICAND_BITS = {"half": 11, "float": 24, "bfloat16": 8}


def order_independent_inputs(n, dtype="half", seed=0):
    """n values on a fixed-point grid (multiples of a power of two) whose absolute values sum to at most
    2**p grid steps, p the significand bits of dtype: every partial sum of every order, with any +0 padding, is
    then exactly representable, so every summation order returns the same bits (the RepDL idea). If a result
    computed from these inputs changes, the logic changed, not the order."""
    d = resolve(dtype)
    if d.name not in _SIGNIFICAND_BITS:
        raise TypeError(f"order_independent_inputs supports {tuple(_SIGNIFICAND_BITS)}, not {d.name}")
    budget = 2 ** _SIGNIFICAND_BITS[d.name]
    rng = np.random.default_rng(seed)
    per = max(budget // max(n, 1), 1)
    k = rng.integers(-per, per + 1, n)
    excess = int(np.abs(k).sum()) - budget
    if excess > 0:  # more elements than grid steps: zero out random entries until the budget holds
        nz = rng.permutation(np.flatnonzero(k))
        cum = np.cumsum(np.abs(k[nz]))
        k[nz[:int(np.searchsorted(cum, excess)) + 1]] = 0
    step = 2.0 ** -max(int(np.log2(per)), 0)  # values of magnitude below 1
    return (k * step).astype(d.np_dtype)
