"""The admin's pages for users: a name that reads like another account's is refused, as sign-up does
(without this check a rename to a look-alike would reach the canonical names' unique constraint, a 500), and
a password the admin sets ends the account's sessions, open pages and API tokens, as the account's own does."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm, AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import User

from accounts import operations
from accounts.forms import refuse_look_alike


class NewUserForm(AdminUserCreationForm):
    def clean_username(self) -> str | None:
        return refuse_look_alike(super().clean_username())


class ChangedUserForm(UserChangeForm):
    def clean_username(self) -> str | None:
        return refuse_look_alike(self.cleaned_data["username"], user_id=self.instance.pk)


class NewPasswordForm(AdminPasswordChangeForm):
    def save(self, commit: bool = True) -> User:
        user = super().save(commit)
        if commit:
            operations.password_changed(user=user, keep=set())
        return user


class NameCheckedUserAdmin(UserAdmin):
    add_form = NewUserForm
    form = ChangedUserForm
    change_password_form = NewPasswordForm


admin.site.unregister(User)
admin.site.register(User, NameCheckedUserAdmin)
