"""D13 of When Shadows Rise: d4 + d9 under ability plus skill, four difficulty levels played out, and a real
deck of cards at the table."""

from rules.systems.d13.system import SYSTEM

__all__ = ["SYSTEM"]
