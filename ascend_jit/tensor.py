"""LocalTensor (a typed window on a Core's UB), GlobalTensor (a typed window on a host numpy array), TPosition."""
import enum

import numpy as np

from . import dtypes as dt
from .errors import OutOfBoundsError, ParameterError, ReadOnlyError, StateError


class TPosition(enum.Enum):
    GM = 0
    VECIN = 1
    VECCALC = 2
    VECOUT = 3


class LocalTensor:
    """dtype, byte address and element count on one core's UB. `t[a:b]` is a sub-tensor, `t[:] = x` copies host
    data in, `t.numpy()` copies it out. A tensor handed back to its queue (FreeTensor) refuses further use."""

    __slots__ = ("_core", "_dtype", "_addr", "_size", "_position", "_lease")

    def __init__(self, core, dtype, addr, size, position=TPosition.VECCALC, lease=None):
        """Placement and size are checked here and read-only afterwards (issue 12: a hand-made tensor past the UB
        end, or one whose size was changed later, would let a kernel write outside the UB)."""
        from .api._common import as_int
        from .core import Core
        if not isinstance(core, Core):
            raise ParameterError("LocalTensor", "core", type(core).__name__, legal="an aj.Core")
        spec = core.spec
        d = dt.resolve(dtype, "LocalTensor")
        addr = as_int("LocalTensor", spec, "addr", addr, 0, spec.ub_bytes)
        size = as_int("LocalTensor", spec, "size", size, 0, spec.ub_bytes // d.size)
        if addr + size * d.size > spec.ub_bytes:
            raise OutOfBoundsError("LocalTensor", "addr + size", (addr, size), device=spec.name,
                                   legal=f"addr + size * {d.size} B within the UB [0, {spec.ub_bytes}]")
        if not isinstance(position, TPosition):
            raise ParameterError("LocalTensor", "position", position, legal="an aj.TPosition", device=spec.name)
        for name, value in (("_core", core), ("_dtype", d), ("_addr", addr), ("_size", size), ("_position", position),
                            ("_lease", lease)):
            object.__setattr__(self, name, value)  # a queue buffer lease; lease.alive goes False on FreeTensor

    core = property(lambda self: self._core, doc="The Core whose UB holds the tensor.")
    dtype = property(lambda self: self._dtype, doc="The element type (a DType).")
    addr = property(lambda self: self._addr, doc="Byte address in the UB.")
    size = property(lambda self: self._size, doc="Element count (GetSize()).")
    position = property(lambda self: self._position, doc="The TPosition.")

    def __setattr__(self, name, value):
        raise ReadOnlyError("LocalTensor", name, value, device=self._core.device,
                            detail="a LocalTensor's attributes are fixed when it is made; make a new tensor "
                                   "(core.local_tensor(dtype, n, addr=...) or a slice t[a:b]) instead")

    def check_alive(self, api):
        if self._lease is not None and not self._lease.alive:
            raise StateError(api, "tensor", self, detail="this tensor was freed (FreeTensor) and may not be used",
                             device=self.core.device)

    def __repr__(self):
        return f"LocalTensor({self.dtype.name}, addr={self.addr}, size={self.size}, {self.position.name})"

    def __len__(self):
        return self.size

    @property
    def nbytes(self):
        return self.size * self.dtype.size

    def GetSize(self):
        return self.size

    def GetPhyAddr(self, offset=0):
        return self.addr + offset * self.dtype.size

    def _view(self):
        return self.core.ub[self.addr:self.addr + self.nbytes].view(self.dtype.np_dtype)

    def numpy(self):
        """A host copy of the tensor's elements."""
        self.check_alive("LocalTensor.numpy")
        return self._view().copy()

    def _index(self, i, api):
        i = int(i)
        if not 0 <= i < self.size:
            raise OutOfBoundsError(api, "index", i, legal=f"[0, {self.size})", device=self.core.device)
        return i

    def GetValue(self, i):
        self.check_alive("GetValue")
        return self._view()[self._index(i, "GetValue")]

    def SetValue(self, i, value):
        self.check_alive("SetValue")
        self._view()[self._index(i, "SetValue")] = value

    def _sub(self, key):
        start, stop, step = key.indices(self.size)
        if step != 1:
            raise ParameterError("LocalTensor[]", "step", step, legal="1 (sub-tensors are contiguous)",
                                 device=self.core.device)
        return LocalTensor(self.core, self.dtype, self.addr + start * self.dtype.size, max(0, stop - start),
                           self.position, self._lease)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._sub(key)
        return self.GetValue(key)

    def __setitem__(self, key, value):
        self.check_alive("LocalTensor[]=")
        if isinstance(value, _AddExpr):
            target = self._sub(key) if isinstance(key, slice) else None
            if target is None:
                raise ParameterError("operator+", "target", key, legal="a slice, as in dst[:] = a + b")
            from .api.add import add_operator
            add_operator(target, value.src0, value.src1)
            return
        if isinstance(key, slice):
            target = self._sub(key)
            data = np.asarray(value)
            if data.ndim == 0:
                target._view()[:] = data.astype(self.dtype.np_dtype)
                return
            data = data.reshape(-1)
            if data.size != target.size:
                raise ParameterError("LocalTensor[]=", "len(value)", data.size, legal=f"{target.size} elements",
                                     device=self.core.device)
            target._view()[:] = data.astype(self.dtype.np_dtype, copy=False)
        else:
            self.SetValue(key, value)

    # numpy defers every operator with a LocalTensor to the LocalTensor (so `array + tensor` reaches __radd__ and is
    # refused, rather than numpy reading the tensor element by element into a host-side sum)
    __array_ufunc__ = None

    def __add__(self, other):
        """`dst[:] = src0 + src1` is the Add operator form: count = dst.GetSize() (SPEC 3.2)."""
        refuse_host_operand("operator+", self, other)
        return _AddExpr(self, other)

    def __radd__(self, other):
        refuse_host_operand("operator+", self, other)
        return _AddExpr(other, self)

    def ReinterpretCast(self, dtype):
        d = dt.resolve(dtype, "ReinterpretCast")
        return LocalTensor(self.core, d, self.addr, self.nbytes // d.size, self.position, self._lease)


def refuse_host_operand(api, tensor, other):
    """Instruction expressions take LocalTensors only: a host array (or scalar) would silently become a host-side
    numpy computation instead of the instruction."""
    if not isinstance(other, LocalTensor):
        raise ParameterError(api, "operand", type(other).__name__, device=tensor.core.device,
                             legal="a LocalTensor: copy host data in first, e.g. t = core.local_tensor(dtype, n); "
                                   "t[:] = array; then dst[:] = t + src")


class _AddExpr:
    __slots__ = ("src0", "src1")

    def __init__(self, src0, src1):
        self.src0, self.src1 = src0, src1


class GlobalTensor:
    """A typed window on a host numpy array (Global Memory). `GlobalTensor(array)` or `SetGlobalBuffer(array)`."""

    def __init__(self, array=None, dtype=None):
        self.array = None
        self.dtype = None
        if array is not None:
            self.SetGlobalBuffer(array, dtype=dtype)

    def SetGlobalBuffer(self, array, size=None, dtype=None):
        arr = np.asarray(array)
        if not arr.flags.c_contiguous:
            raise ParameterError("SetGlobalBuffer", "array", "non-contiguous", legal="a C-contiguous numpy array")
        arr = arr.reshape(-1)
        d = dt.resolve(dtype if dtype is not None else arr.dtype, "SetGlobalBuffer")
        if arr.dtype != d.np_dtype:
            arr = arr.view(np.uint8).view(d.np_dtype)
        if size is not None:
            from .api._common import as_int
            size = as_int("SetGlobalBuffer", None, "size", size, 0, arr.size)
        self.array = arr if size is None else arr[:size]
        self.dtype = d
        return self

    @property
    def size(self):
        return self.array.size

    def GetSize(self):
        return self.array.size

    def __len__(self):
        return self.array.size

    def __getitem__(self, key):
        if isinstance(key, slice):
            sub = GlobalTensor()
            sub.array, sub.dtype = self.array[key], self.dtype
            return sub
        return self.array[key]

    def GetValue(self, i):
        return self.array[i]

    def SetValue(self, i, value):
        self.array[i] = value

    def numpy(self):
        return self.array.copy()

    def __repr__(self):
        return f"GlobalTensor({self.dtype.name}, size={self.size})"
