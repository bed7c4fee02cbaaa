"""Write cpp/include/fort/bots/weights.h from the Python bots' weights.

The C++ core plays some of the Python bots (docs/cpp.md "Bots"): the ``builder``, ``scorer``
and ``opportunist`` heuristics (``agents/bots/heuristics.py`` with the economy model of
``agents/bots/econ.py``; C++: ``cpp/src/bots/rollout_policy.cc`` and ``econ.cc``) and the
search's evaluation function (``agents/bots/evaluation.py``; C++: ``cpp/src/bots/evaluation.cc``).
Their numbers are defined once, in Python; this script writes them out as a C++ header, and
``tests/differential/test_weights_header.py`` fails if the committed header differs from what the
script writes now, so the two sides cannot drift. The header holds:

* ``EvalWeights``: the fields of ``evaluation.Weights`` in their order, with the values of
  ``evaluation.FITTED`` as defaults, and ``EVAL_WEIGHT_COUNT`` (the length of the flat form
  ``agents/bots/ismcts.py`` hands to ``_core.ismcts_search``);
* ``HeuristicStyle``: the numeric fields of ``econ.Style`` with the values of
  ``heuristics.BUILDER`` as defaults, and ``scorer`` (``style.name == "scorer"``, which
  ``HeuristicAgent.rule_estimate`` reads); one constant per style the core plays
  (``BUILDER_STYLE``, ``SCORER_STYLE``, ``OPPORTUNIST_STYLE``) and its ``perk_order`` as a rank
  per perk index (``BUILDER_PERK_RANK``, ...). ``Style.rule_bias`` is not read by the Python
  heuristics, so the C++ has none: a style with a non-empty one is refused;
* ``HEURISTIC_NEVER`` (``heuristics.NEVER``), ``HEURISTIC_ORDERS`` (``heuristics.ORDERS``) and
  ``ECON_MAX_REPEAT`` (``econ.MAX_REPEAT``).

A float is written as ``repr`` writes it: the shortest decimal that reads back as the same
double, so the C++ compiler's (correctly rounded) reading of the literal is bit for bit the
Python value.

Usage: ``python scripts/gen_weights.py`` (rewrite the header) or ``--check`` (exit 1 if stale).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HEADER = ROOT / "cpp" / "include" / "fort" / "bots" / "weights.h"


def _double(x: Any) -> str:
    """A C++ double literal equal to the Python float ``x``, bit for bit."""
    v = float(x)
    if not math.isfinite(v):
        raise ValueError(f"a weight must be finite, got {v!r}")
    text = repr(v)
    assert float(text) == v
    return text


def _field_type(f: dataclasses.Field[Any]) -> str:
    """The dataclass field's annotation as a string (``from __future__ import annotations``)."""
    return f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))


def _members(
    name: str, instance: Any, skip: tuple[str, ...], levels: int
) -> list[tuple[str, str, str, int]]:
    """``(C++ type, field name, C++ value, doubles)`` per field of the dataclass ``instance``
    (minus ``skip``), in the dataclass's order."""
    members = []
    for f in dataclasses.fields(instance):
        if f.name in skip:
            continue
        value = getattr(instance, f.name)
        kind = _field_type(f)
        if kind.startswith("tuple[float"):
            if f.name != "level_value" or len(value) != levels:
                raise ValueError(f"{name}.{f.name}: only level_value[{levels}] is supported")
            items = ", ".join(_double(v) for v in value)
            members.append(("std::array<double, MAX_FORT_LEVEL + 1>", f.name, items, len(value)))
        elif kind == "float":
            members.append(("double", f.name, _double(value), 1))
        elif kind == "int":
            if isinstance(value, bool) or int(value) != value:
                raise ValueError(f"{name}.{f.name}: not an int: {value!r}")
            members.append(("int", f.name, str(int(value)), 1))
        else:
            raise ValueError(f"{name}.{f.name}: no C++ type for the annotation {kind!r}")
    return members


def _struct(
    out: list[str],
    name: str,
    instance: Any,
    skip: tuple[str, ...],
    levels: int,
    extra: tuple[str, ...] = (),
) -> int:
    """``struct name`` with one member per field of the dataclass ``instance`` (minus ``skip``),
    each defaulting to the instance's value, then the lines ``extra``; returns how many doubles
    its flat form holds."""
    out.append(f"struct {name} {{")
    flat = 0
    for kind, field, value, size in _members(name, instance, skip, levels):
        if kind.startswith("std::array"):
            out.append(f"    {kind} {field}{{{value}}};")
        else:
            out.append(f"    {kind} {field} = {value};")
        flat += size
    out += extra
    out.append("};")
    return flat


def _instance(
    out: list[str],
    struct: str,
    name: str,
    instance: Any,
    skip: tuple[str, ...],
    levels: int,
    extra: tuple[tuple[str, str], ...] = (),
) -> None:
    """``inline constexpr struct name{...}``: every member of ``_struct``'s in order, from the
    dataclass ``instance``, then the ``(value, field)`` pairs ``extra``."""
    out.append(f"inline constexpr {struct} {name}{{")
    for kind, field, value, _ in _members(struct, instance, skip, levels):
        out.append(
            f"    {{{value}}},  // {field}"
            if kind.startswith("std::array")
            else f"    {value},  // {field}"
        )
    out += [f"    {value},  // {field}" for value, field in extra]
    out.append("};")


