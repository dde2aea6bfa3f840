"""The table: the roll log (rolls and their reveals) and encounters (a fight and its combatants).

Rolls are append-only (:class:`~campaigns.models.AppendOnlyModel`, and a trigger on PostgreSQL).
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from campaigns.models import AppendOnlyModel, AppendOnlyQuerySet, Campaign

# --- The roll log ----------------------------------------------------------------------------------


class RollQuerySet(AppendOnlyQuerySet):
    def for_viewer(self, *, gm: bool, filtered: bool = False) -> RollQuerySet:
        """The rolls a member sees. The GM sees all. Players see every open or revealed roll, and an
        unrevealed secret roll only as a placeholder (so the numbering has no unexplained gaps);
        in a filtered list, where even a placeholder would tell its kind or character, not at all."""
        if gm or not filtered:
            return self
        return self.filter(Q(secret=False) | Q(reveal__isnull=False))

    def newest_first(self) -> RollQuerySet:
        return self.order_by("-seq")

    def of_encounter(self, encounter: Encounter) -> RollQuerySet:
        """Everything the encounter wrote to the log: rolls whose spec names it, within its range."""
        rows = self.filter(campaign_id=encounter.campaign_id, spec__encounter=encounter.pk)
        if encounter.log_after is not None:
            rows = rows.filter(seq__gt=encounter.log_after)
        if encounter.log_until is not None:
            rows = rows.filter(seq__lte=encounter.log_until)
        return rows


class RollKind(models.TextChoices):
    """The kinds of roll the platform itself logs, and the common kinds systems share, by the words the log
    gives them. A system adds its own (its ``log_kinds``: a card drawn, a reroll, an experience check)
    with no migration: the column holds any kind's key (:func:`play.rolls.log_kinds`)."""

    CHECK = "check", "Check"
    REACTION = "reaction", "Reaction check"
    OPPOSED = "opposed", "Opposed roll"
    ATTACK = "attack", "Attack"
    DAMAGE = "damage", "Damage"
    INITIATIVE = "initiative", "Initiative"
    ADJUSTMENT = "adjustment", "Change by the GM"
    REMOVAL = "removal", "Left the fight"
    FREE = "free", "Free roll"


#: The longest exact chance a roll keeps, "p/q". The free dice box's longest is 303 characters (a
#: chance of 50d1000, over 1000**50), a D6 check against difficulty 1000 about 240; a longer one
#: would be kept rounded (:func:`play.rolls.record_roll`), never refused.
CHANCE_LENGTH: Final = 1000


class Roll(AppendOnlyModel):
    """One roll made in a campaign, written once by :func:`play.rolls.record_roll`.

    Each row carries ``seq`` (1, 2, 3 … within its campaign), ``prev_hash`` (the
    hash of roll ``seq - 1``, or 64 zeros for the first) and ``hash``, the HMAC-SHA256
    of its canonical content (:func:`play.chain.canonical`) with the server's key named by ``key_id``,
    so that a changed, removed or inserted row breaks the chain from there on, and one rewritten
    by someone without the key cannot be made to match again (:mod:`play.chain`).
    """

    Kind = RollKind

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="rolls")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.PROTECT, null=True, blank=True, related_name="rolls"
    )
    kind = models.CharField(max_length=20)
    #: The campaign's rules system when the roll was made: the table's system, for every kind of roll.
    #: "" only on rows written before it was stored (their campaign's system, see :func:`play.rolls.system_of`).
    system = models.CharField(max_length=20, blank=True)
    #: What was rolled, in the words said when it was rolled: "Reflex + Fighting vs Difficult", "2d6+1",
    #: "Brunella attacks Goblin with Longsword". Kept as rolled, so a later rename changes no history.
    #: "" only on rows written before it was stored (:func:`play.rolls.label_of` says them from the spec).
    label = models.CharField(max_length=200, blank=True)
    #: What was rolled, in full: the expression or the dice and options of a check.
    spec = models.JSONField()
    #: Every die as rolled: groups of dice, each die with its faces (first face, then each explosion).
    dice = models.JSONField()
    total = models.IntegerField(null=True, blank=True)
    #: success/hit/margin/dilemma as the kind has them; {} for a free roll.
    outcome = models.JSONField(default=dict, blank=True)
    #: The exact chance computed before the roll, "p/q", and what it is the chance of. NULL, not "",
    #: when there is no exact chance: "no value" is a different fact from an empty string. As long
    #: as the exact fractions the bounded inputs make (50d1000 has a denominator of 151 digits), so
    #: the log keeps the odds the player was shown, to the last digit (:data:`CHANCE_LENGTH`).
    chance = models.CharField(max_length=CHANCE_LENGTH, null=True, blank=True)  # noqa: DJ001
    chance_of = models.CharField(max_length=200, blank=True)
    secret = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    seq = models.PositiveIntegerField()
    #: The roll this one replaces (a reroll), by its number: the chain stays append-only, the first kept.
    follows = models.PositiveIntegerField(null=True, blank=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    #: The key (an id in ``settings.ROLL_CHAIN_KEYS``) whose HMAC ``hash`` is; "" only on rows written
    #: before the log was signed, whose ``hash`` is a plain SHA-256 (:data:`play.chain.UNKEYED`).
    key_id = models.CharField(max_length=16, blank=True, default="")

    objects = RollQuerySet.as_manager()

    class Meta:
        ordering = ["-seq"]
        constraints = [
            # Also the index the log reads newest first: a B-tree is walked backwards as fast as forwards.
            models.UniqueConstraint(fields=["campaign", "seq"], name="play_roll_unique_seq"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="play_roll_seq_positive"),
            models.CheckConstraint(condition=~Q(kind=""), name="play_roll_kind_named"),
            models.CheckConstraint(
                condition=Q(follows__isnull=True) | Q(follows__lt=models.F("seq")), name="play_roll_follows_earlier"
            ),
            models.CheckConstraint(
                condition=Q(chance__isnull=True) | ~Q(chance_of=""), name="play_roll_chance_says_of_what"
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "character", "-seq"], name="play_roll_character_idx"),
            models.Index(fields=["campaign", "kind", "-seq"], name="play_roll_kind_idx"),
        ]

    def __str__(self) -> str:
        return f"Roll #{self.seq} in {self.campaign_id}"

    @property
    def revealed_at(self) -> datetime | None:
        reveal = getattr(self, "reveal", None) if self.secret else None
        return reveal.created_at if reveal is not None else None

    def visible_to_all(self) -> bool:
        return not self.secret or self.revealed_at is not None


