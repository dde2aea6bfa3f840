"""Lucky 13's Django side: its own section forms (:mod:`.forms`, saved by :mod:`.sections`), its
creation pages (:mod:`.creation_views` over :mod:`.creation`), its roll page (:mod:`.roll_views`),
its options form (:mod:`.options`), its attack form in an encounter (:mod:`.encounter_forms`), its
fields and PATCH in the JSON API (:mod:`.api`), the public dice calculator (:mod:`.calculator`) and
its demo campaign (:mod:`.demo`). Importing the package registers them with the generic apps."""

# The generic registries under names of their own: importing a submodule of this package binds its
# name here (``roll_views``, ``forms``), which would hide a generic module of the same name.
from api import extensions as api_extensions
from campaigns import forms as campaign_forms
from characters import drafting, editing
from games.lucky13 import api, creation_views, encounter_forms, forms, options, roll_views
from play import encounter_views, sheet_roll_views
from rules.systems import lucky13

editing.register(lucky13.SYSTEM.key, forms.EDITS)
drafting.register(lucky13.SYSTEM.key, creation_views.Pages())
sheet_roll_views.register(lucky13.SYSTEM.key, roll_views.roll)
encounter_views.register_attack_form(lucky13.SYSTEM.key, encounter_forms.AttackForm)
campaign_forms.register(lucky13.SYSTEM.key, options.Lucky13OptionsForm)
api_extensions.register(lucky13.SYSTEM.key, api.API)
