"""The contract ships with the project: every "SPEC x.y", "SPEC-2 x.y", "Dnn" and "audit n" an error message cites
resolves to a heading or decision in docs/SPEC.md, docs/SPEC-2.md or docs/SPEC-audit.md, and the README's links
point inside the repository."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CITATION = re.compile(r"SPEC-2(?: §| section )? ?(?P<s2>\d+(?:\.\d+)*)|SPEC(?: §| section )? ?(?P<s1>\d+(?:\.\d+)*)"
                      r"|\b(?P<d>D\d{1,2})\b|audit (?P<a>\d+[a-z]?)")


def _raises():
    """(file name, line, the raised expression) of every `raise` statement of the package."""
    for path in sorted((ROOT / "ascend_jit").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                yield path.name, node.lineno, node.exc


def _error_strings():
    """Every string constant inside a `raise` statement of the package (the text of its error messages)."""
    for name, _, exc in _raises():
        for sub in ast.walk(exc):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                yield name, sub.value


def _headings(name):
    return [line for line in (DOCS / name).read_text(encoding="utf-8").splitlines() if line.startswith("#")]


def _decisions():
    text = (DOCS / "SPEC.md").read_text(encoding="utf-8") + (DOCS / "SPEC-2.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| (D\d+) \|", text, re.M))


def _resolves(match, spec1, spec2, audit, decisions):
    if match["s2"] or match["s1"]:
        number = match["s2"] or match["s1"]
        heads = spec2 if match["s2"] else spec1
        return any(re.match(rf"#+ {re.escape(number)}(\.|\s)", h) for h in heads)
    if match["d"]:
        return match["d"] in decisions
    return any(re.match(rf"#+ {match['a']}(\.|\s)", h) for h in audit)


def test_every_cited_section_and_decision_resolves():
    spec1, spec2, audit = _headings("SPEC.md"), _headings("SPEC-2.md"), _headings("SPEC-audit.md")
    decisions = _decisions()
    cited, missing = 0, []
    for source, text in _error_strings():
        for match in CITATION.finditer(text):
            cited += 1
            if not _resolves(match, spec1, spec2, audit, decisions):
                missing.append(f"{source}: {match.group(0)!r} in {text!r}")
    assert cited > 20 and not missing, "\n".join(missing)


def test_seed_pages_ship_with_the_contract():
    assert {p.name for p in (DOCS / "seeds").iterdir()} >= {"Add.zh.txt", "ReduceSum.zh.txt", "ReducePairElem.zh.txt",
                                                          "ReduceDataBlock.zh.txt"}


@pytest.mark.parametrize("doc", ["README.md", "docs/decisions.md"])
def test_markdown_links_resolve_inside_the_repository(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert all((ROOT / doc).parent.joinpath(link).resolve().is_relative_to(ROOT) for link in local), local
    assert all((ROOT / doc).parent.joinpath(link).exists() for link in local), local


def test_readme_snippets_run():
    """The README's Python snippets (the usage block and the golden test) run as printed, with their own imports."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    usage = next(b for b in blocks if "aj.ReducePairElem" in b)
    exec(compile(usage, "README usage", "exec"), {})
    golden = next(b for b in blocks if "def test_my_reduce(golden)" in b)
    namespace = {}
    exec(compile(golden, "README golden", "exec"), namespace)

    class Recorder:
        def check(self, name, array):
            self.seen = (name, array)
    recorder = Recorder()
    namespace["test_my_reduce"](recorder)
    assert recorder.seen[0] == "reduce_sum_8320"


def test_every_readme_python_block_runs_in_reading_order():
    """Each ```python block runs as printed, read top to bottom (a later block may use an earlier one's names, as a
    reader would). The Reg VF block is left out: exec'd source has no file, so numba would compile its VF on every
    run (seconds); the same VF is the built-in reduce_data_block kernel, which test_kernels runs. The reductions block
    wrote WholeReduceSum's 65 sums into the usage block's 16-element dst and the sanitizer block called an undefined
    my_kernel (session 17)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "@R.simd_vf" not in b]
    namespace = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"README python block {i}", "exec"), namespace)
    assert "sanitizer: no reports" in namespace["aj"].format_reports(namespace["session"].reports)


def test_golden_failure_wording_matches_the_readme(tmp_path):
    import numpy as np

    import ascend_jit as aj
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert '"element i moved by N ulp"' in text
    aj.testing.record_golden("g", np.float16([1, 2, 3]), tmp_path)
    with pytest.raises(AssertionError, match=r"element 1 moved by 2 ulp: actual 2\.00390625 \(0x4002\), expected 2\.0 "
                                             r"\(0x4000\)"):
        aj.testing.check_golden("g", np.float16([1, 2.004, 3]), tmp_path)


def test_every_refusal_names_its_legal_range():
    """A refusal names the API, the parameter, its value, the legal range or state and the device (errors.py); the
    device comes from the current core when not given, the legal part only from the raise. 41 StateErrors had none
    (session 14). A SanitizerError reports a finding, not a refused call."""
    import ascend_jit.errors as errors
    refusals = {name for name, obj in vars(errors).items() if isinstance(obj, type)
                and issubclass(obj, errors.AscendJitError) and obj is not errors.SanitizerError}
    missing = [f"{name}:{line}" for name, line, exc in _raises()
               if isinstance(exc, ast.Call) and getattr(exc.func, "id", None) in refusals
               and len(exc.args) < 4 and "legal" not in {k.arg for k in exc.keywords}]
    assert not missing, missing