def render() -> str:
    """The header's text, from the imported Python modules."""
    from agents.bots import econ, evaluation, heuristics
    from fort_env.game.actions import PRIVATE, PUBLIC
    from fort_env.game.constants import MAX_FORT_LEVEL, PERKS

    levels = MAX_FORT_LEVEL + 1
    out: list[str] = [
        "// GENERATED by scripts/gen_weights.py from the Python bots; do not edit.",
        "// tests/differential/test_weights_header.py checks it is up to date.",
        "#pragma once",
        "",
        "#include <array>",
        "",
        '#include "fort/constants.h"',
        "",
        "namespace fort {",
        "",
        "// agents/bots/evaluation.py: Weights (in victory points), defaults: FITTED",
        "// (evaluation.h; the search takes its weights from Python: ismcts.h SearchSettings)",
    ]
    count = _struct(out, "EvalWeights", evaluation.FITTED, (), levels)
    out.append("// EvalWeights' flat form: level_value, then the other fields in the order above")
    out.append(f"inline constexpr int EVAL_WEIGHT_COUNT = {count};")
    out.append("")

    skip = ("name", "perk_order", "rule_bias")
    styles = {"BUILDER": heuristics.BUILDER, "SCORER": heuristics.SCORER}
    styles["OPPORTUNIST"] = heuristics.OPPORTUNIST
    for const, style in styles.items():
        if style.rule_bias:  # no Python heuristic reads it (HeuristicAgent, econ.econ_value)
            raise ValueError(f"heuristics.{const}.rule_bias is not empty: the C++ has none")
        if sorted(style.perk_order) != sorted(PERKS):
            raise ValueError(f"heuristics.{const}.perk_order is not an order of constants.PERKS")
    out.append("// agents/bots/econ.py: Style's numbers, defaults: heuristics.BUILDER's values")
    out.append("// (agents/bots/heuristics.py; C++: rollout_policy.cc)")
    scorer = '    bool scorer = false;  // style.name == "scorer" (rule_estimate: Minimalism)'
    _struct(out, "HeuristicStyle", heuristics.BUILDER, skip, levels, (scorer,))
    for const, style in styles.items():
        out.append(f"// heuristics.{const} (Style(name={style.name!r}, ...))")
        flag = "true" if style.name == "scorer" else "false"
        if const == "BUILDER" and flag == "false":  # the struct's defaults
            out.append(f"inline constexpr HeuristicStyle {const}_STYLE{{}};")
        else:
            _instance(
                out, "HeuristicStyle", f"{const}_STYLE", style, skip, levels, ((flag, "scorer"),)
            )
        ranks = ", ".join(str(style.perk_order.index(perk)) for perk in PERKS)
        out.append(f"// {const}.perk_order as a rank per perk index (constants.PERKS order):")
        out.append(f"// {', '.join(style.perk_order[:5])},")
        out.append(f"// {', '.join(style.perk_order[5:])}")
        out.append(f"inline constexpr int {const}_PERK_RANK[NUM_PERKS] = {{{ranks}}};")
    out.append("")

    out.append("// agents/bots/heuristics.py: NEVER (the score of an action a bot does not")
    out.append("// want) and ORDERS (the ways to play a card's actions: PUBLIC, PRIVATE; -1 pads)")
    out.append(f"inline constexpr double HEURISTIC_NEVER = {_double(heuristics.NEVER)};")
    width = max(len(order) for order in heuristics.ORDERS)
    rows = []
    for order in heuristics.ORDERS:
        if not set(order) <= {PUBLIC, PRIVATE}:
            raise ValueError(f"heuristics.ORDERS: {order!r} is not made of PUBLIC and PRIVATE")
        padded = (*order, *[-1] * (width - len(order)))
        rows.append("{" + ", ".join(str(int(x)) for x in padded) + "}")
    n = len(heuristics.ORDERS)
    out.append(f"inline constexpr int HEURISTIC_ORDERS[{n}][{width}] = {{{', '.join(rows)}}};")
    lens = ", ".join(str(len(order)) for order in heuristics.ORDERS)
    out.append(f"inline constexpr int HEURISTIC_ORDER_LEN[{n}] = {{{lens}}};")
    out.append("// agents/bots/econ.py: MAX_REPEAT (more repetitions than any cap can use)")
    out.append(f"inline constexpr int ECON_MAX_REPEAT = {int(econ.MAX_REPEAT)};")
    out += ["", "}  // namespace fort", ""]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the header is stale")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    text = render()
    if args.check:
        if not HEADER.exists() or HEADER.read_text("utf-8") != text:
            print(f"{HEADER} is stale: run python scripts/gen_weights.py", file=sys.stderr)
            return 1
        return 0
    HEADER.write_text(text, encoding="utf-8")
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
