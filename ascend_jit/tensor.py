"""LocalTensor (a typed window on a Core's UB), GlobalTensor (a typed window on a host numpy array), TPosition."""
import enum
import weakref

import numpy as np

from . import dtypes as dt
from .errors import OutOfBoundsError, ParameterError, ReadOnlyError, StateError, UnsupportedDeviceError
from .sanitizer import SANITIZING


class TPosition(enum.Enum):
    GM = 0
    VECIN = 1
    VECCALC = 2
    VECOUT = 3
    LCM = 2      # the devkit's alias of VECCALC (`LCM = VECCALC` in TPosition): the same member


QuePosition = TPosition   # the devkit's alias (impl/basic_api/kernel_event.h `using QuePosition = TPosition;`)


# Memos that know a validated call shape by its tensor objects (api/elementwise.py's recent calls, reg.py's UB
# handles) take a tensor's size as fixed; SetSize, the one change of a LocalTensor's extent after it is made, calls
# each of these with the tensor so they forget it and the next call is validated against the new size.
SIZE_CHANGE_HOOKS = []


class _Lease:
    """The memory a tensor stands on, while it is its owner's: one AllocTensor of a queue buffer (`buffer` that
    buffer), one `core.local_tensor` allocation, one binding of a TBuf (`buffer` None). Released (FreeTensor,
    `core.free`, TPipe Reset / Destroy), it stays dead: the bytes may be handed to a new owner, so a stale handle can
    neither be used nor free the new owner's memory (issue 12; a released allocation's tensors had stayed usable)."""
    __slots__ = ("buffer", "alive", "released")

    def __init__(self, buffer=None):
        self.buffer, self.alive, self.released = buffer, True, None

    def release(self, how):
        """Mark it dead; `how` (release_site: the call, "FreeTensor", "core.free", "TPipe.Reset", ..., and the user's
        line or None) is what a later use's refusal names (port60d: it had not said where the tensor was freed).
        Every FreeTensor runs this: no stack walk here."""
        self.alive, self.released = False, how


def release_site(core, call):
    """(call, the user's line that released the memory), the line only when `core` sanitizes (as SetFlag's site: a
    stack walk on every FreeTensor tripled its cost, review 60)."""
    if core.sanitizer is None:
        return call, None
    from .sanitizer import user_location   # (the sanitizer imports this module)
    return call, user_location()


class _TensorFields:
    """The slots of a LocalTensor. `_Unsealed` (below) shares the layout without LocalTensor's read-only __setattr__:
    `_proven` fills one with plain slot stores and then turns it into a LocalTensor (a third of the cost of storing
    through the slot descriptors; sub-tensors and queue tensors are made on every tile of a kernel)."""
    __slots__ = ("_core", "_dtype", "_addr", "_size", "_position", "_lease")


