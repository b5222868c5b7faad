"""A memo over `_common.plan_mask` for the mask arguments kernels pass again and again (issue 21).

With is_set_mask=True and a mask made of plain ints (an int, or a list/tuple of int words) the plan depends only on
the dtype, the mask and whether the core is in counter mode, so a successful plan is reused; a refused mask is never
stored (it raises every time, naming the call's device), and any other mask goes to plan_mask unmemoised.
"""
from ._common import plan_mask

_PLANS = {}
_MAX_PLANS = 4096


def cached_plan(api, core, dtype, mask, is_set_mask):
    if not is_set_mask:
        return plan_mask(api, core, dtype, mask, is_set_mask)
    if type(mask) is int:
        key = (dtype, mask, core.counter_mode)
    elif type(mask) in (list, tuple) and all(type(w) is int for w in mask):
        key = (dtype, tuple(mask), core.counter_mode)
    else:
        return plan_mask(api, core, dtype, mask, is_set_mask)
    plan = _PLANS.get(key)
    if plan is None:
        plan = plan_mask(api, core, dtype, mask, is_set_mask)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan
