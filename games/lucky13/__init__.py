"""Lucky 13's Django side: its own section forms (:mod:`.forms`, saved by :mod:`.sections`), the
forms of its creation steps (:mod:`.creation_forms`, served by the generic creation pages), its roll
page (:mod:`.roll_views`), its attack form in an encounter (:mod:`.encounter_forms`), its fields and
PATCH in the JSON API (:mod:`.api`), the public dice calculator (:mod:`.calculator`) and its demo
campaign (:mod:`.demo`); its options form is generated from its options model. Importing the package
registers them with the generic apps."""

from games import registry
from games.lucky13 import api, creation_forms, encounter_forms, forms, roll_views
from rules.systems import lucky13

registry.register(
    lucky13.SYSTEM.key,
    registry.DjangoSide(
        section_forms=forms.EDITS,
        creation_forms=creation_forms.STEP_FORMS,
        roll_page=roll_views.roll,
        attack_form=encounter_forms.AttackForm,
        api=api.API,
    ),
)