class LocalTensor(_TensorFields):
    """dtype, byte address and element count on one core's UB, indexed as in Ascend C (docs/decisions.md
    "Indexing"): `t[i]` is the sub-tensor starting i elements in (GetSize() = size - i), `t[a:b]` the sub-tensor of
    b - a elements; elements are read and written with `GetValue(i)` / `SetValue(i, v)`; `t[:] = x` copies host
    data in, `t.numpy()` copies it out. A tensor handed back to its queue (FreeTensor) refuses further use.

    `aj.LocalTensor(aj.TPosition.VECCALC, addr, length, dtype="half")` (or "half" positional after the length)
    places a tensor explicitly on the current core's UB (Ascend C `LocalTensor<T>(TPosition pos, uint32_t addr,
    uint32_t tileSize)`; addr in bytes)."""

    __slots__ = ()

    def __init__(self, *args, dtype=None, lease=None):
        """`LocalTensor(core, dtype, addr, size[, position])` or `LocalTensor(TPosition, addr, length, dtype=...)`.
        Placement and size are checked here and read-only afterwards (issue 12: a hand-made tensor past the UB end, or
        one whose size was changed later, would let a kernel write outside the UB)."""
        if args and isinstance(args[0], TPosition):
            if len(args) == 4 and dtype is None:  # T positional after the length, as GlobalTensor(T) takes it
                args, dtype = args[:3], args[3]
            if len(args) > 3:
                raise ParameterError("LocalTensor", "arguments", args[3:], legal="LocalTensor(TPosition, addr, "
                                     "length, dtype) (the C++ template argument T is the dtype)",
                                     detail=f"got {len(args)} positional arguments and dtype={dtype!r}")
            core, d, addr, size, position = self._place(*args, dtype=dtype)
        else:
            if len(args) < 4:
                raise ParameterError("LocalTensor", "position", args[0] if args else None,
                                     legal="LocalTensor(aj.TPosition.VECCALC, addr, length, dtype=...)",
                                     detail=f"got {type(args[0]).__name__ if args else 'nothing'}")
            core, d, addr, size, *rest = args
            position = rest[0] if rest else TPosition.VECCALC
            lease = rest[1] if len(rest) > 1 else lease  # a queue buffer lease; lease.alive goes False on FreeTensor
            core, d, addr, size = _checked_placement(core, d, addr, size, position)
            if len(rest) > 2 or not (lease is None or type(lease) is _Lease):
                # any other lease made every later use of the tensor an AttributeError (audit17h)
                raise ParameterError("LocalTensor", "lease", lease if len(rest) <= 2 else rest[2:],
                                     device=core.device, legal="LocalTensor(core, dtype, addr, size[, position])",
                                     detail="the lease is the emulator's own (queue and allocator tensors)")
        for name, value in (("_core", core), ("_dtype", d), ("_addr", addr), ("_size", size), ("_position", position),
                            ("_lease", lease)):
            object.__setattr__(self, name, value)

    @staticmethod
    def _proven(core, d, addr, size, position, lease=None):
        """A tensor whose placement its maker has already proven inside the UB (queue buffers, sub-tensors and
        reinterpretations of checked tensors): the checks of __init__ skipped on the kernels' hot path."""
        t = _NEW(_Unsealed)
        t._core = core
        t._dtype = d
        t._addr = addr
        t._size = size
        t._position = position
        t._lease = lease
        t.__class__ = LocalTensor
        return t

    @staticmethod
    def _place(position, addr=None, length=None, dtype=None):
        from .core import current_core
        api = "LocalTensor"
        core = current_core(api)
        missing = [name for name, v in (("addr", addr), ("length", length), ("dtype", dtype)) if v is None]
        if missing:
            raise ParameterError(api, ", ".join(missing), None, device=core.device,
                                 legal="LocalTensor(TPosition, addr, length, dtype) (the C++ template argument "
                                       "T is the dtype, positional or keyword)", detail="missing")
        return (*_checked_placement(core, dtype, addr, length, position), position)

    # The public names read the slots themselves (the slot descriptors under a second name: a read costs what an
    # attribute read does, where a property costs a Python call; every instruction reads several per call). They
    # are read-only through __setattr__. core: the Core whose UB holds the tensor; dtype: the element type (a
    # DType); addr: byte address in the UB; size: element count (GetSize()); position: the TPosition.
    core = _TensorFields._core
    dtype = _TensorFields._dtype
    addr = _TensorFields._addr
    size = _TensorFields._size
    position = _TensorFields._position

    def __setattr__(self, name, value):
        raise ReadOnlyError("LocalTensor", name, value, device=self._core.device, legal="no assignment (read-only)",
                            detail="a LocalTensor's attributes are fixed when it is made; make a new tensor "
                                   "(core.local_tensor(dtype, n, addr=...) or a slice t[a:b]) instead")

    def check_alive(self, api, name="tensor"):
        """Refuse a tensor whose memory was released (`name`: the operand it was given as)."""
        lease = self._lease
        if lease is not None and not lease.alive:
            call, line = lease.released or (None, None)
            how = ("(FreeTensor, core.free, or its TPipe's Reset / Destroy)" if call is None else
                   f"by {call} at {line}" if line else
                   f"by {call} (a core made with sanitize=\"report\" names its line)")
            raise StateError(api, name, self, device=self.core.device,
                             legal="a tensor that has not been freed",
                             detail=f"this tensor was freed {how} and may not be used: free it after its last use, "
                                    "or AllocTensor / Get a new one")

    def __repr__(self):
        return f"LocalTensor({self.dtype.name}, addr={self.addr}, size={self.size}, {self.position.name})"

    def __len__(self):
        return self.size

    @property
    def nbytes(self):
        return self.size * self.dtype.size

    def GetSize(self):
        return self.size

    def GetLength(self):
        """`GetLength()`: the tensor's length in bytes (GetSize() * sizeof(T))."""
        return self._size * self._dtype.size

    def GetPosition(self):
        """`GetPosition()`: the TPosition the tensor was made with (a queue's, or VECCALC)."""
        return self._position

    def SetSize(self, size):
        """`SetSize(n)`: GetSize() becomes n, and every later call checks its operand bounds against n. The n
        elements must lie inside the queue buffer the tensor was allocated from, else inside the UB (C++ leaves this
        to the kernel; the devkit gather example resizes its source this way)."""
        from .api._common import as_int
        api = "LocalTensor.SetSize"
        self.check_alive(api)
        lease = self._lease
        buffer = lease.buffer if lease is not None else None
        end = buffer.addr + buffer.nbytes if buffer is not None else self._core.spec.ub_bytes
        n = as_int(api, self._core.spec, "size", size, 0, (end - self._addr) // self._dtype.size)
        _TensorFields._size.__set__(self, n)
        for forget in SIZE_CHANGE_HOOKS:
            forget(self)

    def GetPhyAddr(self, offset=0):
        """`GetPhyAddr(offset)`: the byte address of element `offset` (C++ `uint32_t offset`; None, a float or a
        string had raised Python's TypeError or given a float address, audit17h)."""
        if type(offset) is not int or not 0 <= offset < 2**32:
            from .api._common import as_int
            offset = as_int("LocalTensor.GetPhyAddr", self._core.spec, "offset", offset, 0, 2**32 - 1)
        return self.addr + offset * self.dtype.size

    def _view(self):
        return self.core.ub[self.addr:self.addr + self.nbytes].view(self.dtype.np_dtype)

    def numpy(self):
        """A host copy of the tensor's elements."""
        self.check_alive("LocalTensor.numpy")
        return self._view().copy()

    def _index(self, i, api):
        return _index_value(api, i, self.size, self.core.device, self)

    def _described(self):
        """The tensor as a refusal names it: its repr, and the TQue it came from (port53b: a bare index left a kernel
        of ten buffers to guess which; a TBuf's tensor has no owner to name, its repr's address and position tell)."""
        buffer = self._lease.buffer if self._lease is not None else None
        owner = getattr(buffer, "owner", None)
        if owner is None:
            return f"of the tensor {self!r}"
        from .pipe import _queue_name
        return f"of the tensor {self!r} from a {_queue_name(owner)}"

    def _element(self, i, api):
        """(typed view of the UB, index of element i in it): through the core's whole-UB view of the dtype when the
        tensor's address is a multiple of the element size (every tensor but odd reinterpretations), so a scalar
        access makes no numpy views (kernels read and write per row)."""
        lease = self._lease
        if lease is not None and not lease.alive:
            self.check_alive(api)
        if type(i) is not int or not 0 <= i < self._size:
            i = self._index(i, api)
        core, d = self._core, self._dtype
        if core.sanitizer is not None:
            core.sanitizer.scalar_access(api, self, i, write=api == "SetValue")
        if self._addr % d.size:
            return self._view(), i
        cached = core.__dict__.get("_typed_ub")  # (the UB array, {dtype: its view}), made on the first access
        if cached is None or cached[0] is not core.ub:
            cached = core._typed_ub = (core.ub, {})
        view = cached[1].get(d)
        if view is None:
            view = cached[1][d] = core.ub.view(d.np_dtype)
        return view, self._addr // d.size + i

    def GetValue(self, i):
        view, k = self._element(i, "GetValue")
        return view[k]

    def SetValue(self, i, value):
        """`SetValue(i, value)`: a numpy scalar of the tensor's dtype is stored bit for bit; anything else is
        converted once by SPEC-2 D29 (one RNE rounding to a float type, so a Python float lands in a bfloat16 tensor
        without the double rounding of a detour through float32; integers range-checked, never wrapped; bool
        refused), with an AscendJitError for what cannot be converted (decisions.md "SetValue")."""
        if type(value) is not self._dtype.np_dtype.type:
            value = _set_value_scalar("SetValue", self._core.spec, self._dtype, value)
        view, k = self._element(i, "SetValue")
        view[k] = value

    def __call__(self, i):
        """`t(i)`: Ascend C's element access `operator()`, the same as GetValue(i)."""
        return self.GetValue(i)

    def _sub(self, key):
        start, stop = _slice_bounds("LocalTensor[]", self, key, self._size)
        return LocalTensor._proven(self._core, self._dtype, self._addr + start * self._dtype.size, stop - start,
                                   self._position, self._lease)

    def _offset(self, i):
        """`t[i]`: the sub-tensor i elements in (Ascend C operator[]), as the tiled kernels' `xLocal[j * len]`."""
        i = _index_value("LocalTensor[]", i, self.size, self.core.device)
        return LocalTensor._proven(self._core, self._dtype, self._addr + i * self._dtype.size, self._size - i,
                                   self._position, self._lease)

    def __getitem__(self, key):
        if type(key) is slice and key.step is None:  # t[a:b] with plain bounds inside the tensor, checks as in _sub
            start, stop = key.start, key.stop
            start = 0 if start is None else start
            stop = self._size if stop is None else stop
            if type(start) is int and type(stop) is int and 0 <= start <= stop <= self._size:
                t = _NEW(_Unsealed)  # LocalTensor._proven inlined
                t._core = self._core
                t._dtype = d = self._dtype
                t._addr = self._addr + start * d.size
                t._size = stop - start
                t._position = self._position
                t._lease = self._lease
                t.__class__ = LocalTensor
                return t
        if type(key) is int and 0 <= key < self._size:  # t[i], the kernels' hot path (checks as in _offset)
            t = _NEW(_Unsealed)  # LocalTensor._proven inlined
            t._core = self._core
            t._dtype = d = self._dtype
            t._addr = self._addr + key * d.size
            t._size = self._size - key
            t._position = self._position
            t._lease = self._lease
            t.__class__ = LocalTensor
            return t
        if isinstance(key, slice):
            return self._sub(key)
        return self._offset(key)

    def __setitem__(self, key, value):
        self.check_alive("LocalTensor[]=")
        if not isinstance(key, slice):
            raise ParameterError("LocalTensor[]=", "index", key, device=self.core.device,
                                 legal="a slice (t[a:b] = host data); one element is t.SetValue(i, v)",
                                 detail="t[i] is the sub-tensor at offset i (Ascend C operator[])")
        target = self._sub(key)
        if isinstance(value, _CompareExpr):
            from .api.compare import compare_operator
            compare_operator(target, value.src0, value.src1, value.mode)
            return
        if isinstance(value, _BinaryExpr):
            from .api.elementwise import evaluate_operator
            evaluate_operator(value.symbol, target, value.src0, value.src1)
            return
        _host_copy_in(target._view(), value, "LocalTensor[]=", self.dtype, self.core.device)
        if self.core.sanitizer is not None:
            self.core.sanitizer.host_write(target.addr, target.nbytes)

    # numpy defers every operator with a LocalTensor to the LocalTensor (so `array + tensor` reaches __radd__ and is
    # refused, rather than numpy reading the tensor element by element into a host-side result)
    __array_ufunc__ = None

    # Operator forms (SPEC-2 1.1): unevaluated expressions; only `dst[:] = expr` computes them, with count =
    # dst.GetSize().
    def __add__(self, other):
        return _BinaryExpr("+", self, other)

    def __sub__(self, other):
        return _BinaryExpr("-", self, other)

    def __mul__(self, other):
        return _BinaryExpr("*", self, other)

    def __truediv__(self, other):
        return _BinaryExpr("/", self, other)

    def __and__(self, other):
        return _BinaryExpr("&", self, other)

    def __or__(self, other):
        return _BinaryExpr("|", self, other)

    def _refuse_reflected(self, other):
        refuse_host_operand("operator", self, other)
        return NotImplemented  # two LocalTensors never reach a reflected operator

    __radd__ = __rsub__ = __rmul__ = __rtruediv__ = __rand__ = __ror__ = _refuse_reflected

    # SPEC-2 1.1 / 9.4: `dst[:] = a < b` etc. is the Compare operator form; the expression is evaluated only by
    # that assignment (a truth test raises TypeError) and tensors keep identity hashing.
    __hash__ = object.__hash__

    def __lt__(self, other):
        return _CompareExpr(self, other, "<")

    def __gt__(self, other):
        return _CompareExpr(self, other, ">")

    def __le__(self, other):
        return _CompareExpr(self, other, "<=")

    def __ge__(self, other):
        return _CompareExpr(self, other, ">=")

    def __eq__(self, other):
        return _CompareExpr(self, other, "==")

    def __ne__(self, other):
        return _CompareExpr(self, other, "!=")

    def ReinterpretCast(self, dtype):
        """`ReinterpretCast<T>()`: the same UB bytes as a tensor of `dtype` (any dtype spelling), its element count
        this tensor's bytes over sizeof(dtype); nothing is copied or converted (a Cast converts values)."""
        d = _DTYPE_NAMES.get(dtype) if type(dtype) is str else None
        if d is None:
            d = dt.resolve(dtype, "ReinterpretCast", self._core.device)
        if d is self._dtype:
            return self
        return LocalTensor._proven(self._core, d, self._addr, self._size * self._dtype.size // d.size,
                                   self._position, self._lease)


class _Unsealed(_TensorFields):
    """A LocalTensor under construction (LocalTensor._proven): the same slots, writable."""
    __slots__ = ()


_NEW = object.__new__
_DTYPE_NAMES = {d.name: d for d in dt.ALL}  # ReinterpretCast's dtype names without resolve's aliases and lower-casing


def _checked_placement(core, dtype, addr, size, position):
    """(core, DType, addr, size) of a LocalTensor after checking them: a Core, integer addr and size (Python ints),
    every byte inside the UB, a TPosition."""
    from .api._common import as_int
    from .core import Core
    if not isinstance(core, Core):
        raise ParameterError("LocalTensor", "core", type(core).__name__, legal="an aj.Core")
    spec = core.spec
    d = dt.resolve(dtype, "LocalTensor", spec.name)
    addr = as_int("LocalTensor", spec, "addr", addr, 0, spec.ub_bytes)
    size = as_int("LocalTensor", spec, "size", size, 0, spec.ub_bytes // d.size)
    if addr + size * d.size > spec.ub_bytes:
        raise OutOfBoundsError("LocalTensor", "addr + size", f"bytes [{addr}, {addr + size * d.size})",
                               legal=f"inside the UB [0, {spec.ub_bytes})", device=spec.name)
    check_local_position("LocalTensor", position, spec.name)
    return core, d, addr, size


def _gm_scalar_access(api, gm, index, write):
    """A GlobalTensor GetValue / SetValue on a sanitizing core goes to the launch's cross-block GM shadow (check
    "blocks"), before it reads or writes; a process that never sanitizes pays one list truth test."""
    if not SANITIZING:
        return
    from .core import _current   # core.py imports this module
    stack = getattr(_current, "stack", None)
    if stack and stack[-1].sanitizer is not None:
        stack[-1].sanitizer.gm_scalar_access(api, gm.array, index, write)


def check_local_position(api, position, device, detail=None):
    """The position of a LocalTensor or of the queue / buffer it comes from: a TPosition in the UB. TPosition.GM
    names global memory (EnQue / DeQue user positions take it), never where a LocalTensor lies: such a tensor was
    accepted and written by Add and DataCopy as UB."""
    if not isinstance(position, TPosition) or position is TPosition.GM:
        raise ParameterError(api, "position", position, legal="an aj.TPosition in the UB (VECIN, VECOUT, VECCALC)",
                             device=device, detail=detail)


def known_device(*operands):
    """The device a refusal names when an operand is not a LocalTensor (errors.py: every refusal names it): that
    of the first LocalTensor among the call's `operands`, else the current core's (`with core:`), else None."""
    for t in operands:
        if isinstance(t, LocalTensor):
            return t._core.device
    from .core import _current   # core.py imports this module
    stack = getattr(_current, "stack", None)
    return stack[-1].device if stack else None


def refuse_operand(api, name, value, legal, operands=(), detail=None):
    """ParameterError for an operand of the wrong kind (a host array, a GlobalTensor where a LocalTensor goes, None,
    a scalar), naming the device from the call's other `operands` or the current core (known_device); where neither
    gives one, the message says so instead of leaving the device out silently."""
    device = known_device(*operands)
    if device is None:
        detail = ((detail + "; ") if detail else "") + "no device known: no LocalTensor operand and no current " \
                                                        "core (`with core:`)"
    raise ParameterError(api, name, type(value).__name__, legal=legal, device=device, detail=detail)


def refuse_host_operand(api, tensor, other):
    """Instruction expressions take LocalTensors only: a host array (or scalar) would silently become a host-side
    numpy computation instead of the instruction."""
    if not isinstance(other, LocalTensor):
        # an integer added to a tensor is C++ pointer arithmetic (`xLocal + offset`, a __ubuf__ pointer moved by
        # elements), which Ascend C's LocalTensor spells tensor[offset]
        pointer_step = api == "operator+" and isinstance(other, (int, np.integer)) and not isinstance(other, bool)
        offset = (" (for the tensor `offset` elements further, as C++'s pointer `x + offset`, write tensor[offset])"
                  if pointer_step else "")
        raise ParameterError(api, "operand", type(other).__name__, device=tensor.core.device,
                             legal="a LocalTensor: copy host data in first, e.g. t = core.local_tensor(dtype, n); "
                                   "t[:] = array; then dst[:] = t + src" + offset)


class _UnassignedExpr:
    """A tensor expression used as the tensor a literal port meant: C++ `save = save + result;` written as it is
    rebinds `save` to the unevaluated expression, and the next `save(0)` or `save.GetValue(0)` had been Python's bare
    TypeError or AttributeError about the expression class (port56a). The LocalTensor API's names and calls are
    refused saying how to assign it: its calls and its devkit methods (GetValue, SetValue, GetSize, ...: capitalised
    names); other lookups (numpy's probes, `getattr(x, "dtype", None)` in validation) stay AttributeErrors."""
    __slots__ = ()
    SECTION = "SPEC-2 1.1"

    def __call__(self, *args, **kwargs):
        raise self._unassigned("called")

    def __getattr__(self, name):
        if not name[:1].isupper() or not hasattr(LocalTensor, name):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        raise self._unassigned(f"its {name}", _UnassignedExprAttributeError)

    def _unassigned(self, use, error=StateError):
        return error(f"operator{self.symbol}", "result", f"an unassigned expression ({use})",
                     legal="a LocalTensor", device=known_device(),
                     detail=f"C++ `c = a {self.symbol} b;` is `c[:] = a {self.symbol} b` here ({self.SECTION}); "
                            f"`x = x {self.symbol} y` rebinds the Python name x to the expression")


class _UnassignedExprAttributeError(StateError, AttributeError):
    """The StateError of a devkit method looked up on a tensor expression, an AttributeError too so that
    `hasattr(expression, "GetValue")` stays False (as NotOfferedError keeps hasattr on the package's names)."""


class _BinaryExpr(_UnassignedExpr):
    """`a - b` etc. on LocalTensors: evaluated only by `dst[:] = expr` (SPEC-2 1.1)."""
    __slots__ = ("symbol", "src0", "src1")

    def __init__(self, symbol, src0, src1):
        refuse_host_operand(f"operator{symbol}", src0, src1)  # issue 12: no silent host-side numpy computation
        self.symbol, self.src0, self.src1 = symbol, src0, src1

    def __bool__(self):
        raise TypeError(f"the expression `a {self.symbol} b` of LocalTensors has no truth value; assign it with "
                        "dst[:] = a " + self.symbol + " b (SPEC-2 1.1)")

    def __repr__(self):
        return f"({self.src0!r} {self.symbol} {self.src1!r})"


class _CompareExpr(_UnassignedExpr):
    """An unevaluated `src0 <op> src1` (Compare operator form, SPEC-2 9.4)."""
    __slots__ = ("src0", "src1", "symbol")
    SECTION = "SPEC-2 9.4"

    def __init__(self, src0, src1, symbol):
        self.src0, self.src1, self.symbol = src0, src1, symbol

    @property
    def mode(self):
        from .api.compare import CMPMODE
        return {"<": CMPMODE.LT, ">": CMPMODE.GT, "<=": CMPMODE.LE, ">=": CMPMODE.GE, "==": CMPMODE.EQ,
                "!=": CMPMODE.NE}[self.symbol]

    def __bool__(self):
        raise TypeError(f"a tensor comparison ({self.symbol}) has no truth value: assign it, dst[:] = a {self.symbol} "
                        "b, or compare tensors with `is`")


def _set_value_scalar(api, spec, dtype, value):
    """SetValue's value as a numpy scalar of the tensor's dtype (SPEC-2 D29). _scalar imports this module, so its
    converter is looked up on the first call and kept (an import statement per element cost 0.3 us)."""
    global _scalar_value
    if _scalar_value is None:
        from .api._scalar import scalar_value as _scalar_value
    return _scalar_value(api, spec, dtype, value, "value")


_scalar_value = None


def _index_value(api, i, size, device=None, tensor=None, gm=None):
    """An integer offset into a tensor of `size` elements: [0, size) (no Python wrap-around: Ascend C offsets are
    unsigned), else OutOfBoundsError. A GlobalTensor has no device (GM is host memory): its refusals name the
    current core's, looked up only when refusing (GetValue/SetValue are per-element hot paths). A LocalTensor's
    GetValue / SetValue refusal names the tensor (`tensor`); a GlobalTensor's (`gm`) what SetGlobalBuffer declared
    when the element lies past it, inside the array it was given (_past_declared)."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        legal = "an int (the sub-tensor at that offset) or a slice" if api.endswith("[]") else \
            f"an int element index in [0, {size})"
        raise ParameterError(api, "index", i, legal=legal, device=device or known_device(),
                             detail=f"got {type(i).__name__}" + (f", {tensor._described()}" if tensor else ""))
    i = int(i)
    if not 0 <= i < size:
        detail = None
        if i == size and api.endswith("[]"):
            # port58c: ops-cv UpsampleNearest3d forms gm[size] for a block with no tail rows and copies nothing
            # from it; the index rule stays (decisions.md "Indexing"), the slice is the empty view
            # port60b: SelectV2 takes `tmp[tileDataNum]` from a TBuf of one tile and writes it, a kernel's too
            # small buffer that the empty view only moves to the next call's refusal
            # port61c: a GlobalTensor's had named the UB's InitBuffer / TBuf too
            # port68m3: DequantSwigluQuant indexes its weight scale past a window of colNum; the device does not
            # check the window, so a kernel doing so on purpose widens it (pipe.GM_WINDOW's advice)
            too_small = ("its GM array is too small or the offset too large: check the SetGlobalBuffer size and "
                         "the block's offset; the device does not check the window, and a kernel that reaches "
                         "past it on purpose widens it to what it touches" if api.startswith("GlobalTensor") else
                         "its buffer is too small: size the InitBuffer / TBuf for it")
            detail = (f"it leaves none of the tensor's {size} elements: a sub-tensor starting at its end has none "
                      f"to compute on (if the kernel writes it, {too_small}); the empty view at the end is the slice "
                      f"[{size}:] (decisions.md \"Indexing\")")
            if api == "LocalTensor[]":
                # port68a: ops-nn's reduce_common_regbase.h forms `x.GetPhyAddr() + powerSplit` in a VF, the
                # tensor's end whenever the row is a power of two, and never reads it then; a slice in a VF is run
                # uncompiled (jit/reg.py: its refusals need the tensor's dtype and position)
                detail += ("; in a @Reg.simd_vf VF, where a slice runs the VF uncompiled, pass the tensor and the "
                           "offset as an integer instead of an end pointer the VF never reads, and index where it "
                           "reads")
        elif i > size and api == "LocalTensor[]":
            # port68d: ops-nn MaskedScatter indexes rows at a padded stride past a buffer sized for packed rows
            detail = ("a sub-tensor starting past the tensor's end (a C++ pointer offset past its buffer) is a "
                      "kernel's buffer too small for what it indexes: size the InitBuffer / TBuf for it; to "
                      "reach UB bytes past the tensor on purpose, make a tensor at that address outside any VF, "
                      "aj.LocalTensor(position, t.GetPhyAddr(i), n, dtype=...)")
        elif i < 0 and api == "LocalTensor[]":
            # port68h2: ops-cv UpsampleNearestExact2dGrad's `dstLocal[(batch - n) * ...]`, a sign error
            detail = ("Ascend C offsets are unsigned: a negative one addresses the UB bytes before the tensor, "
                      "another buffer's (a kernel's sign error, or index the enclosing buffer)")
        elif gm is not None and i >= size and _past_declared(gm, i) is not None:
            detail = _past_declared(gm, i)
        elif i < 0 and api.startswith("GlobalTensor"):
            # port64c: ops-math CircularPad's left-pad copy starts one element before x; on the device that reads
            # the GM before the buffer, here the window given SetGlobalBuffer bounds every access
            detail = ("a GlobalTensor is its SetGlobalBuffer window and starts at offset 0: an access before it "
                      "reads whatever GM lies there on the device; if the kernel means to, give SetGlobalBuffer the "
                      "host array from an earlier element and offset the kernel's indices")
        if tensor is not None:   # (not its truth value: a LocalTensor's len() is its size, 0 for an empty one)
            detail = tensor._described()
            if tensor.core.bounds == "ub":
                # port56c: a kernel's off-by-one GetValue on a bounds="ub" launch; the escape is for the vector
                # forms' strided footprints only (decisions.md "Tensor bounds"), which the refusal had not said
                detail += ("; bounds=\"ub\" lets the vector instructions' strided footprints leave a tensor, not "
                           "an element index (an index past the tensor is a kernel's off-by-one: index the "
                           "enclosing buffer, or widen the tensor)")
        raise OutOfBoundsError(api, "index", i, legal=f"[0, {size})", device=device or known_device(), detail=detail)
    return i


def _slice_bounds(api, tensor, key, size):
    """(start, stop) of `tensor[a:b]` (decisions.md "Indexing", binding): b - a elements, so 0 <= a <= b <= size;
    a bound left out is 0 or size. Negative bounds do not wrap and bounds past the end do not clamp, as Python
    lists would: Ascend C offsets are unsigned and a sub-tensor past its parent is a kernel bug (OutOfBoundsError).
    The device a refusal names is the LocalTensor's, or for a GlobalTensor the current core's (known_device)."""
    step = key.step
    if step is not None and (isinstance(step, (bool, np.bool_)) or not isinstance(step, (int, np.integer)) or step != 1):
        # an integer 1 only: a float, complex or numpy bool step equal to 1 was accepted (audit17h)
        raise ParameterError(api, "step", key.step, legal="1 (sub-tensors are contiguous)",
                             device=known_device(tensor))
    bounds = []
    for name, value, default, lo in (("start", key.start, 0, 0), ("stop", key.stop, size, None)):
        if value is None:
            bounds.append(default)
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ParameterError(api, name, value, legal="an int element offset", device=known_device(tensor),
                                 detail=f"got {type(value).__name__} slicing {tensor!r}")
        value, lo = int(value), bounds[0] if lo is None else lo
        if not lo <= value <= size:
            raise OutOfBoundsError(api, name, value, legal=f"[{lo}, {size}]", device=known_device(tensor),
                                   detail=f"slicing {tensor!r}: t[a:b] has b - a elements, 0 <= a <= b <= "
                                          "GetSize(); bounds neither wrap nor clamp (decisions.md \"Indexing\")")
        bounds.append(value)
    return bounds


def _host_copy_in(view, value, api, dtype, device=None):
    """`t[a:b] = x`: a scalar fills, an array of exactly the sub-tensor's length is copied (numpy's conversion).
    Only real numbers (bool, integer, float arrays or scalars) are data: None became NaN, a complex array lost its
    imaginary part and a string raised numpy's ValueError."""
    data = np.asarray(value)
    if data.dtype.kind not in "biuf" and dt.from_np_dtype(data.dtype) is None:  # ml_dtypes' bfloat16 is kind "V"
        raise ParameterError(api, "value", value if data.ndim == 0 else f"an array of {data.dtype}", device=device,
                             legal="real numbers: a bool, integer or float array or scalar")
    if data.ndim == 0:
        view[:] = data.astype(dtype.np_dtype)
        return
    data = data.reshape(-1)
    if data.size != view.size:
        raise ParameterError(api, "len(value)", data.size, legal=f"{view.size} elements", device=device)
    view[:] = data.astype(dtype.np_dtype, copy=False)


class CacheMode(enum.IntEnum):
    """`CacheMode` of GlobalTensor::SetL2CacheHint (DK GlobalTensor/SetL2CacheHint.md, numbering of the devkit's
    basic_api)."""
    CACHE_MODE_DISABLE = 0
    CACHE_MODE_NORMAL = 1
    CACHE_MODE_LAST = 2
    CACHE_MODE_PERSISTENT = 4


class CacheRwMode(enum.IntEnum):
    READ = 1
    WRITE = 2
    RW = 3


_L2_HINT_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")   # DK SetL2CacheHint.md: supported there only


def _owner_of(array):
    """The array whose memory `array` views (the end of its numpy base chain), or array itself."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


# The element count of the array each SetGlobalBuffer window was cut from (id of the window's root -> (weak
# reference to the root, count)): an index refusal's hint only, so the per-element paths carry nothing for it
_GIVEN = {}


def _past_declared(gm, i):
    """The refusal's detail for element `i` of GlobalTensor `gm` that lies past the size SetGlobalBuffer declared but
    inside the array it was given, or None (port65f: ops-nn's A2 foreach kernels give SetGlobalBuffer a scalar list's
    size as 1 and GetValue the tensor's index; the device reads on past the declared size, the window here bounds
    every access). Counted from the window's start, so a sub-tensor's hint names the size the window needs."""
    entry = _GIVEN.get(id(gm._root))
    if entry is None or entry[0]() is not gm._root:
        return None
    declared, given, at = gm._root.size, entry[1], gm._start + i
    if not declared <= at < given:
        return None
    return (f"is past the size SetGlobalBuffer declared ({declared}), inside the array it was given ({given} "
            "elements): on the device such an index reads on into GM (C++ does not check it); declare what the "
            f"kernel reads, e.g. SetGlobalBuffer(x, {given})")


# C++'s SetGlobalBuffer((__gm__ T*)x + off, len) only records a pointer: a block past the data that never touches the
# tensor sets one harmlessly (port52c, ops-nn DynamicQuant); here the size is checked when it is set
# port53e: a kernel declaring 8 scales per row over an array of one per row, which the device never notices;
# port53g: a tiling rounding 1000 halves up to 32-byte blocks over an unpadded host array
# numpy's default element types (np.arange, np.random, np.array of Python numbers): no emulator tensor type is 8
# bytes but int64 / uint64, so a 2- or 4-byte tensor over one reads its elements' bytes as halves or floats (port61c
# fed np.arange(64) to a float GlobalTensor and read [0, 0, 0, 1.875, ...])
_NUMPY_DEFAULTS = (np.dtype(np.float64), np.dtype(np.int64))


def _warn_default_dtype(array_dtype, d):
    import sys
    import warnings
    from .errors import PortingWarning
    # the user's line, whichever path came here (SetGlobalBuffer, GlobalTensor(array), ...; review 61); a kernel file
    # `ascend-jit run` loads is a module ascend_jit_user_kernel_...: the user's, outside the package
    frame, stacklevel = sys._getframe(), 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "ascend_jit":
        frame, stacklevel = frame.f_back, stacklevel + 1
    spelling = "ml_dtypes.bfloat16" if d.name == "bfloat16" else f"np.{d.np_dtype.name}"
    warnings.warn(f"ascend_jit: SetGlobalBuffer reads the {array_dtype} array's bytes as {d.name} (C++'s pointer "
                  f"cast: each {array_dtype} element is {8 // d.size} {d.name} elements); a host array of numpy's "
                  f"default type is usually a port's slip: make it {d.np_dtype.name} (np.zeros(n, {spelling}), "
                  f"x.astype({spelling})), or view it yourself (x.view(...)) to read its bytes on purpose",
                  PortingWarning, stacklevel=stacklevel)


_SIZE_PAST_ARRAY = ("the size is checked against the array when it is set (the device checks no size; past the "
                    "array the emulator has no memory to give): a block with no data of its own sets the buffer "
                    "after its GetBlockIdx() guard, or with the elements the array holds (a size declared larger "
                    "than the data: clamp it to them), or the host array is padded to what the tiling assumes "
                    "(a tiling that rounds a length up to 32 bytes: device allocations are padded so)")


class GlobalTensor:
    """A typed window on a host numpy array (Global Memory). `GlobalTensor(array)` or `SetGlobalBuffer(array[, size])`.
    Indexed as LocalTensor: `g[i]` is the sub-tensor at offset i, `g[a:b]` a sub-tensor, elements through
    GetValue / SetValue, `g[:] = x` and `g.numpy()` are host copies.

    A tensor is a window [start, start + size) on its buffer (`_root`, the typed array SetGlobalBuffer was given;
    `_bytes`, its uint8 view, through which the copy kernels address GM at byte `_at`). Sub-tensors share the
    buffer and make their own numpy view (`array`) only when something asks for it: a tiled kernel's `gm[offset]`
    on every tile costs no numpy slicing."""
    __slots__ = ("_root", "_owner", "_bytes", "dtype", "_start", "_size", "_at", "_nbytes", "_array", "_declared")

    def __init__(self, array=None, dtype=None):
        if dtype is None and isinstance(array, (str, type, np.dtype, dt.DType)):
            array, dtype = None, array  # GlobalTensor<T> with T positional, as TQue's AllocTensor(T) takes it
        self._set_buffer(None, None)
        # GlobalTensor<T>: T is checked now (a typo was dropped silently) and kept, so a later SetGlobalBuffer(array)
        # views the array's bytes as T, as C++'s (__gm__ T*) cast does, whatever numpy dtype the array has
        self._declared = None if dtype is None else dt.resolve(dtype, "GlobalTensor")
        if array is not None:
            self.SetGlobalBuffer(array, dtype=dtype)
        else:   # the declared T before a buffer is set (port64i: a port tested xGm.dtype.name before SetGlobalBuffer)
            self.dtype = self._declared

    def _set_buffer(self, root, d):
        """This tensor is all of `root` (a 1-D C-contiguous array of d's numpy type), or has no buffer (None)."""
        self._root, self.dtype, self._array, self._start, self._at = root, d, root, 0, 0
        # the host array that owns the memory: numpy keeps a view writable when the array it views is made read-only
        # later, so a write checks the owner's flag too (writable())
        self._owner = None if root is None else _owner_of(root)
        self._bytes = None if root is None else root.view(np.uint8)
        self._size = 0 if root is None else root.size
        self._nbytes = 0 if root is None else root.nbytes

    @property
    def array(self):
        """The numpy view of this tensor's elements (None before SetGlobalBuffer)."""
        a = self._array
        if a is None and self._root is not None:
            a = self._array = self._root[self._start:self._start + self._size]
        return a

    @array.setter
    def array(self, array):
        """`g.array = x` is SetGlobalBuffer(x) (checked); None leaves the tensor without a buffer."""
        if array is None:
            self._set_buffer(None, self._declared)
        else:
            self.SetGlobalBuffer(array)

    def SetGlobalBuffer(self, array, size=None, dtype=None):
        """`SetGlobalBuffer((__gm__ T*)x, size)`: this GlobalTensor is the host array `array` (C-contiguous; GM is
        host memory the kernel shares, so pass the array or a view of it, `x[off:]` for C++'s `x + off`), read as the
        tensor's dtype (`GlobalTensor(dtype)`, else `dtype`, else the array's): a different numpy dtype is C++'s
        pointer cast, its bytes viewed as T (numpy's default float64 / int64 read so warn: aj.PortingWarning).
        `size` elements (default: all the array holds) must lie inside the array. Returns the tensor."""
        api = "SetGlobalBuffer"
        if isinstance(array, GlobalTensor):
            array = array.array
        if not isinstance(array, np.ndarray):
            raise ParameterError(api, "array", type(array).__name__, legal="a numpy array (the GM buffer)",
                                 detail="GM is host memory the kernel shares: pass the array itself, not a copy")
        arr = array
        if not arr.flags.c_contiguous:
            raise ParameterError(api, "array", "non-contiguous", legal="a C-contiguous numpy array")
        arr = arr.reshape(-1)
        if dtype is None:
            dtype = getattr(self, "_declared", None) or arr.dtype
        d = dt.resolve(dtype, api)
        if arr.dtype != d.np_dtype:
            # the bytes as T (C++'s (__gm__ T*) cast): an array of object references has no bytes to view, and a
            # byte count T does not divide no whole number of elements (numpy's TypeError / ValueError, audit17h)
            if arr.dtype.hasobject:
                raise ParameterError(api, "array", f"an array of {arr.dtype}", device=known_device(),
                                     legal="a numpy array of plain data (GM bytes), not of object references")
            if arr.nbytes % d.size:
                raise ParameterError(api, "array", f"{arr.nbytes} bytes", device=known_device(),
                                     legal=f"a whole number of {d.name} elements ({d.size} bytes each)")
            if arr.dtype in _NUMPY_DEFAULTS and d.size in (2, 4):
                _warn_default_dtype(arr.dtype, d)
            arr = arr.view(np.uint8).view(d.np_dtype)
        if size is not None:
            from .api._common import as_int  # the api package imports this module
            size = as_int(api, None, "size", size)  # 1.0 or True is no size (an OutOfBoundsError said [0, n] held it)
            if not 0 <= size <= arr.size:
                raise OutOfBoundsError(api, "size", size, legal=f"[0, {arr.size}] (the array holds {arr.size} "
                                       f"{d.name} elements)", detail=_SIZE_PAST_ARRAY)
            given, arr = arr.size, arr[:size]
            _GIVEN[id(arr)] = (weakref.ref(arr, lambda _, key=id(arr): _GIVEN.pop(key, None)), given)
        self._set_buffer(arr, d)
        return self

    def _require_buffer(self, api):
        if self._root is None:
            raise StateError(api, "buffer", None, legal="a GlobalTensor with a buffer (SetGlobalBuffer)",
                             detail="the GlobalTensor has no buffer: call SetGlobalBuffer(array) first")

    @property
    def size(self):
        if self._root is None:
            self._require_buffer("GlobalTensor.GetSize")
        return self._size

    def GetSize(self):
        return self.size

    def __len__(self):
        return self.size

    def byte_span(self):
        """(uint8 view of the whole GM buffer, byte offset of this tensor's element 0 in it): the copy kernels address
        GM through it. Made once per buffer and shared by sub-tensors."""
        return self._bytes, self._at

    def _sub(self, start, size):
        """The sub-tensor of `size` elements from element `start` of this one (proven inside it by the caller)."""
        sub = _NEW(GlobalTensor)
        sub._root, sub._owner, sub._bytes, sub.dtype, sub._array = self._root, self._owner, self._bytes, self.dtype, None
        sub._start = self._start + start
        sub._size = size
        sub._at = self._at + start * self.dtype.size
        sub._nbytes = size * self.dtype.size
        return sub

    def __getitem__(self, key):
        if type(key) is int and 0 <= key < self._size:  # g[offset], the kernels' hot path (_sub inlined)
            sub = _NEW(GlobalTensor)
            d = self.dtype
            sub._root, sub._owner, sub._bytes, sub.dtype, sub._array = self._root, self._owner, self._bytes, d, None
            sub._start = self._start + key
            sub._size = size = self._size - key
            sub._at = self._at + key * d.size
            sub._nbytes = size * d.size
            return sub
        self._require_buffer("GlobalTensor[]")
        if isinstance(key, slice):
            start, stop = _slice_bounds("GlobalTensor[]", self, key, self._size)
            return self._sub(start, stop - start)
        start = _index_value("GlobalTensor[]", key, self._size)
        return self._sub(start, self._size - start)

    def __setitem__(self, key, value):
        self._require_buffer("GlobalTensor[]=")
        if not isinstance(key, slice):
            raise ParameterError("GlobalTensor[]=", "index", key, device=known_device(),
                                 legal="a slice (g[a:b] = host data); one element is g.SetValue(i, v)",
                                 detail="g[i] is the sub-tensor at offset i (Ascend C operator[])")
        self._require_writable("GlobalTensor[]=")
        _host_copy_in(self[key].array, value, "GlobalTensor[]=", self.dtype, known_device())

    def GetValue(self, i):
        if type(i) is int and 0 <= i < self._size and not SANITIZING:  # the per-element hot path (no buffer: size 0)
            return self._root[self._start + i]
        return self._scalar_get(i, "GetValue")

    def _scalar_get(self, i, api):
        """GetValue's checked path; `api` names the access for the sanitizer (ReadGmByPassDCache bypasses the data
        cache: api/utils.py)."""
        self._require_buffer("GlobalTensor.GetValue")
        k = _index_value("GlobalTensor.GetValue", i, self.array.size, gm=self)
        _gm_scalar_access(api, self, k, False)
        return self.array[k]

    def __call__(self, i):
        """`g(i)`: GlobalTensor's element access `operator()` (`float v = scaleGm(0);`), the same as GetValue(i);
        C++'s `g(i) = v` is `g.SetValue(i, v)` here."""
        return self.GetValue(i)

    def SetL2CacheHint(self, mode, rw_mode=CacheRwMode.RW):
        """`SetL2CacheHint<rwMode>(mode)`: whether this tensor's GM traffic goes through the L2 cache. The emulator
        has no cache, so values are unchanged; the call is checked as the device checks it: offered on the 950, A3
        and A2, CACHE_MODE_NORMAL or CACHE_MODE_DISABLE (the doc marks PERSISTENT as not yet supported and does not
        list LAST)."""
        from .core import current_core
        api = "SetL2CacheHint"
        device = current_core(api).device
        if device not in _L2_HINT_DEVICES:
            raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_L2_HINT_DEVICES),
                                         detail="not offered here (DK GlobalTensor/SetL2CacheHint.md)")
        from .api._common import as_enum
        as_enum(api, device, "mode", mode, CacheMode, (CacheMode.CACHE_MODE_NORMAL, CacheMode.CACHE_MODE_DISABLE))
        as_enum(api, device, "rw_mode", rw_mode, CacheRwMode)

    def SetValue(self, i, value):
        """As LocalTensor.SetValue: the value converted by SPEC-2 D29 unless it is a numpy scalar of the dtype."""
        self._scalar_set(i, value, "SetValue")

    def _scalar_set(self, i, value, api):
        """SetValue; `api` names the access for the sanitizer (WriteGmByPassDCache bypasses the data cache:
        api/utils.py)."""
        self._require_buffer("GlobalTensor.SetValue")
        if type(value) is not self.dtype.np_dtype.type:
            value = _set_value_scalar("GlobalTensor.SetValue", None, self.dtype, value)
        k = _index_value("GlobalTensor.SetValue", i, self.array.size, gm=self)
        self._require_writable("GlobalTensor.SetValue")
        _gm_scalar_access(api, self, k, True)
        self.array[k] = value

    def writable(self):
        """Whether the buffer may be written: the tensor's own view and the host array that owns its memory (a view
        frozen in between, such as `g.array` after a ReinterpretCast was made, is not seen: decisions.md)."""
        return self._root.flags.writeable and self._owner.flags.writeable

    def _require_writable(self, api, parameter="dst", device=None):
        """A read-only GM destination is a ParameterError for every writer (DataCopy, DataCopyPad, SetValue,
        `g[a:b] = x`, InitGlobalMemory; decisions.md, DataCopy), judged on the buffer's flag at each call (it may
        change after SetGlobalBuffer). `device`: the copying core's; else the current core's."""
        if not self.writable():
            raise ParameterError(api, parameter, self, device=device or known_device(), legal="a writable GM buffer",
                                 detail="the GlobalTensor's array is read-only")

    def ReinterpretCast(self, dtype):
        """`ReinterpretCast<CAST_T>()` (950; DK 数据结构/GlobalTensor/ReinterpretCast.md): this tensor's bytes as
        CAST_T, the same GM memory; the element count rounds down, as the page says (GetSize). The first element
        must start on a CAST_T boundary of the buffer (a misaligned GM element is refused rather than read across).
        docs/decisions.md "Kernel utilities"."""
        from .core import current_core
        api = "GlobalTensor.ReinterpretCast"
        device = current_core(api).device
        if device != "ascend950":
            raise UnsupportedDeviceError(api, "device", device, legal="ascend950",
                                         detail="not offered here (DK GlobalTensor/ReinterpretCast.md)")
        self._require_buffer(api)
        d = dt.resolve(dtype, api, device)
        if d is self.dtype:
            return self
        if self._at % d.size:
            raise ParameterError(api, "CAST_T", d.name, device=device,
                                 legal=f"a type whose size divides the tensor's byte offset {self._at} in its buffer")
        cast = _NEW(GlobalTensor)
        whole = self._bytes.size - self._bytes.size % d.size
        # the same uint8 view (the copy plans address GM through it), a CAST_T view of its whole elements as root
        cast._root, cast._bytes, cast.dtype, cast._array = self._bytes[:whole].view(d.np_dtype), self._bytes, d, None
        cast._owner = self._owner
        cast._start, cast._at = self._at // d.size, self._at
        cast._size = self._nbytes // d.size
        cast._nbytes = cast._size * d.size
        cast._declared = d
        return cast

    def GetPhyAddr(self, offset=0):
        """The host address of element `offset` (GM addresses are host addresses here; C++ `uint64_t offset`)."""
        from .api._common import as_int
        self._require_buffer("GlobalTensor.GetPhyAddr")   # review64b: a declared tensor had an AttributeError
        offset = as_int("GlobalTensor.GetPhyAddr", known_device(), "offset", offset, 0, 2**64 - 1)
        return self.array.ctypes.data + offset * self.dtype.size

    def numpy(self):
        return self.array.copy()

    def __repr__(self):
        if self._root is None:
            return f"GlobalTensor({self.dtype.name if self.dtype else None}, size=0)"
        # a sub-tensor says where it starts: its byte counts read against the whole buffer had looked contradictory
        # (port53d: "GM bytes [0, 212) ... inside the GlobalTensor's 208 bytes" of a 400-byte buffer's g[48])
        where = f", from element {self._start} of {self._root.size}" if self._start or self._size < self._root.size \
            else ""
        return f"GlobalTensor({self.dtype.name}, size={self._size}{where})"
