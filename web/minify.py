"""Our own style sheets and scripts made smaller as they are collected, without a tool that parses JavaScript.

The files in ``static/`` stay commented and indented for the people who read them; the copies that
``collectstatic`` writes (and hashes, and compresses) lose what a browser does not need. Only what
cannot change meaning is taken out, so that no minifier bug can break a page:

- CSS: comments, runs of whitespace, the whitespace around ``{ } ; , >`` and after ``:``, and the last ``;``
  of a block; strings are copied as they are. Whitespace around ``+`` and ``-`` stays (``calc(1rem + 2px)``
  needs it), and so does the whitespace before ``:`` (``.a :focus`` is not ``.a:focus``).
- JavaScript, line by line: the leading indentation, trailing whitespace, blank lines, lines that are only a
  ``//`` comment and block comments that start a line. At the start of a line the code is always outside
  any string, regular expression or comment, unless a template literal or a string goes on over a line
  break: a file where that may happen (a line with an odd number of backticks, or one ending in a
  backslash) is left whole. Newlines stay, so automatic semicolon insertion reads the same statements.
"""

from __future__ import annotations

#: Characters around which CSS needs no whitespace (the whitespace before ``:`` is kept, see above).
_CSS_TIGHT_BOTH = "{};,>"


def minify_css(text: str) -> str:
    """The style sheet without comments and needless whitespace; strings untouched."""
    out: list[str] = []
    i, n = 0, len(text)
    pending_space = False
    while i < n:
        char = text[i]
        if char in "\"'":
            end = _string_end(text, i)
            if pending_space and out and not _tight_after(out[-1]):
                out.append(" ")
            pending_space = False
            out.append(text[i:end])
            i = end
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            pending_space = True
        elif char.isspace():
            pending_space = True
            i += 1
        else:
            if pending_space and out and not _tight_after(out[-1]) and char not in _CSS_TIGHT_BOTH:
                out.append(" ")
            pending_space = False
            if char == "}" and out and out[-1] == ";":
                out.pop()
            out.append(char)
            i += 1
    return "".join(out).strip() + "\n"


def _tight_after(previous: str) -> bool:
    """Whether no whitespace is needed after this piece of output (a piece is a character or a string)."""
    return len(previous) == 1 and (previous in _CSS_TIGHT_BOTH or previous == ":")


def _string_end(text: str, start: int) -> int:
    """The index just past the CSS string opening at ``start`` (escapes honoured; unclosed runs to the end)."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == quote or text[i] == "\n":
            return i + 1
        else:
            i += 1
    return len(text)


def minify_js(text: str) -> str:
    """The script without indentation, blank lines and whole-line comments; else unchanged (see the module)."""
    lines = text.split("\n")
    if any(line.count("`") % 2 or line.rstrip().endswith("\\") for line in lines):
        return text
    out: list[str] = []
    in_comment = False
    for raw in lines:
        line = raw.strip()
        if in_comment:
            close = line.find("*/")
            if close < 0:
                continue
            line = line[close + 2 :].strip()
            in_comment = False
        while line.startswith("/*"):
            close = line.find("*/", 2)
            if close < 0:
                in_comment = True
                line = ""
                break
            line = line[close + 2 :].strip()
        if not line or line.startswith("//"):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def minify(name: str, text: str) -> str | None:
    """The minified text of a file by its name, or None for a kind of file this does not minify."""
    if name.endswith(".css"):
        return minify_css(text)
    if name.endswith(".js") and not name.endswith(".min.js"):
        return minify_js(text)
    return None
