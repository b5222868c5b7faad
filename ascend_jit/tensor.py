"""LocalTensor (a typed window on a Core's UB), GlobalTensor (a typed window on a host numpy array), TPosition."""
import enum

import numpy as np

from . import dtypes as dt
from .errors import OutOfBoundsError, ParameterError, StateError


class TPosition(enum.Enum):
    GM = 0
    VECIN = 1
    VECCALC = 2
    VECOUT = 3


class LocalTensor:
    """dtype, byte address and element count on one core's UB. `t[a:b]` is a sub-tensor, `t[:] = x` copies host
    data in, `t.numpy()` copies it out. A tensor handed back to its queue (FreeTensor) refuses further use."""

    __slots__ = ("core", "dtype", "addr", "size", "position", "_lease")

    def __init__(self, core, dtype, addr, size, position=TPosition.VECCALC, lease=None):
        self.core, self.dtype, self.addr, self.size, self.position = core, dtype, addr, size, position
        self._lease = lease  # a queue buffer lease; lease.alive goes False on FreeTensor

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
        if isinstance(value, _BinaryExpr):
            target = self._sub(key) if isinstance(key, slice) else None
            if target is None:
                raise ParameterError(f"operator{value.symbol}", "target", key,
                                     legal=f"a slice, as in dst[:] = a {value.symbol} b")
            from .api.elementwise import evaluate_operator
            evaluate_operator(value.symbol, target, value.src0, value.src1)
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

    # Operator forms (SPEC-2 1.1): unevaluated expressions; only `dst[:] = expr` computes them, with count =
    # dst.GetSize(). LocalTensor keeps identity hashing (no __eq__ here).
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

    def ReinterpretCast(self, dtype):
        d = dt.resolve(dtype, "ReinterpretCast")
        return LocalTensor(self.core, d, self.addr, self.nbytes // d.size, self.position, self._lease)


class _BinaryExpr:
    """`a - b` etc. on LocalTensors: evaluated only by `dst[:] = expr` (SPEC-2 1.1)."""
    __slots__ = ("symbol", "src0", "src1")

    def __init__(self, symbol, src0, src1):
        self.symbol, self.src0, self.src1 = symbol, src0, src1

    def __bool__(self):
        raise TypeError(f"the expression `a {self.symbol} b` of LocalTensors has no truth value; assign it with "
                        "dst[:] = a " + self.symbol + " b (SPEC-2 1.1)")

    def __repr__(self):
        return f"({self.src0!r} {self.symbol} {self.src1!r})"


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
