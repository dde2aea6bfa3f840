"""The engine from a shell: ``python -m rules chance '<JSON spec>'`` or ``--batch FILE``.

Prints one JSON object per spec; probabilities are ``"p/q"`` strings. An
invalid spec prints a one-line error naming the bad field and exits with 2
(rules README, "The chance interface").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from rules.systems import SpecError, get

EXIT_INVALID = 2


def chance(spec: Any) -> dict[str, Any]:
    """The chance of one spec, dispatched by its ``system`` and ``roll`` fields."""
    if not isinstance(spec, Mapping):
        raise SpecError("spec", "must be a JSON object")
    system = get(spec.get("system", "lucky13"))
    roll = spec.get("roll", "check")
    kind = system.ROLL_KINDS.get(roll) if isinstance(roll, str) else None
    if kind is None:
        known = ", ".join(system.ROLL_KINDS)
        raise SpecError("roll", f"unknown roll {roll!r} for {system.NAME} (known: {known})")
    return kind.chance_json(spec)


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SpecError("spec", f"is not valid JSON ({error.msg} at column {error.colno})") from None


def _batch(stream: TextIO, out: TextIO) -> None:
    specs = [(number, line) for number, line in enumerate(stream, 1) if line.strip()]
    results = []
    for number, line in specs:
        try:
            results.append(json.dumps(chance(_load(line))))
        except SpecError as error:
            raise SpecError(f"line {number}: {error.field}", error.message) from None
    out.write("\n".join(results) + ("\n" if results else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    chance_parser = commands.add_parser("chance", help="exact chances of a roll spec")
    group = chance_parser.add_mutually_exclusive_group(required=True)
    group.add_argument("spec", nargs="?", help="one JSON spec")
    group.add_argument("--batch", metavar="FILE", help="a file of JSON specs, one per line ('-' for stdin)")
    args = parser.parse_args(argv)
    try:
        if args.batch is None:
            print(json.dumps(chance(_load(args.spec))))
        elif args.batch == "-":
            _batch(sys.stdin, sys.stdout)
        else:
            try:
                with open(args.batch, encoding="utf-8") as stream:
                    _batch(stream, sys.stdout)
            except OSError as error:
                raise SpecError("--batch", f"cannot read {args.batch!r}: {error.strerror}") from None
    except SpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    return 0


if __name__ == "__main__":
    sys.exit(main())
