import numpy as np, ascend_jit as aj
R = aj.Reg
c = aj.Core("ascend950")
def tryit(label, f):
    try: r = f(); print(label, "OK", r)
    except Exception as e: print(label, type(e).__name__, str(e)[:160])
with c:
    t = c.local_tensor("half", 145); t[:] = np.arange(145, dtype=np.float16)
    r = R.RegTensor("half")
    tryit("LoadUnAlign tail within tensor, rounded past", lambda: R.Load(r, t, 17))
    r64 = R.RegTensor("uint64"); t64 = c.local_tensor("uint64", 64); t64[:] = np.arange(64, dtype=np.uint64)
    tryit("b64 BRC_B32", lambda: R.LoadAlign(r64, t64, 0, dist=R.LoadDist.DIST_BRC_B32))
    tryit("b64 DATA_BLOCK", lambda: R.LoadAlign(r64, t64, 0, data_block_stride=1, mask=R.CreateMask("uint64")))
    tryit("b64 store FIRST", lambda: R.StoreAlign(t64, r64, R.CreateMask("uint64"), 0, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32))
    t16 = c.local_tensor("uint16", 512); t16[:] = np.arange(512, dtype=np.uint16)
    r16 = R.RegTensor("uint16")
    R.LoadAlign(r16, t16, 0, data_block_stride=0, mask=R.CreateMask("uint16"))
    print("dbs0", r16.numpy()[:3].tolist(), r16.numpy()[16:19].tolist())
    print("rep stride normal", R.LoadAlign(r16, t16, 0, data_block_stride=1, mask=R.CreateMask("uint16"), repeat_stride=2), r16.numpy()[:2].tolist())
    print("rep stride update", R.LoadAlign(r16, t16, 0, data_block_stride=1, mask=R.CreateMask("uint16"), repeat_stride=2, post_mode=R.PostLiteral.POST_MODE_UPDATE), r16.numpy()[:2].tolist())
    # Reduce refusals
    tryit("Reduce bf16 SUM", lambda: R.Reduce(R.RegTensor("bfloat16"), R.RegTensor("bfloat16"), R.CreateMask("half")))
    tryit("Reduce int8 MAX", lambda: R.Reduce(R.RegTensor("int8"), R.RegTensor("int8"), R.CreateMask("int8"), R.ReduceType.MAX))
    tryit("Reduce MAX mismatched dst", lambda: R.Reduce(R.RegTensor("float"), R.RegTensor("half"), R.CreateMask("half"), R.ReduceType.MAX))
    tryit("Add mismatched", lambda: R.Add(R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("float"), R.CreateMask("half")))
    tryit("Mul int8", lambda: R.Mul(R.RegTensor("int8"), R.RegTensor("int8"), R.RegTensor("int8"), R.CreateMask("int8")))
    tryit("Sub MERGING", lambda: R.Sub(R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("half"), R.CreateMask("half"), R.MaskMergeMode.MERGING))
    tryit("carry int16", lambda: R.Add(R.MaskReg(), R.RegTensor("int16"), R.RegTensor("int16"), R.RegTensor("int16"), R.CreateMask("int16")))
    tryit("Dup float to int", lambda: R.Duplicate(R.RegTensor("int16"), 1.5))
    tryit("Dup 1.0 to int", lambda: R.Duplicate(R.RegTensor("int16"), 1.0))
    tryit("Dup int out of range", lambda: R.Duplicate(R.RegTensor("int8"), 200))
    tryit("Dup np.float16 to float reg", lambda: R.Duplicate(R.RegTensor("float"), np.float16(1.5)))
    tryit("Dup src_reg other dtype", lambda: R.Duplicate(R.RegTensor("float"), R.RegTensor("half"), R.CreateMask("half")))
    tryit("Dup bf16 3.0", lambda: (lambda d: (R.Duplicate(d, 3.0), hex(d.numpy().view(np.uint16)[0]))[1])(R.RegTensor("bfloat16")))
    tryit("Interleave b64", lambda: R.Interleave(R.MaskReg(), R.MaskReg(), R.MaskReg(), R.MaskReg(), "uint64"))
    tryit("MoveMask int8", lambda: R.MoveMask("int8"))
    tryit("MoveMask uint64", lambda: R.MoveMask("uint64"))
    tryit("UpdateMask uint64 n=40", lambda: (lambda m: (hex(m[0].bits()), m[1]))(R.UpdateMask("uint64", 40)))
    tryit("CreateMask uint64 VL4", lambda: hex(R.CreateMask("uint64", R.MaskPattern.VL4).bits()))
    tryit("CreateMask b64 H", lambda: hex(R.CreateMask("uint64", R.MaskPattern.H).bits()))
with aj.Core("atlas-a2"):
    for name in ("And", "Not", "Move", "Select", "Pack", "Interleave", "LocalMemBar", "GetVecLen", "MoveMask"):
        f = getattr(R, name)
        args = {"And": (R.MaskReg(), R.MaskReg(), R.MaskReg(), R.MaskReg()), "Not": (R.MaskReg(), R.MaskReg(), R.MaskReg()),
                "Move": (R.MaskReg(), R.MaskReg()), "Select": (R.MaskReg(),)*4, "Pack": (R.MaskReg(), R.MaskReg()),
                "Interleave": (R.MaskReg(),)*4 + ("half",), "LocalMemBar": (), "GetVecLen": (), "MoveMask": ("half",)}[name]
        tryit("a2 " + name, lambda: f(*args))
