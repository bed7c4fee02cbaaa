"""What the ``fort-env`` commands of ``agents`` check before they play: usage errors name the
option (exit 2), and a configuration or an agent spec that does not build names it (exit 1),
before any game is played. Shared by ``agents.cli``, ``agents.cli_analyze`` and
``agents.cli_ladder``."""

from __future__ import annotations

from typing import Any

from fort_env.core import FortGame
from fort_env.game.inputs import MAX_SEED as MAX_SEED  # the one --seed bound of every command
from fort_env.tools.cli_errors import bad_option, failures

CARDS_HELP = "A card data directory (docs/cards.md); the shipped set if not given."


def split_specs(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


SETUPS = ("basic", "advanced")


def check_game(num_players: int, setup: str, cards: str | None) -> None:
    """Usage errors for ``--setup`` (exit 2); card data that does not load names ``--cards``
    (exit 1)."""
    if setup not in SETUPS:
        bad_option("--setup", f"{setup!r} is not one of {', '.join(SETUPS)}")
    with failures("--cards"):
        FortGame(num_players, setup, cards)


def check_agents(specs: list[str], option: str) -> list[Any]:
    """Build each agent spec once, so that a bad one names ``option`` (exit 1) before any
    game is played; the agents built, one per spec (a command that plays in this process
    plays them, so that a model file is read once, not once more per check)."""
    from agents import make
    from agents.arena.bot_guard import describe_failure
    from fort_env.game.errors import ConfigError
    from fort_env.tools.cli_errors import EXPECTED

    if not specs:
        bad_option(option, "no agent given")
    built = []
    for spec in specs:
        with failures(f"{option} {spec}"):
            try:
                built.append(make(spec))
            except EXPECTED:
                raise
            except (Exception, SystemExit) as exc:  # a plugin's own bug, sys.exit() included
                problem = f"the agent could not be built: it {describe_failure(exc)}"
                raise ConfigError(problem) from None
    return built


def trusted_spec(spec: str) -> str:
    """``ppo:PATH[:ARGS]`` or ``rllib:PATH[:ARGS]`` with ``trusted=1`` added
    (``--trust-pickle``); other specs as given."""
    from agents import with_trust

    return with_trust(spec)


def check_out_dir(out: str, option: str = "--out") -> None:
    """``out`` exists or can be created, and a file can be written in it (names ``option``)."""
    import tempfile
    from pathlib import Path

    with failures(option):
        Path(out).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass


def check_save_file(path: str) -> None:
    """``--save FILE`` names a file that can be written, before the game starts (its folder
    exists, it is not a folder, nor a FIFO, a device or a link to one:
    ``fort_env.game.files.check_target``); nothing is created yet."""
    import os
    from pathlib import Path

    from fort_env.game.files import check_target

    target = Path(path)
    folder = target.parent
    if target.is_dir():
        bad_option("--save", f"{path} is a folder: give a file name, e.g. {target / 'game.json'}")
    try:
        check_target(target)
    except OSError as exc:  # OutputFileError: not a regular file's name
        bad_option("--save", exc)
    if not folder.is_dir():
        bad_option("--save", f"no folder {folder} to write {target.name} into")
    if not os.access(folder, os.W_OK):
        bad_option("--save", f"cannot write into {folder}")


def parse_player_counts(text: str) -> list[int]:
    """``"2,3,4"`` -> ``[2, 3, 4]``; anything else is a usage error of ``--num-players``."""
    parts = split_specs(text)
    if not parts:
        bad_option("--num-players", "give player counts, e.g. 2,3,4")
    counts = []
    for part in parts:
        if not part.isdigit() or not 2 <= int(part) <= 4:
            bad_option("--num-players", f"{part!r} is not a player count (2, 3 or 4)")
        counts.append(int(part))
    return counts


def parse_band(text: str) -> tuple[float, float]:
    """``"0.8,1.25"`` -> ``(0.8, 1.25)``; anything else is a usage error of ``--band``."""
    parts = split_specs(text)
    try:
        low, high = (float(x) for x in parts)
    except ValueError:
        bad_option("--band", f"{text!r} is not two numbers LOW,HIGH (e.g. 0.8,1.25)")
    if not 0 < low < 1 < high:
        bad_option("--band", f"{text!r}: need 0 < LOW < 1 < HIGH")
    return low, high


def check_critic(
    critic: str | None, raw: bool, required: bool, num_players: int, setup: str,
    cards: str | None = None,
) -> str | None:  # fmt: skip
    """The critic a comparing command uses (``agents.arena.luck.choose_critic``), or one error
    line naming ``--critic`` or ``--luck-corrected`` (exit 2)."""
    from agents.arena.luck import choose_critic
    from fort_env.game.errors import ConfigError

    try:
        chosen = choose_critic(critic, raw, required, num_players, setup, cards)
    except ConfigError as exc:
        bad_option("--critic" if critic else "--luck-corrected", str(exc))
    return None if chosen is None else str(chosen)
