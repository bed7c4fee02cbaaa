"""The C++ core's include layers (scripts/check_includes.py): the C++ twin of test_layers.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_includes.py"


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, timeout=60
    )


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_tree_keeps_its_layers() -> None:
    run = check(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "layers hold" in run.stdout


def test_an_upward_include_is_named(tmp_path: Path) -> None:
    write(tmp_path, "cpp/include/fort/constants.h", "#pragma once\n")
    write(tmp_path, "cpp/include/fort/game/state.h", '#include "fort/constants.h"\n')
    write(tmp_path, "cpp/include/fort/rules/flow.h", '#include "fort/game/state.h"\n')
    # the game sits below the rules; the envs and the bots are independent of each other
    write(tmp_path, "cpp/src/game/state.cc", '#include <vector>\n\n#include "fort/rules/flow.h"\n')
    write(tmp_path, "cpp/src/envs/batch.cc", '#include "fort/game/state.h"\n')
    write(tmp_path, "cpp/include/fort/bots/policy.h", "#  include <fort/envs/batch.h>\n")
    # allowed: above (native over bots), bindings over all, tests anything, a layer itself
    write(tmp_path, "cpp/src/native/playout.cc", '#include "fort/bots/policy.h"\n')
    write(tmp_path, "cpp/bindings/b.cc", '#include "fort/native/playout.h"\n')
    write(tmp_path, "cpp/tests/test_x.cc", '#include "fort/bots/policy.h"\n')
    write(tmp_path, "cpp/src/rules/deal.cc", '#include "fort/rules/flow.h"\n')
    run = check(tmp_path)
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        "cpp/include/fort/bots/policy.h:1: cpp/include/fort/bots/policy.h includes "
        "fort/envs/batch.h (layer bots may not include layer envs)",
        "cpp/src/game/state.cc:3: cpp/src/game/state.cc includes fort/rules/flow.h "
        "(layer game may not include layer rules)",
    ]
    assert "2 include(s) break the layers" in run.stderr


def test_a_folder_in_no_layer_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "cpp/src/extra/x.cc", '#include "fort/game/state.h"\n')
    write(tmp_path, "cpp/src/game/y.cc", '#include "fort/extra/x.h"\n')
    run = check(tmp_path)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("cpp/src/extra/x.cc:1: ") and "in no layer" in lines[0]
    assert (
        lines[1]
        == "cpp/src/game/y.cc:1: cpp/src/game/y.cc includes fort/extra/x.h (no layer holds it)"
    )
