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
