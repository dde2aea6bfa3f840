"""D6's Django side: its own forms for the stats' and the skills' codes (:mod:`.forms`), in creation
and in the GM's corrections; its round and luck points in the JSON
API (:mod:`.api`); and its demo campaign (:mod:`.demo`).
Importing the package registers them with the generic apps; everything else of D6 is played through
the generic pages."""

from games import registry
from games.d6 import api, forms
from rules.systems import d6

registry.register(d6.SYSTEM.key, registry.DjangoSide(section_forms=forms.EDITS, api=api.API))
