"""The ``analyze`` command group of ``fort-env``: the card-set report
(``agents/analysis/analyze.py``) and ``analyze balance`` (``agents/analysis/balance.py``)::

    fort-env analyze --games G --agents heuristic [--num-players 2,3,4] [--seed S] [--workers W]
                     [--out DIR] [--json] [--setup basic|advanced] [--cards DIR]
    fort-env analyze balance --games G [--agents builder,opportunist] [--num-players 2,3,4]
                     [--seed S] [--workers W] [--out DIR] [--json] [--setup basic|advanced]
                     [--cards DIR] [--band 0.8,1.25] [--confidence 0.95]

Without a subcommand it prints the card-set report; options go after the subcommand's name.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from agents.cli_checks import (
    CARDS_HELP,
    MAX_SEED,
    check_agents,
    check_game,
    check_out_dir,
    parse_band,
    parse_player_counts,
    split_specs,
)
from fort_env.tools.cli_errors import bad_option, failures

__all__ = ["BALANCE_AGENTS", "analyze", "analyze_balance", "register_analyze"]

# The agents of ``analyze balance``: the two strongest cheap bots, about even with each other
# (docs/cards.md, "Card balance"); greedy and ismcts are stronger but 30-100x slower.
BALANCE_AGENTS = "builder,opportunist"


def analyze(
    games: int = 200,
    agents: str = "heuristic",
    num_players: str = "2,3,4",
    seed: int = 0,
    workers: int = 1,
    out: str = "analysis",
    json_output: bool = False,
    setup: str = "basic",
    progress: bool = True,
    cards: str | None = None,
) -> dict[str, Any]:
    """Simulate games and print the card-set report; write PNG plots into ``out``."""
    from rich.console import Console

    from agents.analysis.analyze import analyze as run_analysis
    from agents.analysis.analyze import print_report

    counts = [int(x) for x in split_specs(num_players)]
    report = run_analysis(split_specs(agents), games, counts, seed=seed, workers=workers, out=out,
                          setup=setup, cards=cards, progress=progress)  # fmt: skip
    if json_output:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        print_report(report, Console(width=160))
    return report


def analyze_balance(
    games: int = 200,
    agents: str = BALANCE_AGENTS,
    num_players: str = "2,3,4",
    seed: int = 0,
    workers: int = 1,
    out: str | None = "analysis",
    json_output: bool = False,
    setup: str = "basic",
    progress: bool = True,
    cards: str | None = None,
    band: tuple[float, float] = (0.8, 1.25),
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Measure every card's balance (``agents.analysis.balance.balance``) and print it (a rich
    table, or one JSON object with ``json_output``); write ``balance.png`` into ``out``.

    Raises:
        ValueError: bad agents, counts, band or confidence (``agents.analysis.balance.balance``).
    """
    from rich.console import Console

    from agents.analysis.balance import balance, print_balance

    counts = [int(x) for x in split_specs(num_players)]
    report = balance(split_specs(agents), games, counts, seed=seed, workers=workers, out=out,
                     setup=setup, cards=cards, confidence=confidence, band=band,
                     progress=progress)  # fmt: skip
    if json_output:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        print_balance(report, Console(width=180))
    return report


def register_analyze(app: Any) -> None:
    """Add the ``analyze`` command group (and its ``balance`` subcommand) to a typer app."""
    analyze_app = typer.Typer(
        invoke_without_command=True,
        help="Simulate games and report how the card set plays (tables and PNG plots); "
        "'analyze balance' measures each card's owner win ratio.",
    )
    app.add_typer(analyze_app, name="analyze")

    @analyze_app.callback()
    def analyze_cmd(
        ctx: typer.Context,
        games: Annotated[
            int, typer.Option("--games", min=1, max=10**7, help="Games per player count.")
        ] = 200,
        agents: Annotated[
            str, typer.Option("--agents", help="Comma-separated agent specs, seated in turn.")
        ] = "heuristic",
        num_players: Annotated[
            str, typer.Option("--num-players", help="Player counts, e.g. 2,3,4.")
        ] = "2,3,4",
        seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Run seed.")] = 0,
        workers: Annotated[
            int, typer.Option("--workers", min=1, max=256, help="Parallel processes.")
        ] = 1,
        out: Annotated[
            str, typer.Option("--out", help="Directory for the PNG plots.")
        ] = "analysis",
        json_output: Annotated[
            bool, typer.Option("--json", help="Print the report as one JSON object.")
        ] = False,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        cards: Annotated[str | None, typer.Option("--cards", help=CARDS_HELP)] = None,
    ) -> None:
        """Simulate games and report how the card set plays (tables and PNG plots)."""
        if ctx.invoked_subcommand is not None:
            # typer vendors click: compare the source by name, not with click's enum
            given = [
                p.opts[0]
                for p in ctx.command.params
                if getattr(ctx.get_parameter_source(p.name or ""), "name", "") == "COMMANDLINE"
            ]
            if given:
                bad_option(
                    given[0],
                    f"give the options of 'analyze {ctx.invoked_subcommand}' after "
                    f"'{ctx.invoked_subcommand}'",
                )
            return
        counts = parse_player_counts(num_players)
        check_game(counts[0], setup, cards)
        check_agents(split_specs(agents), "--agents")
        check_out_dir(out)
        with failures():
            analyze(games, agents, num_players, seed, workers, out, json_output, setup, cards=cards)

    @analyze_app.command("balance")
    def balance_cmd(
        games: Annotated[
            int,
            typer.Option(
                "--games",
                min=1,
                max=10**7,
                help="Games per player count (docs/cards.md's balance table played 3334 at "
                "each of 2, 3 and 4 players).",
            ),
        ] = 200,
        agents: Annotated[
            str, typer.Option("--agents", help="Comma-separated agent specs, seated in turn.")
        ] = BALANCE_AGENTS,
        num_players: Annotated[
            str, typer.Option("--num-players", help="Player counts, e.g. 2,3,4.")
        ] = "2,3,4",
        seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Run seed.")] = 0,
        workers: Annotated[
            int, typer.Option("--workers", min=1, max=256, help="Parallel processes.")
        ] = 1,
        out: Annotated[str, typer.Option("--out", help="Directory for balance.png.")] = "analysis",
        json_output: Annotated[
            bool, typer.Option("--json", help="Print the report as one JSON object.")
        ] = False,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        cards: Annotated[str | None, typer.Option("--cards", help=CARDS_HELP)] = None,
        band: Annotated[
            str,
            typer.Option(
                "--band", help="The fair band of win ratios, LOW,HIGH (0 < LOW < 1 < HIGH)."
            ),
        ] = "0.8,1.25",
        confidence: Annotated[
            float,
            typer.Option(
                "--confidence", min=0.5, max=0.9999, help="Confidence of the Wilson intervals."
            ),
        ] = 0.95,
    ) -> None:
        """Per card: how often seats that owned or played it won, against their expected share
        (Wilson intervals), with a plot; flags cards outside the band."""
        counts = parse_player_counts(num_players)
        limits = parse_band(band)
        check_game(counts[0], setup, cards)
        check_agents(split_specs(agents), "--agents")
        check_out_dir(out)
        with failures():
            analyze_balance(games, agents, num_players, seed, workers, out, json_output, setup,
                            cards=cards, band=limits, confidence=confidence)  # fmt: skip
