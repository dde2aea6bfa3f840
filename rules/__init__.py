"""Dicehall's game engine: dice, exact chances and the rules systems.

Pure Python with no Django imports, so that views, the JSON API, management
commands, the command line and the benchmarks all share one engine.
"""
