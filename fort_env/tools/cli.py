"""The ``fort-env`` command line (console script ``fort-env = "fort_env.tools.cli:app"``).

One function per command; each command's docstring is its ``--help`` text.

- ``fort-env replay FILE``: print a saved game (``fort_env.records``) turn by turn; with
  ``--html OUT.html`` write it as a self-contained page instead (``fort_env.tools.replay_html``).
- ``fort-env bench [--json] [--ppo]``: decisions/s of Fort and of PettingZoo peers, and with
  ``--ppo`` the env's share of MaskablePPO's rollout time (``fort_env.tools.bench``).
- ``fort-env --version``: the installed package's version.
- ``fort-env tournament``, ``play``, ``analyze``: the bot zoo (``agents/cli.py``).
- ``fort-env train --preset quick``: self-play training (``train/cli.py``).
"""

from __future__ import annotations

from fort_env.tools.cpu import passive_openmp

passive_openmp()  # before anything imports torch (fort_env/tools/cpu.py says why)

import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Annotated, Any  # noqa: E402

import typer  # noqa: E402

from fort_env.core import FortState  # noqa: E402
from fort_env.game.decisions import DecisionKind  # noqa: E402
from fort_env.game.inputs import terminal_text  # noqa: E402
from fort_env.records import load_record  # noqa: E402
from fort_env.records import replay as replay_record  # noqa: E402
from fort_env.tools.cli_errors import failures, output_closed  # noqa: E402
from fort_env.tools.plugins import plugin_failures, plugins  # noqa: E402
from fort_env.views.text import plural, score_line, state_to_string  # noqa: E402
from fort_env.views.words import action_words, decision_name  # noqa: E402


