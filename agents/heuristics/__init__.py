"""Hand-written heuristic agents, one module per game (``agents.heuristics.<game name>``).

Each module registers its agents with :func:`agents.registry.register_agent` when imported;
the registry imports a game's module the first time that game's agents are looked up.
"""
