"""Session 63's fresh ports (docs/decisions.md "What the session-63 ports found"): the refusals and docs they met."""
import inspect
import os

import pytest

import ascend_jit as aj

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("name", ["CastDequant", "SetDeqScale"])
def test_dequantisation_refusal_names_what_to_write(name):
    """port63b: the refusal said why (D47) but named no way to dequantise (Cast's own int32 -> half refusal names
    the legal destinations)."""
    with pytest.raises(aj.NotOfferedError) as caught:
        getattr(aj, name)
    text = str(caught.value)
    assert "D47" in text and "Cast the integers to float, Muls by the scale" in text


def test_readme_names_every_refusal_class():
    """port63b: NotOfferedError (an AttributeError too) was missing from the README's list of refusal classes."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    start = readme.index("- Every refusal is an `aj.AscendJitError`")
    paragraph = readme[start:readme.index("\n- ", start + 2)]
    classes = [n for n, c in vars(aj).items()
               if inspect.isclass(c) and issubclass(c, aj.AscendJitError) and c is not aj.AscendJitError
               and c is not aj.SanitizerError]  # the sanitizer's reports, not refusals: README "Sanitizer"
    missing = [n for n in classes if f"`{n}`" not in paragraph]
    assert not missing, missing
