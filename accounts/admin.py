"""The admin's pages for users, refusing a name that reads like another account's, as sign-up does: without
this check a rename to a look-alike would reach the canonical names' unique constraint (a 500)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import User

from accounts.forms import refuse_look_alike


class NewUserForm(AdminUserCreationForm):
    def clean_username(self) -> str | None:
        return refuse_look_alike(super().clean_username())


class ChangedUserForm(UserChangeForm):
    def clean_username(self) -> str | None:
        return refuse_look_alike(self.cleaned_data["username"], user_id=self.instance.pk)


class NameCheckedUserAdmin(UserAdmin):
    add_form = NewUserForm
    form = ChangedUserForm


admin.site.unregister(User)
admin.site.register(User, NameCheckedUserAdmin)
