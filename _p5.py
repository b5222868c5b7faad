import numpy as np, ascend_jit as aj, math
R = aj.Reg
c = aj.Core("ascend950")
def T(dtype, vals, n=None):
    d = aj.dtypes.resolve(dtype); n = n or (1024 // d.size)
    t = c.local_tensor(dtype, n); t[:] = np.resize(np.asarray(vals, d.np_dtype), n); return t
with c:
    # 1. Reduce SUM tree order
    src = T("half", [2048, 1, 1, 1] + [0] * 124, 128)
    r, d = R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(r, src); R.Reduce(d, r, R.CreateMask("half"))
    print("tree sum", d.numpy()[0], "(expect 2050)")
    # 5. E2B_B16 / B32
    src = T("uint16", np.arange(512)); r = R.RegTensor("uint16")
    R.LoadAlign(r, src, 8, dist=R.LoadDist.DIST_E2B_B16)
    got = r.numpy(); print("E2B_B16", got[::16].tolist(), (got.reshape(8, 16) == got.reshape(8, 16)[:, :1]).all())
    try: R.LoadAlign(r, src, 4, dist=R.LoadDist.DIST_E2B_B16); print("E2B_B16 at 8 bytes accepted (expect AlignmentError, 16)")
    except Exception as e: print("E2B_B16 8B:", type(e).__name__)
    srcf = T("uint32", np.arange(256)); rf = R.RegTensor("uint32")
    R.LoadAlign(rf, srcf, 8, dist=R.LoadDist.DIST_E2B_B32); g = rf.numpy(); print("E2B_B32", g[::8].tolist())
    try: R.LoadAlign(rf, srcf, 4, dist=R.LoadDist.DIST_E2B_B32); print("E2B_B32 16B accepted (expect AlignmentError 32)")
    except Exception as e: print("E2B_B32 16B:", type(e).__name__)
    # 6. BLK
    R.LoadAlign(r, src, 16, dist=R.LoadDist.DIST_BLK); g = r.numpy(); print("BLK", g[:18].tolist())
    # 7. UNPACK4_B8
    s8 = T("uint8", np.arange(1, 257)); r8 = R.RegTensor("uint8")
    R.LoadAlign(r8, s8, 0, dist=R.LoadDist.DIST_UNPACK4_B8); print("UNPACK4", r8.numpy()[:9].tolist())
    # US_B8, DS_B8
    R.LoadAlign(r8, s8, 0, dist=R.LoadDist.DIST_US_B8); print("US_B8", r8.numpy()[:6].tolist())
    R.LoadAlign(r8, s8, 0, dist=R.LoadDist.DIST_DS_B8); print("DS_B8", r8.numpy()[:4].tolist(), r8.numpy()[-2:].tolist())
    # BRC_B32 at 4-byte aligned
    R.LoadAlign(rf, srcf, 1, dist=R.LoadDist.DIST_BRC_B32); print("BRC_B32", rf.numpy()[:3].tolist())
    # 8. PACK4_B32 store
    ri = R.RegTensor("uint32"); R.LoadAlign(ri, T("uint32", [0x11223344 + k for k in range(256)]))
    out = T("uint8", [0xEE] * 1024)
    R.StoreAlign(out, ri, R.CreateMask("uint32"), 0, dist=R.StoreDist.DIST_PACK4_B32)
    print("PACK4", [hex(v) for v in out.numpy()[:4]], out.numpy()[63:66].tolist())
    # PACK_B64
    r64 = R.RegTensor("uint64"); R.LoadAlign(r64, T("uint64", [0x1111111122222222 + k for k in range(128)]))
    o32 = T("uint32", [7] * 256)
    R.StoreAlign(o32, r64, R.CreateMask("uint64"), 0, dist=R.StoreDist.DIST_PACK_B64)
    print("PACK_B64", [hex(v) for v in o32.numpy()[:3]], o32.numpy()[31:34].tolist())
    # FIRST_ELEMENT with empty mask
    o16 = T("uint16", [9] * 512)
    R.StoreAlign(o16, r, R.CreateMask("uint16", R.MaskPattern.ALLF), 3, dist=R.StoreDist.DIST_FIRST_ELEMENT_B16)
    print("FIRST_ELEMENT empty mask", o16.numpy()[:5].tolist())
    # NORM_B16 with mask VL4
    R.StoreAlign(o16, r, R.CreateMask("uint16", R.MaskPattern.VL4), 16, dist=R.StoreDist.DIST_NORM_B16)
    print("NORM_B16", o16.numpy()[16:22].tolist())
    # MaskReg US / DS / PACK
    mb = T("uint8", [0b10110001] + [0] * 1023)
    m = R.MaskReg(); R.LoadAlign(m, mb, 0, dist=R.MaskDist.DIST_US); print("mask US", hex(m.bits() & 0xFFFF))
    R.LoadAlign(m, mb, 0, dist=R.MaskDist.DIST_DS); print("mask DS", hex(m.bits() & 0xFF))
    try: R.LoadAlign(m, mb, 16, dist=R.MaskDist.DIST_US); print("mask US at 16 ok")
    except Exception as e: print("mask US 16:", type(e).__name__, e)
    mo = T("uint8", [0xAA] * 1024)
    R.StoreAlign(mo, R.MaskReg((0b1101, 0, 0, 0)), 16, dist=R.MaskDist.DIST_PACK)
    print("mask PACK", mo.numpy()[16:18].tolist(), mo.numpy()[31:33].tolist())
    p = R.StoreAlign(mo, R.MaskReg((1, 0, 0, 0)), 0, post_update_stride=32)
    print("mask post update returns", p)
    # post_update_stride alignment
    try: R.LoadAlign(r, src, 0, post_update_stride=1); print("step 1 accepted (expect AlignmentError)")
    except Exception as e: print("step1:", type(e).__name__)
    print("post", R.LoadAlign(r, src, 0, post_update_stride=16), R.StoreAlign(o16, r, R.CreateMask("uint16"), 0, post_update_stride=16))
