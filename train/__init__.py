"""Training scripts and presets for fort-env agents (``train.selfplay``, ``fort-env train``).

The trained policies play through the bot zoo's ``ppo:PATH`` agent (``agents.learned.ppo``); the
training modules themselves (torch, stable-baselines3) load only when used.
"""

from fort_env.tools.cpu import passive_openmp

# OpenMP's idle threads sleep instead of spinning, set before any training module imports torch
# (fort_env/tools/cpu.py: 4x the samples/s beside two busy processes)
passive_openmp()
