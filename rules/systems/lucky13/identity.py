"""Who made Lucky 13 and what its license asks the product to say ("LEGAL STUFF")."""

from __future__ import annotations

from typing import Final

KEY: Final = "lucky13"


NAME: Final = "Lucky 13"


ATTRIBUTION: Final = "The Lucky 13 Game Engine was originally created by Solarian Games."


LICENSE_NAME: Final = "Everlasting License for Free (ELF), version 1.0"


LICENSE_FILE: Final = "LUCKY13-ELF.md"


DISCLAIMER: Final = (
    "The Lucky 13 name and logo are the property of Solarian LLC. Use of the Lucky 13 name and logo is "
    "exclusively for the purpose of identifying compatibility with the Lucky 13 Game Engine and does not "
    "imply sponsorship, affiliation, or endorsement by the original creators of the Lucky 13 Game Engine."
)
