"""Bots that need no training: random, the heuristics and their economy model, the one-play
lookahead (greedy), and information-set MCTS with its evaluation function."""
