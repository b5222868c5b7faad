"""The devkit's kernel-side debug APIs: printf / PRINTF, DumpTensor, ascendc_assert and Trap (mirror-cann/asc-devkit
@ 82b89a15: docs/zh/api/Utils-API/调测接口/printf.md, SIMD-API/基础API/调试接口/上板打印/DumpTensor.md,
异常检测/ascendc_assert.md, 异常检测/Trap.md). Kernels keep them behind debug switches; a port keeps them as
written. They print to sys.stdout in the pages' formats (printf's `[AIV Block i/n]` prefix, DumpTensor's header line
and its bracketed values); ascendc_assert and Trap stop the kernel with a StateError, as the device stops the core.
C++'s `assert(expr)` is Python's assert statement. docs/decisions.md "Kernel utilities"."""
import re
import sys

import numpy as np

from .errors import OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError

_PRINTF_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")                      # printf.md
_DUMP_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")  # DumpTensor, assert
_TRAP_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")                       # Trap.md
# a C conversion specification: flags, width, precision, a length modifier Python's % does not take, the conversion
_C_SPEC = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGcsp%])")
# a conversion: its width and precision (in the format or `*` arguments), its length modifier, the conversion letter
_C_CONVERSION = re.compile(r"%[-+ #0]*(\*|\d*)(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L)?(.)", re.S)
# the print space of one core (1 MiB; output past it is not displayed on the device): a wider field or a longer
# precision cannot print, and Python would build the whole string first (%999999999d allocated a gigabyte)
_MAX_FIELD = 1 << 20
_DUMP_TYPE_NAMES = {"half": "float16", "float": "float32"}


def _device(api, devices, page):
    from .core import current_core   # core imports modules that may import this one
    core = current_core(api)
    if core.device not in devices:
        raise UnsupportedDeviceError(api, "device", core.device, legal=", ".join(devices),
                                     detail=f"not offered here (DK {page})")
    return core


def _format(api, device, fmt, args):
    """fmt % args with C's conversions: integers read with the conversion's length (`_c_integers`), %p as hex."""
    if not isinstance(fmt, str):
        raise ParameterError(api, "fmt", type(fmt).__name__, legal="a format string", device=device)
    args = _c_integers(fmt, args)
    py_fmt = _C_SPEC.sub(lambda m: "0x%" + m.group(1) + "x" if m.group(2) == "p" else "%" + m.group(1) + m.group(2),
                         fmt)
    _check_fields(api, device, py_fmt, args)
    try:
        return py_fmt % tuple(args)
    except (TypeError, ValueError, OverflowError) as exc:   # OverflowError: %c past U+10FFFF, %f of a huge int
        raise ParameterError(api, "args", args, legal=f"one value per conversion of {fmt!r}", device=device,
                             detail=str(exc)) from None


# the bits C reads an integer argument with, by length modifier (int: 32)
_LENGTH_BITS = {"hh": 8, "h": 16, None: 32, "l": 64, "ll": 64, "j": 64, "z": 64, "t": 64}


def _c_integers(fmt, args):
    """The integer arguments as C's printf reads them: a Python int has no C type, so the conversion's length says
    how many low bits are read, unsigned for %u %o %x %X (printf("%x", -1) prints ffffffff, "%lu" of -1
    18446744073709551615) and signed for %d %i ("%d" of 2**32 - 1 prints -1). Other arguments are unchanged."""
    out, at = list(args), 0
    for spec in _C_CONVERSION.finditer(fmt):
        at += (spec.group(1) == "*") + (spec.group(2) == "*")
        conversion = spec.group(4)
        if conversion == "%":
            continue
        if at < len(out) and conversion in "diuoxX" and isinstance(out[at], (int, np.integer)) \
                and not isinstance(out[at], (bool, np.bool_)):
            bits = _LENGTH_BITS.get(spec.group(3), 64)
            value = int(out[at]) & ((1 << bits) - 1)
            out[at] = value - (1 << bits) if conversion in "di" and value >> (bits - 1) else value
        at += 1
    return tuple(out)


def _check_fields(api, device, py_fmt, args):
    """Every width and precision of the (Python) format at most _MAX_FIELD, `*` ones read from args in order as %
    reads them; what % itself refuses (too few arguments, a `*` that is no int) is left to it."""
    at = 0
    for spec in _C_CONVERSION.finditer(py_fmt):
        for field in spec.group(1, 2):
            if field == "*":
                field, at = (args[at] if at < len(args) else None), at + 1
            if isinstance(field, str) and field:
                field = int(field)
            if isinstance(field, int) and abs(field) > _MAX_FIELD:
                raise ParameterError(api, "fmt", py_fmt[spec.start():spec.end()], device=device,
                                     legal=f"a width and precision of at most {_MAX_FIELD} (one core's print space, "
                                           "1 MiB)", detail=f"field width or precision {field}")
        at += spec.group(4) != "%"


