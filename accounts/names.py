"""Usernames that look alike are one name: the canonical form every username is compared by.

Two names are the same name when their *skeletons* are equal. The skeleton is the name after Unicode
compatibility normalisation (NFKC: ``ｆｕｌｌｗｉｄｔｈ`` is ``fullwidth``, ``ﬁ`` is ``fi``), case folding
(``Alice`` is ``alice``, ``ß`` is ``ss``) and the mapping of letters that are drawn like a Latin letter to
that letter (Cyrillic ``а`` is ``a``, Greek ``ο`` is ``o``, IPA's script ``ɡ`` is ``g``), so that nobody can
sign up as ``аlice`` beside ``alice`` and pass for her at the table.

:data:`LOOKALIKES` is a compact subset of Unicode's confusables (UTS #39, *Unicode Security Mechanisms*,
section 4, the data file ``confusables.txt``): the entries whose source is a lower-case Cyrillic, Greek or
IPA letter (what is left after case folding) and whose target is a single Latin letter a–z. No package
carrying the full table is installed; the full table also maps digits and punctuation (``1`` to ``l``),
which would make ``player1`` and ``playerl`` one name, more than this rule asks.
"""

from __future__ import annotations

import unicodedata
from typing import Final

#: Lower-case letters drawn like a Latin letter, and that letter (from confusables.txt, see above).
LOOKALIKES: Final[dict[str, str]] = {
    # Cyrillic
    "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "ӏ": "l", "п": "n", "о": "o",
    "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y",
    # Greek
    "α": "a", "ϲ": "c", "ι": "i", "ϳ": "j", "η": "n", "ο": "o", "σ": "o", "ρ": "p", "υ": "u", "ν": "v",
    "χ": "x", "γ": "y",
    # IPA and other Latin letters drawn like a plain one
    "ɑ": "a", "ᴄ": "c", "ɡ": "g", "ı": "i", "ɩ": "i", "ȷ": "j", "ᴏ": "o", "ꜱ": "s", "ᴠ": "v", "ᴡ": "w",
    "ᴢ": "z",
}  # fmt: skip

_TABLE: Final = str.maketrans(LOOKALIKES)


def skeleton(name: str) -> str:
    """The canonical form of ``name``: NFKC, case-folded, look-alike letters mapped, then NFKC again (a
    mapped letter may combine with a following mark), so equal skeletons mean names a reader cannot tell apart.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded.translate(_TABLE))
