"""The devkit's kernel-side constants that ported vector kernels size their tiles and repeat parameters with
(mirror-cann/asc-devkit @ 82b89a15, impl/basic_api/utils/kernel_utils_constants.h, namespace AscendC). They are the
same on every device the emulator models, so they are plain ints here; the ones that differ per __NPU_ARCH__
(TOTAL_UB_SIZE, RESERVED_WORKSPACE) are not constants here: a core's `spec.ub_bytes` and
`aj.GetLibApiWorkSpaceSize(device)` give them (docs/decisions.md "Kernel utilities"). Counts of the ops-math /
ops-nn kernels that use each are in that decision."""

ONE_BLK_SIZE = 32                   # bytes of a DataBlock
ONE_BLOCK_SIZE = 32                 # the 950's spelling of the same
DEFAULT_BLK_NUM = 8                 # DataBlocks per repeat
DEFAULT_BLK_STRIDE = 1
DEFAULT_REPEAT_STRIDE = 8
HALF_DEFAULT_REPEAT_STRIDE = 4
ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2
MAX_REPEAT_TIMES = 255
ONE_REPEAT_BYTE_SIZE = 256
FULL_MASK = 0xFFFFFFFFFFFFFFFF
B8_BYTE_SIZE, B16_BYTE_SIZE, B32_BYTE_SIZE, B64_BYTE_SIZE = 1, 2, 4, 8
B16_DATA_NUM_PER_BLOCK = 16
B32_DATA_NUM_PER_BLOCK = 8
B16_DATA_NUM_PER_REPEAT = 128
B32_DATA_NUM_PER_REPEAT = 64
ONE_BLK_HALF_NUM = ONE_BLK_SIZE // B16_BYTE_SIZE
ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE // B32_BYTE_SIZE
BRCB_BROADCAST_NUMBER = 8
VECTOR_REG_WIDTH_2XVL = 512         # two vector registers (the 950's; VECTOR_REG_WIDTH is aj.VECTOR_REG_WIDTH)
BLOCK_CUBE = 16                     # a fractal's side, which vector kernels also align rows to

__all__ = ["ONE_BLK_SIZE", "ONE_BLOCK_SIZE", "DEFAULT_BLK_NUM", "DEFAULT_BLK_STRIDE", "DEFAULT_REPEAT_STRIDE",
           "HALF_DEFAULT_REPEAT_STRIDE", "ONE_FOURTH_DEFAULT_REPEAT_STRIDE", "MAX_REPEAT_TIMES",
           "ONE_REPEAT_BYTE_SIZE", "FULL_MASK", "B8_BYTE_SIZE", "B16_BYTE_SIZE", "B32_BYTE_SIZE", "B64_BYTE_SIZE",
           "B16_DATA_NUM_PER_BLOCK", "B32_DATA_NUM_PER_BLOCK", "B16_DATA_NUM_PER_REPEAT", "B32_DATA_NUM_PER_REPEAT",
           "ONE_BLK_HALF_NUM", "ONE_BLK_FLOAT_NUM", "BRCB_BROADCAST_NUMBER", "VECTOR_REG_WIDTH_2XVL", "BLOCK_CUBE"]
