"""The compiled core is optional: without it fort_env imports and plays, and asking for the
"cpp" backend raises a ConfigError that says why (docs/cpp.md)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    import os

    env = {k: v for k, v in os.environ.items() if k != "FORT_ENV_CORE"}  # the installed one
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_fort_env_works_without_the_extension() -> None:
    run = _run(
        """
        import sys
        sys.modules["fort_env.native._core"] = None  # as if it were not built: importing it fails
        import fort_env
        from fort_env import cpp_backend
        from fort_env.game.errors import ConfigError
        g = fort_env.FortGame(2)
        s = g.new_initial_state(0)
        s.apply_action(s.legal_actions()[0])
        assert cpp_backend.new_initial_state(g, 0, backend="python") == g.new_initial_state(0)
        assert not cpp_backend.available()
        try:
            cpp_backend.new_initial_state(g, 0)
        except ConfigError as exc:
            print("ERROR", exc)
        """
    )
    assert run.returncode == 0, run.stderr
    assert 'ERROR backend "cpp" needs the compiled extension fort_env.native._core' in run.stdout
    assert "ModuleNotFoundError" in run.stdout and 'backend="python"' in run.stdout


def test_bad_core_path_is_reported() -> None:
    run = _run(
        """
        from fort_env import cpp_backend
        print(cpp_backend.available(), cpp_backend.why_unavailable())
        """,
        {"FORT_ENV_CORE": "/nonexistent/_core.so"},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("False ") and "/nonexistent/_core.so" in run.stdout


def test_core_is_built_where_it_must_be() -> None:
    """Under CI (``CI=true``, set by the CI runner) or with ``FORT_ENV_REQUIRE_CORE=1`` the
    README's install has built the extension: the differential tests must run, not skip."""
    import os

    import pytest

    from fort_env.native import backend as cpp_backend

    if os.environ.get("CI") != "true" and not os.environ.get("FORT_ENV_REQUIRE_CORE"):
        pytest.skip("the extension is optional here (neither CI=true nor FORT_ENV_REQUIRE_CORE)")
    assert cpp_backend.available(), cpp_backend.why_unavailable()


def test_cpp_backend_game_without_the_extension_is_a_config_error() -> None:
    run = _run(
        """
        import sys
        sys.modules["fort_env.native._core"] = None
        import fort_env
        from fort_env.game.errors import ConfigError
        assert fort_env.FortGame(2).backend == "python"
        try:
            fort_env.FortGame(2, backend="cpp")
        except ConfigError as exc:
            print("ERROR", exc)
        """,
        {"FORT_ENV_BACKEND": "python"},
    )
    assert run.returncode == 0, run.stderr
    assert 'ERROR backend "cpp" needs the compiled extension' in run.stdout
