from django.contrib import admin

from characters.models import Character


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "owner", "updated_at"]
    list_select_related = ["campaign", "owner"]
