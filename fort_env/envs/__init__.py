"""Adapters to the RL libraries: the PettingZoo AEC env (``aec``), its Box-observation form
(``box``), the single-agent Gymnasium env (``single_agent``), the batched and vector envs
(``vector``), RLlib (``rllib``), OpenSpiel (``openspiel``), and the registrations
(``registration``)."""