class ChainCheckpoint(models.Model):
    """Where a campaign's roll log stood, kept apart from the rolls and signed with the server's key
    (:mod:`play.chain`), so that a log cut short or rewritten from some roll on no longer matches it.

    One of each kind per campaign at most. ``unkeyed``: the last roll written before the log was signed
    (migration play.0013), the only rolls that may have a plain SHA-256; ``head``: the last roll the last
    Verify found whole, which the log must still reach unchanged; ``verified``: the last roll at a multiple
    of :data:`play.chain.CHECKPOINT_EVERY` that Verify found whole, from where the next Verify goes on.
    """

    class Kind(models.TextChoices):
        UNKEYED = "unkeyed", "head of the log before it was signed"
        HEAD = "head", "head of the log when last verified"
        VERIFIED = "verified", "point Verify goes on from"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="chain_checkpoints")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    seq = models.PositiveIntegerField()
    #: The ``hash`` of roll ``seq``.
    hash = models.CharField(max_length=64)
    key_id = models.CharField(max_length=16)
    #: HMAC-SHA256 with key ``key_id`` of the fields above and ``created_at`` (:func:`play.chain.checkpoint_mac`).
    mac = models.CharField(max_length=64)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "kind"], name="play_chaincheckpoint_one_of_each_kind"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="play_chaincheckpoint_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of campaign {self.campaign_id}: #{self.seq}"


class RollReveal(AppendOnlyModel):
    """The GM showing a secret roll to the table: a row of its own, so that the roll itself never changes.

    At most one per roll; once revealed, a roll stays revealed.
    """

    roll = models.OneToOneField(Roll, on_delete=models.PROTECT, related_name="reveal")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = AppendOnlyQuerySet.as_manager()

    def __str__(self) -> str:
        return f"Reveal of {self.roll}"


# --- Roll requests: the GM's calls -----------------------------------------------------------------


class RollRequestQuerySet(models.QuerySet["RollRequest"]):
    def open(self) -> RollRequestQuerySet:
        return self.filter(closed_at__isnull=True)


