import numpy as np, ascend_jit as aj
R = aj.Reg
c = aj.Core("ascend950"); c.SetCtrlSpr(53, 53, 1); c.SetCtrlSpr(48, 48, 0)
def T(dtype, vals):
    d = aj.dtypes.resolve(dtype); n = 256 // d.size
    t = c.local_tensor(dtype, n); t[:] = np.resize(np.asarray(vals, d.np_dtype), n); return t
with c:
    a, b, d = R.RegTensor("int32"), R.RegTensor("int32"), R.RegTensor("int32")
    R.LoadAlign(a, T("int32", [0x7FFFFFFF, -2**31])); R.LoadAlign(b, T("int32", [1, -1]))
    cm = R.MaskReg(); R.Add(cm, d, a, b, R.CreateMask("int32")); print("carry add sat-on", [hex(int(v) & 0xFFFFFFFF) for v in d.numpy()[:2]], hex(cm.bits() & 0xFF))
    R.Sub(cm, d, b, a, R.CreateMask("int32")); print("carry sub sat-on", [hex(int(v) & 0xFFFFFFFF) for v in d.numpy()[:2]], hex(cm.bits() & 0xFF))
    h, hd = R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(h, T("half", [1.0]))
    R.Reduce(hd, h, R.CreateMask("half", R.MaskPattern.ALLF), R.ReduceType.MAX); print("MAX all inactive sat half", hd.numpy()[:2], hex(hd.numpy().view(np.uint16)[0]))
    R.Reduce(hd, h, R.CreateMask("half", R.MaskPattern.ALLF), R.ReduceType.SUM); print("SUM all inactive", hd.numpy()[:1], np.signbit(hd.numpy()[0]))
    u, ud = R.RegTensor("uint16"), R.RegTensor("uint32")
    R.LoadAlign(u, T("uint16", [65535] * 128)); R.Reduce(ud, u, R.CreateMask("uint16")); print("u16 sum", ud.numpy()[0], 65535 * 128)
    s, sd = R.RegTensor("int16"), R.RegTensor("int32")
    R.LoadAlign(s, T("int16", [-32768] * 128)); R.Reduce(sd, s, R.CreateMask("int16")); print("i16 sum", sd.numpy()[0], -32768 * 128)
    R.LoadAlign(s, T("int16", [5, -7, 3] + [0] * 125)); R.Reduce(s2 := R.RegTensor("int16"), s, R.CreateMask("int16"), R.ReduceType.MIN); print("i16 min", s2.numpy()[:3])
    q, qd = R.RegTensor("uint64"), R.RegTensor("uint64")
    R.LoadAlign(q, T("uint64", [2**64 - 1] * 32)); R.Reduce(qd, q, R.CreateMask("uint64")); print("u64 sum", qd.numpy()[0], (2**64 - 1) * 32 % 2**64)
    R.Reduce(qd, q, R.UpdateMask("uint64", 3)[0], R.ReduceType.MAX); print("u64 max", qd.numpy()[:3])
    i, idd = R.RegTensor("int32"), R.RegTensor("int32")
    R.LoadAlign(i, T("int32", [2**31 - 1] * 64)); R.Reduce(idd, i, R.CreateMask("int32")); print("i32 sum sat-on (wrap expected)", idd.numpy()[0])
    m = R.CreateMask("int32", R.MaskPattern.ALLF); R.Reduce(idd, i, m, R.ReduceType.MIN); print("i32 MIN none", idd.numpy()[:2])
