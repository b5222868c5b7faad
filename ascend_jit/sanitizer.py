"""The kernel sanitizer: what a sequential emulator hides and the hardware does not (issue 17, SPEC-2 §10.4, D62).

One switch, five checks (and a sixth, dcache, with "device-sync"). Off by default; when off, every API pays one
`core.sanitizer is None` test and nothing else.

- race: SPEC-2 §10.4. Each emulated instruction runs in a pipe (PIPE_V for vector APIs, PIPE_MTE2 / PIPE_MTE3 for
  GM->UB / UB->GM copies, PIPE_S for GetValue/SetValue and SPR reads). Per UB byte the sanitizer keeps the last
  writer and the readers since that write; an access from another pipe must be ordered after them by a
  PipeBarrier<PIPE_ALL>, a SetFlag/WaitFlag (or TQueSync) pair, or a TQue hand-off (EnQue..DeQue, FreeTensor..
  AllocTensor); a scalar-pipe access also by a later DataSyncBarrier<UB> or <ALL> (docs/decisions.md
  "DataSyncBarrier"). Ordering is tracked with one vector clock per pipe: SetFlag snapshots the source pipe's clock,
  WaitFlag merges it into the destination pipe's clock, so chains (MTE2 -> V -> MTE3) order transitively.
  "strict" adds same-pipe PIPE_V read-after-write and overlapping MTE2/MTE3 destinations without a PipeBarrier.
  "device-sync" orders by what the device's synchronisation does where it differs from SPEC-2 10.4's model: a queue
  hand-off orders only its event's pipe pair, a WaitFlag on the scalar pipe orders every later instruction, and the
  devkit implementations' own pairs inside a call order, and the race check follows the core's own GM bytes too
  (its copy-outs against its copy-ins and GetValue / SetValue; docs/decisions.md "The device's synchronisation",
  "The implementations' own flags").
- init: a shadow bit per UB byte. Uninitialised at core creation, when a queue/buffer/allocator hands out a range,
  and where an instruction leaves bytes undefined; host writes and instruction writes initialise exactly the bytes
  written; reading an uninitialised byte through an active lane is reported (masked-off lanes are not reads, since
  the access records carry only active lanes).
- memory: on `bounds="ub"` cores, accesses outside the operand's tensor are reported (such cores are not refused
  them); GM accesses outside a GlobalTensor.
- blocks: two blocks of one launch writing the same GM bytes other than atomically with one operation (an atomic
  Add and an atomic Max do not combine in either order), or one block reading GM bytes another
  block writes, without a SyncAll between them; and a block reaching another core's UB through a LocalTensor of
  that core (a tensor shared through Python state: on the device each block addresses only its own UB).
- sync: at the end of a launch, flags set and never waited, event ids allocated and never released.
- dcache (not in the default five: "device-sync" adds it, or name it): the scalar unit's per-core write-back data cache
  of 64-byte GM lines (DK 缓存控制/DataCacheCleanAndInvalid.md, 系统缓存概述.md; DcacheModel), on the devices that
  offer DataCacheCleanAndInvalid: another block's access of bytes a SetValue left dirty in an earlier SyncAll phase
  (no DataCacheCleanAndInvalid of the line before that SyncAll), a block's DMA of its own dirty line, a GetValue of
  a cached line written since by another block or the block's own DMA, two blocks writing one line in one phase.

Reports name the check, the kind, both instructions (API, pipe, the user's file:line), the operand, the first byte
address, how many bytes conflict and what would fix it. They raise `SanitizerError` (mode "raise", the default) or
are collected in `core.sanitizer.reports` (mode "report").
"""
import bisect
import dataclasses
import os
import sys
import threading
import warnings
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from . import dtypes
from .errors import ParameterError, SanitizerError, SanitizerWarning
from .jit import shadow

CHECKS = ("race", "init", "memory", "blocks", "sync")   # the default check set
# "dcache" (the scalar unit's per-core write-back data cache, DcacheModel) is the device's own behaviour beyond SPEC-2
# 10.4: on when named, and added to the default set by "device-sync" (SanitizeConfig), never by itself
ALL_CHECKS = CHECKS + ("dcache",)
ENV_VAR = "ASCEND_JIT_SANITIZE"

# The pipes that touch the UB in this emulator (SPEC-2 §10.4); the others (M, MTE1, FIX) never do.
PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3 = "PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3"
PIPES = (PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3)
_PIPE_INDEX = {p: i for i, p in enumerate(PIPES)}
_S = _PIPE_INDEX[PIPE_S]
_V = _PIPE_INDEX[PIPE_V]
_MTE2 = _PIPE_INDEX[PIPE_MTE2]
_SHORT = {PIPE_S: "S", PIPE_V: "V", PIPE_MTE2: "MTE2", PIPE_MTE3: "MTE3"}

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# Special registers written by the vector pipe and read by the scalar pipe (SPEC-2 10.4: the GetReduce*Spr reads are
# PIPE_S): ACC_VAL (the count-form ReduceSum's side result), the ReduceRepeat/ReduceMax MAX/MIN value and index.
# GatherMask's RSVD_CNT is not one: the device orders its read (api/gather.py GetGatherMaskRemainCount).
SPRS = ("ACC_VAL", "MAX_MIN")
SPR_BYTES = 8


class _DefaultChecks:
    """SanitizeConfig's default `checks`: CHECKS, with "dcache" when device_sync (None stays refused: audit17h)."""

    def __repr__(self):
        return "the default checks"


_DEFAULT_CHECKS = _DefaultChecks()


@dataclass(frozen=True)
class SanitizeConfig:
    """`aj.Core(device, sanitize=aj.SanitizeConfig(checks=("race", "init"), mode="report", strict=False,
    device_sync=False))`. checks left out: CHECKS, and "dcache" too with device_sync; a tuple: exactly those checks
    ("dcache" among them, or not, whatever device_sync says). The default resolves when the config is made, so
    `dataclasses.replace(config, device_sync=True)` keeps the config's checks."""
    checks: tuple = _DEFAULT_CHECKS
    mode: str = "raise"      # "raise": the first report raises SanitizerError; "report": collect them
    strict: bool = False
    device_sync: bool = False   # the device's queue events and scalar waits instead of SPEC-2 10.4's orderings

    def __post_init__(self):
        if self.checks is _DEFAULT_CHECKS:   # "device-sync" adds the data-cache check (docs/decisions.md)
            object.__setattr__(self, "checks", ALL_CHECKS if isinstance(
                self.device_sync, (bool, np.bool_)) and self.device_sync else CHECKS)
        if not isinstance(self.checks, (tuple, list)):  # a string was checked letter by letter, an int raised TypeError
            raise ParameterError("SanitizeConfig", "checks", self.checks,
                                 legal=f"a tuple of check names ({', '.join(ALL_CHECKS)})")
        bad = [c for c in self.checks if c not in ALL_CHECKS]
        if bad:
            raise ParameterError("SanitizeConfig", "checks", bad, legal=", ".join(ALL_CHECKS))
        if self.mode not in ("raise", "report"):
            raise ParameterError("SanitizeConfig", "mode", self.mode, legal="'raise' or 'report'")
        # a flag is never read for its truth value (docs/decisions.md "Integer parameters"): strict="no" was strict
        for name in ("strict", "device_sync"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ParameterError("SanitizeConfig", name, getattr(self, name), legal="True or False")


_ON = ("1", "true", "on")
_OFF = ("0", "false", "off", "no")
_WORDS_LEGAL = (f"a comma list of check names ({', '.join(ALL_CHECKS)}) and at most one of 'raise' / 'report', "
                f"optionally 'strict' and 'device-sync'; {' / '.join(map(repr, _ON))} for the default checks; "
                f"{' / '.join(map(repr, _OFF))} "
                "or '' for off")


def resolve_config(value, api="sanitize", parameter="sanitize"):
    """Accepted spellings: False/None (off), True / "raise", "report", "strict", a comma list of check names
    (optionally with "report" / "strict" / "device-sync" among them), or a SanitizeConfig. Strings are case-blind; "1", "true", "on"
    mean True and "0", "false", "off", "no" (alone) mean off. A refusal names the caller's API and parameter
    (`aj.Core(sanitize=...)`, `aj.launch(sanitize=...)`, the ASCEND_JIT_SANITIZE variable)."""
    if value is None or value is False or value == "":
        return None
    if isinstance(value, SanitizeConfig):
        return value
    if value is True:
        return SanitizeConfig()
    if isinstance(value, str):
        words = [w.strip().lower() for w in value.split(",") if w.strip()]
        if len(words) == 1 and words[0] in _OFF:
            return None
        unknown = [w for w in words if w not in ALL_CHECKS + ("raise", "report", "strict", "device-sync") + _ON]
        if unknown or ("raise" in words and "report" in words):
            raise ParameterError(api, parameter, value, legal=_WORDS_LEGAL,
                                 detail=f"has unknown word(s) {', '.join(map(repr, unknown))}" if unknown
                                 else "gives both 'raise' and 'report'")
        # no check named: the default set (with "dcache" under "device-sync": SanitizeConfig)
        checks = tuple(w for w in words if w in ALL_CHECKS) or _DEFAULT_CHECKS
        return SanitizeConfig(checks=checks, mode="report" if "report" in words else "raise",
                              strict="strict" in words, device_sync="device-sync" in words)
    raise ParameterError(api, parameter, value, legal="True, False, None, a string (" + _WORDS_LEGAL + ") or an "
                         "aj.SanitizeConfig")


class SanitizeSession:
    """What `sanitize_session` yields: its configuration and every report its cores collected ("report" mode)."""

    def __init__(self, config):
        self.config = config
        self.reports = []
        self.lock = threading.Lock()
        self.overridden = False   # an aj.launch(sanitize=False) inside it was told of (warn_session_overridden)

    def add(self, report):
        with self.lock:
            self.reports.append(report)


_sessions = []   # process-wide (launch runs blocks in threads; they must see the session of the launching code)


def warn_session_overridden(value):
    """An aj.launch told not to sanitize (`value`) inside a sanitizing session: one SanitizerWarning per session
    (port53b, port53c, port53f: a helper's `sanitize=False` default silently made every sanitized run "no
    reports"). A session that does not sanitize itself (sanitize_session(False)) has nothing overridden."""
    session = _sessions[-1] if _sessions else None
    if session is not None and session.config is not None and not session.overridden:
        session.overridden = True
        warnings.warn(f"ascend_jit: aj.launch(sanitize={value!r}) inside aj.sanitize_session runs unsanitized (an "
                      "explicit value wins over the session; leave it out, or pass None, to use the session's)",
                      SanitizerWarning, stacklevel=3)


@contextmanager
def sanitize_session(value=True):
    """Every Core made inside the block (those of `aj.launch` included) sanitizes with this configuration unless it
    is given its own; in "report" mode the session collects their reports:

        with aj.sanitize_session("report") as session:
            my_kernel_host_code()
        print(aj.format_reports(session.reports))
    """
    config = resolve_config(value, "sanitize_session", "value")
    session = SanitizeSession(config)
    _sessions.append(session)
    try:
        yield session
    finally:
        _sessions.remove(session)


def hold_launch_reports(cores):
    """aj.launch: the blocks' cores keep their reports until the launch ends (their threads would interleave them in
    the session); returns the session that collects them (None: no session)."""
    sanitizers = [core.sanitizer for core in cores if core.sanitizer is not None]
    session = sanitizers[0].session if sanitizers else None
    for s in sanitizers:
        s.session = None
    return session


def release_launch_reports(cores, session):
    """The end of aj.launch (also when it fails): every block's reports in block order, to the session; with no
    session, as a SanitizerWarning (report mode would otherwise drop them with the cores)."""
    reports = [r for core in cores if core.sanitizer is not None for r in core.sanitizer.reports]
    if session is not None:
        for report in reports:
            session.add(report)
    elif reports:   # the launch and its checks named: Python shows a warning's text once per line, and a loop over
        # devices, kernels or sanitize words repeats the same reports (port64a: a second device's were dropped;
        # port67c: a "report,device-sync" launch's after a "report" one's)
        config = next(core.sanitizer.config for core in cores if core.sanitizer is not None)   # the launch's
        words = ",".join(config.checks + (("strict",) if config.strict else ()) +
                         (("device-sync",) if config.device_sync else ()))
        launch = f"aj.launch on {cores[0].device}, {len(cores)} block{'s' if len(cores) > 1 else ''} ({words})"
        warnings.warn(f"{launch}: {format_reports(reports)}", SanitizerWarning, stacklevel=3)


def default_config():
    """The innermost sanitize_session's configuration, else what `ASCEND_JIT_SANITIZE` asks for (None when unset)."""
    if _sessions:
        return _sessions[-1].config
    return resolve_config(os.environ.get(ENV_VAR), "sanitize", f"environment variable {ENV_VAR}")


def format_reports(reports, group=True):
    """A summary table for the CLI and test failures: one line per report, then counts per check. group (default):
    reports that differ only in their block, bytes or the loop iteration that made them (the same check, kind,
    instructions with their file:line and operand) print once, the first of them with its fix, followed by how many
    there are, their blocks and their first bytes; a race in a loop of a 48-block launch is one line, not thousands.
    """
    if not reports:
        return "sanitizer: no reports"
    for r in reports:
        if not isinstance(r, Report):
            raise ParameterError("format_reports", "reports", type(r).__name__,
                                 legal="a list of sanitizer Reports (core.sanitizer.reports, session.reports)")
    groups = {}
    for r in reports:
        groups.setdefault(r.group_key() if group else len(groups), []).append(r)
    lines = []
    for members in groups.values():
        lines.append(str(members[0]))
        if len(members) > 1:
            lines.append(_group_summary(members))
    counts = {}
    for r in reports:
        counts[r.check] = counts.get(r.check, 0) + 1
    summary = ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))
    if len(groups) < len(reports):
        summary += f"; {len(groups)} distinct hazard{'s' if len(groups) > 1 else ''}"
    return "\n".join(lines + ["sanitizer: " + summary])


def _ranges(values):
    """Sorted distinct integers as "0-7, 9" (runs of consecutive values joined)."""
    runs = []
    for value in sorted(set(values)):
        if runs and value == runs[-1][1] + 1:
            runs[-1][1] = value
        else:
            runs.append([value, value])
    return ", ".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in runs)


def _group_summary(members):
    """The line under a group's first report: how many, in which blocks, at which first bytes."""
    parts = [f"{len(members)} reports of this hazard in all"]
    blocks = [r.block for r in members if r.block is not None]
    if blocks:
        parts.append(f"block{'s' if len(set(blocks)) > 1 else ''} {_ranges(blocks)}")
    addresses = sorted({r.address for r in members})
    noun = "ids" if members[0].space == "event" else f"first {members[0].space} bytes"
    parts.append(f"{noun} {', '.join(map(str, addresses))}" if len(addresses) <= 4 else
                 f"{noun} {addresses[0]} to {addresses[-1]} ({len(addresses)} distinct)")
    return "    ... " + "; ".join(parts)


@dataclass(frozen=True)
class Instr:
    """One emulated instruction as a report names it."""
    api: str
    pipe: str
    where: str
    seq: int   # its number in the core's instruction log
    block: int = None   # another block's access a "blocks" report names as earlier (port62f): that block

    def __str__(self):
        return f"{self.api} [{self.pipe}] at {self.where}" + (f" of block {self.block}" if self.block is not None
                                                               else "")


@dataclass
class Report:
    check: str
    kind: str
    instruction: Instr
    operand: str
    address: int
    nbytes: int
    earlier: Instr = None
    fix: str = ""
    space: str = "UB"
    block: int = None       # the reporting core's block in an aj.launch (None: a core made outside one)
    block_num: int = None
    runs: int = 1           # how many separate runs of bytes the nbytes lie in (the text says so when several)

    def to_dict(self):
        earlier = self.earlier
        return {"check": self.check, "kind": self.kind, "instruction": str(self.instruction),
                # "API [PIPE] at file:line" as before; a blocks report's other block in a field of its own
                "earlier": f"{earlier.api} [{earlier.pipe}] at {earlier.where}" if earlier else None,
                "earlier_block": earlier.block if earlier else None, "operand": self.operand,
                "space": self.space, "address": self.address, "bytes": self.nbytes, "runs": self.runs,
                "fix": self.fix, "block": self.block}

    def __str__(self):
        return self.text(with_block=True)

    def group_key(self):
        """What a report shares with the same hazard met again (another block, another loop iteration or bytes):
        format_reports prints such reports once."""
        def line(instr):
            return (instr.api, instr.pipe, instr.where) if instr is not None else None
        # not the fix: it can name what differs between iterations (a blocks report's pair of blocks, a memory
        # report's tile extent), and the same instructions and operand are the same hazard
        return (self.check, self.kind, line(self.instruction), line(self.earlier), self.operand, self.space)

    def text(self, with_block):
        """The report as a line; without the block for a SanitizerError, whose message the launch prefixes with it."""
        # two blocks' accesses of one SyncAll phase have no order ("after" read as program time: port63c)
        unordered = self.check == "blocks" or self.kind == _SHARED_LINE_KIND
        pair = f"{self.instruction}" + (f" after {self.earlier}" if self.earlier and not unordered else "")
        if with_block and self.block is not None:
            pair += f" in block {self.block} of {self.block_num}"
        if self.earlier and unordered:
            pair += f", and {self.earlier} in the same SyncAll phase"
        # the sync check's "address" is the event id it names, not a byte ("event byte 0 (0 bytes)" read as one)
        where = (f"id {self.address}" if self.space == "event" else
                 f"{self.space} byte {self.address} ({self.nbytes} byte{'s' if self.nbytes != 1 else ''}" +
                 (f" in {self.runs} runs)" if self.runs > 1 else ")"))
        return f"[{self.check}] {self.kind}: {pair}; operand {self.operand}, {where}" + (
            f". Fix: {self.fix}" if self.fix else "")


_KERNELS_DIR = os.path.join(_PACKAGE_DIR, "kernels")


def user_location():
    """file:line of the innermost frame outside the emulator itself (the kernel's line: user code, the gallery, or
    the package's own example kernels)."""
    frame = sys._getframe(1)
    while frame is not None:
        base = _user_file_base(frame.f_code.co_filename)
        if base:
            return f"{base}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


_USER_FILE_BASES = {}  # absolute co_filename -> its basename, or "" for the emulator's own files


def _user_file_base(filename):
    """The basename of a user's file, "" for the emulator's own. Every instruction under the sanitizer walks the
    stack (a scalar-unit loop makes hundreds of thousands), so an absolute path is classified once: abspath and its
    normpath were most of the sanitizer's cost in scalar loops. A relative one depends on the working directory."""
    base = _USER_FILE_BASES.get(filename)
    if base is None:
        path = os.path.abspath(filename)
        user = not path.startswith(_PACKAGE_DIR + os.sep) or path.startswith(_KERNELS_DIR + os.sep)
        base = os.path.basename(path) if user else ""
        if os.path.isabs(filename):
            _USER_FILE_BASES[filename] = base
    return base


