"""``python -m bench.lucky13.icepool_batch FILE``: the icepool twin of ``python -m rules chance --batch FILE``.

Reads the same file of check specs (one JSON object a line, ``-`` for stdin) and
prints the same JSON lines, computed by :func:`bench.lucky13.icepool_check.chance`. The
benchmark times the two as whole processes, so this mirrors the engine's batch
loop and output format exactly: any difference in the output is a difference
in the chances, not in the formatting.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from bench.lucky13.icepool_check import chance


def batch(stream: TextIO, out: TextIO) -> None:
    # Like the engine, compute everything first and write once: the timed work
    # is the same shape on both sides (no per-line flushes on one side only).
    results = [json.dumps(chance(json.loads(line))) for line in stream if line.strip()]
    out.write("\n".join(results) + ("\n" if results else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lucky13.icepool_batch", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", metavar="FILE", help="a file of JSON check specs, one per line ('-' for stdin)")
    args = parser.parse_args(argv)
    if args.file == "-":
        batch(sys.stdin, sys.stdout)
    else:
        with open(args.file, encoding="utf-8") as stream:
            batch(stream, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
