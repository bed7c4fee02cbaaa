"""Agents that play a trained network: PPO policies and their files, the guided search (puct) and
RLlib checkpoints. torch loads only when one is built."""