# --- byte sets ------------------------------------------------------------------------------------------------------
def run_bytes(start, nbytes):
    """One contiguous run of bytes: a slice, so the shadow arrays are read and written as views (no gathers)."""
    return slice(int(start), int(start) + int(nbytes))


def compact(a):
    """A sorted unique address array that is one contiguous run becomes a slice (views instead of gathers)."""
    if isinstance(a, np.ndarray) and a.size and int(a[-1]) - int(a[0]) + 1 == a.size:
        return slice(int(a[0]), int(a[-1]) + 1)
    return a


def _count(a):
    return a.stop - a.start if isinstance(a, slice) else a.size


_CURRENT = []  # core.py's thread-local of `with core:` stacks, fetched on first use (core.py imports this module)


def _thread_core():
    """The core of the innermost `with core:` of this thread (an aj.launch block runs inside its own), or None."""
    if not _CURRENT:
        from .core import _current
        _CURRENT.append(_current)
    stack = getattr(_CURRENT[0], "stack", None)
    return stack[-1] if stack else None


def _run_count(addresses):
    """How many runs of consecutive bytes the ascending addresses form (port62d: "UB byte 1268 (36 bytes)" were three
    12-byte gaps, and the bytes the text suggested were written)."""
    return 1 + int(np.count_nonzero(np.diff(addresses) != 1)) if addresses.size else 1


def _address(a, k):
    """The k-th byte address of a footprint (a slice or an address array)."""
    return a.start + k if isinstance(a, slice) else int(a[k])


def _run_args(a):
    """(lo, hi, addrs) for the compiled walks: a run [lo, hi) with no addresses, or the address array."""
    if isinstance(a, slice):
        return a.start, a.stop, _NO_ADDRESSES
    return 0, 0, np.ascontiguousarray(a, np.int64)


_NO_ADDRESSES = np.zeros(0, np.int64)


def _addresses(a):
    return np.arange(a.start, a.stop, dtype=np.int64) if isinstance(a, slice) else a


def _outside(a, lo, hi):
    """The addresses of a footprint (a slice or an ascending address array) outside [lo, hi)."""
    if isinstance(a, slice) and lo <= a.start and a.stop <= hi:   # the common case: no array made
        return _NO_ADDRESSES
    a = _addresses(a)
    return a[(a < lo) | (a >= hi)]


def _inside(a, lo, hi):
    """A footprint (a slice or an ascending address array) cut to [lo, hi), in the same form."""
    if isinstance(a, slice):
        return slice(min(max(a.start, lo), hi), max(min(a.stop, hi), lo))
    return a[(a >= lo) & (a < hi)]


