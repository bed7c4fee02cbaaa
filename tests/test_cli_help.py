"""What ``fort-env --help`` tells a new user is true: one seed range for every command, every
preset-dependent default shown as its values, the default learner named as it is, no words
only the project's own history explains, and a ``--version``."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from fort_env.game.constants import SEED_LIMIT
from fort_env.game.inputs import MAX_SEED
from fort_env.tools.cli import app, package_version

# Words that mean something only to those who followed the project's rounds of work.
JARGON = ("round two", "round three", "main job", "issue ")


# typer vendors its own click (typer._click): its commands and options are known by their
# attributes, not by click's classes.
def commands() -> Iterator[tuple[str, Any]]:
    """Every command of the ``fort-env`` tree, by its full name (``analyze balance``)."""
    stack: list[tuple[str, Any]] = [("", typer.main.get_command(app))]
    while stack:
        name, command = stack.pop()
        yield name, command
        for sub_name, sub in getattr(command, "commands", {}).items():
            stack.append((f"{name} {sub_name}".strip(), sub))


def help_of(*words: str) -> str:
    result = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # the table's wrapping undone


def option_help(command: str, name: str) -> str:
    """The help text of option ``name`` of ``command``, its wrapping undone."""
    [found] = [p for p in dict(commands())[command].params if name in getattr(p, "opts", ())]
    return " ".join(found.help.split())


def test_every_seed_option_has_the_engines_range() -> None:
    """``--seed`` of every command takes exactly ``[0, MAX_SEED]``, the engine's deal seeds
    (``train`` took below 2**31, ``value-fit`` below 2**40, the others below 2**62)."""
    assert MAX_SEED == SEED_LIMIT - 1
    seeded = {}
    for name, command in commands():
        for param in command.params:
            if "--seed" in getattr(param, "opts", ()):
                seeded[name] = (param.min, param.max)
    expected = {"train", "expert", "value-fit", "tournament", "play", "ladder", "analyze"}
    assert expected | {"analyze balance"} <= set(seeded)
    assert set(seeded.values()) == {(0, MAX_SEED)}, seeded


def test_the_largest_seed_is_taken_and_one_more_refused() -> None:
    runner = CliRunner()
    args = ["value-fit", "--model", "missing.safetensors", "--out", "y", "--seed"]
    over = runner.invoke(app, [*args, str(SEED_LIMIT)])
    assert over.exit_code == 2 and "--seed" in over.output
    # the range check passes; the command then stops at the missing model file, exit 1
    at_max = runner.invoke(app, [*args, str(MAX_SEED)])
    assert at_max.exit_code == 1 and "--model" in at_max.output and "--seed" not in at_max.output


def test_version_is_the_installed_distributions() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    try:
        expected = version("fort-env")
    except PackageNotFoundError:  # the sources run without an install
        expected = "unknown (not installed)"
    assert result.output == f"fort-env {expected}\n" == f"fort-env {package_version()}\n"


def test_train_help_shows_the_presets_values_and_the_real_learner() -> None:
    from train.config import PRESETS

    text = help_of("train")
    assert "MaskablePPO)" not in text and "sb3 (" not in text
    for flag, field in (("--algo", "algo"), ("--critic", "critic"), ("--seed", "seed")):
        values = {getattr(config, field) for config in PRESETS.values()}
        help_text = option_help("train", flag)
        assert "the preset's" not in help_text and "default: " in help_text
        for value in values:
            assert (f" {value:,}" if isinstance(value, int) else value) in help_text
        if len(values) > 1:  # each preset named with its own value
            for name, config in PRESETS.items():
                assert f"{name} {getattr(config, field)}" in help_text, (flag, help_text)
    quick = PRESETS["quick"]
    assert quick.algo == "ppo" and "quick ppo" in text  # the lean PPO, not MaskablePPO
    assert f"quick: {quick.time_budget_minutes:g} minutes" in text
    assert "beats random" not in text
    assert "[default: local]" in text


def test_an_unknown_backend_names_the_choices() -> None:
    result = CliRunner().invoke(app, ["train", "--backend", "sb4"])
    assert result.exit_code == 1
    assert "unknown --backend 'sb4' (local or rllib)" in result.output


def test_analyze_balance_games_help_is_not_a_sum() -> None:
    text = help_of("analyze", "balance")
    assert "3334 x 3" not in text and "[default: 200]" in text


def test_bench_says_why_it_deals_four_players() -> None:
    text = help_of("bench")
    assert "[default: 4]" in text and "4-player games" in text


@pytest.mark.parametrize("name", sorted(name for name, _ in commands()))
def test_no_project_jargon_in_help(name: str) -> None:
    text = help_of(*name.split()).lower()
    assert not [word for word in JARGON if word in text], text


def test_fold_seed_keeps_derived_seeds_in_range_and_small_ones_as_they_were() -> None:
    """A run's derived seeds (``seed + 1000 * k`` for a batch of ``count`` games, numpy's
    32-bit seed) stay in range from the largest ``--seed``; a value in range is unchanged."""
    from train.config import NUMPY_SEED_LIMIT, fold_seed

    for value in (0, 1, 7, 123_456, 2**32 - 1):
        assert fold_seed(value) == value == fold_seed(value, NUMPY_SEED_LIMIT)
    assert fold_seed(MAX_SEED) == MAX_SEED
    for count in (1, 2, 64, 4096):
        for value in (MAX_SEED, MAX_SEED + 1000 * 7, SEED_LIMIT - count, 10**30):
            first = fold_seed(value, count=count)
            assert first >= 0 and first + count - 1 <= MAX_SEED, (value, count)
    assert fold_seed(SEED_LIMIT + 5) == 5
    assert 0 <= fold_seed(MAX_SEED, NUMPY_SEED_LIMIT) < 2**32
    with pytest.raises(ValueError, match="negative"):
        fold_seed(-1)
    with pytest.raises(ValueError, match="count"):
        fold_seed(5, count=0)
