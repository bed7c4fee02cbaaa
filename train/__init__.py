"""Training scripts and presets for fort-env agents (``train.selfplay``, ``fort-env train``).

The trained policies play through the bot zoo's ``ppo:PATH`` agent (``agents.learned.ppo``); the
training modules themselves (torch, stable-baselines3) load only when used.
"""
