"""Agents that play fort-env: baselines and trained policies."""
