"""The Django side of each rules system, one package per system (``games/<key>/``), beside its
templates (``templates/systems/<key>/``): the forms and pages a system needs that the generic apps
cannot make from its sheet model (Lucky 13's section forms, creation pages, roll page, options
form, calculator), and its demo data.

A package registers its pieces with the generic apps when Django starts (:mod:`games.apps`); no
generic module imports one by name (the import-linter contract in ``pyproject.toml``).
"""

from importlib.util import find_spec


def has(key: str, module: str = "") -> bool:
    """Whether system ``key`` has a package here (and, with ``module``, that module in it): a system
    may have neither, and is then played through the generated forms."""
    if find_spec(f"games.{key}") is None:
        return False
    return not module or find_spec(f"games.{key}.{module}") is not None
