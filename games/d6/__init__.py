"""D6's Django side: its own forms for the stats' and the skills' codes (:mod:`.forms`), in creation
and in the GM's corrections; its options form (:mod:`.options`); its round and luck points in the JSON
API (:mod:`.api`); and its demo campaign (:mod:`.demo`).
Importing the package registers them with the generic apps; everything else of D6 is played through
the generic pages."""

from api import extensions as api_extensions
from campaigns import forms as campaign_forms
from characters import editing
from games.d6 import api, forms, options
from rules.systems import d6

editing.register(d6.SYSTEM.key, forms.EDITS)
campaign_forms.register(d6.SYSTEM.key, options.D6OptionsForm)
api_extensions.register(d6.SYSTEM.key, api.API)
