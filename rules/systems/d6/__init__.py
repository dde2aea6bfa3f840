"""The D6 die-code system (rules text ``d6-die-codes.md``), its engine core only.

Not registered yet: ``rules.systems.KEYS`` does not name ``d6``, no page offers it and
``python -m rules chance`` does not answer for it. That comes once the system is whole
(sheet, creation, edits, roll kinds, advancement). What this package provides so far:

- :mod:`rules.systems.d6.codes`: die codes (``3d+2``), parsing, formatting and arithmetic;
- :mod:`rules.systems.d6.chance`: exact odds of a total against a difficulty, the totals for
  a chart, the difficulty bands, and opposed rolls;
- :mod:`rules.systems.d6.rolling`: rolling a code with an injected random source;
- :mod:`rules.systems.d6.rounds`: the combat round planner, each declared action's code after the
  round's penalties, reactions mid-round, preparing, doubling;
- :mod:`rules.systems.d6.luck`: luck points, spending one and the return at the adventure's end.
"""
