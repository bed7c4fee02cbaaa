"""The one grammar of agent specs (agents/spec.py): what it reads, the round trip through
``format_spec``, typed arguments, and one clear error per mistake; and every reader of specs
(``make``, ``with_trust``/``asks_trust``, ``short_name``, ppo, rllib) reading them alike."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agents
from agents.arena.tournament import short_name
from agents.spec import AgentSpec, Param, SpecError, build, format_spec, params_of, parse
from fort_env.game.errors import ConfigError

NAMES = st.from_regex(r"[a-z][a-z0-9_#-]{0,11}", fullmatch=True)
KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,9}", fullmatch=True)
VALUES = st.text(max_size=30)  # any text: ':', quotes, backslashes, '=', space, newlines


@settings(max_examples=400, deadline=None)
@given(
    name=NAMES,
    path=st.none() | VALUES,
    args=st.dictionaries(KEYS, VALUES, max_size=5),
)
def test_format_then_parse_gives_the_parts_back(
    name: str, path: str | None, args: dict[str, str]
) -> None:
    text = format_spec(name, path, args)
    assert parse(text) == AgentSpec(name, path, args)
    assert str(parse(text)) == text  # and the text is a fixed point


@settings(max_examples=200, deadline=None)
@given(name=NAMES, args=st.dictionaries(KEYS, st.from_regex(r"[\w./-]*", fullmatch=True)))
def test_plain_specs_are_written_as_they_were(name: str, args: dict[str, str]) -> None:
    """A spec without ':', quotes, backslashes or space in its values needs no quoting: the
    specs of the docs and tests read as before."""
    text = ":".join([name, *(f"{k}={v}" for k, v in args.items())])
    assert parse(text).args == args
    assert format_spec(name, None, args) == text


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("random", AgentSpec("random")),
        ("ismcts:", AgentSpec("ismcts")),
        ("  ismcts : ms = 50 ", AgentSpec("ismcts", None, {"ms": "50"})),
        ("puct:ms=50:model=runs/x.safetensors",
         AgentSpec("puct", None, {"ms": "50", "model": "runs/x.safetensors"})),
        ('puct:model="C:/x.safetensors":ms=50',
         AgentSpec("puct", None, {"model": "C:/x.safetensors", "ms": "50"})),
        ("puct:model='a:b'", AgentSpec("puct", None, {"model": "a:b"})),
        (r"puct:model=C\:/x.safetensors", AgentSpec("puct", None, {"model": "C:/x.safetensors"})),
        (r"ppo:models\x.safetensors", AgentSpec("ppo", r"models\x.safetensors")),
        (r'ppo:"a\"b\\c"', AgentSpec("ppo", 'a"b\\c')),
        ("ppo:runs/lr=3e-4/model.safetensors:deterministic=0",
         AgentSpec("ppo", "runs/lr=3e-4/model.safetensors", {"deterministic": "0"})),
        ("ppo:x.zip:trusted=1", AgentSpec("ppo", "x.zip", {"trusted": "1"})),
        ("random:seed=", AgentSpec("random", None, {"seed": ""})),
    ],
)  # fmt: skip
def test_what_a_spec_reads_as(text: str, spec: AgentSpec) -> None:
    assert parse(text) == spec


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "no agent name"),
        (":ms=5", "no agent name"),
        ("ismcts::ms=1", "an empty argument"),
        ("ismcts:ms=1:", "an empty argument"),
        ('puct:model="x', r"quote \(\"\) is not closed"),
        ("puct:model='x'y", "follows a closing quote"),
        ("ismcts:ms=5:ms=6", "argument ms is given twice"),
        ("ppo:C:/x.safetensors", r"agent 'ppo': argument '/x.safetensors' is not key=value"),
        ("ppo:ms=5:x.zip", "is not key=value"),
    ],
)
def test_grammar_errors(text: str, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        parse(text)


def test_format_refuses_what_it_cannot_write() -> None:
    for name, args in (("", {}), ("a:b", {}), ("ok", {"not a key": "1"}), ("ok", {"1x": "1"})):
        with pytest.raises(SpecError):
            format_spec(name, None, args)


def test_arguments_are_converted_by_their_declared_type() -> None:
    class Bot:
        def __init__(
            self,
            n: int = 1,
            x: float | None = None,
            flag: bool = False,
            model: str | None = None,
            seed: int | None = None,
            game: object = None,
        ) -> None:
            self.kwargs = {"n": n, "x": x, "flag": flag, "model": model, "seed": seed}

    assert set(params_of(Bot)) == {"n", "x", "flag", "model", "seed"}  # no game from text
    assert params_of(Bot)["n"] == Param("n", int, 1)
    bot = build("bot", Bot, "n=3:x=2:flag=true:model='1:2':seed=7")
    assert bot.kwargs == {"n": 3, "x": 2.0, "flag": True, "model": "1:2", "seed": 7}
    assert type(bot.kwargs["x"]) is float  # "2" is the declared float, not a guessed int
    assert build("bot", Bot, "model=1").kwargs["model"] == "1"  # text stays text
    for args, words in (
        ("n=1.5", r"agent 'bot': argument n='1.5' is not an integer"),
        ("x=fast", r"agent 'bot': argument x='fast' is not a number"),
        ("flag=yes", r"agent 'bot': argument flag='yes' is not 0 or 1"),
        ("seed=-1", r"agent 'bot': argument seed='-1' is not a seed"),
        ("game=x", r"agent 'bot' takes n, x, flag, model, seed, not 'game' \(in game='x'\)"),
        ("3", r"agent 'bot': argument '3' is not key=value"),
    ):
        with pytest.raises(SpecError, match=words) as err:
            build("bot", Bot, args)
        assert isinstance(err.value, ConfigError) and isinstance(err.value, ValueError)
        assert "\n" not in str(err.value)


def test_make_reads_specs_by_the_grammar() -> None:
    agent = agents.make("ismcts:iterations=7:c=1:rollout=random")
    assert (agent.iterations, agent.c, agent.rollout) == (7, 1.0, "random")
    assert type(agent.c) is float
    assert agent.name == "ismcts:iterations=7:c=1:rollout=random"
    with pytest.raises(SpecError, match=r"agent 'greedy': argument samples='2.5' is not an"):
        agents.make("greedy:samples=2.5")
    with pytest.raises(SpecError, match="a quote"):
        agents.make("random:seed='1")


def test_a_quoted_model_path_reaches_the_agent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from fort_env.game.errors import ModelFileError

    folder = tmp_path / "a:b"
    with pytest.raises(ModelFileError) as err:
        agents.make(f'puct:model="{folder}/m.safetensors":sims=2')
    assert "a:b/m" in str(err.value)
    with pytest.raises(ModelFileError, match="a:b"):
        agents.make(f"ppo:'{folder}/m.safetensors'")


def test_ppo_and_rllib_arguments() -> None:
    with pytest.raises(SpecError, match=r"agent 'ppo': argument deterministic='2' is not 0 or 1"):
        agents.make("ppo:deterministic=2")
    with pytest.raises(SpecError, match=r"agent 'ppo' takes players, deterministic, not 'x'"):
        agents.make("ppo:x=1")
    with pytest.raises(SpecError, match=r"agent 'ppo' takes deterministic, trusted, not 'sims'"):
        agents.make("ppo:m.safetensors:sims=2")
    with pytest.raises(SpecError, match=r"agent 'rllib': argument trusted='maybe' is not 0"):
        agents.make("rllib:ckpt:trusted=maybe")
    with pytest.raises(ValueError, match="rllib needs a checkpoint path"):
        agents.make("rllib:trusted=1")


def test_trust_is_read_as_make_reads_it() -> None:
    assert agents.asks_trust("ppo:x.zip: trusted = 1")
    assert agents.asks_trust('ppo:"a:b.zip":trusted=true')
    assert not agents.asks_trust("ppo:x.zip:trusted=0")
    assert not agents.asks_trust("ppo:'trusted=1.zip'")  # a path, not an argument
    assert agents.asks_trust("ppo:x.zip:trusted=maybe")  # unreadable: refused, as by make
    assert agents.asks_trust("ppo:x:trusted=0:trusted=1")  # twice: does not parse
    assert agents.with_trust("ppo:x.zip") == "ppo:x.zip:trusted=1"
    assert agents.with_trust('ppo:"C:/x.zip"') == 'ppo:"C:/x.zip":trusted=1'
    assert agents.with_trust("ppo:x.zip:trusted=0") == "ppo:x.zip:trusted=0"  # said, kept
    assert agents.with_trust("ppo:'trusted=1.zip'") == "ppo:'trusted=1.zip':trusted=1"
    assert agents.with_trust("ismcts:ms=5") == "ismcts:ms=5"
    assert agents.with_trust("ppo:players=3") == "ppo:players=3"  # the zoo's: no pickle
    with pytest.raises(ConfigError, match="asks for trusted=1"):
        agents.check_file_spec("ppo:x.zip:trusted=1", "config.json")


def test_short_names_keep_quoted_paths_whole() -> None:
    deep = "/home/me/fort/runs/quick/20261126-190912/model.safetensors"
    assert short_name(f"ppo:{deep}") == "ppo:.../quick/20261126-190912/model.safetensors"
    assert short_name(f'puct:model="C:{deep}":ms=50') == (
        "puct:model=.../quick/20261126-190912/model.safetensors:ms=50"
    )
    assert short_name("ismcts: ms=50") == "ismcts: ms=50"  # nothing cut: as written
    assert short_name("last legal") == "last legal"  # an agent object's label


def test_model_files_and_snapshot_specs_read_by_the_grammar(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Provenance finds a model path however the spec writes it; the trainer writes a frozen
    learner's spec so that its path, ':' included, reads back whole (and as before when plain)."""
    from agents.arena.provenance import model_files
    from train.league import snapshot_spec

    folder = tmp_path / "a:b"
    folder.mkdir()
    model = folder / "m.safetensors"
    model.write_bytes(b"not read")
    escaped = str(model).replace(":", "\\:")
    for spec in (f"ppo:'{model}'", f"ppo:{escaped}", f'puct:ms=5:model="{model}"'):
        assert model_files(spec, 2) == [model], spec
    assert model_files(f"puct:model='{tmp_path / 'gone.safetensors'}'", 2) == []  # no file
    spec = snapshot_spec(model, deterministic=False)
    assert parse(spec) == AgentSpec("ppo", str(model), {"deterministic": "0"})
    assert snapshot_spec("runs/x/snap.safetensors", True) == "ppo:runs/x/snap.safetensors"
    assert snapshot_spec("x/s.safetensors", False) == "ppo:x/s.safetensors:deterministic=0"
