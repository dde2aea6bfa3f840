"""The fixtures a system's tests share with the generic tests of the same area: Brunella and ``grow``
(tests/characters/conftest.py), and the API client for the cast (tests/api/conftest.py)."""

from tests.api.conftest import api  # noqa: F401 (a fixture)
from tests.characters.conftest import brunella, grow  # noqa: F401 (fixtures)
