"""MkDocs hooks of the documentation site (mkdocs.yml, ``hooks:``); not a page of it.

The site's pages are the project's own Markdown files, not copies of them:

* ``docs/*.md`` are pages as they are (``docs_dir: docs``).
* The README lives at the repository's root, outside ``docs_dir``, and the front page must be
  ``index.md`` at the top of ``docs_dir``. :func:`on_files` adds pages generated from it at
  every build: ``index.md`` (the README from its title through its "Documentation" section) and
  one page under ``guides/`` for each later ``##`` section. Nothing is written to disk.
* Relative links are written for GitHub's view of the repository: the README's point into
  ``docs/`` (``docs/cpp.md``), and a page may link a file outside ``docs/``
  (``../fort_env/core.py``). :func:`rewrite_links` rebases the first onto the generated page's
  place in the site; the second, a real file that is not part of the site, becomes its link
  text (MkDocs cannot serve it). A link to a file that exists nowhere is left as it is, so
  that ``mkdocs build --strict`` still fails on it.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.fort_env")

README = "README.md"
# The README's sections up to and including this one make the front page; each later ``##``
# section is a guide.
LAST_HOME_SECTION = "Documentation"
GUIDES_DIR = "guides"

# [text](target) and ![alt](target), target without spaces; an optional "title" after it.
LINK = re.compile(r"(!?\[(?P<text>[^\]\n]*)\])\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def _repo_root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def _split_readme(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The front page's Markdown and the guides as (title, Markdown), split at ``## `` headings
    outside fenced code."""
    chunks: list[list[str]] = [[]]
    in_fence = False
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            in_fence = not in_fence
        if not in_fence and line.startswith("## "):
            chunks.append([])
        chunks[-1].append(line)
    sections = ["".join(chunk) for chunk in chunks]
    titles = [s.splitlines()[0][3:].strip() for s in sections[1:]]
    if LAST_HOME_SECTION not in titles:
        raise PluginError(
            f"docs/site/hooks.py: {README} has no '## {LAST_HOME_SECTION}' section, which ends "
            "the site's front page: update LAST_HOME_SECTION"
        )
    cut = titles.index(LAST_HOME_SECTION) + 2  # sections[0] is the title and the intro
    home = "".join(sections[:cut])
    guides = []
    for section in sections[cut:]:
        title = section.splitlines()[0][3:].strip()
        # the section's heading becomes the page's title
        guides.append((title, "# " + section[3:]))
    return home, guides


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower().replace("`", "")).strip("-")


def rewrite_links(markdown: str, source: str, page: str, docs_dir: str, root: Path) -> str:
    """Rebase the relative links of ``markdown``, written at ``source`` (a path from the
    repository's root), for the page ``page`` (a path from ``docs_dir``). See the module's
    docstring. Fenced code is left alone."""
    out: list[str] = []
    in_fence = False
    page_dir = posixpath.dirname(page)

    def fix(match: re.Match[str]) -> str:
        target = match["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
            return match[0]  # a URL, an anchor on the same page, or a site-absolute path
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if repo_path.startswith("..") or not (root / repo_path).exists():
            return match[0]  # names nothing in the repository: left for MkDocs to report
        if repo_path == docs_dir or repo_path.startswith(docs_dir + "/"):
            rel = posixpath.relpath(repo_path[len(docs_dir) + 1 :] or ".", page_dir or ".")
            return f"{match[1]}({rel}{'#' + anchor if anchor else ''}{match['title'] or ''})"
        log.info("%s: link to %s, outside the site, kept as text", source, repo_path)
        return match["text"]

    for line in markdown.splitlines(keepends=True):
        if FENCE.match(line):
            in_fence = not in_fence
        out.append(line if in_fence else LINK.sub(fix, line))
    return "".join(out)


def _guides(config: Any) -> list[tuple[str, str, str]]:
    """(title, src_uri, Markdown) of each guide."""
    root = _repo_root(config)
    _, guides = _split_readme((root / README).read_text(encoding="utf-8"))
    return [(title, f"{GUIDES_DIR}/{_slug(title)}.md", body) for title, body in guides]


def on_config(config: Any) -> Any:
    """Fill the nav's ``Guides: []`` entry with the guides, in the README's order."""
    for item in config["nav"] or []:
        if isinstance(item, dict) and item.get("Guides") == []:
            item["Guides"] = [{title.replace("`", ""): uri} for title, uri, _ in _guides(config)]
    return config


def on_files(files: Files, config: Any) -> Files:
    root = _repo_root(config)
    docs_dir = Path(config["docs_dir"]).resolve().relative_to(root).as_posix()
    home, _ = _split_readme((root / README).read_text(encoding="utf-8"))
    pages = [("index.md", home)] + [(uri, body) for _, uri, body in _guides(config)]
    for src_uri, body in pages:
        content = rewrite_links(body, README, src_uri, docs_dir, root)
        files.append(File.generated(config, src_uri, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if page.file.generated_by is not None:
        return markdown  # the README's pages: rebased in on_files
    root = _repo_root(config)
    docs_dir = Path(config["docs_dir"]).resolve().relative_to(root).as_posix()
    source = f"{docs_dir}/{page.file.src_uri}"
    return rewrite_links(markdown, source, page.file.src_uri, docs_dir, root)
