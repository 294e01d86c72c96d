"""Demo data: users, and one campaign per kind with simulated assessors.

Each kind's spec may name a ``demo(organiser, simulated, people)`` builder
(``kinds/<kind>/demo.py``) returning its demo campaign(s); ``seed`` runs
every one, once (campaigns are marked ``params["demo"]``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Permission
from django.db import transaction

from annotate.models import Campaign
from kinds.registry import KINDS

User = get_user_model()

#: People who log in. Their passwords are new on every seed and printed.
PEOPLE = {"admin": "admin", "organiser": "organiser", "alice": "assessor", "bob": "assessor"}
#: Simulated assessors: accounts nobody logs into.
SIMULATED = ["sim-ann", "sim-ben", "sim-cara", "sim-dev"]


@dataclass(frozen=True)
class Login:
    username: str
    password: str
    role: str


def seed(*, reset_passwords: bool = True) -> tuple[list[Login], list[Campaign]]:
    with transaction.atomic():
        logins = _people(reset_passwords)
        simulated = [_simulated(name) for name in SIMULATED]
        users = {u.username: u for u in User.objects.filter(username__in=PEOPLE)}
    campaigns = []
    for kind in KINDS.values():
        if kind.demo is None:
            continue
        existing = list(Campaign.objects.filter(kind=kind.name, params__demo=True).order_by("pk"))
        if existing:
            campaigns.extend(existing)
            continue
        built = kind.demo(users["organiser"], simulated, [users["alice"], users["bob"]])
        campaigns.extend(built if isinstance(built, list) else [built])
    return logins, campaigns


def _people(reset_passwords: bool) -> list[Login]:
    logins = []
    for username, role in PEOPLE.items():
        user, created = User.objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = role == "admin"
        password = None
        if created or reset_passwords:
            password = secrets.token_urlsafe(9)
            user.set_password(password)
        user.save()
        if role == "organiser":
            user.user_permissions.add(Permission.objects.get(codename="add_campaign"))
        logins.append(Login(username, password or "(unchanged)", role))
    return logins


def _simulated(username: str) -> AbstractBaseUser:
    user, created = User.objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save()
    return user