class _App(typer.Typer):
    """The ``fort-env`` app: a command whose output's reader goes away (``fort-env replay
    game.json | head``) ends quietly, exit 141 (``cli_errors.output_closed``), whichever command
    was printing. Click catches ``BrokenPipeError`` itself and exits 1 after wrapping the
    standard streams in its ``PacifyFlushWrapper``; rich (tables, ``--help``) exits 1 after
    pointing standard output at ``os.devnull``: either says that this is what happened."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        before = _stdout_file()
        try:
            return super().__call__(*args, **kwargs)
        except BrokenPipeError:  # raised outside click's own handler
            output_closed()
        except SystemExit as exc:
            # click's wrapper, or the copy typer vendors (typer._click): known by its name
            clicks = type(sys.stdout).__name__ == "PacifyFlushWrapper"
            riches = before != _stdout_file() == _devnull_file()
            if exc.code == 1 and (clicks or riches):
                output_closed()
            raise


def _stdout_file() -> tuple[int, int] | None:
    """The file that descriptor 1 writes to (device, inode); None if there is none."""
    try:
        st = os.fstat(1)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _devnull_file() -> tuple[int, int] | None:
    try:
        st = os.stat(os.devnull)
    except OSError:
        return None
    return st.st_dev, st.st_ino


app = _App(
    help="fort-env: the card game Fort as a reinforcement-learning environment.",
    no_args_is_help=True,
    add_completion=False,
)


KIND_WIDTH = max(len(kind.name) for kind in DecisionKind)
"""The decision-kind column of ``fort-env replay``: as wide as the longest name
(``STOP_OR_CONTINUE``, ``stop or continue``), so the actions line up."""


def kind_words(kind: DecisionKind, raw: bool) -> str:
    """A decision kind in the replay's column: its name (``raw``), or in lower-case words
    (``words.decision_name``)."""
    return kind.name if raw else decision_name(kind)


class _DecisionPrinter:
    """Prints each decision of a replay as one line, with a header when a new turn starts.

    Only an action the position allows is printed: the replay refuses an illegal one right
    after this call (``RecordError``, one ``error:`` line), and a refused action printed as if
    it had been played would misreport the record.
    """

    def __init__(self, states: bool, raw: bool = False) -> None:
        self.states = states  # also print the whole table before each decision
        self.raw = raw  # the code form: action names, the card language, "score"
        self.leader: int | None = None  # leader of the turn being printed; -1 in the draft
        self.turns = 0
        self.index = 0

    def __call__(self, state: FortState, action: int) -> None:
        mask = state.legal_actions_mask()
        if not (0 <= action < mask.size and bool(mask[action])):
            return  # not played: the replay raises next, naming the action
        decision = state.decision
        leader = -1 if decision.kind == DecisionKind.DRAFT else decision.context["leader"]
        if leader != self.leader:
            self.leader = leader
            if leader < 0:
                typer.echo("\n== Draft ==")
            else:
                self.turns += 1
                typer.echo(f"\n== Turn {self.turns}: player_{leader} leads ==")
        if self.states:  # card names come from the record's card set: never raw
            typer.echo(
                terminal_text(state_to_string(state, words=not self.raw), keep_newlines=True)
            )
        move = state.action_to_string(action) if self.raw else action_words(state, action, "their")
        typer.echo(
            f"{self.index:5d}  player_{decision.player}  "
            f"{kind_words(decision.kind, self.raw):<{KIND_WIDTH}} {terminal_text(move)}"
        )
        self.index += 1


def package_version() -> str:
    """The installed ``fort-env`` distribution's version (``importlib.metadata``), or
    ``"unknown (not installed)"`` when the sources run without an install."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fort-env")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"fort-env {package_version()}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the installed fort-env version and exit.",
        ),
    ] = False,
) -> None:
    """fort-env: the card game Fort as a reinforcement-learning environment."""


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="a game record (JSON)")],
    states: Annotated[
        bool, typer.Option("--states", help="print the whole table before every decision")
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            dir_okay=False,
            help="write one self-contained HTML page stepping through the game, decision by "
            "decision (fort_env/tools/replay_html.py), instead of printing it",
        ),
    ] = None,
    raw: Annotated[
        bool,
        typer.Option(
            "--raw",
            help="show moves, cards and decisions as code (action names, the card language) "
            "instead of the rulebook's words",
        ),
    ] = False,
) -> None:
    """Print a saved game turn by turn: who decided what, then the final scores.

    With --html OUT.html, write the game as a page to step through in a browser instead.
    Moves and cards read in the rulebook's words; --raw shows them as code.
    Exits with status 1 if the file is not a record or does not replay.
    """
    with failures("FILE"):
        record = load_record(file)
    if html is not None:
        from fort_env.tools.replay_html import write_replay_html

        with failures("--html"):
            frames = write_replay_html(record, html, raw=raw)
        typer.echo(
            f"wrote {html}: {plural(frames, 'frame')} (open it in a browser; arrow keys step)"
        )
        return
    # what the record says is printed through terminal_text: a control character in it (ESC,
    # BEL, NUL...) is shown as its escape, never acted on by the terminal
    cfg = record["config"]
    cards = "shipped cards" if cfg["cards"] is None else f"cards from {cfg['cards']}"
    typer.echo(
        terminal_text(
            f"{file}: {cfg['num_players']} players, {cfg['setup']} setup, {cards}, "
            f"seed {record['seed']}, {plural(len(record['actions']), 'decision')}"
        )
    )
    if record.get("agents"):
        typer.echo(
            ", ".join(
                f"player_{p}: {terminal_text(name)}" for p, name in enumerate(record["agents"])
            )
        )
    if record.get("seed_chosen_by_client"):
        typer.echo("The seed was chosen by the client (fort-env serve): whoever chose it could "
                   "know every hidden card.")  # fmt: skip
    with failures("FILE"):
        final = replay_record(record, on_decision=_DecisionPrinter(states, raw))
    if not final.is_terminal():
        typer.echo("\n== The record stops before the end of the game ==")
        return
    typer.echo("\n== Game over ==")
    for p, row in enumerate(final.score_breakdown()):
        typer.echo(f"player_{p}: {score_line(row)}")
    typer.echo("Winners: " + ", ".join(f"player_{p}" for p in final.winners()))


