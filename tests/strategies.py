"""Hypothesis strategies for what players type, for the export and import round trips of every system:
names and free text in several scripts, each in its NFC form."""

from __future__ import annotations

import unicodedata

from hypothesis import strategies as st

#: Letters of several scripts (each its own NFC form), so names and text are not only ASCII.
LETTERS = "abcdefghijklmnopqrstuvwxyzÄÖÜäöüßéèñçøåłğ漢字かなДжЯΩλ"
words = st.text(alphabet=LETTERS, min_size=1, max_size=8)
names = st.lists(words, min_size=1, max_size=3).map(" ".join)
free_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Co", "Cn")) | st.just("\n"), max_size=40
).filter(lambda text: unicodedata.normalize("NFC", text) == text)


def unique_names(low: int, high: int) -> st.SearchStrategy[list[str]]:
    return st.lists(names, min_size=low, max_size=high, unique_by=str.casefold)
