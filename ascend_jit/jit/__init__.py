"""@njit kernels over the flat uint8 Unified Buffer. They never check and never raise: the API layer has proven
every byte they touch lies inside the UB before they run (DESIGN 3)."""
