"""A character and its sheet, by the campaign's rules system (Lucky 13 for now).

The sheet's numbers that the rules bound are bounded again here, by named
database constraints: ability and skill dice d4 … d12 (stored as their rung on
the step ladder, 1 … 5), levels 1 … 5, reputation −5 … +5, one specialization
of a name per skill. ``version`` rises with every save; a save made from an
older version is refused (see ``characters.operations``).
"""

from __future__ import annotations

from typing import Any, Final

from django.conf import settings
from django.db import models
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from campaigns.models import AppendOnlyModel, AppendOnlyQuerySet, Campaign, Membership
from rules.dice import StepDie
from rules.systems import lucky13

DIE_RUNGS = Q(die__gte=1, die__lte=5)


def die_choices() -> list[tuple[int, str]]:
    return [(rung, StepDie(rung).label) for rung in range(1, 6)]


class CharacterQuerySet(models.QuerySet["Character"]):
    def annotate_role(self, user: Any) -> CharacterQuerySet:
        """Adds ``viewer_role``: the user's role in each character's campaign (or None)."""
        role = Membership.objects.filter(campaign=OuterRef("campaign"), user=user).values("role")[:1]
        return self.annotate(viewer_role=Subquery(role))

    def lock(self, pk: int) -> Character | None:
        """The character, locked for a write, with its campaign (locked first) selected.

        Every write that locks a campaign and one of its characters takes the campaign first
        (the roll log and encounters do too), so two such writes queue instead of deadlocking.
        """
        campaign_id = self.filter(pk=pk).values_list("campaign_id", flat=True).first()
        if campaign_id is None:
            return None
        list(Campaign.objects.select_for_update().filter(pk=campaign_id).values_list("pk", flat=True))
        return self.select_for_update(of=("self",)).select_related("campaign").filter(pk=pk).first()

    def active(self) -> CharacterQuerySet:
        """Finished characters in play: not drafts, not archived."""
        return self.filter(status=Character.Status.ACTIVE)