class RollRequest(models.Model):
    """The GM calling for a roll ("The GM's calls"): what is rolled, in the system's words (``call``, a
    document of the system's ``call_model``), asked of one character or several (:class:`RollAsked`).
    Each answer is a roll of the log; the request closes when every character has rolled, or when
    the GM cancels what is left. A secret request's answers are secret rolls until the GM reveals them."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="roll_requests")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    call = models.JSONField()
    #: The call in words when it was made, so a later rename of a skill changes no request.
    label = models.CharField(max_length=200)
    secret = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)

    objects = RollRequestQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        constraints = [models.CheckConstraint(condition=~Q(label=""), name="play_request_label_not_blank")]
        indexes = [models.Index(fields=["campaign", "closed_at", "-id"], name="play_request_open_idx")]

    def __str__(self) -> str:
        return self.label

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class RollAsked(models.Model):
    """One character a request asks to roll, and the roll that answered it (empty until then, or for
    good once the request was closed without it)."""

    request = models.ForeignKey(RollRequest, on_delete=models.CASCADE, related_name="asked")
    character = models.ForeignKey("characters.Character", on_delete=models.PROTECT, related_name="+")
    roll = models.OneToOneField(Roll, on_delete=models.PROTECT, null=True, blank=True, related_name="answers")
    #: The roll's situation for this character's sheet, naming its items by id, so a later rename changes
    #: nothing: the parts the call fixes (the system's ``called_situation``: Lucky 13's skill by its id on
    #: this sheet), and, for a proposal the GM called, what its player proposed to add from the sheet (a
    #: specialization, an asset, a helper), which the answer starts from. Null on a request made before
    #: requests named items by id: its call is read by name.
    situation = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["request", "character"], name="play_asked_once"),
        ]
        indexes = [models.Index(fields=["character", "roll"], name="play_asked_character_idx")]

    def __str__(self) -> str:
        return f"{self.request} asked of {self.character_id}"


class ProposalState(models.TextChoices):
    OPEN = "open", "Waiting for the GM"
    CALLED = "called", "Called by the GM"
    DECLINED = "declined", "Declined by the GM"
    WITHDRAWN = "withdrawn", "Withdrawn"


class RollProposalQuerySet(models.QuerySet["RollProposal"]):
    def open(self) -> RollProposalQuerySet:
        return self.filter(state=ProposalState.OPEN)


class RollProposal(models.Model):
    """A player proposing a roll to the GM, where the GM calls the rolls: what their character would
    roll, as a call (``call``, a document of the system's ``call_model``), and why (``note``). The GM
    calls it (a :class:`RollRequest` for that character, ``request``) or declines it; the player may
    withdraw it while it waits. The row stays once it is answered, so the player sees what became of it."""

    State = ProposalState

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="roll_proposals")
    character = models.ForeignKey("characters.Character", on_delete=models.PROTECT, related_name="+")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    call = models.JSONField()
    #: What only the sheet adds to the call, as the situation names it (by ids on the sheet: Lucky 13's
    #: specialization, asset and helper): the GM sees and calls the roll with it.
    added = models.JSONField(default=dict, blank=True)
    #: The call in words when it was proposed, as a request keeps its own.
    label = models.CharField(max_length=200)
    note = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)
    #: The request the GM made of it, once called.
    request = models.OneToOneField(
        RollRequest, on_delete=models.PROTECT, null=True, blank=True, related_name="proposal"
    )

    objects = RollProposalQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(label=""), name="play_proposal_label_not_blank"),
            models.CheckConstraint(condition=Q(state__in=ProposalState.values), name="play_proposal_state_valid"),
            models.CheckConstraint(
                condition=Q(state=ProposalState.OPEN, closed_at__isnull=True)
                | (~Q(state=ProposalState.OPEN) & Q(closed_at__isnull=False)),
                name="play_proposal_closed_when_answered",
            ),
            models.CheckConstraint(
                condition=Q(state=ProposalState.CALLED, request__isnull=False)
                | (~Q(state=ProposalState.CALLED) & Q(request__isnull=True)),
                name="play_proposal_called_has_request",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "state", "-id"], name="play_proposal_open_idx"),
            models.Index(fields=["campaign", "by", "-id"], name="play_proposal_by_idx"),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def is_open(self) -> bool:
        return self.state == ProposalState.OPEN


# --- Encounters ------------------------------------------------------------------------------------


class EncounterQuerySet(models.QuerySet["Encounter"]):
    def running(self) -> EncounterQuerySet:
        return self.filter(ended_at__isnull=True)

    def ended(self) -> EncounterQuerySet:
        """Newest first: one encounter runs at a time, so a later one has a larger key."""
        return self.filter(ended_at__isnull=False).order_by("-pk")


class Encounter(models.Model):
    """A fight run by the GM (Lucky 13, "Initiative", "Combat"). ``round`` is 0 until initiative
    is rolled, then 1, 2, …; ``turn`` is the index in the initiative order of whoever acts now."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="encounters")
    name = models.CharField(max_length=120)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    round = models.PositiveIntegerField(default=0)
    turn = models.PositiveIntegerField(default=0)
    #: The campaign's last roll number when the encounter started and when it ended: its own rolls lie
    #: between, so its log is read by a range of the (campaign, seq) index. Empty for older encounters.
    log_after = models.PositiveIntegerField(null=True, blank=True)
    log_until = models.PositiveIntegerField(null=True, blank=True)
    #: An attack that waits for its target's answer (a dodge, a parry or none: the defender's choice), as
    #: ``{"attacker", "target", "choices", "by", "secret"}``; None when no attack waits.
    pending = models.JSONField(null=True, blank=True, default=None)

    objects = EncounterQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"], condition=Q(ended_at__isnull=True), name="play_encounter_one_running"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="play_encounter_name_not_blank"),
            models.CheckConstraint(condition=Q(round__gte=0, turn__gte=0), name="play_encounter_round_turn"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def running(self) -> bool:
        return self.ended_at is None

    @property
    def initiative_rolled(self) -> bool:
        return self.round > 0


class Combatant(models.Model):
    """A character or an NPC in an encounter, with the stat block it fights with: a document of the
    campaign's system (``Combat.stat_block_model``): an NPC's whole stat block, vitals and all;
    for a character, what it brought from its sheet when it joined (its vitals stay on its sheet).
    ``state`` is the system's own state of the combatant in this fight (Lucky 13: stabilized)."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="combatants")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.PROTECT, null=True, blank=True, related_name="combatants"
    )
    name = models.CharField(max_length=120)
    block = models.JSONField()
    state = models.JSONField(default=dict, blank=True)
    #: Identical NPCs added together share a group number and may share one initiative roll.
    group = models.PositiveIntegerField(null=True, blank=True)
    initiative = models.IntegerField(null=True, blank=True)
    #: Place in the initiative order, 0 first; empty until initiative is rolled.
    order = models.PositiveIntegerField(null=True, blank=True)
    removed = models.BooleanField(default=False)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="play_combatant_name_not_blank"),
            models.UniqueConstraint(
                fields=["encounter", "character"],
                condition=Q(character__isnull=False),
                name="play_combatant_character_once",
            ),
            models.UniqueConstraint(
                fields=["encounter", "order"], condition=Q(order__isnull=False), name="play_combatant_unique_order"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_npc(self) -> bool:
        return self.character_id is None


class Table(models.Model):
    """A campaign's table: the document its system keeps for the whole table (a deck and the hands, a
    party's checklist, coin and supplies), ``version`` counting its changes and ``part_versions`` the
    change at which each part last changed, as a sheet's sections have theirs. Read and changed only
    through :mod:`play.moves`, which shows each member their own view of it."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="table")
    system = models.CharField(max_length=20)
    document = models.JSONField()
    version = models.PositiveIntegerField(default=0)
    part_versions = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"The table of campaign {self.campaign_id}, version {self.version}"


class TableChange(AppendOnlyModel):
    """One change of a campaign's table: who made which move, when, its words, and the document before
    and after (the GM reads them; a player never does, for they hold what the table hides)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="table_changes")
    version = models.PositiveIntegerField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    move = models.CharField(max_length=40)
    what = models.CharField(max_length=500)
    before = models.JSONField()
    after = models.JSONField()

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "version"], name="play_tablechange_unique_version"),
        ]
        indexes = [models.Index(fields=["campaign", "-version"], name="play_tablechange_recent_idx")]

    def __str__(self) -> str:
        return f"Table change {self.version} of campaign {self.campaign_id}: {self.what}"


# --- Decisions left after a sheet move -------------------------------------------------------------


class SheetPromptQuerySet(models.QuerySet["SheetPrompt"]):
    def open(self) -> SheetPromptQuerySet:
        """The decisions no one has made yet."""
        return self.filter(answered_at__isnull=True)


class SheetPrompt(models.Model):
    """A decision a sheet move left (:class:`rules.systems.moves.Prompt`), kept until it is made: whose it
    is (``to``; the GM may always make it), the question, the choices (each its move, label, input and
    exact chance, "p/q" or null), the move that left it and the parts it was made from (a move sharing
    one waits for the decision), the roll it follows (by its number in the campaign's log: the answer's
    rolls follow it), and, once made, who made it, when, and which choice. A character has at most one
    open decision. Written only by :func:`play.moves.make`."""

    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="prompts")
    to = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    move = models.CharField(max_length=40)
    parts = models.JSONField(default=list)
    question = models.CharField(max_length=500)
    choices = models.JSONField()
    follows = models.PositiveIntegerField(null=True, blank=True)
    #: The character's version once the move that left it was saved.
    version = models.PositiveIntegerField()
    opened_at = models.DateTimeField(default=timezone.now)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    #: The label of the choice made.
    answer = models.CharField(max_length=200, blank=True)

    objects = SheetPromptQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["character"], condition=Q(answered_at__isnull=True), name="play_sheetprompt_one_open"
            ),
            models.CheckConstraint(
                condition=Q(answered_at__isnull=True, answered_by__isnull=True, answer="")
                | Q(answered_at__isnull=False, answered_by__isnull=False),
                name="play_sheetprompt_answered_whole",
            ),
        ]

    def __str__(self) -> str:
        return f"Decision {self.pk} of character {self.character_id}: {self.question}"
