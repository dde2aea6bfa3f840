"""The engine from a shell: ``python -m rules chance '<JSON spec>'`` or ``--batch FILE``, and
``python -m rules systems``.

``chance`` prints one JSON object per spec; probabilities are ``"p/q"`` strings. An invalid
spec prints a one-line error naming the bad field and exits with 2 (rules README, "The chance
interface"). ``systems`` prints a JSON array describing every registered system.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO, Final, TextIO

from rules.systems import SpecError, default_key, describe_all, get, roll_kinds

EXIT_INVALID = 2

#: The most specs one ``--batch`` may hold: every one is computed before anything is written, so a
#: bound keeps a batch's memory and time finite. Lucky 13's whole table of checks (6,534 specs, the
#: engine's benchmark) fits with room to spare.
MAX_BATCH: Final = 10_000

#: The longest line of a batch, in bytes: far past any spec, short of what would make reading it slow.
MAX_SPEC_BYTES: Final = 10_000


def chance(spec: Any) -> dict[str, Any]:
    """The chance of one spec, dispatched by its ``system`` and ``roll`` fields. Only the system the spec
    names is loaded, and of it only its roll kinds (:func:`rules.systems.roll_kinds`)."""
    if not isinstance(spec, Mapping):
        raise SpecError("spec", "must be a JSON object")
    key = spec.get("system", default_key())
    kinds = roll_kinds(key)
    roll = spec.get("roll", "check")
    kind = kinds.get(roll) if isinstance(roll, str) else None
    if kind is None:
        # Refused: the whole system is loaded only now, for the name this message gives.
        raise SpecError("roll", f"unknown roll {roll!r} for {get(key).name} (known: {', '.join(kinds)})")
    return kind.chance_json(spec)


def _load(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SpecError("spec", f"is not valid JSON ({error.msg} at column {error.colno})") from None
    except UnicodeDecodeError:
        raise SpecError("spec", "is not valid UTF-8 text") from None
    except RecursionError:
        raise SpecError("spec", "is nested too deeply") from None
    except ValueError as error:  # e.g. an integer of more digits than Python will read
        raise SpecError("spec", f"cannot be read ({error})") from None


def _batch(stream: BinaryIO, out: TextIO) -> None:
    """Every spec is checked before any result is written: a bad line leaves no partial output, nor
    does a batch of more than :data:`MAX_BATCH` specs or a line longer than :data:`MAX_SPEC_BYTES`."""
    results: list[str] = []
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        if len(line) > MAX_SPEC_BYTES:
            raise SpecError(f"line {number}: spec", f"is at most {MAX_SPEC_BYTES} bytes long")
        if len(results) == MAX_BATCH:
            raise SpecError("--batch", f"a batch holds at most {MAX_BATCH} specs; split it into smaller files")
        try:
            results.append(json.dumps(chance(_load(line))))
        except SpecError as error:
            raise SpecError(f"line {number}: {error.field}", error.message) from None
    out.write("\n".join(results) + ("\n" if results else ""))


def _one_line(text: str) -> str:
    """An error stays on one line, whatever a spec's text held."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    chance_parser = commands.add_parser("chance", help="exact chances of a roll spec")
    group = chance_parser.add_mutually_exclusive_group(required=True)
    group.add_argument("spec", nargs="?", help="one JSON spec")
    group.add_argument("--batch", metavar="FILE", help="a file of JSON specs, one per line ('-' for stdin)")
    commands.add_parser("systems", help="the registered rules systems, as a JSON array")
    args = parser.parse_args(argv)
    if args.command == "systems":
        print(json.dumps(describe_all()))
        return 0
    try:
        if args.batch is None:
            print(json.dumps(chance(_load(args.spec))))
        elif args.batch == "-":
            _batch(sys.stdin.buffer, sys.stdout)
        else:
            try:
                with open(args.batch, "rb") as stream:
                    _batch(stream, sys.stdout)
            except OSError as error:
                raise SpecError("--batch", f"cannot read {args.batch!r}: {error.strerror}") from None
    except SpecError as error:
        print(f"error: {_one_line(str(error))}", file=sys.stderr)
        return EXIT_INVALID
    return 0


if __name__ == "__main__":
    sys.exit(main())
