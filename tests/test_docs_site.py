"""The documentation site (mkdocs.yml, docs/site/, docs/api/): it builds with ``mkdocs build
--strict`` (a broken link, anchor or cross-reference fails), its front page and guides come from
the README, and the API reference carries the docstrings. Needs the ``docs`` extra (mkdocs,
mkdocs-material, mkdocstrings[python]); skips without it. The build takes ~6-8 s."""

from __future__ import annotations

import ast
import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE_CODE = ROOT / "docs" / "site"


def _missing_docs_packages() -> list[str]:
    needed = {
        "mkdocs": "mkdocs",
        "material": "mkdocs-material",
        "mkdocstrings": "mkdocstrings",
        "mkdocstrings_handlers.python": "mkdocstrings-python",
    }
    missing = []
    for module, package in needed.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(package)
    return missing


MISSING = _missing_docs_packages()
needs_docs = pytest.mark.skipif(
    bool(MISSING),
    reason=f"the docs extra is not installed ({', '.join(MISSING)} missing): "
    'pip install -c constraints.txt -e ".[docs]"',
)


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_docs_site_{name}", SITE_CODE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(page: Path) -> str:
    """A built page's text: tags dropped, entities decoded, whitespace collapsed."""
    raw = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))
    return " ".join(html.unescape(raw).split())


def _docstring(path: Path, cls: str) -> str:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            doc = ast.get_docstring(node)
            assert doc, f"{cls} has no docstring"
            return doc
    raise AssertionError(f"no class {cls} in {path}")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr[-6000:]}"
    return out


@needs_docs
def test_site_builds_strictly_with_its_pages(site: Path) -> None:
    for page in [
        "index.html",
        "DESIGN/index.html",
        "rules/index.html",
        "cards/index.html",
        "state/index.html",
        "agents/index.html",
        "integrations/index.html",
        "development/index.html",
        "history/agents-2026/index.html",
        "performance/index.html",
        "reliability/index.html",
        "cpp/index.html",
        "api/index.html",
        "api/fort_env/index.html",
        "api/envs/index.html",
        "api/game/index.html",
        "api/views/index.html",
        "api/native/index.html",
        "api/agents/index.html",
        "api/train/index.html",
    ]:
        assert (site / page).is_file(), f"{page} was not built"


@needs_docs
def test_front_page_and_guides_are_the_readme(site: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    home = _text(site / "index.html")
    assert readme.splitlines()[0].lstrip("# ").strip() in home
    # the README's links into docs/ are links between the site's pages
    assert 'href="cpp/"' in (site / "index.html").read_text(encoding="utf-8")
    hooks = _load("hooks")
    _, guides = hooks._split_readme(readme)
    assert guides, "the README has no section after 'Documentation' to make a guide of"
    for title, _ in guides:
        page = site / hooks.GUIDES_DIR / hooks._slug(title) / "index.html"
        assert page.is_file(), f"no guide page for the README section {title!r}"


@needs_docs
def test_api_reference_has_fortgame_and_its_docstring(site: Path) -> None:
    page = site / "api" / "fort_env" / "index.html"
    source = page.read_text(encoding="utf-8")
    assert 'id="fort_env.core.FortGame"' in source
    assert 'id="fort_env.core.FortState"' in source
    text = _text(page)
    summary = " ".join(_docstring(ROOT / "fort_env" / "core.py", "FortGame").split()[:5])
    assert summary in text, f"FortGame's docstring ({summary!r}...) is not on its API page"
    # reStructuredText roles are rendered, not shown raw
    assert ":class:`" not in text and ":func:`" not in text


@needs_docs
def test_rst_docstrings_become_markdown() -> None:
    rst = _load("griffe_rst").rst_to_markdown
    assert rst("See :class:`~fort_env.core.FortGame` and :func:`fort_env.env`.") == (
        "See `FortGame` and `fort_env.env`."
    )
    table = rst("Top\n\n====  =====\nA     one\nB     two\n      more\n====  =====\n")
    assert "| A | one |" in table and "| B | two more |" in table
    block = rst("Run it::\n\n    fort-env train\n\nDone.")
    assert "Run it:\n\n```\nfort-env train\n```" in block
    args = rst("Args:\n    setup, cards: as for FortGame.\n    seed: the seed.")
    assert args.splitlines()[1:] == [
        "    setup: as for FortGame.",
        "    cards: as for FortGame.",
        "    seed: the seed.",
    ]


@needs_docs
def test_links_out_of_the_docs_folder() -> None:
    hooks = _load("hooks")
    md = "[the core](../fort_env/core.py), [rules](rules.md), [gone](../no/such/file.md)"
    out = hooks.rewrite_links(md, "docs/DESIGN.md", "DESIGN.md", "docs", ROOT)
    # a real file outside the site: its text; a page: unchanged; nothing at all: left to fail
    assert out == "the core, [rules](rules.md), [gone](../no/such/file.md)"
    readme = "see [docs/cpp.md](docs/cpp.md#playouts) and ![r](docs/replay.png)"
    out = hooks.rewrite_links(readme, "README.md", "guides/x.md", "docs", ROOT)
    assert out == "see [docs/cpp.md](../cpp.md#playouts) and ![r](../replay.png)"
