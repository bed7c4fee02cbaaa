"""The game itself, with no views and no adapters: its vocabulary (constants, stages, decision
kinds, errors), the card data and its compiler, the action layout, the generator, the game facts,
the state arrays, input checks and saved-state validation; the rules are ``fort_env.game.rules``.

Nothing here imports the views (``fort_env.views``), the compiled core (``fort_env.native``) or
the environments (``fort_env.envs``); the import contracts in pyproject.toml enforce it.
"""
