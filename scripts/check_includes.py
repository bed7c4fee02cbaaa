"""The C++ core's include layers: the C++ twin of the import contracts (pyproject.toml's
``[tool.importlinter]``; docs/cpp.md "Layout", docs/DESIGN.md).

    python scripts/check_includes.py [ROOT]

Scans every ``#include "fort/..."`` (or ``<fort/...>``) of ``ROOT/cpp`` (default: this
repository's) and exits 1 listing each include that points up or sideways, one per line as
``file:line: A includes B (layer X may not include layer Y)``; 0 (printing a count) when there
is none. A file of ``cpp/include/fort/<layer>/`` or ``cpp/src/<layer>/`` is in that layer,
``cpp/include/fort/constants.h`` in ``constants``, ``cpp/bindings/`` in ``bindings``; a file
of ``cpp/tests/`` may include anything. A file outside every layer (a new folder) is reported
too: declare it in ``LAYERS`` first. Python's standard library only.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# Lowest first. A layer may include its own files and those of every layer below it. Layers on
# one line are independent: neither includes the other (import-linter's "envs | bots").
LAYERS: tuple[tuple[str, ...], ...] = (
    ("constants",),  # cpp/include/fort/constants.h, generated (scripts/gen_constants.py)
    ("game",),  # the state, the game's facts, the generator
    ("rules",),  # the apply path and the exact masks
    ("views",),  # observation, scoring, the hidden-information re-deal
    ("envs", "bots"),  # the batched envs; the bots (the envs take them via seat_policies.h)
    ("native",),  # what drives games with the bots: playouts, the built-in seats
    ("bindings",),  # the module _core
)
ANYTHING = "tests"  # cpp/tests: the C++ unit tests may include any layer

LEVEL: dict[str, int] = {name: i for i, names in enumerate(LAYERS) for name in names}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](fort/[^>"]+)[>"]')
SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp")


def layer_of_file(rel: Path) -> str | None:
    """The layer of a file, by its path relative to the repository root (``cpp/src/rules/x.cc``:
    ``rules``); None outside ``cpp/include/fort``, ``cpp/src``, ``cpp/bindings``, ``cpp/tests``
    or for a file directly under ``cpp/src`` or ``cpp/include/fort`` other than constants.h."""
    parts = rel.parts
    if parts[:1] != ("cpp",) or len(parts) < 3:
        return None
    if parts[1] == "bindings":
        return "bindings"
    if parts[1] == "tests":
        return ANYTHING
    if parts[1] == "src":
        return parts[2] if len(parts) > 3 else None
    if parts[1:3] == ("include", "fort"):
        return layer_of_include("/".join(("fort", *parts[3:])))
    return None


def layer_of_include(target: str) -> str | None:
    """The layer of an included ``fort/...`` path: ``fort/constants.h`` is ``constants``,
    ``fort/<layer>/...`` is ``<layer>``; None for anything else."""
    parts = target.split("/")
    if parts == ["fort", "constants.h"]:
        return "constants"
    return parts[1] if len(parts) > 2 else None


def may_include(layer: str, other: str) -> bool:
    """Whether a file of ``layer`` may include one of ``other`` (both in ``LEVEL``)."""
    return layer in (ANYTHING, other) or LEVEL[other] < LEVEL[layer]


def violations(root: Path) -> list[str]:
    """Every include of ``root/cpp`` that breaks the layers, as ``file:line: message`` lines
    (paths relative to ``root``), sorted by file and line."""
    found: list[str] = []
    for path in sorted((root / "cpp").rglob("*")):
        if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
            continue
        rel = path.relative_to(root)
        layer = layer_of_file(rel)
        known = layer == ANYTHING or layer in LEVEL
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, start=1):
            match = INCLUDE.match(line)
            if match is None:
                continue
            target = match.group(1)
            other = layer_of_include(target)
            where = f"{rel.as_posix()}:{number}"
            if not known:
                found.append(
                    f"{where}: {rel.as_posix()} includes {target} (the file is in no layer: "
                    "declare its folder in scripts/check_includes.py LAYERS)"
                )
            elif other not in LEVEL:
                found.append(f"{where}: {rel.as_posix()} includes {target} (no layer holds it)")
            elif not may_include(str(layer), other):
                found.append(
                    f"{where}: {rel.as_posix()} includes {target} "
                    f"(layer {layer} may not include layer {other})"
                )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parent.parent
    parser.add_argument("root", nargs="?", type=Path, default=default, help="repository root")
    args = parser.parse_args(argv)
    if not (args.root / "cpp").is_dir():
        print(f"check_includes: no cpp/ folder under {args.root}", file=sys.stderr)
        return 2
    found = violations(args.root)
    for line in found:
        print(line)
    if found:
        print(f"check_includes: {len(found)} include(s) break the layers", file=sys.stderr)
        return 1
    print("check_includes: the C++ include layers hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
