"""D6's Django side: its own forms for the stats' and the skills' codes (:mod:`.forms`), in creation
and in the GM's corrections, and its demo campaign (:mod:`.demo`). Importing the package registers
them with the generic apps; everything else of D6 is played through the generic pages."""

from characters import editing
from games.d6 import forms
from rules.systems import d6

editing.register(d6.SYSTEM.key, forms.EDITS)
