"""Plugins isolated: an agent plugin (entry-point group ``fort_env.agents``) that fails at
import, ``sys.exit()`` included, is one warning naming it and every command still works; a
plugin cannot re-register a built-in agent name (``agents/__init__.py``,
``fort_env/tools/plugins.py``; docs/reliability.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import agents

ROOT = Path(__file__).resolve().parent.parent

PLUGINS = {
    # name: module source
    "exits_plugin": "import sys\nsys.exit(3)\n",
    "raises_plugin": "import agents\nagents.register('half_bot', lambda a: agents.RandomAgent())\n"
    "raise RuntimeError('no model here')\n",
    "heuristic_plugin": "import agents\n"
    "agents.register('heuristic', lambda a: agents.RandomAgent(), overwrite=True)\n",
    "sneaky_plugin": "import agents\n"
    "agents._REGISTRY['random'] = lambda a: agents.BuilderAgent()\n",
    "good_plugin": "import agents\nagents.register('good_bot', lambda a: agents.RandomAgent())\n",
}


def install_plugins(folder: Path, group: str = "fort_env.agents") -> None:
    """Install ``PLUGINS`` in ``folder`` as a distribution (``*.dist-info`` with entry points),
    found by ``importlib.metadata`` once ``folder`` is on ``sys.path``."""
    for module, source in PLUGINS.items():
        (folder / f"{module}.py").write_text(source)
    info = folder / "fortplugs-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fortplugs\nVersion: 0.1\n")
    lines = [f"[{group}]"] + [f"{m.split('_')[0]} = {m}" for m in PLUGINS]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


def run_python(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]),
           "COLUMNS": "120"}  # fmt: skip
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=180,
                          env=env, cwd=folder)  # fmt: skip


def test_a_plugin_that_exits_or_raises_at_import_is_one_warning(tmp_path: Path) -> None:
    """``sys.exit()`` in a plugin ended every command, ``--help`` included (exit 3, no help)."""
    install_plugins(tmp_path)
    done = run_python(tmp_path, "-c", "from fort_env.tools.cli import app; app()", "--help")
    assert done.returncode == 0, done.stderr
    assert "ladder" in done.stdout and "tournament" in done.stdout  # the plugins' commands too
    warned = [line for line in done.stderr.splitlines() if "PluginWarning" in line]
    assert len(warned) == 4, done.stderr  # exits, raises, heuristic, sneaky: one line each
    text = "\n".join(warned)
    assert "'exits' (exits_plugin)" in text and "sys.exit(3)" in text
    assert "'raises' (raises_plugin)" in text and "RuntimeError: no model here" in text
    assert "'heuristic' (heuristic_plugin)" in text and "built in" in text
    assert "'sneaky' (sneaky_plugin)" in text and "random" in text
    assert "Traceback" not in done.stderr


def test_built_in_names_stay_the_project_s_and_good_plugins_load(tmp_path: Path) -> None:
    install_plugins(tmp_path)
    probe = (
        "import json, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "import agents\n"
        "print(json.dumps({'plugins': agents.plugin_agents(),\n"
        "  'heuristic': type(agents.make('heuristic')).__name__,\n"
        "  'random': type(agents.make('random')).__name__}))\n"
    )
    done = run_python(tmp_path, "-c", probe)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # the good plugin's bot; nothing of the failed ones (half_bot was taken back)
    assert seen["plugins"] == ["good_bot"]
    assert seen["heuristic"] == type(agents.make("heuristic")).__name__ == "BuilderAgent"
    assert seen["random"] == "RandomAgent"


def test_register_refuses_a_built_in_name() -> None:
    factory = agents._REGISTRY["heuristic"]
    with pytest.raises(ValueError, match="'heuristic' is built in"):
        agents.register("heuristic", lambda args: agents.RandomAgent(), overwrite=True)
    with pytest.raises(ValueError, match="built in"):
        agents.register("random", lambda args: agents.RandomAgent())
    assert agents._REGISTRY["heuristic"] is factory


def test_a_command_plugin_that_fails_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """The same for ``fort-env``'s own plugin groups (``fort_env.tools.plugins``): a command
    plugin whose import calls ``sys.exit()`` or raises leaves the others' commands working."""
    install_plugins(tmp_path, group="fort_env.commands")
    # a command plugin's register(app) that exits
    (tmp_path / "good_plugin.py").write_text("import sys\ndef register(app):\n    sys.exit(4)\n")
    info = tmp_path / "fortplugs-0.1.dist-info" / "entry_points.txt"
    info.write_text(
        "[fort_env.commands]\nexits = exits_plugin\nraises = raises_plugin\n"
        "good = good_plugin:register\n"
    )
    done = run_python(tmp_path, "-c", "from fort_env.tools.cli import app; app()", "--help")
    assert done.returncode == 0, done.stderr
    assert "ladder" in done.stdout and "replay" in done.stdout
    warned = [line for line in done.stderr.splitlines() if "PluginLoadWarning" in line]
    assert len(warned) == 3, done.stderr
    assert any("'exits' of fort_env.commands" in w and "sys.exit(3)" in w for w in warned)
    assert any("'raises' of fort_env.commands" in w for w in warned)
    assert any("'good' of fort_env.commands" in w and "sys.exit(4)" in w for w in warned)
    assert "Traceback" not in done.stderr
