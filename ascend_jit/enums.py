"""Enums shared by the Memory API and the Ascend 950 Reg API (SPEC-2 1.1, D27): one object for both."""
import enum


class RoundMode(enum.IntEnum):
    """Cast rounding (SPEC-2 1.1, 7.3, D45). UNKNOWN is the Reg CastTrait's "not specified" (SPEC-2 11.5)."""
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6
    CAST_HYBRID = 7
    UNKNOWN = 8


class DivAlgo(enum.IntEnum):
    """The 950's Div algorithms (SPEC-2 2.3, D48): the Memory API's DivConfig and the Reg API's DivSpecificMode
    (DK R/基础算术/Div.md) take the same codes (DK include/basic_api/reg_compute/kernel_reg_compute_utils.h)."""
    INTRINSIC = 0
    DIFF_COMPENSATION = 1
    PRECISION_1ULP_FTZ_TRUE = 2
    PRECISION_0ULP_FTZ_TRUE = 3
    PRECISION_0ULP_FTZ_FALSE = 4
    PRECISION_1ULP_FTZ_FALSE = 5


# The 950's other algorithm enums (SPEC-2 4.3, D48): the Memory API's configs and the Reg API's SpecificModes (DK
# R/基础算术/{Exp,Ln,Log,Sqrt}.md) take them, with the devkit's values (DK include/basic_api/reg_compute/
# kernel_reg_compute_utils.h), so a field given as its C++ value means the same algorithm.
class ExpAlgo(enum.IntEnum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


class LnAlgo(enum.IntEnum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


# C++ LogAlgo (Reg Log's LogSpecificMode): LnAlgo's members and values, and Reg Ln and Log each take either struct
# (DK dav_3510 LogImpl), so one enum serves both (docs/decisions.md "Reg Exp, Ln, Log and Sqrt modes")
LogAlgo = LnAlgo


class SqrtAlgo(enum.IntEnum):
    INTRINSIC = 0
    FAST_INVERSE = 1
    PRECISION_1ULP_FTZ_TRUE = 2
    PRECISION_0ULP_FTZ_FALSE = 3
    PRECISION_1ULP_FTZ_FALSE = 4


class RsqrtAlgo(enum.IntEnum):
    INTRINSIC = 0
    FAST_INVERSE = 1
    PRECISION_1ULP_FTZ_TRUE = 2
    PRECISION_0ULP_FTZ_FALSE = 3
    PRECISION_1ULP_FTZ_FALSE = 4


class ReciprocalAlgo(enum.IntEnum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2
