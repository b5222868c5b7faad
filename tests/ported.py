"""What the gallery-port tests share: a registered kernel and the module that holds its tiling, flags and helpers."""
import inspect

from ascend_jit.kernels import registry


def spec_and_module(name):
    """(the KernelSpec registered as `name`, the module of its run function)."""
    k = registry()[name]
    return k, inspect.getmodule(k.run)


def module(name):
    return spec_and_module(name)[1]
