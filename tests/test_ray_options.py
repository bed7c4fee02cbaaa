"""The Ray options of the CLI where Ray is not installed (the dev venv): clear errors, no Ray
import at ``import fort_env``. With Ray they are exercised by tests/test_rllib.py."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from fort_env.tools.cli import app

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ray") is not None, reason="Ray is installed here (test_rllib.py)"
)


def test_import_fort_env_does_not_import_ray() -> None:
    code = "import sys, fort_env, fort_env.tools.cli; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "--backend", "rllib", "--preset", "tiny"], "needs Ray"),
        (["train", "--ray-address", "auto"], "need --backend rllib"),
        (["train", "--num-env-runners", "2"], "need --backend rllib"),
        (["train", "--backend", "tf"], "unknown --backend"),
        (["train", "--backend", "rllib", "--resume"], "--backend local only"),
        (
            ["tournament", "--agents", "random,random", "--games", "2", "--ray-address", "auto"],
            "needs Ray",
        ),
    ],
)
def test_ray_options_without_ray_fail_clearly(args: list[str], message: str, tmp_path) -> None:
    result = CliRunner().invoke(
        app, [*args, *(["--out", str(tmp_path)] if "train" in args else [])]
    )
    assert result.exit_code != 0
    assert message in result.output
    assert not list(tmp_path.iterdir())  # nothing was written
