"""Kernel fragments the sanitizer and porting tests share: float GlobalTensors over host arrays, a flag pair, a
scratch TBuf and a queue tile (copy in, EnQue / DeQue, Adds, copy out)."""
import numpy as np

import ascend_jit as aj


def flag(event, event_id=0):
    """SetFlag / WaitFlag of `event`, back to back."""
    aj.SetFlag(event_id, event=event)
    aj.WaitFlag(event_id, event=event)


def float_globals(*arrays):
    """A GlobalTensor("float") over each host array."""
    out = []
    for a in arrays:
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(a, a.size)
        out.append(g)
    return out


def scratch(nbytes):
    """A TPipe and a VECCALC TBuf of `nbytes` bytes in it (the pipe returned too: it owns the buffer)."""
    pipe = aj.TPipe()
    buf = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(buf, nbytes)
    return pipe, buf


def queue_tile(src, dst, qin, qout, addend, n=64):
    """One tile through two bound queues: src (GM) copied into qin's tensor, dst's tensor = it + addend, copied out
    to dst (GM); the queues' hand-offs are the only order between the pipes."""
    t = qin.AllocTensor("float")
    aj.DataCopy(t, src, n)
    qin.EnQue(t)
    t = qin.DeQue("float")
    o = qout.AllocTensor("float")
    aj.Adds(o, t, np.float32(addend), n)
    qin.FreeTensor(t)
    qout.EnQue(o)
    o = qout.DeQue("float")
    aj.DataCopy(dst, o, n)
    qout.FreeTensor(o)
