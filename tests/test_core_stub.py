"""The type stub ``fort_env/native/_core.pyi`` describes the built module ``fort_env.native._core``.

Two checks, both against the extension this environment built (skipped, saying why, when it is
not built; failing otherwise):

- ``python -m mypy.stubtest fort_env.native._core``: every name, class member, property and
  constant of the module is in the stub and vice versa (``tests/core_stub_allowlist.txt``: what
  a stub cannot say about pybind11 classes, each entry with its reason).
- Plain Python, without mypy: the public names of the module and of each class equal the
  stub's, and the parameters of every function and method (names, order, keyword-only, which
  have defaults and their values) equal those of its pybind11 signature (the first line of its
  docstring). stubtest cannot check those: a pybind11 function has no ``__text_signature__``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "fort_env" / "native" / "_core.pyi"
ALLOWLIST = ROOT / "tests" / "core_stub_allowlist.txt"


@pytest.fixture(scope="module")
def core() -> ModuleType:
    """The built extension (the installed one: what the stub describes), or a skip."""
    try:
        return importlib.import_module("fort_env.native._core")
    except ImportError as exc:
        pytest.skip(f"the extension fort_env.native._core is not built ({exc}): nothing to check")


def _stub() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"), str(STUB))


def _public(names: Iterable[str]) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def _defined(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """The names a stub body defines (functions, classes, annotated or plain assignments)."""
    out: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            out.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
    return out


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


# One parameter as both sides describe it: (kind, name, default or None). kind: "pos" (positional
# or keyword), "kw" (keyword-only), "*" or "**". A default is its Python value, wrapped in a
# 1-tuple so that a default of None differs from no default.
Param = tuple[str, str, tuple[object] | None]


def _runtime_params(name: str, doc: str | None) -> list[Param] | None:
    """The parameters of a pybind11 signature line ``name(a: T, b: T = 1, *, c: T) -> R``
    (``self`` dropped), or ``None`` if the docstring has none."""
    first = (doc or "").split("\n", 1)[0]
    if not first.startswith(f"{name}("):
        return None
    inner = first[len(name) + 1 : first.rindex(") -> ")]
    params: list[Param] = []
    kind = "pos"
    for part in _split_top(inner):
        if part == "*":
            kind = "kw"
            continue
        if part.startswith("**"):
            params.append(("**", part[2:].split(":")[0].strip(), None))
            continue
        if part.startswith("*"):
            params.append(("*", part[1:].split(":")[0].strip(), None))
            kind = "kw"
            continue
        head, eq, default = part.partition(" = ")
        pname = head.split(":")[0].strip()
        if pname == "self":
            continue
        params.append((kind, pname, (ast.literal_eval(default),) if eq else None))
    return params


def _stub_params(fn: ast.FunctionDef) -> list[Param]:
    a = fn.args
    params: list[Param] = []
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults))
    defaults += a.defaults
    for arg, default in zip(positional, defaults, strict=True):
        if arg.arg not in ("self", "cls"):
            params.append(("pos", arg.arg, None if default is None else _value(default)))
    if a.vararg is not None:
        params.append(("*", a.vararg.arg, None))
    for arg, kw_default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        params.append(("kw", arg.arg, None if kw_default is None else _value(kw_default)))
    if a.kwarg is not None:
        params.append(("**", a.kwarg.arg, None))
    return params


def _value(node: ast.expr) -> tuple[object]:
    return (ast.literal_eval(node),)


def _kinds(runtime_cls: type) -> dict[str, str]:
    """How each public member (and ``__init__``) of a pybind11 class is defined."""
    out = {}
    for name, value in vars(runtime_cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(value, property):
            out[name] = "property"
        elif isinstance(value, staticmethod):
            out[name] = "staticmethod"
        else:
            out[name] = "method"
    return out


def _stub_kind(node: ast.stmt) -> str:
    if not isinstance(node, ast.FunctionDef):
        return "attribute"
    decorators = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
    if "property" in decorators:
        return "property"
    return "staticmethod" if "staticmethod" in decorators else "method"


def test_every_public_name_of_the_module_is_in_the_stub_and_back(core: ModuleType) -> None:
    runtime = _public(dir(core))
    stub = _public(_defined(_stub().body))
    assert not runtime - stub, f"in the module, missing from _core.pyi: {sorted(runtime - stub)}"
    assert not stub - runtime, f"in _core.pyi, not in the module: {sorted(stub - runtime)}"


def test_every_class_member_is_in_the_stub_with_its_kind(core: ModuleType) -> None:
    stub = _defined(_stub().body)
    classes = [n for n in _public(dir(core)) if inspect.isclass(getattr(core, n))]
    assert classes, "the module has no class: a stale build?"
    for name in classes:
        node = stub[name]
        assert isinstance(node, ast.ClassDef), f"{name} is a class in the module, not in the stub"
        members = _defined(node.body)
        runtime = _kinds(getattr(core, name))
        stub_kinds = {n: _stub_kind(v) for n, v in members.items() if n in runtime or n[0] != "_"}
        if "__init__" not in runtime:  # inherited: pybind11_object's (State)
            stub_kinds.pop("__init__", None)
        assert stub_kinds == runtime, f"{name}: stub {stub_kinds} != module {runtime}"


def test_every_signature_matches_the_binding(core: ModuleType) -> None:
    """Names, order, keyword-only parameters and defaults of every function and method."""
    stub = _defined(_stub().body)
    checked = 0
    for name in sorted(_public(dir(core))):
        obj, node = getattr(core, name), stub[name]
        pairs: list[tuple[str, object, ast.stmt]] = []
        if inspect.isclass(obj):
            assert isinstance(node, ast.ClassDef)
            members = _defined(node.body)
            for member, kind in _kinds(obj).items():
                if kind != "property":
                    pairs.append((f"{name}.{member}", getattr(obj, member), members[member]))
        elif callable(obj):
            pairs.append((name, obj, node))
        for label, fn, fn_node in pairs:
            want = _runtime_params(label.rsplit(".", 1)[-1], getattr(fn, "__doc__", None))
            if want is None:  # no pybind11 signature (an inherited slot wrapper)
                continue
            assert isinstance(fn_node, ast.FunctionDef), f"{label} is not a function in the stub"
            assert _stub_params(fn_node) == want, f"{label}: the stub's parameters differ"
            checked += 1
    assert checked >= 40, f"only {checked} signatures found: has pybind11's docstring changed?"


def test_stubtest_passes(core: ModuleType) -> None:
    """mypy's own check of the stub against the imported module (~30 s)."""
    try:
        importlib.import_module("mypy.stubtest")
    except ImportError:
        pytest.fail("mypy is missing: install the dev extra")
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", core.__name__, "--allowlist", str(ALLOWLIST)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "Success" in run.stdout