def printf(fmt, *args):
    """`printf(fmt, args...)` / `AscendC::printf`: C-formatted output with the page's NPU prefix
    `[AIV Block <block>/<blocks>] `. 950, A2, A3 (the page's product list)."""
    core = _device("printf", _PRINTF_DEVICES, "Utils-API/调测接口/printf.md")
    sys.stdout.write(f"[AIV Block {core.block_idx}/{core.block_num}] " + _format("printf", core.device, fmt, args))


PRINTF = printf   # the devkit's older spelling


def DumpTensor(tensor, desc, dump_size):
    """`DumpTensor(tensor, desc, dumpSize)` (LocalTensor or GlobalTensor): the page's header line
    `DumpTensor: desc=..., addr=..., data_type=..., position=..., dump_size=...` and the first dump_size elements in
    brackets (floats with six decimals, as the page's example). addr is the UB byte address (a LocalTensor) or the
    host address (a GlobalTensor: GM addresses are host addresses here). Reads through the host view: no pipe, no
    sanitizer access. The shapeInfo overload is not offered."""
    from .api._common import as_int
    from .tensor import GlobalTensor, LocalTensor
    api = "DumpTensor"
    core = _device(api, _DUMP_DEVICES, "调试接口/上板打印/DumpTensor.md")
    if not isinstance(tensor, (LocalTensor, GlobalTensor)):
        raise ParameterError(api, "tensor", type(tensor).__name__, legal="an aj.LocalTensor or aj.GlobalTensor",
                             device=core.device)
    desc = as_int(api, core.device, "desc", desc, 0, 2**32 - 1)
    dump_size = as_int(api, core.device, "dump_size", dump_size, 0, 2**32 - 1)
    if dump_size > tensor.GetSize():
        raise OutOfBoundsError(api, "dump_size", dump_size, legal=f"[0, {tensor.GetSize()}] (the tensor's size)",
                               device=core.device)
    local = isinstance(tensor, LocalTensor)
    values = tensor.numpy()[:dump_size]
    if values.dtype.kind == "f" or values.dtype.name == "bfloat16":
        text = ", ".join(f"{float(v):f}" for v in values)
    else:
        text = ", ".join(str(int(v)) for v in values)
    name = tensor.dtype.name
    sys.stdout.write(f"DumpTensor: desc={desc}, addr={tensor.GetPhyAddr()}, data_type={_DUMP_TYPE_NAMES.get(name, name)}"
                     f", position={'UB' if local else 'GM'}, dump_size={dump_size}\n[{text}]\n")


def ascendc_assert(expr, fmt=None, *args):
    """`ascendc_assert(expr[, fmt, args...])`: when expr is false the kernel stops: a StateError whose message is
    the page's `[ASSERT] ... Assertion` line with the formatted message (the C++ expression's text is not
    available to a Python call). Every device but the 910 (the page's product list)."""
    api = "ascendc_assert"
    core = _device(api, _DUMP_DEVICES, "调试接口/异常检测/ascendc_assert.md")
    message = "" if fmt is None else _format(api, core.device, fmt, args)
    try:
        failed = not expr
    except (TypeError, ValueError) as exc:   # a numpy array of several elements has no truth value
        raise ParameterError(api, "expr", expr, device=core.device, legal="a scalar condition (a C++ expression)",
                             detail=str(exc)) from None
    if failed:
        raise StateError(api, "expr", expr, device=core.device, legal="a true expr",
                         detail=f"[ASSERT] Assertion failed. {message}".rstrip())


def Trap():
    """`Trap()` (DK 调试接口/异常检测/Trap.md): the AI Core stops; here a StateError ends the kernel (its block in
    an aj.launch). 950, A2, A3, 310P."""
    core = _device("Trap", _TRAP_DEVICES, "调试接口/异常检测/Trap.md")
    raise StateError("Trap", "kernel", "Trap()", device=core.device, legal="no Trap() in a kernel that should finish",
                     detail="the kernel called Trap(): the AI Core stops")


__all__ = ["printf", "PRINTF", "DumpTensor", "ascendc_assert", "Trap"]