@app.command()
def bench(
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    seconds: Annotated[
        float, typer.Option(min=0.01, max=3600.0, help="Seconds per round of each figure.")
    ] = 2.0,
    rounds: Annotated[
        int, typer.Option(min=1, max=1000, help="Rounds per figure (the median is kept).")
    ] = 3,
    # 4, where every other command deals 2: the headline peers Fort is measured against
    # (OpenSpiel's hanabi, PettingZoo's texas_holdem_v4) are 4-player games, and
    # docs/performance.md's figures are 4-player ones, so the default compares like with like.
    num_players: Annotated[
        int,
        typer.Option(
            min=2,
            max=4,
            help="Players in the Fort games (4 by default, unlike the other commands: the "
            "peers hanabi and texas_holdem_v4 are 4-player games).",
        ),
    ] = 4,
    ppo: Annotated[
        bool,
        typer.Option(
            "--ppo",
            help="Also measure the env's share of the rollout time of sb3-contrib's "
            "MaskablePPO (the --algo maskable_ppo learner, train/bench_ppo.py), in process "
            "(needs the train extra; ~15 s more).",
        ),
    ] = False,
    ppo_rollouts: Annotated[
        int,
        typer.Option(min=1, max=1000, help="Rollouts timed by --ppo (after one warm-up rollout)."),
    ] = 3,
    train: Annotated[
        bool,
        typer.Option(
            "--train",
            help="Also measure the quick preset's trainer end to end (learner samples/s, rollout "
            "and update) beside a MaskablePPO baseline (train.bench_ppo.BASELINE: 32 games, "
            "random opponents, one thread), in process (the train extra).",
        ),
    ] = False,
    contend: Annotated[
        int,
        typer.Option(
            min=0,
            max=64,
            help="--train: also time the trainer beside K busy processes that the bench starts "
            "and stops (its default, one torch thread, and the baseline; ~3x --train-seconds "
            "more).",
        ),
    ] = 0,
    train_seconds: Annotated[
        float, typer.Option(min=1.0, max=3600.0, help="Seconds each trainer runs for --train.")
    ] = 20.0,
    device: Annotated[
        str, typer.Option(help="--train: the trainer's device (auto, cpu, cuda, cuda:K).")
    ] = "auto",
    backend: Annotated[
        str | None,
        typer.Option(
            help='The engine: "python" or "cpp" (the compiled core); default $FORT_ENV_BACKEND, '
            'else "cpp" when the core is built, else "python".'
        ),
    ] = None,
) -> None:
    """Measure decisions/s of Fort (engine and AEC loop) and of PettingZoo peers, in one run.

    With --ppo, also the env's share of MaskablePPO's rollout time (fort_env/tools/bench.py);
    with --train, the quick preset's trainer's learner samples/s against a MaskablePPO
    baseline.
    """
    import json

    from fort_env.tools.bench import format_bench, run_bench

    with failures():  # e.g. --ppo without the train extra
        result = run_bench(
            seconds=seconds,
            rounds=rounds,
            num_players=num_players,
            ppo=ppo,
            ppo_rollouts=ppo_rollouts,
            train=train,
            train_options={"seconds": train_seconds, "device": device, "contend": contend},
            backend=backend,
        )
    typer.echo(json.dumps(result, indent=2) if json_output else format_bench(result))


def _register_other_commands() -> None:
    """The bot zoo's and training's commands live with their packages (``agents/cli.py``,
    ``train/cli.py``) and are found by the ``fort_env.commands`` entry points, so this layer
    imports neither (``fort_env/tools/plugins.py``)."""
    for name, register in plugins("fort_env.commands").items():
        with plugin_failures(name, "fort_env.commands"):  # a broken plugin: a warning
            register(app)


_register_other_commands()

if __name__ == "__main__":  # python -m fort_env.tools.cli
    app()