class Character(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        ACTIVE = "active", "Active"
        ARCHIVED = "archived", "Archived"

    class AbilityMethod(models.TextChoices):
        RANDOM = "random", "Random (d100 per ability)"
        BALANCED = "balanced", "Balanced array"
        SPECIALIZED = "specialized", "Specialized array"

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.PROTECT, related_name="characters")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="characters")
    name = models.CharField(max_length=120)
    concept = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    #: The creation step a draft was saved at, so that it can be finished later.
    creation_step = models.CharField(max_length=20, blank=True)

    ability_method = models.CharField(max_length=12, choices=AbilityMethod.choices, blank=True)
    #: Every d100 the server rolled at creation (abilities, and skills with the random method), in order.
    creation_rolls = models.JSONField(default=dict, blank=True)
    will = models.PositiveSmallIntegerField(null=True, blank=True, choices=die_choices)
    charm = models.PositiveSmallIntegerField(null=True, blank=True, choices=die_choices)
    pulse = models.PositiveSmallIntegerField(null=True, blank=True, choices=die_choices)
    intellect = models.PositiveSmallIntegerField(null=True, blank=True, choices=die_choices)
    reflex = models.PositiveSmallIntegerField(null=True, blank=True, choices=die_choices)

    #: Taking an impairment at creation buys one more starting specialization ("Impairments").
    took_impairment = models.BooleanField(default=False)

    hit_points = models.IntegerField(null=True, blank=True)
    reputation = models.SmallIntegerField(default=0)
    ap_balance = models.PositiveIntegerField(default=0)
    notes = models.TextField(blank=True)

    #: Rises with every save of the sheet; a save made from an older version is refused.
    version = models.PositiveIntegerField(default=1)
    #: The version at which each section of the sheet last changed: a save from an open
    #: section form is refused only if that section changed since the form was shown.
    section_versions = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="characters_character_name_not_blank"),
            *(
                models.CheckConstraint(
                    condition=Q(**{f"{key}__isnull": True}) | Q(**{f"{key}__gte": 1, f"{key}__lte": 5}),
                    name=f"characters_character_{key}_d4_to_d12",
                )
                for key in lucky13.ABILITY_KEYS
            ),
            models.CheckConstraint(
                condition=Q(reputation__gte=-5, reputation__lte=5), name="characters_character_reputation_range"
            ),
            models.CheckConstraint(condition=Q(ap_balance__gte=0), name="characters_character_ap_not_negative"),
            models.CheckConstraint(condition=Q(version__gte=1), name="characters_character_version_positive"),
            models.CheckConstraint(
                condition=~Q(status="active")
                | Q(will__isnull=False, charm__isnull=False, pulse__isnull=False, intellect__isnull=False,
                    reflex__isnull=False, hit_points__isnull=False),
                name="characters_character_active_is_complete",
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return self.name

    def ability(self, key: str) -> StepDie | None:
        rung = getattr(self, key)
        return StepDie(rung) if rung else None


class Skill(models.Model):
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="skills")
    name = models.CharField(max_length=60)
    position = models.PositiveSmallIntegerField(default=0)
    ability = models.CharField(max_length=10, blank=True, choices=[(k, k.title()) for k in lucky13.ABILITY_KEYS])
    die = models.PositiveSmallIntegerField(choices=die_choices)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["character", "name"], name="characters_skill_unique_name"),
            models.CheckConstraint(condition=DIE_RUNGS, name="characters_skill_die_d4_to_d12"),
            models.CheckConstraint(condition=~Q(name=""), name="characters_skill_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def step_die(self) -> StepDie:
        return StepDie(self.die)


class Specialization(models.Model):
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="specializations")
    name = models.CharField(max_length=60)
    level = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["skill", "name"], name="characters_specialization_unique_per_skill"),
            models.CheckConstraint(
                condition=Q(level__gte=1, level__lte=5), name="characters_specialization_level_1_to_5"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="characters_specialization_name_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.skill.name} {self.level})"

    @property
    def effective_die(self) -> StepDie:
        """The skill die stepped up once per level: Spellcasting d8 with Teleport 2 is d12."""
        return lucky13.effective_skill_die(StepDie(self.skill.die), self.level)


class Trait(models.Model):
    """A background (roll the Ability die twice, keep the higher) or an impairment (keep the lower)."""

    class Kind(models.TextChoices):
        BACKGROUND = "background", "Background"
        IMPAIRMENT = "impairment", "Impairment"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="traits")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=60)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["kind", "name", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=["background", "impairment"]), name="characters_trait_kind"),
            models.CheckConstraint(condition=~Q(name=""), name="characters_trait_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name


class Asset(models.Model):
    """A thing or a person that steps the skill die up by its level (Inferior 1 … Perfect 5)."""

    class Kind(models.TextChoices):
        THING = "thing", "Thing"
        PERSON = "person", "Person"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="assets")
    name = models.CharField(max_length=60)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.THING)
    level = models.PositiveSmallIntegerField(default=1, choices=lucky13.ASSET_LEVELS)
    skills = models.ManyToManyField(Skill, blank=True, related_name="assets")
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(level__gte=1, level__lte=5), name="characters_asset_level_1_to_5"),
            models.CheckConstraint(condition=Q(kind__in=["thing", "person"]), name="characters_asset_kind"),
            models.CheckConstraint(condition=~Q(name=""), name="characters_asset_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name


class Weapon(models.Model):
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="weapons")
    name = models.CharField(max_length=60)
    accuracy = models.PositiveSmallIntegerField(choices=die_choices)
    damage = models.PositiveSmallIntegerField(choices=die_choices)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(accuracy__gte=1, accuracy__lte=5), name="characters_weapon_accuracy_die"
            ),
            models.CheckConstraint(condition=Q(damage__gte=1, damage__lte=5), name="characters_weapon_damage_die"),
            models.CheckConstraint(condition=~Q(name=""), name="characters_weapon_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name


class Armor(models.Model):
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="armor")
    name = models.CharField(max_length=60)
    defense = models.PositiveSmallIntegerField(choices=die_choices)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name_plural = "armor"
        constraints = [
            models.CheckConstraint(condition=Q(defense__gte=1, defense__lte=5), name="characters_armor_defense_die"),
            models.CheckConstraint(condition=~Q(name=""), name="characters_armor_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name


# --- Adventure Points and reputation: append-only histories ------------------------------------

MAX_ENTRY: Final = 1000
"""The largest number of Adventure Points one ledger entry may move, either way."""


class LedgerEntryQuerySet(AppendOnlyQuerySet):
    def for_character(self, character: Character) -> LedgerEntryQuerySet:
        return self.filter(character=character).select_related("by", "reverses", "reversed_by")


class LedgerEntry(AppendOnlyModel):
    """One movement of a character's Adventure Points. Written once, never changed or removed:
    a mistake is put right by a correction, which reverses an earlier entry by reference.

    ``balance`` is the character's balance after this entry, kept under the character's row
    lock (see ``characters.ledger``), so the history shows a running balance without a sum.
    """

    class Kind(models.TextChoices):
        AWARD = "award", "Award"
        SPEND = "spend", "Spend"
        CORRECTION = "correction", "Correction"

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="ledger_entries")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    amount = models.IntegerField()
    balance = models.PositiveIntegerField()
    reason = models.CharField(max_length=200)
    adventure = models.CharField(max_length=120, blank=True)
    #: A correction names the entry it reverses; an entry is reversed at most once.
    reverses = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by")
    #: What a spend bought, as the engine's Purchase: {"kind", "skill", "name", "ability", "before", "after"}.
    purchase = models.JSONField(default=dict, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        verbose_name_plural = "ledger entries"
        indexes = [models.Index(fields=["character", "-id"], name="characters_ledger_by_character")]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=-MAX_ENTRY, amount__lte=MAX_ENTRY) & ~Q(amount=0),
                name="characters_ledgerentry_amount_bounds",
            ),
            models.CheckConstraint(condition=Q(balance__gte=0), name="characters_ledgerentry_balance_not_negative"),
            models.CheckConstraint(
                condition=~Q(kind="award") | Q(amount__gt=0), name="characters_ledgerentry_award_adds"
            ),
            models.CheckConstraint(
                condition=~Q(kind="spend") | Q(amount__lt=0), name="characters_ledgerentry_spend_takes"
            ),
            models.CheckConstraint(
                condition=Q(kind="correction", reverses__isnull=False)
                | (~Q(kind="correction") & Q(reverses__isnull=True)),
                name="characters_ledgerentry_correction_reverses",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["award", "spend", "correction"]), name="characters_ledgerentry_kind"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="characters_ledgerentry_reason_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+d} AP for {self.character_id}: {self.reason}"


class ReputationChange(AppendOnlyModel):
    """One change of a character's reputation (−5 … +5), with why: written once, never changed."""

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="reputation_changes")
    change = models.SmallIntegerField()
    reputation = models.SmallIntegerField()  # after the change
    reason = models.CharField(max_length=200)
    adventure = models.CharField(max_length=120, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(change__gte=-10, change__lte=10) & ~Q(change=0), name="characters_reputationchange_change"
            ),
            models.CheckConstraint(
                condition=Q(reputation__gte=-5, reputation__lte=5), name="characters_reputationchange_range"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="characters_reputationchange_reason_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.change:+d} reputation for {self.character_id}: {self.reason}"
