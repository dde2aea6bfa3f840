"""D13's Django side: its demo campaign (:mod:`.demo`). Everything else of D13 — its sheet's sections, its
creation steps, its moves and its options — is played through the generic pages."""
