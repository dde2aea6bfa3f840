"""The API's client, for the tests of what the API answers when the server is busy."""

from tests.api.conftest import api  # noqa: F401 (a fixture)