def operand_elements(op):
    """The elements an `api._common.Operand` (strided, masked, counter-mode) touches, in issue order: (first byte
    address of each, its repeat, its lane index in the repeat)."""
    from .api._common import lane_offsets, mask_lane_indices
    if op.repeat <= 0:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    lanes = mask_lane_indices(op.lo, op.hi, 256 // op.size)
    repeats = np.arange(op.repeat, dtype=np.int64)[:, None]
    starts = op.base + repeats * (op.rep * 32) + lane_offsets(op.size, op.blk, lanes)[None, :]
    repeats, lanes = np.broadcast_arrays(repeats, lanes[None, :])
    if op.last_lanes >= 0:   # counter mode: the last repeat's first last_lanes active lanes only
        keep = np.ones(starts.shape, np.bool_)
        keep[-1, op.last_lanes:] = False
        return starts[keep], repeats[keep], lanes[keep]
    return starts.reshape(-1), repeats.reshape(-1), lanes.reshape(-1)


def operand_bytes(op):
    """Every byte address an `api._common.Operand` (strided, masked, counter-mode) touches, sorted and unique."""
    starts = operand_elements(op)[0]
    return np.unique((starts[:, None] + np.arange(op.size, dtype=np.int64)[None, :]).reshape(-1))


def footprint_bytes(footprint):
    """The byte addresses of a validator's footprint: an Operand (strided lanes), a Runs (reduction outputs:
    `repeat` runs of `width` bytes every `step`), a (name, start, nbytes) contiguous run or (name, addresses)."""
    if isinstance(footprint, tuple):
        if len(footprint) == 2:   # (name, array of byte addresses)
            return compact(np.asarray(footprint[1], np.int64))
        return run_bytes(footprint[1], footprint[2])
    if hasattr(footprint, "blk"):
        return compact(operand_bytes(footprint))
    if footprint.repeat <= 0 or footprint.width <= 0:
        return np.zeros(0, np.int64)
    starts = footprint.base + np.arange(footprint.repeat, dtype=np.int64) * footprint.step
    return compact(np.unique((starts[:, None] + np.arange(footprint.width, dtype=np.int64)[None, :]).reshape(-1)))


def vector_access(core, api, reads=(), writes=(), own_flags=((), ()), derived=(), used_bits=None):
    """One vector instruction (PIPE_V) through the sanitizer: reads/writes are (footprint, tensor) pairs, the
    footprints exactly those the validator proved (active lanes only, so masked-off lanes are neither reads nor
    writes). `own_flags`: the devkit implementation's own SetFlag/WaitFlag pairs before and after the access
    (device_flag_pairs). `derived`: Derived records of reads whose never-written elements are followed to the
    output bytes computed from them instead of reported here (Sanitizer.derived_uninitialised). `used_bits`: per
    read operand name, the bit positions it reads of a bit operand (Access.used_bits). Called only when
    `core.sanitizer is not None`."""
    def name(fp):
        return fp[0] if isinstance(fp, tuple) else fp.name
    through = {d.operand for d in derived}
    used_bits = used_bits or {}
    accesses = [Access(name(fp), False, footprint_bytes(fp), t, through_lanes=name(fp) in through,
                       used_bits=_partly_read(used_bits.get(name(fp)))) for fp, t in reads]
    accesses += [Access(name(fp), True, footprint_bytes(fp), t) for fp, t in writes]
    before, after = own_flags
    sanitizer = core.sanitizer
    found = sanitizer.derived_uninitialised(derived) if derived else None
    device_flag_pairs(sanitizer, api, before)
    instr = sanitizer.instruction(api, PIPE_V, accesses)
    if found:
        sanitizer.mark_derived(instr, found)
    device_flag_pairs(sanitizer, api, after)


def _partly_read(bits):
    """(addresses, used bits) of the bytes whose bits `bits` (absolute bit positions: byte * 8 + bit) read in part;
    None for none."""
    if bits is None or not len(bits):
        return None
    bits = np.unique(bits)
    addresses, starts = np.unique(bits // 8, return_index=True)
    used = np.bitwise_or.reduceat((1 << (bits % 8)).astype(np.uint8), starts)
    partly = used != 0xFF
    return (addresses[partly], used[partly]) if partly.any() else None


@dataclass
class Derived:
    """Output bytes computed element by element from a read operand: element i of `operand` (its bytes from
    src[i], `size` each) gives the output bytes from dst[i] (`dst_size` each); `fix` the report's text, formatted
    with the operand and the never-written bytes (first address, count)."""
    operand: str
    src: np.ndarray
    size: int
    dst: np.ndarray
    dst_size: int
    fix: str
    # element i's one bit in its output byte dst[i] (a Compare's mask bits, dst_size 1), or None (whole bytes): a
    # MaskReg load follows the bits (unknown_bits), where the UB shadow itself is per byte
    dst_bit: np.ndarray = None


# P(V_S) -> the scalar unit's copy of the result to dst[0] -> P(S_V) -> P(S_MTE3): how the devkit's ReduceSum /
# ReduceMax / ReduceMin end on every device but the 950 in most forms (docs/decisions.md "The implementations' own
# flags")
ENDS_WITH_SCALAR_RESULT = ((PIPE_V, PIPE_S), (PIPE_S, PIPE_V), (PIPE_S, PIPE_MTE3))


def bit_mask_scratch_flags(spec, bit_mode):
    """vector_access's own_flags of a high-dim bit-mask form on the 310B: the implementation writes the mask words to
    a scratch area past the UB with the scalar unit, then SetFlag/WaitFlag<S_V>, then the vector instruction
    (dav_m300: ReduceSum / ReduceMax / ReduceMin, Compare, Select, Cast, Axpy of half into float; a GatherMask of
    4-byte data by a pattern tensor in reduce mode has the S_V alone); none elsewhere."""
    return (((PIPE_S, PIPE_V),) if bit_mode and spec.bit_mask_scratch_flag else ()), ()


def own_flag_pairs(sanitizer, api, pairs):
    """The implementation's own SetFlag/WaitFlag pairs, each on an event of its own (FetchEventID: never one the
    kernel holds), in order: each orders every earlier access of its source pipe before every later access of its
    destination pipe, the kernel's included (SPEC-2 10.4), as on the device. Recorded always for the calls whose
    scalar part the sanitizer records as PIPE_S accesses (ArithProgression's one DataBlock, CreateVecIndex)."""
    for src, dst in pairs:
        sanitizer.set_flag(src, dst, ("own", api))
        sanitizer.wait_flag(src, dst, ("own", api))


def device_flag_pairs(sanitizer, api, pairs):
    """The devkit implementation's own pairs inside a call SPEC-2 10.4 records as one PIPE_V access (the reductions'
    scalar copy of their result, the 310B's bit-mask scratch: docs/decisions.md "The implementations' own flags").
    With "device-sync" they order as on the device (own_flag_pairs); by SPEC-2 10.4 they are no ordering, and a
    report they would have ordered says so in its fix (Sanitizer._cross_pipe_fix). A pair inside a call is placed
    where that stays true: before the call's access when its destination is not PIPE_V, after it when its source
    is not PIPE_V."""
    if sanitizer.config.device_sync:
        own_flag_pairs(sanitizer, api, pairs)
        return
    for src, dst in pairs:
        if src in _PIPE_INDEX and dst in _PIPE_INDEX:
            key = (_PIPE_INDEX[src], _PIPE_INDEX[dst])
            clock = sanitizer.clock[key[0]]
            sanitizer.device_orders(key, clock, f"{api}'s implementation issues its own SetFlag/WaitFlag "
                                                f"{_SHORT[src]}_{_SHORT[dst]} between them")
            if key[1] == _S:   # a scalar wait: on the device every later instruction is issued after it
                sanitizer.scalar_wait_clock = np.maximum(sanitizer.scalar_wait_clock,
                                                         np.maximum(sanitizer.clock[_S], clock))


_UNINIT_FIX = ("write these bytes first (DataCopy, Duplicate, a host copy) or read only lanes an earlier instruction "
               "wrote")
# a UB -> UB DataCopy's destination bytes copied from bytes nothing had written (Sanitizer._copied_uninitialised)
_COPIED_FIX = ("the copy {copy} copied them from UB bytes nothing had written ({nbytes} bytes, the first from UB "
               "byte {address}; a copy of an uninitialised value is no error, its use is): write those bytes before "
               "the copy, or read only the copied bytes that were written")
# the bits a MaskReg load read from bytes nothing had written, followed through the lanes they govern
# (lane_shadow.mask_loaded): the fix of the report where such a lane's value, or a carry under such a bit, is used
_MASK_LOADED_FIX = ("these mask bits were loaded by {load} from UB bytes nothing had written (UB byte {address}, "
                    "{nbytes} bytes; a MaskReg load reads every byte its distribution names, and a lane its "
                    "uninitialised bits govern is unknown to be active, so what the lane holds is followed to where "
                    "it is read): write those bytes before the load (e.g. Duplicate the bits buffer once), or keep "
                    "these lanes out of the stores and the reads (an And with UpdateMask's mask)")
# A Reg store of values computed from uninitialised bytes leaves its bytes uninitialised: what reads them is reported
_LANES_STORED_FIX = ("the store wrote values computed from UB bytes {load} read before anything wrote them (UB byte "
                     "{address}, {nbytes} bytes; a Reg load reads every byte its distribution names, and lanes that "
                     "no store writes, or whose stored bytes nothing reads, are not reported): write those bytes "
                     "before the load (e.g. Duplicate the buffer's tail once), or keep these lanes out of the store's "
                     "mask or of the reads")
# the same for the lanes of a register no instruction had written (lane_shadow.fresh)
_REGISTER_STORED_FIX = ("the store wrote lanes of a register made at {made} that no instruction had written (the "
                        "hardware leaves a register's lanes undefined until written: a MERGING operation, a masked "
                        "Copy or a partial write keeps them): write every lane first (e.g. Duplicate(reg, 0) or a "
                        "full load), use ZEROING, or keep these lanes out of the store's mask or of the reads")
# the mask bits a Compare computed from never-written lanes, the elements a GatherMask gathered from them
# (Derived, Sanitizer.mark_derived)
COMPARED_FIX = ("these mask bits were computed from lanes of {operand} that {unwritten} (UB byte {address}, "
                "{nbytes} bytes; a Compare compares whole 256-byte blocks, SPEC-2 D44: the count form whatever the "
                "data's length, the high-dim form on A2/A3/310P/910 whatever its mask): read only the bits of "
                "written lanes (a Select of the data's count does; a MaskReg load follows each bit; other readers "
                "take a byte's 8 bits whole), or write those lanes before the Compare (Duplicate the tile's tail)")
GATHERED_FIX = ("these elements were gathered from bytes of {operand} that {unwritten} (UB byte {address}, "
                "{nbytes} bytes): read only the elements gathered from written data, or write the source first (a "
                "normal-mode GatherMask reads whole repeats whatever the data's length; reduce mode, reduceMode True "
                "with mask = the element count, reads only those)")
SELECTED_FIX = ("these elements were selected from lanes of {operand} that {unwritten} (UB byte {address}, {nbytes} "
                "bytes; a Select fetches both sources, and a lane whose selMask bit picks the other source is no "
                "read): write those lanes before the Select, or read only the elements selected from written data")
# Add/Sub's carry computed from marked lanes, or under marked mask bits, is reported where it is made
# (lane_shadow.carry_origin)
_CARRY_FIX = ("the carry MaskReg is computed from values {load} loaded from these never-written bytes (a Reg load "
              "reads every byte its distribution names; a carry bit computed from them is reported where it is "
              "made): write the bytes before the load (e.g. Duplicate the buffer's tail once) or keep those lanes out "
              "of the carry form's mask")
_CARRY_REGISTER_FIX = ("the carry MaskReg is computed from lanes of a register made at {made} that no instruction had "
                       "written (undefined on the hardware): write every lane first (e.g. Duplicate(reg, 0)) or keep "
                       "those lanes out of the carry form's mask")

# a lane a Reg load read from outside its tensor on a bounds="ub" core, reported where it is used (session 66: the
# vendor's whole-vector tail loads read past a tile that is not whole vectors, harmless while UpdateMask keeps those
# lanes out of every store and reduction; lane_shadow.py follows them as it follows uninitialised bytes)
_OUTSIDE_LANE_KIND = "lane loaded from outside the tensor used"
_OUTSIDE_LANES_FIX = ("these lanes were loaded by {load} from UB bytes outside its {operand} [{lo}, {hi}) (UB byte "
                      "{address}, {nbytes} bytes; a Reg load takes no mask and reads every byte its distribution "
                      "names, here past the tensor, which this bounds=\"ub\" core let run): enlarge the tensor to "
                      "whole vectors, or keep these lanes out of the stores and the reads with the mask (UpdateMask)")
# the same for a MaskReg load's bits (session 67: a Memory-API Compare of a tail tile writes fewer bit bytes than the
# load reads; the bits from past them govern lanes UpdateMask keeps out of every store): reported where a lane such a
# bit governs is used, as the bits of uninitialised bytes are (lane_shadow.mask_loaded)
_OUTSIDE_BITS_FIX = ("these mask bits were loaded by {load} from UB bytes outside its {operand} [{lo}, {hi}) (UB byte "
                     "{address}, {nbytes} bytes; a MaskReg load reads every byte its distribution names, here past "
                     "the tensor, which this bounds=\"ub\" core let run, and a lane such a bit governs is unknown to "
                     "be active, so what the lane holds is followed to where it is read): enlarge the tensor to the "
                     "bytes the load reads, or do not let these bits govern a used lane (an And with UpdateMask's "
                     "mask, or that mask on the stores)")
# the report of a marked lane's use by its origin's check (lane_shadow.LaneOrigin.check)
_KINDS = {"init": "uninitialised read", "memory": _OUTSIDE_LANE_KIND}

# a MaskReg() that no instruction wrote, read (reg.py MaskReg._fresh)
_FRESH_MASK_FIX = ("the MaskReg made at {made} is read before any instruction wrote it (the hardware leaves a "
                   "predicate register undefined until written; the emulator's zero bits are not what the device "
                   "reads): make it with CreateMask, UpdateMask or MoveMask, or write it first (a MaskReg load, Not, "
                   "And, ...)")


@dataclass
class Access:
    """One operand of one instruction: the exact bytes it reads or writes (active lanes only) and its tensor."""
    operand: str
    write: bool
    addrs: np.ndarray
    tensor: object = None   # the LocalTensor the access goes through (memory check); None for tmp-free forms
    uninit_fix: str = _UNINIT_FIX   # an init report's fix for a read through this access
    # a Reg load into data registers: its uninitialised bytes are followed through the lanes (lane_shadow.py), not
    # reported here; a count-form Compare's or a GatherMask's sources: to their outputs (Derived)
    through_lanes: bool = False
    # a Reg load on a bounds="ub" core: its bytes outside the tensor are followed through the lanes, or a MaskReg's
    # bits, too (the memory check's report comes where such a lane is used), not reported here
    outside_through_lanes: bool = False
    # a Reg load in a VF under "strict": bytes a store of the same VF wrote with no LocalMemBar between, whose RAW is
    # followed through the lanes they feed and reported where such a lane is stored (deferred_strict_reads)
    strict_through_lanes: bool = False
    # the bytes of a bit operand read only in part (a Select's selMask: the bits of its active lanes), as (sorted
    # addresses, the bits used of each): an uninitialised one is a read only where a used bit holds no written
    # value (Sanitizer.derived_bits; port64j: a Compare of a tile rounded up to 64 lanes, a Select of its count)
    used_bits: tuple = None

    @classmethod
    def of_operand(cls, op, write, tensor=None):
        return cls(op.name, write, compact(operand_bytes(op)), tensor)

    @classmethod
    def of_run(cls, name, start, nbytes, write, tensor=None):
        return cls(name, write, run_bytes(start, nbytes), tensor)


# --- the per-core sanitizer -----------------------------------------------------------------------------------------
# Non-empty once this process made a sanitizing core: the Reg API's hooks test it before a tensor's core, so a process
# that never sanitizes pays one truth test of a list per Reg call (the Memory API's calls test `core.sanitizer`).
SANITIZING = []


class Sanitizer:
    """Shadow state of one core. Created by `Core(sanitize=...)` / `core.sanitize = ...`."""

    def __init__(self, core, config):
        self.core, self.config = core, config
        self.ub_bytes = core.spec.ub_bytes
        n = self.ub_bytes + len(SPRS) * SPR_BYTES   # the special registers ride behind the UB as pseudo bytes
        npipes = len(PIPES)
        # the per-byte shadow (jit/shadow.py says what each holds); int32 clocks and log indices: half the memory
        # traffic of int64, and 2**31 instructions is beyond any emulated kernel
        self.initialised = np.zeros(n, np.bool_)
        # per UB byte a Reg store wrote from register lanes holding values of uninitialised bytes: its index in
        # lane_stores, -1 elsewhere (lane_shadow.py; made at the first such store)
        self.stored_from = None
        # per uninitialised UB byte, which of its bits hold no written value: 0xFF but for a Compare's bit bytes of
        # written and unwritten lanes (mark_derived); made at the first such Compare (unknown_bits)
        self.derived_bits = None
        # (the store's Instr, the lane_shadow.ORIGINS index of the load its values came from); also a count-form
        # Compare's or a GatherMask's outputs computed from never-written bytes (mark_derived: the origin's fix)
        self.lane_stores = []
        self.writer_pipe = np.full(n, -1, np.int8)
        self.writer_bits = np.zeros(n, np.uint8)      # 1 << writer_pipe (0: none): the vectorised pre-check
        self.writer_seq = np.zeros(n, np.int32)       # the writer's own-pipe clock value
        self.writer_instr = np.full(n, -1, np.int32)  # index into self.log (a hand-off: the log position)
        self.reader_seq = np.zeros((npipes, n), np.int32)   # 0: no read in that pipe
        self.reader_instr = np.full((npipes, n), -1, np.int32)   # counts only when > writer_instr
        self._scan_out = np.zeros(4, np.int64)
        self._scan_war = np.zeros((npipes, 2), np.int64)
        self.clock = np.zeros((npipes, npipes), np.int64)   # clock[p][q]: what pipe p knows of pipe q's progress
        self.barrier_seq = np.zeros(npipes, np.int64)      # own-pipe clock at the last PipeBarrier<p> (strict)
        # the 950 runs every Memory-API vector call as a VF of its own, and a VF's instructions are complete when it
        # returns (vf_returned): PIPE_V's clock at the latest such end, which "device-sync" takes as a PipeBarrier
        self.vf_scopes = core.spec.reg_api
        self.vf_depth = 0
        self._vf_scalar_read = False   # the instruction being checked is a VF's GetValue (scalar_access)
        self.vf_done_seq = 0
        self.vf_start_seq = 0   # PIPE_V's clock when the outermost VF running started (_same_pipe_fix)
        self.flag_clocks = {}
        # the scalar pipe's clock at its latest WaitFlag: what every later instruction starts after on the device
        # (the fix of a report "device-sync" would not make names that wait)
        self.scalar_wait_clock = np.zeros(npipes, np.int64)
        # (source, destination pipe) -> (the source pipe's clock at its latest pair, what the pair is): pairs the
        # device has and SPEC-2 10.4 does not count (device_orders), for the fixes
        self.device_pair_clock = {}
        self.free_events = {}     # a freed queue buffer -> its FreeTensor's event (the clock, pipe pair)
        self.freed_buffers = set()   # queue buffers freed and not yet allocated or reset again (their hand-off)
        self.log = []
        self.reports = []
        # the innermost session that sanitizes collects this core's reports: a sanitize_session(False) (what
        # `pytest --ascend-sanitize` runs a test marked checks="" in) is no collector, so a launch sanitized
        # explicitly inside it warns its reports as outside any session (sanfix65: they had gone to a list no one
        # reads)
        self.session = next((s for s in reversed(_sessions) if s.config is not None), None)
        self._reported = set()    # the current instruction's reports (duplicates from aliased operands dropped)
        self.composite = None     # the API whose own instructions these are (InitGlobalMemory's Duplicate, ...)
        self.gm_shadow = None   # the launch's LaunchShadow (check "blocks"), set by aj.launch
        self._mte3_writes = []  # "strict": UB -> GM destinations no PipeBarrier<PIPE_MTE3> has ordered yet
        # "device-sync": this core's own GM accesses on its pipe clocks (_CoreGmShadow), made at the first one
        self.gm_own = None
        # check "memory": id(root) -> (root array, the (first byte, end) of each system workspace a GetUserWorkspace
        # call named in it) (system_workspace), which a GM write of this core must not touch
        self.system_workspaces = {}
        # check "dcache" (the scalar unit's data cache, DcacheModel) where the device has one to clean: the devices
        # DataCacheCleanAndInvalid is offered on (the 910 has none); a core outside a launch keeps its own model
        from .sync import _DCCI_DEVICES   # (sync.py imports this module)
        self.dcache_on = "dcache" in config.checks and core.device in _DCCI_DEVICES
        self.dcache_model = None
        if not SANITIZING:
            SANITIZING.append(True)

    @contextmanager
    def inside(self, api):
        """The instructions of a composite API (InitGlobalMemory's Duplicate and copies) are reported as
        "InitGlobalMemory: Duplicate", at the kernel's line that called it."""
        outer, self.composite = self.composite, api
        try:
            yield
        finally:
            self.composite = outer

    def _named(self, api):
        return api if self.composite is None else f"{self.composite}: {api}"

    def spr(self, name):
        """The pseudo byte range of a special register: a footprint (name, start, nbytes) for vector_access."""
        return (name, self.ub_bytes + SPRS.index(name) * SPR_BYTES, SPR_BYTES)

    def spr_read(self, api, name):
        """GetReduceRepeatSumSpr / GetReduceRepeatMaxMinSpr: a scalar-pipe read of a register the vector pipe
        writes."""
        self.instruction(api, PIPE_S, [Access.of_run(name, self.spr(name)[1], SPR_BYTES, False)])

    def _space(self, address):
        return ("SPR", address - self.ub_bytes) if address >= self.ub_bytes else ("UB", address)

    # --- configuration -------------------------------------------------------------------------------------------
    def enabled(self, check):
        return check in self.config.checks

    def _emit(self, report):
        if report.space == "UB" and report.address >= self.ub_bytes:
            report.space, report.address = self._space(report.address)
        if report.check == "race" and report.space == "UB" and report.earlier is not None and \
                report.earlier.api.startswith(_FILLS):
            # port67i: InitGlobalMemory before InitBuffer (ops-math ReduceMeanV2's Init) fills through UB bytes a
            # buffer allocated later takes; no queue hand-off can order the devkit's own copies
            report.fix = report.fix.replace(_QUEUE_HANDOFF, "") + _FILL_BUFFER_NOTE
        # an "event" report's address is an id that several events (its operand) share: one report each (port63f:
        # five AllocEventIDs of id 0 never released gave one report)
        key = (report.check, report.kind, report.space, report.address, report.nbytes,
               report.earlier.seq if report.earlier else None, report.operand if report.space == "event" else None)
        if key in self._reported:   # two operands aliasing the same bytes: one conflict, one report
            return
        if report.check not in ("blocks", "dcache"):   # one GM access, one report: no aliasing, and these come
            self._reported.add(key)    # outside instruction() (SetValue, the end-of-launch replay), which resets it
        if self.core.launch is not None:
            report.block, report.block_num = self.core.block_idx, self.core.block_num
        if self.config.mode == "raise":
            raise SanitizerError("sanitizer", detail=report.text(with_block=False), device=self.core.device,
                                 report=report)
        self.reports.append(report)
        if self.session is not None:
            self.session.add(report)

    def carry_from_lanes(self, api, origin, operand="src"):
        """Add/Sub's carry form (`api`) computes its carry MaskReg, through an active lane, from a value of the
        uninitialised bytes load `origin` (a lane_shadow.LaneOrigin) read, or under its `operand` "mask"'s bits
        loaded from such bytes: this is where the value is used (lane_shadow.carry_origin). The report names the
        carry's line, and the load as the earlier instruction."""
        if origin.check == "race":   # a racing load's lanes (deferred_strict_reads): its own reports
            self.emit_deferred(origin)
            return
        self._reported = set()
        if not self.enabled(origin.check):
            return
        if origin.register:   # a fresh register's lanes (lane_shadow.fresh): the register, not UB bytes
            report = Report("init", "uninitialised read", Instr(f"{api} (carry)", PIPE_V, user_location(), -1),
                            operand, 0, origin.nbytes, origin.instr, fix=_CARRY_REGISTER_FIX.format(
                                made=origin.instr.where), space="register")
        else:
            report = Report(origin.check, _KINDS[origin.check], Instr(f"{api} (carry)", PIPE_V, user_location(), -1),
                            operand, origin.address, origin.nbytes, origin.instr,
                            fix=origin.fix or _CARRY_FIX.format(load=origin.instr))
        self._emit(report)

    def fresh_mask_read(self, api, operand, made):
        """Reg instruction `api` reads its MaskReg operand `operand`, made at Instr `made` (`MaskReg()`) and written
        by no instruction since (reg.py MaskReg._fresh): an init report naming the read and the MaskReg's line."""
        self._reported = set()
        self._emit(Report("init", "uninitialised read", Instr(api, PIPE_V, user_location(), -1), operand, 0,
                          32, made, fix=_FRESH_MASK_FIX.format(made=made.where), space="register"))  # 256 bits

    # --- instructions --------------------------------------------------------------------------------------------
    def instruction(self, api, pipe, accesses, where=None):
        """Check, then record, one instruction's accesses. Reads are checked before writes, so an instruction never
        conflicts with itself. In "raise" mode a report raises before anything is recorded (or written). The
        per-byte walks are compiled (jit/shadow.py): one pass per operand to check, one to record."""
        p = _PIPE_INDEX[pipe]
        seq = int(self.clock[p, p]) + 1
        instr = Instr(self._named(api), pipe, where or user_location(), len(self.log))
        self._reported = set()
        runs = [(acc, _run_args(acc.addrs)) for acc in accesses if _count(acc.addrs)]
        running = _thread_core()
        if running is not self.core and running is not None and running.launch is not None and runs:
            self._another_blocks_ub(instr, runs[0][0], running)
        for acc, _ in runs:
            self._check_memory(instr, acc)
        for acc, run in runs:
            if not acc.write:
                self._check_read(instr, p, acc, run)
        for acc, run in runs:
            if acc.write:
                self._check_write(instr, p, acc, run)
        # every check passed (or was collected): record
        self.clock[p, p] = seq
        self.log.append(instr)
        if p == _V and self.vf_scopes and self.vf_depth == 0:   # a Memory-API call: a VF of its own on the 950
            self.vf_returned()
        # numpy's slice and index-array stores: as fast as a compiled loop on long operands, and no dispatch on the
        # scalar unit's one-element accesses
        for acc, _ in runs:
            where = acc.addrs
            if acc.write:
                self.initialised[where] = True
                self.writer_pipe[where] = p
                self.writer_bits[where] = 1 << p
                self.writer_seq[where] = seq
                self.writer_instr[where] = instr.seq
            else:
                self.reader_seq[p, where] = seq
                self.reader_instr[p, where] = instr.seq
        return instr

    def _another_blocks_ub(self, instr, acc, running):
        """An aj.launch block (`running`, the core of its `with core:`) reaching this core's UB through a tensor of
        this core (a LocalTensor a Python port kept in a module-level cache the blocks' threads share): a vector core
        addresses only its own UB, so on the device the same address is the block's own bytes. Reported by the
        accessing block's sanitizer (check "blocks"), before anything is written; without a sanitizer such a
        tensor is not refused (docs/decisions.md "Left as they are")."""
        reporter = running.sanitizer if running.sanitizer is not None else self
        if not reporter.enabled("blocks"):
            return
        owner = (f"block {self.core.block_idx} of this launch" if self.core.launch is running.launch else
                 "a core outside this launch" if self.core.launch is None else "a block of another launch")
        reporter._emit(Report("blocks", "another core's UB", instr, acc.operand, _address(acc.addrs, 0),
                              _count(acc.addrs), fix=f"{acc.operand} is a LocalTensor of {owner}; a block reaches "
                              "only its own core's UB: allocate the tensor in this block (its own TPipe / "
                              "local_tensor), not once for all blocks"))

    def _check_memory(self, instr, acc):
        t = acc.tensor
        if t is None or acc.outside_through_lanes or not self.enabled("memory") or self.core.bounds != "ub":
            return
        lo, hi = t.addr, t.addr + t.nbytes
        outside = _outside(acc.addrs, lo, hi)
        if outside.size:
            self._emit(Report("memory", "access outside the tensor", instr, acc.operand, int(outside[0]),
                              int(outside.size), fix=f"{acc.operand} is [{lo}, {hi}); enlarge it or fix the "
                              "strides (this core was made with bounds=\"ub\", so the call was not refused)"))

    def _strict_same(self, p, kind):
        """"strict": same-pipe PIPE_V read-after-write and overlapping MTE2/MTE3 writes need a PipeBarrier too."""
        if not self.config.strict:
            return False
        return PIPES[p] == PIPE_V and not self._vf_scalar_read if kind == "RAW" else PIPES[p] in (PIPE_MTE2, PIPE_MTE3)

    def _other_writers(self, p, lo, hi, strict_same):
        """Can a contiguous run have a last writer pipe p is not ordered after? Only if some byte's last write is
        another pipe's (or, strict, any write), and p does not know every such pipe up to the run's newest write
        number (conservative: the exact walk decides). Vectorised reductions only."""
        bits = int(np.bitwise_or.reduce(self.writer_bits[lo:hi]))
        if strict_same:
            return bits != 0
        others = bits & ~(1 << p)
        if not others:
            return False
        newest = self.writer_seq[lo:hi].max()
        return any(self.clock[p, q] < newest for q in range(len(PIPES)) if others >> q & 1)

    def _check_read(self, instr, p, acc, run):
        check_init, check_race = self._follows_unwritten() and not acc.through_lanes, self.enabled("race")
        strict_same = self._strict_same(p, "RAW") and not acc.strict_through_lanes
        lo, hi, addrs = run
        if addrs.size == 0:   # a run: ask the vectorised reductions first
            check_init = check_init and not self.initialised[lo:hi].all()
            check_race = check_race and self._other_writers(p, lo, hi, strict_same)
        if not (check_init or check_race):
            return
        out = self._scan_out
        shadow.scan_read(lo, hi, addrs, self.initialised, self.writer_pipe, self.writer_seq, self.clock[p], p,
                         check_init, check_race, strict_same, self.barrier_seq[p], out)
        uninitialised = None
        if out[0] and acc.used_bits is not None:   # only the unknown bits the access uses count
            read = _addresses(acc.addrs)
            uninitialised = self._unknown_used(read[~self.initialised[read]], acc.used_bits)
            out[0] = uninitialised.size
        if out[0] and self.stored_from is None:
            if uninitialised is None:
                read = _addresses(acc.addrs)
                uninitialised = read[~self.initialised[read]]
            self._emit(Report("init", "uninitialised read", instr, acc.operand, int(uninitialised[0]),
                              int(uninitialised.size), fix=acc.uninit_fix, runs=_run_count(uninitialised)))
        elif out[0]:
            self._uninitialised_by_writer(instr, acc, uninitialised)
        if out[2]:
            self._writer_reports(instr, p, acc, "RAW", strict_same)

    def _follows_unwritten(self):
        """Whether reads are checked for bytes that hold no written value: the init check's, and without it, once a
        Reg store wrote bytes from lanes loaded outside their tensor, the memory check's (kept in the same shadow,
        stored_from; _uninitialised_by_writer reports only the enabled checks')."""
        return self.enabled("init") or self.stored_from is not None

    def _unknown_used(self, addresses, used_bits):
        """Of the uninitialised `addresses` an access reads, those where a bit it uses (used_bits: its partly read
        bytes and their bits) holds no written value; every other byte's bits are all used."""
        if self.derived_bits is None:
            return addresses
        partly, bits = used_bits
        at = np.searchsorted(partly, addresses)
        at[at >= partly.size] = 0
        used = np.where(partly[at] == addresses, bits[at], 0xFF).astype(np.uint8)
        return addresses[(self.derived_bits[addresses] & used) != 0]

    def _uninitialised_by_writer(self, instr, acc, uninitialised=None):
        """A report per kind of uninitialised byte an access read (`uninitialised`: those that count, else every
        one): an init report of the never-written ones (acc's own fix), and per Reg store one of the bytes it wrote
        from marked register lanes (the store as the earlier instruction, the load in the fix; lane_shadow.py): init
        for lanes of uninitialised bytes, memory for lanes loaded outside their tensor, each under its own check."""
        from .lane_shadow import ORIGINS
        if uninitialised is None:
            read = _addresses(acc.addrs)
            uninitialised = read[~self.initialised[read]]
        writer = self.stored_from[uninitialised]
        for k in dict.fromkeys(writer.tolist()):
            part = uninitialised[writer == k]
            if k < 0:
                if self.enabled("init"):
                    self._emit(Report("init", "uninitialised read", instr, acc.operand, int(part[0]), int(part.size),
                                      fix=acc.uninit_fix, runs=_run_count(part)))
                continue
            store, origin = self.lane_stores[k][0], ORIGINS[self.lane_stores[k][1]]
            if not self.enabled(origin.check):
                continue
            fix = origin.fix or (
                _REGISTER_STORED_FIX.format(made=origin.instr.where) if origin.register else
                _LANES_STORED_FIX.format(load=origin.instr, address=origin.address, nbytes=origin.nbytes))
            self._emit(Report(origin.check, _KINDS[origin.check], instr, acc.operand, int(part[0]), int(part.size),
                              store, fix=fix, runs=_run_count(part)))

    def _check_write(self, instr, p, acc, run):
        if not self.enabled("race"):
            return
        strict_same = self._strict_same(p, "WAW")
        lo, hi, addrs = run
        # scalar reads never start a WAR: the in-order scalar unit has its value before it issues anything later
        # (GetValue then Duplicate(t, value) is the common idiom)
        war_pipes = [q for q in range(len(PIPES)) if q != p and q != _S]
        check_waw = True
        if addrs.size == 0:   # a run: a pipe q matters only if its newest read here is one p does not know of
            check_waw = self._other_writers(p, lo, hi, strict_same)
            war_pipes = [q for q in war_pipes if self.reader_seq[q, lo:hi].max() > self.clock[p, q]]
            if war_pipes:   # reads older than every byte's last write or hand-off do not count
                oldest = self.writer_instr[lo:hi].min()
                war_pipes = [q for q in war_pipes if self.reader_instr[q, lo:hi].max() > oldest]
        if not (check_waw or war_pipes):
            return
        out, war = self._scan_out, self._scan_war
        shadow.scan_write(lo, hi, addrs, self.writer_pipe, self.writer_seq, self.writer_instr, self.reader_seq,
                          self.reader_instr, self.clock[p], p, check_waw, sum(1 << q for q in war_pipes), strict_same,
                          self.barrier_seq[p], out, war)
        if out[0]:
            self._writer_reports(instr, p, acc, "WAW", strict_same)
        for q in range(len(PIPES)):
            if war[q, 0]:
                addrs = _addresses(acc.addrs)
                readers = self.reader_instr[q, addrs]
                conflict = (self.reader_seq[q, addrs] > self.clock[p, q]) & (readers > self.writer_instr[addrs])
                for log_index, address, count in _pairs(addrs, readers, conflict):
                    seq = int(self.reader_seq[q, address])
                    self._emit(Report("race", "WAR", instr, acc.operand, address, count, earlier=self.log[log_index],
                                      fix=self._cross_pipe_fix(q, p, seq)))

    def _writer_reports(self, instr, p, acc, kind, strict_same, emit=None):
        """RAW / WAW: one report per unordered pair (SPEC-2 10.4), i.e. per earlier writing instruction, with the
        first byte and the number of bytes this instruction conflicts with that one on (the compiled scan only
        counts; this breakdown runs when it found a conflict). `emit`: where the reports go (self._emit)."""
        emit = emit or self._emit
        addrs = _addresses(acc.addrs)
        wp, ws = self.writer_pipe[addrs].astype(np.int64), self.writer_seq[addrs]
        other = self.clock[p][np.maximum(wp, 0)] < ws
        same = (ws > self.barrier_seq[p]) if strict_same else np.zeros(addrs.size, np.bool_)
        conflict = (wp >= 0) & np.where(wp != p, other, same)
        for log_index, address, count in _pairs(addrs, self.writer_instr[addrs], conflict):
            q = int(self.writer_pipe[address])
            fix = self._cross_pipe_fix(q, p, int(self.writer_seq[address])) if q != p else \
                self._same_pipe_fix(p, int(self.writer_seq[address]))
            emit(Report("race", kind, instr, acc.operand, address, count, earlier=self.log[log_index], fix=fix))

    def racing_in_vf(self, addrs):
        """Of a Reg load's bytes `addrs` in the running VF, those "strict" would report as a same-pipe RAW against a
        store of this VF with no LocalMemBar between (the pair's fix names that barrier): an index array."""
        read = _addresses(addrs)
        seq = self.writer_seq[read]
        return read[(self.writer_pipe[read] == _V) & (seq > self.barrier_seq[_V]) & (seq > self.vf_start_seq)]

    def deferred_strict_reads(self, instr, racing):
        """The "strict" RAW reports of a Reg load `instr` over its racing bytes (racing_in_vf), kept instead of
        made: the lanes those bytes feed carry them (lane_shadow.py, check "race"), and a store of such a lane
        under an active mask makes them (emit_deferred) where the load's values reach the UB. A whole-vector tail
        load over bytes the VF's own earlier stores wrote, whose lanes past the tail no store writes, is no race on
        the values the kernel keeps (port68f2, port68j3: the devkit's ReduceSum AR and CumSum on the 950)."""
        reports = []
        self._writer_reports(instr, _V, Access("tensor", False, racing), "RAW", True, emit=reports.append)
        return reports

    def emit_deferred(self, origin):
        """A store (or a carry) used lanes a racing load fed (deferred_strict_reads): that load's reports, now."""
        self._reported = set()
        for report in origin.reports or ():
            self._emit(dataclasses.replace(report))

    def _same_pipe_fix(self, p, seq):
        """The fix of a "strict" same-pipe pair whose earlier access has own-pipe clock `seq`. On the 950 a vector
        pair across two VFs (a Memory-API call is one) is ordered on the device (port53c: AddN's VF after VF), which
        SPEC-2 10.4's "strict" does not count: the fix says so and names "device-sync", which accepts it."""
        if PIPES[p] != PIPE_V or not self.vf_scopes:   # no Reg VF elsewhere (port52a)
            return f"PipeBarrier({PIPES[p]}) between them"
        if self.vf_depth and seq > self.vf_start_seq:   # both in the running VF
            # port61c: the PipeBarrier named first has no place in a VF
            return ("Reg.LocalMemBar(MemType.VEC_STORE, MemType.VEC_LOAD) between them (inside one VF only that "
                    "barrier, or a store and a load through the same register, DK LocalMemBar.md, order a load after "
                    "an earlier store of the same bytes; (SCALAR_STORE, VEC_LOAD) after a SetValue)")
        fix = ("PipeBarrier(PIPE_V) between them (inside a Reg VF: Reg.LocalMemBar(MemType.VEC_STORE, "
               "MemType.VEC_LOAD), or (SCALAR_STORE, VEC_LOAD) after a SetValue)")
        if seq <= self.vf_done_seq:
            fix += ("; the device orders them already (on the 950 every Memory-API vector call runs as a VF, and a "
                    "VF's instructions are complete when it returns: no synchronisation between VFs), which "
                    "SPEC-2 10.4 does not count: sanitize with 'device-sync' to accept it")
        return fix

    def vf_entered(self):
        """A Reg VF starts (reg.py simd_vf, run uncompiled on a sanitizing core)."""
        if not self.vf_depth:
            self.vf_start_seq = int(self.clock[_V, _V])
        self.vf_depth += 1

    def vf_left(self):
        """A Reg VF returns (or raises): the outermost one's instructions are complete."""
        self.vf_depth -= 1
        if self.vf_depth == 0:
            self.vf_returned()

    def vf_returned(self):
        """A VF's end on the 950 (every Memory-API vector call is one): its instructions are complete, so a later
        VF's accesses are ordered after them (DK docs/zh/api/附录/API流水类型汇总.md: "用户不需要管理VF和VF之间的同步";
        the Reg programming guide: every Reg instruction has completed when the VF exits). SPEC-2 10.4's "strict"
        does not count it; "device-sync" does, as a PipeBarrier<PIPE_V>."""
        self.vf_done_seq = int(self.clock[_V, _V])
        if self.config.device_sync:
            self.barrier_seq[_V] = self.vf_done_seq

    def _cross_pipe_fix(self, q, p, seq):
        """The fix of an unordered pair: the earlier access (pipe q, its own-pipe clock `seq`) and one of pipe p.
        Where the device orders them but SPEC-2 10.4's rule does not, the fix says so and names "device-sync", which
        accepts that ordering: a pair q -> p between them that SPEC-2 10.4 does not count (device_orders: an API
        implementation's own, port52b `ReduceSum; GetValue`; a TQue hand-off's event, which on the device orders
        every earlier access of its source pipe, port53a `DataCopy a; DataCopy b; EnQue/DeQue b; Add(.., a, b)`), or
        a WaitFlag into the scalar pipe after the earlier access, after which the scalar unit issues p's access (a
        wait whose destination is not p; port52c: `vector read; V_S; DataCopy`)."""
        fix = _fix(PIPES[q], PIPES[p], self.config.device_sync, self.core.spec.isasi_flags)
        own = self.device_pair_clock.get((q, p))
        if own is not None and own[0][q] >= seq:
            fix += (f"; the device orders them already ({own[1]}), which SPEC-2 10.4 does not count: sanitize "
                    "with 'device-sync' to accept it")
        elif self.scalar_wait_clock[q] >= seq:
            fix += ("; the device orders them already (the scalar unit issues later instructions only after its "
                    "earlier WaitFlag returned), which SPEC-2 10.4 does not count: sanitize with 'device-sync' "
                    "to accept it")
        return fix

    def scalar_access(self, api, tensor, index, write):
        """GetValue / SetValue: one element through the scalar pipe (SPEC-2 10.4). Inside a Reg VF (run uncompiled
        here) it is the VF's own access, its SCALAR_LOAD / SCALAR_STORE kind (DK Reg矢量计算/同步控制/LocalMemBar.md):
        ordered after earlier VFs as the VF's vector accesses are, after other pipes by their flags into PIPE_V, and
        inside the VF by LocalMemBar (port60e: ops-cv's resize reads indices a previous VF stored, and was told to
        add a V_S flag that has no place there)."""
        size = tensor.dtype.size
        access = [Access.of_run("tensor", tensor.addr + index * size, size, write, tensor)]
        if self.vf_depth and self.vf_scopes:
            # "strict"'s same-pipe RAW is a vector read's: the shadow keeps no kind per byte, so a VF's scalar read
            # after its own vector store is left unchecked rather than checked against the vector barriers
            self._vf_scalar_read = not write
            try:
                self.instruction(f"{api} (in a VF)", PIPE_V, access)
            finally:
                self._vf_scalar_read = False
        else:
            self.instruction(api, PIPE_S, access)

    def copy_access(self, api, dst, src, runs, atomic=None):
        """DataCopy / DataCopyPad: runs of (src byte offset, dst byte offset, bytes). GM -> UB is PIPE_MTE2, UB -> GM
        PIPE_MTE3, UB -> UB PIPE_V; GM sides go to the launch's cross-block shadow. `atomic`: the core's atomic mode
        of a UB -> GM copy ((operation, dtype), core.atomic), None for a plain copy."""
        from .tensor import LocalTensor
        atomic = _atomic_code(atomic)
        ub_dst, ub_src = isinstance(dst, LocalTensor), isinstance(src, LocalTensor)
        pipe = PIPE_V if ub_dst and ub_src else (PIPE_MTE2 if ub_dst else PIPE_MTE3)
        accesses = []
        if ub_src:
            accesses.append(Access("src", False, _runs_bytes(src.addr, [(s, n) for s, _, n in runs]), src))
        if ub_dst:
            accesses.append(Access("dst", True, _runs_bytes(dst.addr, [(d, n) for _, d, n in runs]), dst))
        carried = self._copied_uninitialised(src, dst, runs, accesses[0]) if ub_src and ub_dst else None
        gm, write = (src, False) if not ub_src else (dst, True) if not ub_dst else (None, False)   # the GM side
        gm_runs = own = None
        if pipe == PIPE_MTE3 and self.config.strict and self.enabled("race"):
            gm_runs = self._check_mte3_destination(api, dst, runs, atomic)
        if gm is not None and self.dcache_on:   # a DMA: past the scalar unit's data cache (DcacheModel)
            root, offset = _root_and_offset(gm.array)
            spans = tuple((offset + (d if write else s), offset + (d if write else s) + n) for s, d, n in runs)
            self._dcache_event(("dma_out" if write else "dma_in", root, spans), self._named(api), pipe)
        if gm is not None and self._checks_own_gm():
            own = self._check_own_gm(api, pipe, gm.array, [(d if write else s, n) for s, d, n in runs], write)
        if gm is not None and write:
            self._check_system_workspace(api, pipe, gm.array, [(d, n) for _, d, n in runs])
        instr = self.instruction(api, pipe, accesses)
        if gm_runs is not None:
            self._record_mte3_destination(gm_runs, instr, atomic)
        if own is not None:
            q = _PIPE_INDEX[pipe]
            self.gm_own.record(own, q, instr.seq, int(self.clock[q, q]), write)
        if carried:
            self._carry_uninitialised(instr, carried)
        if self.gm_shadow is not None and self.enabled("blocks"):
            if gm is not None:
                for s, d, n in runs:
                    offset = d if write else s
                    self.gm_shadow.gm_access(self.core.block_idx, instr.api, pipe, gm.array, offset, n, write,
                                             atomic, self._emit, instr.where)

    def _copied_uninitialised(self, src, dst, runs, src_access):
        """A UB -> UB DataCopy of bytes that hold no written value copies them as they are, as a Reg load and store
        do (a copy of an uninitialised value is no error, its use is: port64f, ops-nn GlobalLpPool copies its rows'
        unwritten padding and rewrites it before any use): the read is not reported, and the destination bytes stay
        uninitialised, reported where something reads them. The runs are replayed in order on a copy of the shadow,
        as the copy moves them (a run may read an earlier run's destination: review64). Returns the destination
        bytes' shadow after the copy, or None when every source byte was written; the source access is then
        followed, not checked, for "init"."""
        if not self._follows_unwritten() or self.initialised[_addresses(src_access.addrs)].all():
            return None
        src_access.through_lanes = True
        pairs = [(np.arange(src.addr + s, src.addr + s + n, dtype=np.int64),
                  np.arange(dst.addr + d, dst.addr + d + n, dtype=np.int64)) for s, d, n in runs]
        arrays = (self.initialised, self.stored_from, self.derived_bits)
        if len(pairs) == 1:   # one run reads its source before it writes
            from_bytes, to_bytes = pairs[0]
            state = [None if array is None else array[from_bytes] for array in arrays]
            never = ~state[0] & (True if state[1] is None else state[1] < 0)
            return to_bytes, int(from_bytes[np.argmax(never)]) if never.any() else None, state
        # the shadow of the bytes the runs touch only (review64b: copying the whole shadow made such a copy 4x)
        touched = np.unique(np.concatenate([b for pair in pairs for b in pair]))
        state = [None if array is None else array[touched] for array in arrays]
        written, first_never = [], None
        for from_bytes, to_bytes in pairs:
            here, there = np.searchsorted(touched, from_bytes), np.searchsorted(touched, to_bytes)
            never = ~state[0][here] & (True if state[1] is None else state[1][here] < 0)
            if first_never is None and never.any():
                first_never = int(from_bytes[np.argmax(never)])
            for array in state:
                if array is not None:
                    array[there] = array[here]   # fancy indexing reads before it writes
            written.append(there)
        there = np.unique(np.concatenate(written))
        return touched[there], first_never, [None if array is None else array[there] for array in state]

    def _carry_uninitialised(self, instr, carried):
        """After the copy (_copied_uninitialised): its destination bytes take the replayed shadow; those copied from
        never-written bytes are the copy's, named with the first such source byte in the fix, and those a Reg store
        wrote from uninitialised lanes keep that store's record."""
        from . import lane_shadow
        to_bytes, first_never, (initialised, stored, bits) = carried
        self.initialised[to_bytes] = initialised
        if stored is not None:
            self.stored_from[to_bytes] = stored
        if bits is not None:
            self.derived_bits[to_bytes] = bits
        never = ~initialised & (True if stored is None else stored < 0)
        if never.any():
            count = int(never.sum())
            origin = lane_shadow.origin_index(self, instr, "src", first_never, count, fix=_COPIED_FIX.format(
                copy=instr, address=first_never, nbytes=count))
            self.lanes_stored(instr, to_bytes[never], origin)

    def gm_scalar_access(self, api, array, index, write):
        """GlobalTensor GetValue / SetValue: element `index` of GM `array` through the scalar unit, for the
        cross-block check and, with "device-sync", the core's own GM race check (_check_own_gm); `api` is
        ReadGmByPassDCache / WriteGmByPassDCache for those (the data-cache check: they bypass the cache)."""
        if self.dcache_on:
            size = array.itemsize
            root, offset = _root_and_offset(array)
            lo = offset + index * size
            self._dcache_event((_DCACHE_KINDS[api], root, ((lo, lo + size),)), self._named(api), PIPE_S)
        own = None
        if self._checks_own_gm():
            own = self._check_own_gm(api, PIPE_S, array, [(index * array.itemsize, array.itemsize)], write)
        if write:
            self._check_system_workspace(api, PIPE_S, array, [(index * array.itemsize, array.itemsize)])
        if self.gm_shadow is not None and self.enabled("blocks"):
            self.gm_shadow.gm_access(self.core.block_idx, self._named(api), PIPE_S, array,
                                     index * array.itemsize, array.itemsize, write, 0, self._emit)
        if own is not None:   # recorded once both checks passed: in "raise" mode a refused access leaves no trace
            instr = self.instruction(api, PIPE_S, [])
            self.gm_own.record(own, _S, instr.seq, int(self.clock[_S, _S]), write)

    def _dcache_event(self, event, api, pipe):
        """One event of the data-cache check (DcacheModel.apply): through the launch's shadow (its order), or this
        core's own model outside a launch."""
        instr = Instr(api, pipe, user_location(), -1)
        if self.gm_shadow is not None:
            self.gm_shadow.dcache_event(self.core.block_idx, event, instr, self._emit)
            return
        if self.dcache_model is None:
            self.dcache_model = DcacheModel(False)
        self.dcache_model.apply(0, 0, event, instr, self._emit)

    def dcache_clean(self, dst, entire, gm):
        """DataCacheCleanAndInvalid(dst) (sync.py): `entire` ENTIRE_DATA_CACHE, `gm` whether it covers GM lines (not
        dcci_dst CACHELINE_UB nor a LocalTensor dst)."""
        if not self.dcache_on or not gm:
            return
        root = lo = None
        array = getattr(dst, "array", None)
        if not entire and array is not None and array.size:
            root, lo = _root_and_offset(array)
        self._dcache_event(("dcci", root, lo, entire), "DataCacheCleanAndInvalid", PIPE_S)

    def _checks_own_gm(self):
        """"device-sync" follows the core's own GM bytes for "race": its pipe clocks count the queue events that
        order an in-place kernel's copy-in, compute and copy-out of the same GM bytes, which SPEC-2 10.4's hand-offs
        of UB bytes do not (docs/decisions.md "Sanitizer": a same-core GM race check)."""
        return self.config.device_sync and self.enabled("race")

    def _check_own_gm(self, api, pipe, array, runs, write):
        """Check one GM access of this core (runs of (byte offset in `array`, bytes)) against the core's earlier
        GM accesses of other pipes: RAW and WAW against the bytes' last writer (a copy-out, a SetValue) unless this
        pipe's clock is past it, WAR against a copy-in's read (a scalar read has its value before the unit issues
        anything later, as in the UB). Reported before anything is recorded; returns what `record` needs."""
        if self.gm_own is None:
            self.gm_own = _CoreGmShadow()
        p = _PIPE_INDEX[pipe]
        root, offset = _root_and_offset(array)
        spans = [(offset + start, offset + start + n) for start, n in runs if n > 0]
        found = self.gm_own.conflicts(root, spans, self.clock[p], p, write)
        if found:
            instr = Instr(self._named(api), pipe, user_location(), len(self.log))
            # which GM buffer, named as the UB's operands are (port64e: two arrays' reports read alike): the host
            # array, the address a byte of it, so a tiled loop's views of one array report as one hazard (review64)
            operand = f"{'tensor' if pipe == PIPE_S else 'dst' if write else 'src'} " \
                      f"(GM: a host array of {root.size} {root.dtype})"
            for kind, log_index, address, count, earlier_pipe, seq in found:
                # "device-sync"'s own flags: no queue event is MTE3 -> MTE2 or a GM access's pair (port64e)
                fix = _fix(PIPES[earlier_pipe], PIPES[p], True, self.core.spec.isasi_flags, queue=False)
                self._emit(Report("race", kind, instr, operand, address, count, earlier=self.log[log_index],
                                  fix=fix, space="GM"))
        return root, spans

    def system_workspace(self, workspace, reserved):
        """GetUserWorkspace(workspace) on this core: the first `reserved` bytes of `workspace` are the framework's
        system workspace (DK 资源管理/workspace/GetUserWorkspace.md; SyncAll's and the library APIs' scratch), which a
        GM write of this core is then reported into (check "memory"; port67d: IFMR kept its partial sums and its
        core-sync flags there, having passed the raw workspace on after asking for the user's part)."""
        if self.enabled("memory"):
            root, offset = _root_and_offset(workspace)
            spans = self.system_workspaces.setdefault(id(root), (root, []))[1]
            if (offset, offset + reserved) not in spans:   # two workspaces carved from one pool (review68) both count
                spans.append((offset, offset + reserved))

    def _check_system_workspace(self, api, pipe, array, runs):
        """A GM write (runs of (byte offset in `array`, bytes)) into a system workspace system_workspace recorded:
        reported at the workspace's first byte written, before the write (in "raise" mode it does not happen)."""
        if not self.system_workspaces:
            return
        root, offset = _root_and_offset(array)
        known = self.system_workspaces.get(id(root))
        if known is None or known[0] is not root:
            return
        for lo, hi in known[1]:
            inside = [(max(offset + s, lo), min(offset + s + n, hi)) for s, n in runs]
            inside = [(a, b) for a, b in inside if a < b]
            if not inside:
                continue
            reserved = hi - lo
            instr = Instr(self._named(api), pipe, user_location(), len(self.log))
            self._emit(Report(
                "memory", "write into the system workspace", instr,
                f"{'tensor' if pipe == PIPE_S else 'dst'} (GM: the kernel's workspace, whose first {reserved} bytes "
                "are the system workspace)", min(a for a, _ in inside) - lo, sum(b - a for a, b in inside),
                runs=len(inside), space="GM",
                fix=f"write the user's part, the GetUserWorkspace(workspace) view (its element 0 is the workspace's "
                    f"byte {reserved}); the first {reserved} bytes (RESERVED_WORKSPACE on {self.core.device}) "
                    "belong to the framework"))

    def _check_mte3_destination(self, api, gm, runs, atomic):
        """"strict" (SPEC-2 10.4, the devkit's PipeBarrier example): two UB -> GM copies whose GM destinations
        overlap need a PipeBarrier<PIPE_MTE3> (or PIPE_ALL) between them, as MTE2 copies into overlapping UB do
        (those are checked on the UB shadow). GM bytes are kept as runs (root array, [lo, hi), own-pipe clock value,
        log index) of the copies not yet ordered by a barrier; two atomic copies of one operation combine and need no
        order (an Add and a Max do not: their order changes the result). Returns
        this copy's runs on the GM root, recorded once the instruction is."""
        root, base = _root_and_offset(gm.array)
        ours = [(base + d, base + d + n) for _, d, n in runs if n > 0]
        p = _PIPE_INDEX[PIPE_MTE3]
        kept = [w for w in self._mte3_writes if w[3] > self.barrier_seq[p]]   # older ones are ordered by a barrier
        self._mte3_writes = kept
        for w_root, lo, hi, seq, log_index, w_atomic in kept:
            if w_root is not root or (atomic and w_atomic == atomic):
                continue
            for a, b in ours:
                if a < hi and lo < b:
                    first = max(a, lo)
                    instr = Instr(self._named(api), PIPE_MTE3, user_location(), len(self.log))
                    self._emit(Report("race", "WAW", instr, "dst", first, min(b, hi) - first,
                                      earlier=self.log[log_index], space="GM",
                                      fix="PipeBarrier(PIPE_MTE3) between them (their GM destinations overlap)"))
                    break
        return root, ours

    def _record_mte3_destination(self, gm_runs, instr, atomic):
        root, ours = gm_runs
        seq = int(self.clock[_PIPE_INDEX[PIPE_MTE3], _PIPE_INDEX[PIPE_MTE3]])
        self._mte3_writes += [(root, lo, hi, seq, instr.seq, atomic) for lo, hi in ours]

    def finish(self):
        """End of a kernel (aj.launch): event ids allocated and never released (check "sync")."""
        pipe = getattr(self.core, "tpipe", None)
        if pipe is None or not self.enabled("sync"):
            return
        for event, ids in sorted(getattr(pipe, "occupied", {}).items(), key=lambda kv: str(kv[0])):
            for event_id in sorted(ids):
                site = getattr(pipe, "alloc_sites", {}).get((event, event_id), "?")
                self._emit(Report("sync", "event id never released", Instr("AllocEventID", "-", site, -1),
                                  getattr(event, "name", str(event)), event_id, 0, space="event",
                                  fix=f"GetTPipePtr().ReleaseEventID({event_id}, {getattr(event, 'name', event)}) "
                                      "when the kernel no longer needs it"))

    # --- ordering events -----------------------------------------------------------------------------------------
    def set_flag(self, src_pipe, dst_pipe, event_id):
        if src_pipe in _PIPE_INDEX and dst_pipe in _PIPE_INDEX:
            self.flag_clocks[(src_pipe, dst_pipe, event_id)] = self.clock[_PIPE_INDEX[src_pipe]].copy()

    def wait_flag(self, src_pipe, dst_pipe, event_id):
        snapshot = self.flag_clocks.pop((src_pipe, dst_pipe, event_id), None)
        if snapshot is not None:
            d = _PIPE_INDEX[dst_pipe]
            np.maximum(self.clock[d], snapshot, out=self.clock[d])
            # the source pipe saw d's instructions up to snapshot[d] complete before it set the flag, so for "strict"
            # they are as ordered as by a PipeBarrier<d> (MTE2 -> V -> MTE2, V -> S -> V chains; docs/decisions.md)
            self.barrier_seq[d] = max(self.barrier_seq[d], snapshot[d])
            if d == _S:   # the scalar unit issues every later instruction after its wait returns (docs/decisions.md
                self.scalar_wait_clock = self.clock[_S].copy()   # "The device's synchronisation")
                # so for "strict" every pipe's own instructions the source had seen complete are ordered before the
                # pipe's later ones, as by a PipeBarrier of that pipe (port63e: MTE2 -> MTE2_S -> GetValue, then a
                # second copy into the same bytes); cross-pipe pairs keep SPEC-2 10.4's flags
                np.maximum(self.barrier_seq, snapshot, out=self.barrier_seq)
                if self.config.device_sync:
                    self.data_sync_barrier()

    def pipe_barrier(self, pipe):
        if pipe == "PIPE_ALL":
            merged = self.clock.max(axis=0)
            self.clock[:] = merged
            self.barrier_seq[:] = np.diagonal(self.clock)
        elif pipe in _PIPE_INDEX:
            p = _PIPE_INDEX[pipe]
            self.barrier_seq[p] = self.clock[p, p]

    def data_sync_barrier(self):
        """DataSyncBarrier<UB / ALL>: every later instruction, of any pipe, starts after the scalar pipe's earlier
        accesses (and what the scalar pipe had waited for): each pipe learns the scalar pipe's clock. For "strict",
        a pipe's own instructions the scalar pipe had seen complete are ordered as by a PipeBarrier of that pipe, as
        a WaitFlag orders them (wait_flag; docs/decisions.md "Sanitizer")."""
        scalar = self.clock[_S].copy()
        np.maximum(self.clock, scalar, out=self.clock)
        np.maximum(self.barrier_seq, scalar, out=self.barrier_seq)

    def device_orders(self, key, clock, reason):
        """A pair (source, destination pipe index) the device has between the accesses so far and later ones, which
        SPEC-2 10.4 does not count: for the fix of a report it would have ordered (_cross_pipe_fix)."""
        known = self.device_pair_clock.get(key)
        if known is None:
            self.device_pair_clock[key] = clock.copy(), reason
        else:   # the fix names the pair that orders the most (the newest, unless an older one's clock is ahead)
            newer = clock[key[0]] >= known[0][key[0]]
            self.device_pair_clock[key] = np.maximum(known[0], clock), reason if newer else known[1]

    def _queue_event(self, pipes):
        """The clock of a queue event's source pipe now, with its pipe pair (None for no event)."""
        if pipes is None or pipes[0] not in _PIPE_INDEX or pipes[1] not in _PIPE_INDEX:
            return None
        key = (_PIPE_INDEX[pipes[0]], _PIPE_INDEX[pipes[1]])
        return key, self.clock[key[0]].copy()

    def enqueued(self, pipes=None):
        """A TQue EnQue: the mark its DeQue's hand-off orders up to (`hand_off(..., since=mark)`), with the queue's
        EnQue -> DeQue event (`pipes`, source and destination pipe names; pipe.py _queue_pipes)."""
        return self, len(self.log) - 1, self._queue_event(pipes)

    def freed(self, buffer, pipes):
        """A TQue FreeTensor of `buffer`: its event (`pipes`, pipe.py _queue_pipes), which the buffer's next
        AllocTensor waits for on the device (allocated)."""
        self.freed_buffers.add(buffer)
        event = self._queue_event(pipes)
        if event is not None:
            self.free_events[buffer] = event

    def buffer_reset(self, buffer, pipes):
        """A queue buffer going back in a TPipe or TBufPool Reset, which waits on its FreeTensor event (`pipes`, None
        for a queue the devkit gives none) as its next AllocTensor would (allocated): with "device-sync" that
        event's order, else the hand-off of the buffer's bytes, the event named in a report's fix."""
        if self.config.device_sync and pipes is not None:
            self.wait_flag(*pipes, ("free", buffer))
            return
        if buffer in self.freed_buffers:   # a buffer never freed has no event to wait on (allocated)
            self.freed_buffers.discard(buffer)
            self.hand_off(buffer.addr, buffer.nbytes)
        event = self.free_events.pop(buffer, None)
        if event is not None:
            self._device_hand_off(event, "FreeTensor/Reset")

    def allocated(self, buffer, addr, nbytes):
        """A TQue AllocTensor of a buffer: a hand-off of its bytes (SPEC-2 10.4); on the device, the wait of its
        FreeTensor's event (freed), which orders every earlier access of the event's source pipe. A buffer's first
        AllocTensor after InitBuffer waits on nothing (no FreeTensor set its event), so it orders nothing: a write of
        its bytes before InitBuffer (InitGlobalMemory's stack buffer at UB byte 0, a hand-placed tensor) stays
        unordered with the queue's first users (port63j). A depth-0 queue's InitBuffer sets each buffer's event, so
        its buffers start out freed (TQue._bind)."""
        if buffer in self.freed_buffers:
            self.freed_buffers.discard(buffer)
            self.hand_off(addr, nbytes)
        event = self.free_events.pop(buffer, None)
        if event is not None:
            self._device_hand_off(event, "FreeTensor/AllocTensor")

    def _device_hand_off(self, event, calls):
        (q, p), clock = event
        self.device_orders((q, p), clock, f"the TQue {calls} between them is SetFlag/WaitFlag "
                                          f"{_SHORT[PIPES[q]]}_{_SHORT[PIPES[p]]} on the device, which orders every "
                                          f"earlier {PIPES[q]} access, not only its tensor's")

    def hand_off(self, addr, nbytes, since=None):
        """A TQue hand-off orders every earlier access to these bytes: AllocTensor after FreeTensor (and the Resets)
        every access so far; a DeQue (`since`, the mark of its EnQue) only those before the EnQue. SPEC-2 10.4 wants
        the EnQue/DeQue pair *between* the two accesses, so a write to an enqueued tensor (a second DataCopy into it,
        a vector op on an output already enqueued) stays unordered with the consumer's access after the DeQue. For
        "strict", a DeQue also orders its pipe's own earlier instructions that the EnQue's pipe had seen complete, as
        its pair's WaitFlag would (wait_flag)."""
        sl = slice(addr, addr + nbytes)
        if since is None:
            self.writer_pipe[sl] = -1
            self.writer_bits[sl] = 0
            self.writer_instr[sl] = len(self.log) - 1   # reads logged so far are before the hand-off: none counts
            return
        mark_owner, position, event = since
        if mark_owner is not self:   # the core started sanitizing after the EnQue: every access it saw came later
            return
        if event is not None:
            self._device_hand_off(event, "EnQue/DeQue")
            # "strict": the EnQue's pipe q had seen the DeQue's pipe p's instructions up to clock[p] complete, as a
            # WaitFlag's source had (wait_flag), so they are ordered before p's later ones as by a PipeBarrier<p>:
            # V -> V_MTE2 -> a copy-in -> EnQue/DeQue -> V is clean, as the same chain by flags (port68h2)
            (q, p), clock = event
            self.barrier_seq[p] = max(self.barrier_seq[p], clock[p])
        writer_pipe, writer_bits, writer_instr = self.writer_pipe[sl], self.writer_bits[sl], self.writer_instr[sl]
        before = writer_instr <= position    # last written (or handed off) before the EnQue
        writer_pipe[before] = -1
        writer_bits[before] = 0
        writer_instr[before] = position      # reads before the EnQue do not count; reads after it still do

    # --- initialisation ------------------------------------------------------------------------------------------
    def host_write(self, addr, nbytes):
        """`tensor[:] = array` is not an instruction (SPEC-2 §10.4): it initialises, and orders nothing."""
        self.initialised[addr:addr + nbytes] = True

    def undefine(self, addr, nbytes):
        """A buffer handed out, or bytes an instruction leaves undefined: uninitialised from now on."""
        self.initialised[addr:addr + nbytes] = False
        if self.stored_from is not None:
            self.stored_from[addr:addr + nbytes] = -1
        if self.derived_bits is not None:
            self.derived_bits[addr:addr + nbytes] = 0xFF

    def derived_uninitialised(self, derived):
        """Per Derived record, the output bytes computed from elements holding a never-written byte:
        [(operand, output bytes, the never-written bytes read, fix, their writers)], the clean records left out (and
        every record when the init check is off); a writer is a lane_stores index (a Reg store, or an earlier
        Compare / GatherMask, that wrote the byte from never-written bytes), -1 for a byte nothing wrote. Read before
        the instruction records its writes."""
        found = []
        if not self._follows_unwritten():
            return found
        store_loads = None   # made once a record reads bytes a Reg store wrote from marked lanes
        for d in derived:
            if d.src.size == 0 or self.initialised[int(d.src.min()):int(d.src.max()) + d.size].all():
                continue   # the span the elements lie in is all written: the per-element walk has nothing to find
            read = d.src[:, None] + np.arange(d.size)
            unwritten = ~self.initialised[read]
            bad = unwritten.any(axis=1)
            if not bad.any():
                continue
            # an element reading a byte a Reg store wrote from lanes loaded outside their tensor carries that load's
            # memory origin; the others' never-written bytes are the init check's (review66: one such byte had
            # given every output of the record the memory origin)
            origin = np.full(read.shape, -1, np.int64)
            if self.stored_from is not None:
                writer = np.where(unwritten, self.stored_from[read], -1)
                if (writer >= 0).any():
                    store_loads = self._outside_loads_of_stores() if store_loads is None else store_loads
                    origin = np.where(writer >= 0, store_loads[np.maximum(writer, 0)], -1)
            load_of = origin.max(axis=1)   # per element, the load named (the newer origin if two loads fed it)
            for pick, load in [(bad & (load_of < 0), None)] + [
                    (bad & (load_of == k), int(k)) for k in np.unique(load_of[load_of >= 0])]:
                if not pick.any():
                    continue
                outputs = np.unique((d.dst[pick][:, None] + np.arange(d.dst_size)).reshape(-1))
                bits = None
                if d.dst_bit is not None:   # the unknown bits of each output byte, of the elements that read one
                    bits = np.zeros(outputs.size, np.uint8)
                    np.bitwise_or.at(bits, np.searchsorted(outputs, d.dst[pick]),
                                     (1 << d.dst_bit[pick]).astype(np.uint8))
                read_bytes = np.unique(read[pick][unwritten[pick]])
                writers = (self.stored_from[read_bytes] if self.stored_from is not None else
                           np.full(read_bytes.size, -1, np.int32))
                found.append((d.operand, outputs, read_bytes, d.fix, writers, bits, load))
        return found

    def _outside_loads_of_stores(self):
        """Per lane_stores index, the ORIGINS index of the load whose lanes from outside its tensor the store wrote,
        else -1 (its values came from uninitialised bytes)."""
        from .lane_shadow import ORIGINS
        return np.array([k if ORIGINS[k].check == "memory" else -1 for _, k in self.lane_stores], np.int64)

    def mark_derived(self, instr, found):
        """The output bytes of derived_uninitialised stay uninitialised after `instr` wrote them, reported with it
        where something reads them (the Reg stores' record, lanes_stored: a count-form Compare compares whole
        256-byte blocks, SPEC-2 D44, and a normal-mode GatherMask gathers whole repeats, so a tile's pad lanes are
        read whatever the data's length; their results are harmless until read, port61a, port61g)."""
        from . import lane_shadow
        # computed from bytes stored from lanes loaded outside their tensor: that load's origin, which wins
        for _, outputs, _, _, _, bits, load in found:
            if load is not None:
                self.lanes_stored(instr, outputs, load, bits)
        found = [f[:6] for f in found if f[6] is None]
        if len(found) > 1:   # both sources of a Compare: one record naming both (the last had overwritten the first)
            unwritten, at = np.unique(np.concatenate([f[2] for f in found]), return_index=True)
            outputs = np.unique(np.concatenate([f[1] for f in found]))
            bits = None
            if all(f[5] is not None for f in found):   # a bit unknown from either source is unknown
                bits = np.zeros(outputs.size, np.uint8)
                for f in found:
                    bits[np.searchsorted(outputs, f[1])] |= f[5]
            found = [(" and ".join(f[0] for f in found), outputs, unwritten, found[0][3],
                      np.concatenate([f[4] for f in found])[at], bits)]
        for operand, outputs, unwritten, fix, writers, bits in found:
            if not self.enabled("init"):
                continue
            first, nbytes = int(unwritten[0]), int(unwritten.size)
            text = fix.format(operand=operand, address=first, nbytes=nbytes, unwritten=self._unwritten(writers))
            # kept as a Reg store's outputs are: uninitialised, with the instruction and the origin for the report
            self.lanes_stored(instr, outputs, lane_shadow.origin_index(self, instr, operand, first, nbytes, fix=text),
                              bits)

    def unknown_bits(self, addresses):
        """Per uninitialised UB byte of `addresses`, the bits holding no written value (a MaskReg load marks those
        alone): a Compare's bit byte of written and unwritten lanes names the unwritten lanes' bits (port62g: a tail
        of 9 floats left lane 8's written bit marked with lanes 9-15's), every other byte all eight."""
        if self.derived_bits is None:
            return np.full(addresses.size, 0xFF, np.uint8)
        return self.derived_bits[addresses]

    def _unwritten(self, writers):
        """How the bytes a Derived record read came to hold no written value, for its fix: never written (-1), or
        written by a Reg store (or an earlier Compare / GatherMask) from never-written bytes (lane_stores index k):
        that store is named, not called "nothing"."""
        from .lane_shadow import ORIGINS
        stored = writers[writers >= 0]
        if not stored.size:
            return "nothing had written"
        instr, origin = self.lane_stores[int(stored[0])]
        # lanes of a register no instruction wrote (lane_shadow.fresh) are no bytes (review 62)
        source = "lanes no instruction had written" if ORIGINS[origin].register else "never-written bytes"
        store = f"{instr} wrote from {source}"
        return store if stored.size == writers.size else f"nothing had written, or that {store}"

    def lanes_stored(self, instr, addresses, origin, bits=None):
        """Reg store `instr` wrote the UB bytes `addresses` from register lanes holding values computed from the
        uninitialised bytes of load `origin` (a lane_shadow.ORIGINS index): they stay uninitialised, remembered with
        the store and the load for the report of whatever reads them through an active lane (lane_shadow.py).
        `bits`: per byte, those of its bits that hold no written value (a MaskReg store's marked bits); None: all."""
        if self.stored_from is None:
            self.stored_from = np.full(self.initialised.size, -1, np.int32)
        self.initialised[addresses] = False
        self.stored_from[addresses] = len(self.lane_stores)
        self.lane_stores.append((instr, origin))
        if bits is not None and self.derived_bits is None:
            self.derived_bits = np.full(self.initialised.size, 0xFF, np.uint8)
        if self.derived_bits is not None:
            self.derived_bits[addresses] = 0xFF if bits is None else bits


def _pairs(addrs, earlier, conflict):
    """The conflicting bytes of one operand grouped by the earlier instruction (its log index in `earlier`, per
    byte), in the order of each group's first byte: (log index, first address, byte count) per unordered pair."""
    addrs, earlier = addrs[conflict], earlier[conflict]
    if earlier.size and earlier[0] == earlier[-1] and (earlier == earlier[0]).all():   # the common case: one pair
        return [(int(earlier[0]), int(addrs[0]), int(earlier.size))]
    indices, first, counts = np.unique(earlier, return_index=True, return_counts=True)
    return [(int(indices[j]), int(addrs[first[j]]), int(counts[j])) for j in np.argsort(first, kind="stable")]


def _runs_bytes(base, runs):
    if not runs:
        return np.zeros(0, np.int64)
    if len(runs) == 1:
        return run_bytes(base + runs[0][0], runs[0][1])
    return compact(np.unique(np.concatenate([np.arange(base + off, base + off + n, dtype=np.int64) for off, n in runs])))


# the pipe pairs a queue hand-off's own event orders under "device-sync" (pipe.py _queue_pipes)
_QUEUE_EVENT_PAIRS = {(PIPE_MTE2, PIPE_V), (PIPE_V, PIPE_MTE2), (PIPE_V, PIPE_MTE3), (PIPE_MTE3, PIPE_V),
                      (PIPE_MTE2, PIPE_MTE3), (PIPE_MTE3, PIPE_MTE2)}


_QUEUE_HANDOFF = ", or a TQue EnQue/DeQue hand-off"
_FILLS = ("InitGlobalMemory:", "Fill:")   # the composite's names (api/init_global_memory.py)
_FILL_BUFFER_NOTE = ("; InitGlobalMemory fills GM through a UB buffer of its own above the TPipe's buffers "
                     "initialised so far (the devkit's PopStackBuffer): a buffer initialised after the call can share "
                     "its bytes, so call InitGlobalMemory after the InitBuffers, or order the two with this flag")


def _fix(earlier_pipe, later_pipe, device_sync=False, isasi=True, queue=True):
    """The flag pair that orders the two pipes: the ISASI SetFlag/WaitFlag's HardEvent, or, on a device that does not
    offer it (D62: the 310B), the TQueSync of the same two pipes (SPEC-2 10.1: the same hardware flags). `queue`:
    a TQue hand-off may order the pair (UB bytes)."""
    event = f"{_SHORT[earlier_pipe]}_{_SHORT[later_pipe]}"
    queue = "" if not queue or device_sync and (earlier_pipe, later_pipe) not in _QUEUE_EVENT_PAIRS else \
        _QUEUE_HANDOFF
    flags = f"SetFlag/WaitFlag with aj.HardEvent.{event}" if isasi else \
        f"aj.TQueSync({earlier_pipe}, {later_pipe}).SetFlag/WaitFlag"
    return f"{flags} between them (or PipeBarrier(PIPE_ALL){queue})"


# --- the Reg API (ascend950, SPEC-2 11.6) --------------------------------------------------------------------------
def _mask_bits(words):
    """The 256 bits of a MaskReg (four uint64 words): bit i governs VL byte i (a lane of width w is on when the bit
    of its first byte is, as jit/reg.py lane_on reads it)."""
    return np.unpackbits(np.asarray(words, "<u8").view(np.uint8), bitorder="little").astype(np.bool_)


def _reg_load(addr, dist, size):
    from .jit import reg_move as mv
    if dist in (mv.L_DS_B8, mv.L_DS_B16):   # down-sampling: every other element feeds a lane, the rest is unused
        w = int(mv.LOAD_WIDTH[dist])
        return False, (addr + 2 * w * np.arange(256 // w)[:, None] + np.arange(w)).ravel()
    return False, run_bytes(addr, mv.LOAD_BYTES[dist])


def _reg_store(addr, dist, size, words):
    from .jit import reg_move as mv
    w = int(mv.STORE_WIDTH[dist]) or size
    if mv.S_FIRST_B8 <= dist <= mv.S_FIRST_B32:
        return True, run_bytes(addr, w)                  # lane 0, whatever the mask
    out = w // 2 if mv.S_PACK_B16 <= dist <= mv.S_PACK_B64 else 1 if dist == mv.S_PACK4_B32 else w
    lanes = np.nonzero(_mask_bits(words)[::w])[0]
    return True, (addr + lanes[:, None] * out + np.arange(out)).ravel()


def _block_copy_base(addr, size, repeat_stride, post_mode):
    """DATA_BLOCK_COPY (D68): the first block's address (POST_MODE_NORMAL steps before the access)."""
    from .jit import reg_move as mv
    return addr if post_mode == mv.POST_UPDATE else addr + (repeat_stride * 32 // size) * size


def _reg_blocks(addr, size, block_stride, words, repeat_stride, post_mode, write, reg_size):
    """The active lanes (stores) or every byte of each block with an active lane (loads) of a DATA_BLOCK_COPY."""
    base = _block_copy_base(addr, size, repeat_stride, post_mode)
    bits = _mask_bits(words)[::reg_size]                  # one bit per lane
    lanes_per_block = 32 // reg_size
    lanes = np.arange(bits.size)
    chosen = lanes[bits] if write else lanes[np.repeat(bits.reshape(8, lanes_per_block).any(axis=1), lanes_per_block)]
    starts = base + (chosen // lanes_per_block) * block_stride * 32 + (chosen % lanes_per_block) * reg_size
    return write, (starts[:, None] + np.arange(reg_size)).ravel()


_REG_FORMS = {
    "load": lambda a, size, dist, reg_size: _reg_load(a, dist, size),
    "load_dual": lambda a, size: (False, run_bytes(a, 512)),
    "store": lambda a, size, dist, reg_size, words: _reg_store(a, dist, reg_size, words),
    "store_dual": lambda a, size: (True, run_bytes(a, 512)),
    "load_blocks": lambda a, size, *blk: _reg_blocks(a, size, *blk[:4], False, blk[4]),
    "store_blocks": lambda a, size, *blk: _reg_blocks(a, size, *blk[:4], True, blk[4]),
    "load_mask": lambda a, size, dist: (False, run_bytes(a, (32, 16, 64)[dist])),      # MaskDist NORM, US, DS
    "store_mask": lambda a, size, dist: (True, run_bytes(a, 16 if dist == 3 else 32)),  # NORM, PACK (even bits)
    "load_unalign": lambda a, size: (False, run_bytes(a, 256)),
    "store_unalign": lambda a, size, nbytes: (True, run_bytes(a, nbytes)),
}


def reg_undo(tensor, *arrays, ub=False, mask_reg=None):
    """Taken before a Reg load or store on a sanitizing core in "raise" mode (None otherwise): what the operation is
    about to change (the register or UnalignReg arrays, a MaskReg's words, for stores the tensor's bytes, or the UB on
    a bounds="ub" core), so that a report, which can only be made after the operation ran (reg_access), still
    leaves everything as it was (SPEC-2 1.5: a refused call changes nothing)."""
    sanitizer = tensor.core.sanitizer
    if sanitizer is None or sanitizer.config.mode != "raise":
        return None
    if ub:
        core = tensor.core
        lo, hi = (0, core.ub.size) if core.bounds == "ub" else (tensor.addr, tensor.addr + tensor.nbytes)
        arrays = (core.ub[lo:hi], *arrays)
    saved = [(a, a.copy()) for a in arrays]
    words, fresh = (None, None) if mask_reg is None else (mask_reg.words, mask_reg._fresh)

    def undo():
        for a, copy in saved:
            a[:] = copy
        if mask_reg is not None:
            mask_reg.words, mask_reg._fresh = words, fresh
    return undo


def reg_access(api, tensor, form, offset, *args, undo=None, registers=(), run=None, handle=None, mask=None):
    """One Reg load or store (PIPE_V) through the sanitizer, called right after the operation ran (so its own
    refusals, alignment and bounds, come first). `form` names the footprint: the bytes that feed register lanes
    (loads) or that lanes write (stores, active lanes only), at byte tensor.addr + offset * sizeof(T):

        load (dist, register element size)          load_dual / store_dual: 2 VL bytes
        store (dist, register element size, mask words)
        load_blocks / store_blocks (block_stride, mask words, repeat_stride, post_mode, register element size)
        load_mask / store_mask (MaskDist)           load_unalign: VL bytes       store_unalign (bytes)

    StoreUnAlign reports the lanes it stores even where the hardware holds them in the UnalignReg until a later
    StoreUnAlign/StoreUnAlignPost (both are PIPE_V, so the ordering against other pipes is the same). `undo`
    (reg_undo) restores what the operation changed when the report raises.

    `registers`: the RegTensors loaded or stored, or the MaskReg (the load_mask / store_mask forms), whose lanes or
    bits carry the init check, and on a bounds="ub" core the memory check (lane_shadow.py): a load marks the lanes or
    bits its uninitialised bytes, or its bytes outside the tensor, feed instead of being reported, and the bytes a
    store writes from marked lanes or bits stay uninitialised (lanes_stored), as do those a store's lanes under
    marked bits of its `mask` (a MaskReg) may write. `run(handle, *register_arrays)` (a MaskReg's forms: `run(handle,
    words)`) replays the operation through another handle like `handle`, the operation's (None: the unaligned forms,
    whose bytes map to lanes one to one from the element address); a store's takes `selected=` words in place of its
    mask's."""
    from . import lane_shadow   # here: it imports jit/reg.py, which imports this module
    size = tensor.dtype.size
    start = tensor.addr + offset * size
    write, addrs = _REG_FORMS[form](start, size, *args)
    if not isinstance(addrs, slice):
        addrs = compact(np.unique(addrs))
    sanitizer = tensor.core.sanitizer
    # on a bounds="ub" core the memory check follows the lanes too: a load's bytes outside its tensor, into data
    # registers' lanes or a MaskReg's bits (session 67)
    memory_lanes = bool(registers) and sanitizer.enabled("memory") and tensor.core.bounds == "ub"
    # "strict" inside a VF: a data-register load's same-pipe RAW against the VF's own stores is followed through the
    # lanes and reported where such a lane is stored (Sanitizer.deferred_strict_reads)
    race_lanes = bool(registers) and not write and form not in ("load_mask", "store_mask") and \
        sanitizer.config.strict and sanitizer.enabled("race") and sanitizer.vf_depth > 0 and sanitizer.vf_scopes
    lanes_checked = bool(registers) and (sanitizer.enabled("init") or memory_lanes or race_lanes)
    outside = None
    if memory_lanes and not write:
        lo, hi = tensor.addr, tensor.addr + tensor.nbytes
        outside = _outside(addrs, lo, hi)
    uninitialised = None
    if lanes_checked and not write and sanitizer._follows_unwritten():   # a slice: asked without an index array
        uninitialised = (np.flatnonzero(~sanitizer.initialised[addrs]) + addrs.start if isinstance(addrs, slice) else
                         addrs[~sanitizer.initialised[addrs]])
        if outside is not None and outside.size:   # a byte outside and uninitialised: the memory origin wins
            uninitialised = uninitialised[(uninitialised >= lo) & (uninitialised < hi)]
    recorded = addrs
    if outside is not None and outside.size:
        # the bytes outside the tensor are neither checked for races nor recorded as read (port66c: a masked tail
        # load over bytes a prefetch DataCopy is filling): unused they cannot matter, used they are the memory report
        recorded = _inside(addrs, lo, hi)
    access = Access("tensor", write, recorded, tensor, through_lanes=bool(registers),
                    outside_through_lanes=outside is not None)
    accesses = [access]
    racing = sanitizer.racing_in_vf(recorded) if race_lanes and _count(recorded) else None
    if racing is not None and racing.size:   # those bytes are checked as any, but for the strict same-pipe RAW
        access.addrs = compact(np.setdiff1d(_addresses(recorded), racing, assume_unique=True))
        accesses.append(Access("tensor", False, compact(racing), tensor, through_lanes=True,
                               outside_through_lanes=outside is not None, strict_through_lanes=True))
    try:
        instr = sanitizer.instruction(api, PIPE_V, accesses)
    except SanitizerError:
        if undo is not None:   # "raise" mode: the refused operation leaves the UB and its registers unchanged
            undo()
        raise
    if not registers:
        return
    if not lanes_checked:
        if not write and lane_shadow.MARKING:
            lane_shadow.clear(*registers)
        return
    window = None
    if run is not None:
        # the footprint's span, from the element address (DATA_BLOCK_COPY may start before it) to at least the two
        # registers' bytes its checks cover (a down-sampling load checks 512 bytes and reads every other element)
        span = ((addrs.start, addrs.stop) if isinstance(addrs, slice) else (int(addrs[0]), int(addrs[-1]) + 1)
                if _count(addrs) else (start, start))
        window = lane_shadow.Window(handle, min(start, span[0]), min(max(span[1], start + 2 * lane_shadow.VL),
                                                                      handle[5]))
    mask_form = form in ("load_mask", "store_mask")
    if write and mask_form:   # the bytes written from marked bits stay uninitialised, those bits unknown
        stored = lane_shadow.mask_stored_bytes(registers[0], run, window)
        if stored:   # a byte holding two origins' bits: either's are unknown
            written = np.unique(np.concatenate([addresses for _, addresses, _ in stored]))
            unknown = np.zeros(written.size, np.uint8)
            for _, addresses, bits in stored:
                np.bitwise_or.at(unknown, np.searchsorted(written, addresses), bits)
            for origin, addresses, _ in stored:
                sanitizer.lanes_stored(instr, addresses, origin, unknown[np.searchsorted(written, addresses)])
    elif write:   # the bytes written from marked lanes stay uninitialised
        for origin, addresses in (lane_shadow.leading_bytes(registers[0], args[0], start) if run is None else
                                  lane_shadow.stored_bytes(registers, run, window, mask)):
            if lane_shadow.ORIGINS[origin].check == "race":   # a racing load's values reach the UB: its reports
                try:
                    sanitizer.emit_deferred(lane_shadow.ORIGINS[origin])
                except SanitizerError:
                    if undo is not None:
                        undo()
                    raise
                continue
            sanitizer.lanes_stored(instr, addresses, origin)
    else:
        groups = _origin_groups(sanitizer, instr, uninitialised, _MASK_LOADED_FIX if mask_form else None)
        if outside is not None and outside.size:
            text = _OUTSIDE_BITS_FIX if mask_form else _OUTSIDE_LANES_FIX
            groups.insert(0, (lane_shadow.origin_index(sanitizer, instr, "tensor", int(outside[0]), int(outside.size),
                                                       fix=text.format(
                                                           load=instr, operand="tensor", lo=lo, hi=hi,
                                                           address=int(outside[0]), nbytes=int(outside.size)),
                                                       check="memory"), outside))
        if racing is not None and racing.size:   # after the other groups: a byte also theirs keeps their origin
            reports = sanitizer.deferred_strict_reads(instr, racing)
            if reports:
                groups.append((lane_shadow.origin_index(sanitizer, instr, "tensor", int(racing[0]), int(racing.size),
                                                        check="race", reports=reports), racing))
        if mask_form:
            lane_shadow.mask_loaded(registers[0], run, window, groups, _outside_whole(sanitizer, lo, hi)
                                    if outside is not None and outside.size else sanitizer.unknown_bits)
        elif run is None:   # LoadUnAlign: register byte i from UB byte start + i
            origin = np.full(lane_shadow.VL, -1, np.int32)
            for index, addresses in groups:
                origin[addresses - start] = index
            lane_shadow.mark(registers[0], origin)
        else:
            lane_shadow.loaded(registers, run, window, groups)


def _outside_whole(sanitizer, lo, hi):
    """Sanitizer.unknown_bits for a MaskReg load of the tensor [lo, hi) that read past it: every bit of a byte outside
    it is unknown (the memory check's), whatever the byte's shadow says (a Compare's bit byte names its unwritten
    lanes' bits alone, and a written byte's bits are stale)."""
    return lambda addresses: np.where((addresses < lo) | (addresses >= hi), np.uint8(0xFF),
                                      sanitizer.unknown_bits(addresses))


def _origin_groups(sanitizer, instr, addresses, own_fix=None):
    """A load's uninitialised bytes `addresses` as [(lane_shadow.ORIGINS index, addresses)]: the bytes a Reg store
    wrote from marked lanes keep the load their values came from; the never-written ones are this load's own (its
    reports' fix `own_fix` formatted with the load and its bytes; None: the data-register texts)."""
    from . import lane_shadow
    if addresses is None or not addresses.size:   # None: not asked (neither check follows such bytes here)
        return []
    stored = (sanitizer.stored_from[addresses] if sanitizer.stored_from is not None else
              np.full(addresses.size, -1, np.int32))
    # never-written bytes are the init check's alone (the memory check follows bytes stored from outside lanes)
    own = addresses[stored < 0] if sanitizer.enabled("init") else addresses[:0]
    fix = own_fix and own_fix.format(load=instr, address=int(own[0]), nbytes=int(own.size)) if own.size else None
    groups = [(lane_shadow.origin_index(sanitizer, instr, "tensor", int(own[0]), int(own.size), fix=fix), own)
              ] if own.size else []
    return groups + [(sanitizer.lane_stores[k][1], addresses[stored == k]) for k in np.unique(stored[stored >= 0])]


# --- GM across blocks -----------------------------------------------------------------------------------------------
GM_PAGE_BYTES = 1 << 16   # the GM shadow is kept per page of this many bytes, made when a block first touches it


@dataclass
class _GmShadow:
    """The shadow of one GM page (21 bytes per GM byte): made on first touch, so a launch over a large GM array or
    workspace pays for the bytes its blocks access, not for the whole array (a 16 MiB workspace took 280 MB). Plain
    and atomic writers are kept apart: a plain write of the phase races every other block's write, whatever writes
    come after it (docs/decisions.md "Sanitizer", session 62: a block's own plain write had replaced another
    block's as the byte's one writer, hiding that block's plain write from the atomic add after it)."""
    plain_block: np.ndarray       # the block that wrote the byte plainly in the phase (-1: none; -2: several blocks)
    atomic_block: np.ndarray      # the block that wrote it atomically in the phase (-1: none; -2: several blocks)
    atomic_code: np.ndarray       # the atomic writes' operation code (_atomic_code) if they share one, else 0
    writer_epoch: np.ndarray      # the SyncAll phase of those marks
    reader_block: np.ndarray      # last reader block (-2: several blocks)
    reader_epoch: np.ndarray

    @classmethod
    def new(cls):
        n = GM_PAGE_BYTES
        return cls(np.full(n, -1, np.int32), np.full(n, -1, np.int32), np.zeros(n, np.int8), np.zeros(n, np.int32),
                   np.full(n, -1, np.int32), np.zeros(n, np.int32))


class _GmAccessLog:
    """The GM accesses the blocks check has checked, in the order it checked them ("raise": as the blocks made them;
    "report": the replay's (SyncAll phase, block, program) order), as numpy columns: a report names the other
    block's access it conflicts with (`Report.earlier`), found by searching back from the newest (rare: reports
    only), so the per-byte shadow holds no access index."""

    def __init__(self):
        self.instrs = []      # one Instr per access, shared by accesses of one (api, pipe, line)
        self._interned = {}
        self.epoch, self.block = np.zeros(1024, np.int32), np.zeros(1024, np.int32)
        self.root, self.lo, self.hi = np.zeros(1024, np.int64), np.zeros(1024, np.int64), np.zeros(1024, np.int64)
        self.write, self.code = np.zeros(1024, np.bool_), np.zeros(1024, np.int8)

    _COLUMNS = ("epoch", "block", "root", "lo", "hi", "write", "code")

    def add(self, epoch, block, root, lo, nbytes, write, atomic, api, pipe, where):
        n = len(self.instrs)
        if n == self.epoch.size:   # grow by doubling: appends stay amortised O(1)
            for name in self._COLUMNS:
                column = getattr(self, name)
                setattr(self, name, np.concatenate([column, np.zeros_like(column)]))
        key = (api, pipe, where)
        instr = self._interned.get(key)
        if instr is None:
            instr = self._interned[key] = Instr(api, pipe, where, -1)
        self.instrs.append(instr)
        for name, value in zip(self._COLUMNS, (epoch, block, id(root), lo, lo + nbytes, write, atomic)):
            getattr(self, name)[n] = value

    def latest_conflicting(self, root, byte, block, epoch, write, atomic, with_writes):
        """The index of the newest access of another block in `epoch` to `byte` of `root` that an access (`write`,
        `atomic` code) of `block` conflicts with: a write (with_writes: plain, or atomic of another operation when
        this access writes) or a read; None if none is logged (a byte whose atomic writes of different operations
        already met: the shadow's mark no longer says whose they were)."""
        stop, chunk = len(self.instrs), 1024
        while stop > 0:
            window = slice(max(0, stop - chunk), stop)
            hit = ((self.epoch[window] == epoch) & (self.block[window] != block) & (self.root[window] == id(root)) &
                   (self.lo[window] <= byte) & (self.hi[window] > byte) & (self.write[window] == with_writes))
            if with_writes and write and atomic:
                codes = self.code[window]
                hit &= (codes == 0) | (codes != atomic)
            found = np.flatnonzero(hit)
            if found.size:
                return window.start + int(found[-1])
            stop, chunk = window.start, chunk * 2
        return None


def _page_spans(lo, hi):
    """(page index, slice of the page, the page's first byte) for each GM page the bytes [lo, hi) touch."""
    for index in range(lo // GM_PAGE_BYTES, (hi - 1) // GM_PAGE_BYTES + 1):
        base = index * GM_PAGE_BYTES
        yield index, slice(max(lo, base) - base, min(hi, base + GM_PAGE_BYTES) - base), base


class _OwnGmPage:
    """One GM page of a core's own accesses (_CoreGmShadow): its bytes' last writer (pipe, own-pipe clock, log
    index), made at the page's first write, and their last copy-in read (clock, log index), made at its first read:
    an input only read costs 8 bytes a byte and no RAW check, an output only written 9 and no WAR check."""
    __slots__ = ("writer_pipe", "writer_seq", "writer_instr", "read_seq", "read_instr")

    def __init__(self):
        self.writer_pipe = self.writer_seq = self.writer_instr = self.read_seq = self.read_instr = None


class _CoreGmShadow:
    """One core's GM accesses for "device-sync"'s same-core race check (Sanitizer._check_own_gm), per GM page touched
    (_OwnGmPage). The host arrays are held weakly: a long-lived core does not keep every GM array it copied alive."""

    def __init__(self):
        self.roots = {}   # id(root) -> (weakref to root, {page index: _OwnGmPage})

    def _pages(self, root, lo, hi, make):
        entry = self.roots.get(id(root))
        if entry is None or entry[0]() is not root:
            if not make:
                return
            key = id(root)
            entry = self.roots[key] = (weakref.ref(root, lambda _, key=key: self.roots.pop(key, None)), {})
        pages = entry[1]
        for index, sl, base in _page_spans(lo, hi):
            page = pages.get(index)
            if page is None:
                if not make:
                    continue
                page = pages[index] = _OwnGmPage()
            yield page, sl, base

    def conflicts(self, root, spans, clock, p, write):
        """The unordered pairs of an access of pipe p (its clock row `clock`) to the byte spans [lo, hi) of root:
        (kind, earlier log index, first byte on root, bytes, earlier pipe, earlier own-pipe clock) per pair."""
        addresses, earlier, kinds = [], [], []
        for page, sl, base in (found for lo, hi in spans for found in self._pages(root, lo, hi, False)):
            hits = []
            if page.writer_pipe is not None:
                wp = page.writer_pipe[sl].astype(np.int64)
                unordered = (wp >= 0) & (wp != p) & (clock[np.maximum(wp, 0)] < page.writer_seq[sl])
                hits.append((False, unordered, page.writer_instr))
            if write and p != _MTE2 and page.read_seq is not None:
                # a copy-in's read the write is not ordered after, newer than the bytes' last write
                war = page.read_seq[sl] > clock[_MTE2]
                if page.writer_instr is not None:
                    war &= page.read_instr[sl] > page.writer_instr[sl]
                hits.append((True, war, page.read_instr))
            for is_war, hit, log in hits:
                if hit.any():
                    where = np.flatnonzero(hit)
                    addresses.append(base + sl.start + where)
                    earlier.append(log[sl][where].astype(np.int64))
                    kinds.append(np.full(where.size, is_war, np.bool_))
        if not addresses:
            return []
        addresses, earlier, is_war = np.concatenate(addresses), np.concatenate(earlier), np.concatenate(kinds)
        found = []
        for war in (False, True):
            for log_index, address, count in _pairs(addresses, earlier, is_war == war):
                found.append(("WAR" if war else "WAW" if write else "RAW", log_index, address, count))
        return [f + self._earlier_pipe(root, f[2], f[0] == "WAR") for f in found]

    def _earlier_pipe(self, root, address, war):
        """(pipe index, own-pipe clock) of the earlier access a pair names, at its first byte."""
        page = self.roots[id(root)][1][address // GM_PAGE_BYTES]
        i = address % GM_PAGE_BYTES
        return (_MTE2, int(page.read_seq[i])) if war else (int(page.writer_pipe[i]), int(page.writer_seq[i]))

    def record(self, checked, p, log_index, own_clock, write):
        """After the instruction (its log index, pipe p's own clock value): its writes become the bytes' last writer,
        a copy-in's reads their last read (a scalar read starts no WAR: nothing to keep)."""
        if not write and p != _MTE2:
            return
        root, spans = checked
        n = GM_PAGE_BYTES
        for page, sl, _ in (found for lo, hi in spans for found in self._pages(root, lo, hi, True)):
            if write:
                if page.writer_pipe is None:
                    page.writer_pipe, page.writer_seq = np.full(n, -1, np.int8), np.zeros(n, np.int32)
                    page.writer_instr = np.full(n, -1, np.int32)
                page.writer_pipe[sl], page.writer_seq[sl], page.writer_instr[sl] = p, own_clock, log_index
            else:
                if page.read_seq is None:
                    page.read_seq, page.read_instr = np.zeros(n, np.int32), np.full(n, -1, np.int32)
                page.read_seq[sl], page.read_instr[sl] = own_clock, log_index


@dataclass
class LaunchShadow:
    """GM shadow shared by the blocks of one sanitized launch (check "blocks").

    Which of two conflicting accesses of different blocks comes second (and is reported) follows the host threads'
    timing. "raise" mode checks each access as it happens, so the offending access raises before it writes (which
    block raises may vary; that one does is certain). "report" mode logs the accesses and checks them when the launch
    ends (`replay`), in the order (SyncAll phase, block, program order): the same kernel gives the same reports, in
    number, access, earlier access and address, whatever the timing; a kernel's reports can be pinned in CI."""
    config: SanitizeConfig
    has_sync_all: bool = True   # the device offers a SyncAll form (the 310B offers none: the fix must not name it)
    lock: threading.Lock = field(default_factory=threading.Lock)
    arrays: dict = field(default_factory=dict)
    epochs: dict = field(default_factory=dict)     # block index -> SyncAlls passed
    log: list = field(default_factory=list)        # "report" mode: the accesses to check at the end
    checked: _GmAccessLog = field(default_factory=_GmAccessLog)   # what reports name as the other block's access
    dcache: object = None   # the launch's DcacheModel (check "dcache"), made at its first event

    def _pages(self, root, lo, hi):
        """(page shadow, slice of it, the page's first byte) for each GM page the bytes [lo, hi) of root touch."""
        entry = self.arrays.get(id(root))
        if entry is None:   # the root stays referenced, so its id is not reused during the launch
            entry = self.arrays[id(root)] = (root, {})
        pages = entry[1]
        for index, sl, base in _page_spans(lo, hi):
            page = pages.get(index)
            if page is None:
                page = pages[index] = _GmShadow.new()
            yield page, sl, base

    def sync_all(self, block):
        with self.lock:
            self.epochs[block] = self.epochs.get(block, 0) + 1

    def dcache_event(self, block, event, instr, emit):
        """One event of the data-cache model (DcacheModel.apply) by `block`: checked now ("raise"), or logged for the
        replay in the blocks check's order ("report")."""
        with self.lock:
            epoch = self.epochs.get(block, 0)
            if self.config.mode == "report":
                self.log.append((epoch, block, len(self.log), None, event, instr, emit))
                return
            self._dcache().apply(block, epoch, event, instr, emit)

    def _dcache(self):
        if self.dcache is None:
            self.dcache = DcacheModel(True)
            self.dcache.has_sync_all = self.has_sync_all
        return self.dcache

    def gm_access(self, block, api, pipe, array, start, nbytes, write, atomic, emit, where=None):
        """One GM access of `nbytes` bytes at byte `start` of host array `array` (any view) by `block` in `pipe`;
        `where` is the instruction's source line (found here when not given)."""
        root, offset = _root_and_offset(array)
        lo = offset + start
        where = where or user_location()
        with self.lock:
            epoch = self.epochs.get(block, 0)
            if self.config.mode == "report":
                self.log.append((epoch, block, len(self.log), root, lo, nbytes, write, atomic, api, pipe, where, emit))
                return
            found = self._check_and_record(root, block, epoch, lo, nbytes, write, atomic)
            earlier = self._earlier(found, root, block, epoch, write, atomic)
            self.checked.add(epoch, block, root, lo, nbytes, write, atomic, api, pipe, where)
        if found is not None:
            self._report(found, earlier, block, atomic, api, pipe, where, emit, write)

    def replay(self):
        """"report" mode, at the end of the launch: check the logged accesses in (SyncAll phase, block, program
        order) and emit their reports through each block's core."""
        log, self.log = sorted(self.log, key=lambda e: e[:3]), []
        for entry in log:
            if entry[3] is None:   # a data-cache event (dcache_event)
                epoch, block, _, _, event, instr, emit = entry
                self._dcache().apply(block, epoch, event, instr, emit)
                continue
            epoch, block, _, root, lo, nbytes, write, atomic, api, pipe, where, emit = entry
            found = self._check_and_record(root, block, epoch, lo, nbytes, write, atomic)
            earlier = self._earlier(found, root, block, epoch, write, atomic)
            self.checked.add(epoch, block, root, lo, nbytes, write, atomic, api, pipe, where)
            if found is not None:
                self._report(found, earlier, block, atomic, api, pipe, where, emit, write)

    def _earlier(self, found, root, block, epoch, write, atomic):
        """The logged access of another block a conflict `found` (_check_and_record) is with, at its first byte, as
        (Instr, block, atomic code or None for a read); None when there is no conflict or none is logged."""
        if found is None:
            return None
        byte, with_writes = found[1], found[3]
        index = self.checked.latest_conflicting(root, byte, block, epoch, write, atomic, with_writes)
        if index is None:
            return None
        log = self.checked
        other = int(log.block[index])
        return (dataclasses.replace(log.instrs[index], block=other), other,
                int(log.code[index]) if with_writes else None)

    def _check_and_record(self, root, block, epoch, lo, nbytes, write, atomic):
        """Check one access against the other blocks' accesses of its SyncAll phase, then record it; returns
        (kind, first conflicting byte on root, conflicting bytes, whether that byte conflicts with a write) or None.
        Page by page: each page's check reads only its own bytes, so checking and recording one page before the next
        sees the same state."""
        # the first conflicting byte, and the first that conflicts with another block's write: a write's report is
        # "two blocks write" when any byte does, and then names that byte's writer, not a reader of an earlier byte
        first, first_clash, count, writes_clash = None, None, 0, False
        if nbytes <= 0:
            return None
        for s, sl, base in self._pages(root, lo, lo + nbytes):
            in_phase = s.writer_epoch[sl] == epoch
            plain = np.where(in_phase, s.plain_block[sl], -1)
            atomic_writer = np.where(in_phase, s.atomic_block[sl], -1)
            codes = s.atomic_code[sl]
            # -2 (several blocks) always includes another block
            other_plain = (plain == -2) | ((plain >= 0) & (plain != block))
            other_atomic = (atomic_writer == -2) | ((atomic_writer >= 0) & (atomic_writer != block))
            if write:
                # atomic writes of one operation (and dtype) combine in any order; an Add and a Max of one byte do
                # not, and a plain write races every other block's write
                clash = other_plain | other_atomic & ((codes != atomic) | (atomic == 0))
                rb, re_ = s.reader_block[sl], s.reader_epoch[sl]
                bad = clash | ((rb != -1) & (rb != block) & (re_ == epoch))
                writes_clash = writes_clash or bool(clash.any())
                with_write = clash
            else:
                bad = with_write = other_plain | other_atomic
            if bad.any():
                count += int(bad.sum())
                if first is None:
                    k = int(np.argmax(bad))
                    first = (base + sl.start + k, bool(with_write[k]))
                if write and first_clash is None and clash.any():
                    first_clash = (base + sl.start + int(np.argmax(clash)), True)
            if write:
                # a block's write after another block's of the phase makes the mark "several" (-2): every later write
                # of the phase, its own included, stays unordered against the other block's (session 62)
                if atomic:
                    s.atomic_code[sl] = np.where((atomic_writer == -1) | (codes == atomic), atomic, 0)
                    s.atomic_block[sl] = np.where((atomic_writer == -1) | (atomic_writer == block), block, -2)
                    s.plain_block[sl] = plain
                else:
                    s.plain_block[sl] = np.where((plain == -1) | (plain == block), block, -2)
                    s.atomic_block[sl] = atomic_writer
                s.writer_epoch[sl] = epoch
            else:
                rb = s.reader_block[sl]
                # -2 (several blocks read it this phase) stays -2: a third reader used to overwrite it with its own
                # index, so that reader's later write looked like a write after its own read only
                several = ((rb >= 0) & (rb != block) | (rb == -2)) & (s.reader_epoch[sl] == epoch)
                s.reader_block[sl] = np.where(several, -2, block)
                s.reader_epoch[sl] = epoch
        if first is None:
            return None
        first = first_clash or first
        # a read and a write of one byte by two blocks is the same conflict whichever ran first
        kind = "two blocks write the same GM bytes" if writes_clash else "a block reads GM bytes another block writes"
        return (kind, first[0], count, first[1])

    def _report(self, found, earlier, block, atomic, api, pipe, where, emit, write):
        kind, addr, count, _ = found
        earlier_instr, other, other_atomic = earlier if earlier is not None else (None, -1, None)
        others = f"block {other}" if other >= 0 else "at least one other block"
        order = "a SyncAll between them" if self.has_sync_all else \
            "separate launches (this device offers no SyncAll)"
        if other_atomic is not None and (atomic or other_atomic) and kind.startswith("two blocks write"):
            # one of the two writes is atomic: SetAtomicAdd is not the missing piece (port54b: an InitGlobalMemory
            # fill by block 0, then every block's atomic add, with no SyncAll after the fill)
            fix = (f"block {block}'s write is {_atomic_text(atomic)} and {others}'s {_atomic_text(other_atomic)} "
                   "in the same SyncAll phase: atomic writes combine only with atomic writes of one operation and "
                   f"dtype; order the other writes (a fill of the buffer, say) before them with {order}")
        elif kind.startswith("a block reads"):
            # port57f (ops-cv Rasterizer: each block writes its share of a mask, then reads all of it): an atomic
            # write orders nothing against a read, so SetAtomicAdd is not offered as a fix here
            # which block writes and which reads: the pair's order in the text is the replay's, not the device's
            roles = (f"block {block} writes these bytes and {others} reads them" if write else
                     f"block {block} reads these bytes and {others} writes them")
            fix = f"{roles} in the same SyncAll phase: order the write and the read with {order}"
        else:
            # port64a: the devkit's Axpy example has every block write the whole output; atomic adds of it would
            # sum the blocks' copies, so the block's own share comes first
            fix = (f"block {block} and {others} write these bytes in the same SyncAll phase: give each block its "
                   "own share of the output (an offset by GetBlockIdx()) if they write the same values; SetAtomicAdd "
                   "if their writes are meant to combine (one atomic operation: an Add and a Max do not combine); "
                   f"or {order}")
            if api.startswith(_FILLS) and earlier is not None and earlier[0].api.startswith(_FILLS):
                # port62f: the soft SyncAll's page (同步控制/核间同步/SyncAll.md) has every core initialise the whole
                # gmWorkspace before it, and that workspace's traffic is not modelled (README)
                fix += ("; if these bytes are a soft SyncAll(gm_workspace, ...)'s workspace and every core fills "
                        "them with the same value, this is the devkit SyncAll page's own rule (every core "
                        "initialises all of it first), not a hazard to fix")
        emit(Report("blocks", kind, Instr(api, pipe, where, -1), "GM", addr, count, earlier=earlier_instr, space="GM",
                    fix=fix))


# --- the scalar unit's data cache (check "dcache") ------------------------------------------------------------------
# DK 缓存控制/系统缓存概述.md and DataCacheCleanAndInvalid.md: the scalar unit reaches GM through a per-core write-back
# data cache of 64-byte lines (a SetValue stays in the line, dirty, until a Clean or the line's eviction writes the
# line back; a GetValue hits the cached copy); the DMA (DataCopy) and the ByPassDCache accesses go to GM directly.
DCACHE_LINE = 64
_FULL_LINE = (1 << DCACHE_LINE) - 1
_DCACHE_KINDS = {"GetValue": "get", "SetValue": "set", "ReadGmByPassDCache": "read_bypass",
                 "WriteGmByPassDCache": "write_bypass"}
_DCCI = ("DataCacheCleanAndInvalid(<the GlobalTensor at these bytes>, entire_type=aj.CacheLine.SINGLE_CACHE_LINE, "
         "dcci_dst=aj.DcciDst.CACHELINE_OUT)")
_DIRTY_KIND = "a block accesses GM bytes another block's SetValue left in its data cache"
_OWN_DMA_KIND = "a DMA access of GM bytes this block's SetValue left in its data cache"
_STALE_KIND = "a GetValue can read a stale data-cache line"
_SHARED_LINE_KIND = "two blocks write one 64-byte GM cache line"


def _mask_span(mask):
    """(first byte, byte count) of a line's byte mask."""
    return (mask & -mask).bit_length() - 1, bin(mask).count("1")


class _DLine:
    """One 64-byte line of a GM root array in the data-cache model (DcacheModel)."""
    __slots__ = ("dirty", "cached", "scalar_writes", "phase", "phase_writes")

    def __init__(self):
        # block -> [bytes dirty since an earlier phase, bytes dirtied in `late phase`, late phase, bytes of an earlier
        # phase a DCCI cleaned in `cleaned phase` (still unordered with other blocks' accesses of that phase), cleaned
        # phase, the latest SetValue's Instr]
        self.dirty = {}
        # block -> [cached bytes, the phase it was cached in, the phase its other-block writes were found clean in,
        # bytes the block itself wrote past the cache since (its DMA, WriteGmByPassDCache), that write's Instr]
        self.cached = {}
        self.scalar_writes = {}   # (block, phase) -> [bytes, Instr]: SetValue / WriteGmByPassDCache (several blocks)
        self.phase = -1           # the phase of phase_writes
        self.phase_writes = {}    # block -> [bytes, SetValue bytes, Instr of the latest, Instr of the latest SetValue]


class _Spans:
    """Disjoint sorted byte spans [lo, hi) of GM a block's DMA wrote in one phase, each with the Instr of its first
    copy (adjacent copies merge: a tiled copy-out is one span)."""
    __slots__ = ("lo", "hi", "instr")

    def __init__(self):
        self.lo, self.hi, self.instr = [], [], []

    def add(self, lo, hi, instr):
        i = bisect.bisect_left(self.hi, lo)     # the first span ending at or after lo (touching spans merge)
        j = bisect.bisect_right(self.lo, hi)    # past the last span starting at or before hi
        if i < j:
            self.lo[i:j], self.hi[i:j], self.instr[i:j] = [min(lo, self.lo[i])], [max(hi, self.hi[j - 1])], \
                [self.instr[i]]
        else:
            self.lo.insert(i, lo)
            self.hi.insert(i, hi)
            self.instr.insert(i, instr)

    def in_line(self, base):
        """(byte mask, Instr of the first span) of the bytes of the line at `base` these spans cover; (0, None)."""
        i = bisect.bisect_right(self.hi, base)
        mask, instr = 0, None
        while i < len(self.lo) and self.lo[i] < base + DCACHE_LINE:
            a, b = max(self.lo[i], base) - base, min(self.hi[i], base + DCACHE_LINE) - base
            mask |= ((1 << (b - a)) - 1) << a
            instr = instr or self.instr[i]
            i += 1
        return mask, instr


class DcacheModel:
    """The scalar unit's per-core data cache, per 64-byte line of each GM root array (check "dcache"; docs/
    decisions.md "Sanitizer"). A device GM buffer is at least 512-byte aligned, so the root's first byte starts a
    line (line = byte offset // 64). Per block a line is cached after its GetValue / SetValue until the block's
    DataCacheCleanAndInvalid covers it, and a SetValue's bytes are dirty until then. One model per launch (its blocks
    share it; `multi`: the other-block records are kept) or per core outside one (block 0, phase 0). Events come in
    the blocks check's order (LaunchShadow: live in "raise" mode, replayed by (SyncAll phase, block, program order)
    in "report" mode); `apply` reports through `emit`, then records (a raising report leaves no trace)."""

    def __init__(self, multi):
        self.multi = multi
        self.roots = {}         # id(root) -> (weakref to root, {line index: _DLine})
        self.dma_writes = {}    # id(root) -> (weakref to root, {phase: {block: _Spans}}) (several blocks only)
        self.block_lines = {}   # block -> {(id(root), line index)} the block's cache holds (ENTIRE_DATA_CACHE)
        self.has_sync_all = True
        self.said = set()       # the reports emitted (apply): each conflict and access site once

    def _lines(self, root, make):
        entry = self.roots.get(id(root))
        if entry is None or entry[0]() is not root:
            if not make:
                return None
            key = id(root)
            entry = self.roots[key] = (weakref.ref(root, lambda _, key=key, roots=self.roots: roots.pop(key, None)),
                                       {})
        return entry[1]

    def _dma_phases(self, root, make):
        """{phase: {block: _Spans}} of the copy-outs to root ({} when none and not `make`). Kept apart from the
        lines, which a copy-out does not make: a copy-out before any scalar access of the array (another block's,
        in "raise" mode's live order) stays recorded when a GetValue later makes the array's lines."""
        entry = self.dma_writes.get(id(root))
        if entry is None or entry[0]() is not root:   # none yet, or a dead array's whose id was reused
            if not make:
                return {}
            key = id(root)
            entry = self.dma_writes[key] = (weakref.ref(root, lambda _, key=key, d=self.dma_writes: d.pop(key, None)),
                                            {})
        return entry[1]

    def _walk(self, root, spans, make):
        """(line index, _DLine, byte mask) per line the spans touch: every line (make), else the known ones."""
        lines = self._lines(root, make)
        if not lines and not make:
            return
        for lo, hi in spans:
            if hi <= lo:
                continue
            first, last = lo // DCACHE_LINE, (hi - 1) // DCACHE_LINE
            indices = range(first, last + 1) if make or last - first < len(lines) else \
                sorted(i for i in lines if first <= i <= last)
            for i in indices:
                line = lines.get(i)
                if line is None:
                    if not make:
                        continue
                    line = lines[i] = _DLine()
                base = i * DCACHE_LINE
                a, b = max(lo, base) - base, min(hi, base + DCACHE_LINE) - base
                yield i, line, ((1 << (b - a)) - 1) << a

    def apply(self, block, phase, event, instr, emit):
        if event[0] == "dcci":
            self._clean(block, phase, *event[1:])
            return
        kind, root, spans = event
        found = {}
        make = kind in ("get", "set")
        walked = list(self._walk(root, spans, make))
        for i, line, mask in walked:
            self._check_line(found, block, phase, kind, root, i, line, mask)
        for key, (address, count, earlier, fix) in found.items():
            # one report per conflict and access site: a loop re-reading the same dirty or stale bytes would
            # repeat it every iteration (review65: 50 reports for one), where the blocks check reports once
            said = (key[0], earlier and (earlier.api, earlier.where, earlier.block), block, instr.api, instr.where,
                    address, count)
            if said in self.said:
                continue
            self.said.add(said)
            emit(Report("dcache", key[0], instr, "GM", address, count, earlier=earlier, fix=fix, space="GM"))
        self._record(block, phase, kind, root, spans, walked, instr)

    @staticmethod
    def _add(found, key, address, count, earlier, fix):
        known = found.get(key)
        if known is None:
            found[key] = [address, count, earlier, fix]
        else:
            known[1] += count

    def _check_line(self, found, block, phase, kind, root, index, line, mask):
        base = index * DCACHE_LINE
        write = kind in ("set", "write_bypass", "dma_out")
        past_cache = kind not in ("get", "set")   # the DMA and the ByPassDCache accesses go to GM itself
        dirty_reported = 0
        # (a) another block's SetValue still dirty in its cache from an earlier phase: the write-back is of the whole
        # line, so a write of any byte of it can be overwritten, a read of its dirty bytes sees GM's old bytes
        for other, d in line.dirty.items():
            if other == block:
                continue
            stale = d[0] | (d[1] if d[2] < phase else 0) | (d[3] if d[4] == phase else 0)
            hit = stale if write else stale & mask
            if hit:
                dirty_reported |= hit & mask
                at, count = _mask_span(mask if write else hit)
                self._add(found, (_DIRTY_KIND, other, d[5]), base + at, count,
                          dataclasses.replace(d[5], block=other), self._dirty_fix(block, other, write))
        own = line.dirty.get(block)
        if own is not None and past_cache:
            # (b) this block's own dirty line under its DMA or bypass access: they do not see the data cache
            dirty = own[0] | own[1]
            hit = dirty if write else dirty & mask
            if hit:
                at, count = _mask_span(mask if write else hit)
                self._add(found, (_OWN_DMA_KIND, own[5]), base + at, count, own[5], self._own_fix(kind, write))
        if kind == "get":
            cached = line.cached.get(block)
            if cached is not None and not mask & ~cached[0]:   # a hit: the cached copy is read
                if cached[3] & mask:   # (c) the block's own DMA / bypass wrote these bytes past its cached copy
                    at, count = _mask_span(cached[3] & mask)
                    self._add(found, (_STALE_KIND, cached[4]), base + at, count, cached[4], (
                        f"this core's data cache holds the line since a GetValue / SetValue of it, and {cached[4].api} "
                        "wrote these bytes to GM after (the DMA and the ByPassDCache writes do not update the cache; "
                        f"DK 缓存控制/DataCacheCleanAndInvalid.md): {_DCCI} of the line before the GetValue (after the "
                        "copy-out's MTE3_S flag), or ReadGmByPassDCache"))
                if self.multi and cached[2] < phase - 1:
                    self._stale_others(found, block, phase, root, index, line, mask, cached, dirty_reported)
        if write and self.multi:
            self._shared_line(found, block, phase, kind, root, index, line, mask)

    def _stale_others(self, found, block, phase, root, index, line, mask, cached, dirty_reported):
        """(c) other blocks' writes of the cached line in a phase from the one it was cached in (unordered with the
        caching) up to the one before this read."""
        base, clean = index * DCACHE_LINE, True
        writes = [(w[0], w[1], other) for (other, ph), w in line.scalar_writes.items()
                  if other != block and cached[1] <= ph < phase]
        phases = self._dma_phases(root, False)
        for ph in range(cached[1], phase):
            for other, spans in phases.get(ph, {}).items():
                if other != block:
                    bytes_, instr = spans.in_line(base)
                    if bytes_:
                        writes.append((bytes_, instr, other))
        for bytes_, instr, other in writes:
            if bytes_ & cached[0]:
                clean = False
            hit = bytes_ & mask & ~dirty_reported
            if hit:
                at, count = _mask_span(hit)
                self._add(found, (_STALE_KIND, other, instr), base + at, count, dataclasses.replace(instr, block=other),
                          f"block {block}'s data cache holds the line since a GetValue / SetValue of it in SyncAll "
                          f"phase {cached[1]}, and block {other} wrote these bytes after that (phase {phase - 1} or "
                          "earlier; a core's data cache does not see other cores' writes, DK 缓存控制/系统缓存概述.md): "
                          f"{_DCCI} of the line before the GetValue (after the SyncAll), or ReadGmByPassDCache")
        if clean:   # nothing another block wrote of the cached bytes: the earlier phases do not change any more
            cached[2] = phase - 1

    def _shared_line(self, found, block, phase, kind, root, index, line, mask):
        """(d) another block's write of other bytes of the line in this phase, one of the two a SetValue (whose
        write-back is of the whole line); the same bytes are the blocks check's report."""
        base = index * DCACHE_LINE
        others = []
        if line.phase == phase:
            others = [(w[0], w[1], w[3] if kind != "set" else (w[3] or w[2]), other)
                      for other, w in line.phase_writes.items() if other != block]
        if kind == "set":
            for other, spans in self._dma_phases(root, False).get(phase, {}).items():
                if other != block:
                    bytes_, instr = spans.in_line(base)
                    if bytes_:
                        others.append((bytes_, 0, instr, other))
        for bytes_, set_bytes, instr, other in others:
            if bytes_ & mask or not (kind == "set" or set_bytes):
                continue
            at, count = _mask_span(mask)
            if any(key[0] == _SHARED_LINE_KIND for key in found):   # one report an access: the first other block
                continue
            self._add(found, (_SHARED_LINE_KIND, other, instr), base + at, count,
                      dataclasses.replace(instr, block=other),
                      f"block {block} and block {other} write different bytes of the 64-byte GM line at byte {base} "
                      "in the same SyncAll phase, and a SetValue's line is written back whole, so one block's "
                      "write-back overwrites the other's bytes at random, even with DataCacheCleanAndInvalid (DK "
                      "缓存控制/DataCacheCleanAndInvalid.md, example 3): give each block its own 64-byte line (pad the "
                      "per-block slots to 64 bytes), or WriteGmByPassDCache, or an atomic DataCopy")

    def _dirty_fix(self, block, other, write):
        order = "the SyncAll" if self.has_sync_all else "the launch's end"
        what = (f"its write-back, whenever it comes, writes the whole 64-byte line and can overwrite block {block}'s "
                "bytes" if write else f"block {block} can read GM's old bytes")
        return (f"block {other}'s SetValue left the line dirty in its core's data cache (a write-back cache: it "
                "reaches GM at a DataCacheCleanAndInvalid or when the hardware evicts the line, DK 缓存控制/"
                f"系统缓存概述.md), so {what}: in block {other}, {_DCCI} of the line after the SetValue and before "
                f"{order}, or WriteGmByPassDCache in place of the SetValue (if the kernel has one, it does not "
                "count when it comes after the SyncAll, and SINGLE_CACHE_LINE cleans from its address to the "
                "line's 64-byte end only, so an address inside a line needs a second call for the line's start)")

    @staticmethod
    def _own_fix(kind, write):
        access = "the copy" if kind.startswith("dma") else "the ByPassDCache access"
        what = ("the line's later write-back overwrites what it writes" if write else "it reads GM's old bytes")
        return (f"this core's SetValue left the line dirty in its data cache, which the DMA (DataCopy) and the "
                f"ByPassDCache accesses do not see, so {what} (DK 缓存控制/DataCacheCleanAndInvalid.md): {_DCCI} of "
                f"the line after the SetValue, before {access}")

    def _record(self, block, phase, kind, root, spans, walked, instr):
        if kind in ("get", "set"):
            key_root = id(root)
            held = self.block_lines.setdefault(block, set())
            for i, line, mask in walked:
                cached = line.cached.get(block)
                if cached is None or mask & ~cached[0]:   # a miss: the line is (re)loaded whole
                    line.cached[block] = [_FULL_LINE, phase, phase - 1, 0, None]
                    held.add((key_root, i))
                if kind == "set":
                    d = line.dirty.get(block)
                    if d is None:
                        line.dirty[block] = [0, mask, phase, 0, -1, instr]
                    else:
                        if d[2] != phase:
                            d[0], d[1], d[2] = d[0] | d[1], 0, phase
                        d[1] |= mask
                        d[5] = instr
        elif kind in ("write_bypass", "dma_out"):
            for i, line, mask in walked:   # the block's own cached copy no longer holds these bytes' GM value
                cached = line.cached.get(block)
                if cached is not None:
                    cached[3] |= mask & cached[0]
                    cached[4] = instr
        if not self.multi or kind not in ("set", "write_bypass", "dma_out"):
            return
        if kind == "dma_out":
            blocks = self._dma_phases(root, True).setdefault(phase, {})
            spans_of = blocks.get(block)
            if spans_of is None:
                spans_of = blocks[block] = _Spans()
            for lo, hi in spans:
                if hi > lo:
                    spans_of.add(lo, hi, instr)
            return
        for i, line, mask in walked:
            w = line.scalar_writes.get((block, phase))
            if w is None:
                line.scalar_writes[(block, phase)] = [mask, instr]
            else:
                w[0] |= mask
                w[1] = instr
            if line.phase != phase:
                line.phase, line.phase_writes = phase, {}
            p = line.phase_writes.get(block)
            if p is None:
                p = line.phase_writes[block] = [0, 0, None, None]
            p[0] |= mask
            p[2] = instr
            if kind == "set":
                p[1] |= mask
                p[3] = instr

    def _clean(self, block, phase, root, lo, entire):
        """DataCacheCleanAndInvalid of `block` covering GM: every line its cache holds (ENTIRE_DATA_CACHE), or the
        line of byte `lo` of root from that byte to the line's end (SINGLE_CACHE_LINE: "only the part from the
        address to the 64B boundary")."""
        if entire:
            held = self.block_lines.pop(block, set())
            targets = []
            for key_root, i in held:
                entry = self.roots.get(key_root)
                line = entry[1].get(i) if entry is not None else None
                if line is not None:
                    targets.append((line, _FULL_LINE))
        else:
            if root is None:
                return
            lines = self._lines(root, False)
            line = lines.get(lo // DCACHE_LINE) if lines else None
            targets = [] if line is None else [(line, _FULL_LINE & ~((1 << (lo % DCACHE_LINE)) - 1))]
        for line, cover in targets:
            d = line.dirty.get(block)
            if d is not None:
                earlier = d[0] | (d[1] if d[2] < phase else 0)
                d[3] = (d[3] if d[4] == phase else 0) | (earlier & cover)
                d[4] = phase
                d[0] &= ~cover
                d[1] &= ~cover
                if not (d[0] | d[1] | d[3]):
                    del line.dirty[block]
            cached = line.cached.get(block)
            if cached is not None:
                cached[0] &= ~cover
                cached[3] &= ~cover
                if not cached[0]:
                    del line.cached[block]


# copy-outs under one atomic mode (operation, dtype) combine in any order, so the "blocks" and "race" checks let
# them overlap; the shadow keeps the mode as a small code (0: a plain write)
_ATOMIC_CODES = {(op, d.name): code for code, (op, d) in
                 enumerate(((op, d) for op in ("add", "max", "min") for d in dtypes.ALL), start=1)}


_ATOMIC_MODES = {code: mode for mode, code in _ATOMIC_CODES.items()}


def _atomic_text(code):
    """A write as the blocks check's fix names it, from its atomic code."""
    if not code:
        return "a plain write"
    operation, dtype = _ATOMIC_MODES[code]
    return f"an atomic {operation} of {dtype}"


def _atomic_code(atomic):
    """The code of core.atomic ((operation, DType) or None)."""
    return 0 if atomic is None else _ATOMIC_CODES[atomic[0], atomic[1].name]


def _root_and_offset(array):
    """The array owning a GM view's memory and the view's byte offset in it. Remembered per view while it lives: a
    sanitized kernel's GetValue / SetValue loop asks for the same GlobalTensor's every time, and
    `__array_interface__` builds a dict per call (port64b: 80k scalar accesses took 13 s sanitized)."""
    known = _ROOTS.get(id(array))
    if known is not None and known[0]() is array:
        return known[1], known[2]
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    offset = array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    key = id(array)
    # the dict bound, not looked up: at interpreter exit a view dies after the module's globals are gone
    _ROOTS[key] = (weakref.ref(array, lambda _, key=key, roots=_ROOTS: roots.pop(key, None)), root, offset)
    return root, offset


_ROOTS = {}   # id(view) -> (weakref to the view, its root, its byte offset): _root_and_offset
