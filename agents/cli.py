"""The ``tournament``, ``play``, ``serve``, ``analyze`` and ``ladder`` commands of ``fort-env``.

The command functions are plain functions with typed arguments that do the work and print;
:func:`register` (the ``fort_env.commands`` entry point) adds them to a typer app
(``fort_env.tools.cli.app``) with the options of the issue::

    fort-env tournament --agents A,B[,C,D] --num-players N --games G --seed S [--workers W] [--json]
                        [--setup basic|advanced] [--cards DIR] [--ray-address ADDRESS]
                        [--save DIR [--save-games N]]
    fort-env play --num-players N --opponents heuristic,random [--seed S] [--seat K]
                  [--save GAME.json]
    fort-env serve [--host 127.0.0.1] [--port 8000]

One module per job: this one plays (``tournament``, ``play``, ``serve``);
``agents.cli_analyze`` reports on the card set (``analyze``, ``analyze balance``);
``agents.cli_ladder`` rates every bot (``ladder``); ``agents.cli_checks`` holds the checks of
their options that run before any game.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Annotated, Any

import typer

from agents.cli_analyze import analyze, analyze_balance, register_analyze
from agents.cli_checks import (
    CARDS_HELP,
    MAX_SEED,
    check_agents,
    check_critic,
    check_game,
    check_out_dir,
    check_save_file,
    split_specs,
    trusted_spec,
)
from agents.cli_ladder import register_ladder
from fort_env.game.constants import SEED_LIMIT
from fort_env.tools.cli_errors import bad_option, fail, failures

__all__ = ["analyze", "analyze_balance", "play", "register", "tournament"]


def tournament(
    agents: str,
    num_players: int = 2,
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    json_output: bool = False,
    setup: str = "basic",
    progress: bool = True,
    cards: str | None = None,
    ray_address: str | None = None,
    save: str | None = None,
    save_games: int | None = None,
    built: list[Any] | None = None,
    critic: str | None = None,
    luck_samples: int | None = None,
) -> dict[str, Any]:
    """Play a tournament and print its result (a table, or one JSON object with ``json_output``).

    ``save``: a folder to write the games into as records (``fort_env.records``; ``fort-env
    replay`` reads them), ``game-NNNN.json`` each: every game, or the first ``save_games``.
    ``built``: the agents of ``agents`` already made (``agents.make``, one per spec, as the
    command's check makes them); they play when the games are played in this process
    (``workers=1``, no Ray), so that no agent, and no model file, is built twice.
    ``critic``: a whole-table critic file: luck-corrected results beside the raw ones
    (``agents.arena.luck``).

    Raises:
        ValueError: bad agents or counts (``agents.arena.tournament.run_tournament``).
        ImportError, ConnectionError: ``ray_address`` without Ray, or with no cluster there.
        OSError: ``save`` cannot be written.
    """
    from agents.arena.luck import DEFAULT_SAMPLES
    from agents.arena.tournament import (
        format_table,
        run_tournament,
        save_game_records,
        unique_names,
    )

    keep = 0 if save is None else games if save_games is None else min(save_games, games)
    specs = split_specs(agents)
    in_process = workers == 1 and ray_address is None
    players: list[Any] = built if built is not None and in_process else list(specs)
    result = run_tournament(players, num_players, games, seed=seed, workers=workers, setup=setup,
                            cards=cards, progress=progress, ray_address=ray_address,
                            return_records=save is not None, record_games=keep, critic=critic,
                            luck_samples=luck_samples or DEFAULT_SAMPLES)  # fmt: skip
    if save is not None:
        records = result.pop("records")
        paths = save_game_records(records, unique_names(specs), save, num_players, setup, cards)
        sys.stderr.write(f"saved {len(paths)} game record(s) into {save}\n")
    if json_output:  # the result holds its provenance (run_tournament)
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(format_table(result))
    return result


def play(
    num_players: int = 2,
    opponents: str = "heuristic",
    seed: int | None = None,
    seat: int = 0,
    setup: str = "basic",
    save: str | None = None,
    raw: bool = False,
) -> int:
    """Play a game in the terminal against bots; returns the exit code (0).

    ``save``: write the game (finished or not) to this file as a record (``fort_env.records``;
    ``fort-env replay`` reads it), with ``agents``: who sat at each seat. ``raw``: cards and
    moves as code, not words (``agents.arena.human.play_human``).

    Raises:
        OSError: ``save`` cannot be written.
    """
    from agents.arena.human import play_human
    from fort_env.records import make_record, save_record

    if seed is None:  # any seed --seed takes
        seed = random.randrange(MAX_SEED + 1)
    result = play_human(
        num_players, split_specs(opponents), seed=seed, human_seat=seat, setup=setup, raw=raw
    )
    if save is not None:
        config = {"num_players": num_players, "setup": setup, "cards": None}
        record = make_record(config, result.seed, result.actions, result.state)
        record["agents"] = result.players
        save_record(record, save)
        print(f"saved the game to {save} (fort-env replay {save})")
    return 0


def register(app: Any) -> None:
    """Add the ``tournament``, ``play`` and ``analyze`` commands to a typer app."""
    register_ladder(app)  # and ``ladder``

    @app.command("tournament")
    def tournament_cmd(
        agents: Annotated[
            str,
            typer.Option(
                "--agents",
                help="Comma-separated agent specs, one per seat (e.g. heuristic,random).",
            ),
        ],
        num_players: Annotated[
            int, typer.Option("--num-players", min=2, max=4, help="2, 3 or 4.")
        ] = 2,
        games: Annotated[
            int, typer.Option("--games", min=1, max=10**7, help="Number of games.")
        ] = 100,
        seed: Annotated[
            int | None,
            typer.Option(
                "--seed",
                min=0,
                max=MAX_SEED,
                help="Run seed (deals and agents derive from it); default: a fresh one, printed.",
            ),
        ] = None,
        workers: Annotated[
            int, typer.Option("--workers", min=1, max=256, help="Parallel processes.")
        ] = 1,
        json_output: Annotated[
            bool,
            typer.Option(
                "--json", help="Print one JSON object (schema: agents/arena/tournament.py)."
            ),
        ] = False,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        cards: Annotated[str | None, typer.Option("--cards", help=CARDS_HELP)] = None,
        ray_address: Annotated[
            str | None,
            typer.Option(
                "--ray-address",
                help="Play the games as Ray tasks on this cluster: local, auto or HOST:PORT "
                "(needs Ray; --workers is then unused).",
            ),
        ] = None,
        trust_pickle: Annotated[
            bool,
            typer.Option(
                "--trust-pickle",
                help="Let ppo: agents load Stable-Baselines3 .zip files and rllib: agents Ray "
                "checkpoints. They are pickled: loading one runs any code its author put in "
                "it. Only for files you trust.",
            ),
        ] = False,
        save: Annotated[
            str | None,
            typer.Option(
                "--save",
                help="Folder to save the games into, one record per game (game-NNNN.json; "
                "fort-env replay reads them).",
            ),
        ] = None,
        save_games: Annotated[
            int | None,
            typer.Option(
                "--save-games", min=0, max=10**7, help="With --save: only the first N games."
            ),
        ] = None,
        raw: Annotated[
            bool,
            typer.Option(
                "--raw",
                help="Raw win rates only. By default, where a table critic ships for the table "
                "(agents/zoo/critic-Np: basic setup, shipped cards), luck-corrected win rates "
                "(AIVAT) are printed beside the raw ones.",
            ),
        ] = False,
        luck_corrected: Annotated[
            bool,
            typer.Option(
                "--luck-corrected",
                help="Require luck-corrected results: an error before the first game when no "
                "critic is given or ships for the table.",
            ),
        ] = False,
        critic: Annotated[
            str | None,
            typer.Option(
                "--critic",
                help="The table critic that values positions for the luck correction (a policy "
                "file with a whole-table critic, fitted on other games); default: the zoo's.",
            ),
        ] = None,
        luck_samples: Annotated[
            int,
            typer.Option(
                "--luck-samples",
                min=1,
                max=1024,
                help="Chance outcomes sampled per chance event by the luck correction.",
            ),
        ] = 8,
    ) -> None:
        """Play agents against each other with seat rotation; win rates, ratings, game stats,
        and luck-corrected win rates where a table critic ships (docs/benchmark.md)."""
        if trust_pickle:
            agents = ",".join(trusted_spec(spec) for spec in split_specs(agents))
        specs = split_specs(agents)
        if len(specs) != num_players:
            bad_option(
                "--agents",
                f"{len(specs)} agents for {num_players} players: give one agent per seat",
            )
        check_game(num_players, setup, cards)
        built = check_agents(specs, "--agents")
        if save_games is not None and save is None:
            bad_option("--save-games", "give --save DIR as well")
        if save is not None:
            check_out_dir(save, "--save")
        chosen = check_critic(critic, raw, luck_corrected, num_players, setup, cards)
        with failures():
            if seed is None:
                import secrets

                seed = secrets.randbelow(SEED_LIMIT)
                typer.echo(f"tournament seed {seed} (fresh; --seed {seed} replays it)", err=True)
            tournament(agents, num_players, games, seed, workers, json_output, setup, cards=cards,
                       ray_address=ray_address, save=save, save_games=save_games,
                       built=built, critic=chosen,
                       luck_samples=luck_samples)  # fmt: skip

    @app.command("play")
    def play_cmd(
        num_players: Annotated[
            int, typer.Option("--num-players", min=2, max=4, help="2, 3 or 4.")
        ] = 2,
        opponents: Annotated[
            str,
            typer.Option("--opponents", help="Comma-separated agent specs for the other seats."),
        ] = "heuristic",
        seed: Annotated[
            int | None,
            typer.Option("--seed", min=0, max=MAX_SEED, help="Deal seed (random if not given)."),
        ] = None,
        seat: Annotated[int, typer.Option("--seat", min=0, max=3, help="Your seat.")] = 0,
        setup: Annotated[str, typer.Option("--setup", help="basic or advanced.")] = "basic",
        save: Annotated[
            str | None,
            typer.Option(
                "--save",
                help="Save the game (finished or not) to this file as a record that "
                "fort-env replay reads.",
            ),
        ] = None,
        raw: Annotated[
            bool,
            typer.Option(
                "--raw",
                help="Show cards and moves as code (the card language, action names) instead "
                "of the rulebook's words.",
            ),
        ] = False,
    ) -> None:
        """Play Fort in the terminal against bots: the table once, then what changed before
        each of your decisions; type a choice's number, t for the whole table and the
        choices, ? for the keys, q to quit."""
        if seat >= num_players:
            bad_option(
                "--seat", f"seat {seat} in a {num_players}-player game (0..{num_players - 1})"
            )
        check_game(num_players, setup, None)
        check_agents(split_specs(opponents), "--opponents")
        from agents.arena.human import resolve_opponents

        try:  # one spec for every rival, or one per rival (before the game is dealt)
            resolve_opponents(split_specs(opponents), num_players)
        except ValueError as exc:
            bad_option("--opponents", exc)
        if save is not None:
            check_save_file(save)
        with failures():
            play(num_players, opponents, seed, seat, setup, save, raw)

    @app.command("serve")
    def serve_cmd(
        host: Annotated[
            str,
            typer.Option("--host", help="Address to bind (loopback by default; a warning if not)."),
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8000,
        allowed_host: Annotated[
            list[str] | None,
            typer.Option(
                "--allowed-host",
                help="A Host name the server answers besides the loopback names and --host "
                "(repeatable; for a name this machine is reached by). Others get 400.",
            ),
        ] = None,
        rival: Annotated[
            list[str] | None,
            typer.Option(
                "--rival",
                metavar="SPEC",
                help="An agent spec the page offers as a rival besides the bot zoo, e.g. "
                "ppo:runs/quick/latest/model.safetensors (repeatable; built and tried at "
                "start, offered at the player counts it plays).",
            ),
        ] = None,
    ) -> None:
        """Play Fort in the browser against the bots: a local web app (it needs the serve
        extra: starlette and uvicorn); open the address it prints."""
        try:
            from agents.arena.serve import check_rivals, host_name, serve
        except ImportError as exc:
            fail(f"{exc}; install the serve extra: pip install 'fort-env[serve]'", "serve")
        names = []
        for value in allowed_host or []:
            try:
                names.append(host_name(value))
            except ValueError as exc:
                bad_option("--allowed-host", exc)
        rivals: dict[str, tuple[int, ...]] = {}
        for spec in rival or []:
            if not spec.strip():
                bad_option("--rival", "an empty agent spec")
            with failures(f"--rival {spec}"):
                rivals.update(check_rivals([spec]))
        # the server's own rivals only when asked for (serve's signature stays the plain one)
        extra = {"rivals": rivals} if rivals else {}
        with failures():
            serve(host, port, allowed_hosts=names, **extra)

    register_analyze(app)
