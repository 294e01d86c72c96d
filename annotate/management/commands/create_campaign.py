"""Create a campaign from the command line; prints its id (for scripts)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotate.services.campaigns import create_campaign
from concord import jsonsafe
from concord.errors import InvalidInput
from kinds.registry import KINDS


class Command(BaseCommand):
    help = (
        "Create a campaign and print its id on standard output, e.g. "
        "id=$(manage.py create_campaign --kind pairs --name 'RTE (Snow et al. 2008)' --organiser organiser). "
        "Without --organiser, the instance's one superuser creates it."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("kind", nargs="?", choices=sorted(KINDS), help="Judgment kind (or --kind).")
        parser.add_argument("name", nargs="?", help="Campaign name (or --name).")
        parser.add_argument("--kind", dest="kind_option", choices=sorted(KINDS), help="Judgment kind.")
        parser.add_argument("--name", dest="name_option", help="Campaign name.")
        parser.add_argument(
            "--organiser",
            help="Existing account that creates and organises it (default: the instance's one superuser).",
        )
        parser.add_argument("--guidelines", default="", help="Guidelines shown to assessors.")
        parser.add_argument("--overlap", type=int, default=2, help="Assessors per topic (default 2).")
        parser.add_argument("--params", default=None, help="Campaign params as a JSON object.")

    def handle(
        self,
        *args,
        kind: str | None,
        name: str | None,
        kind_option: str | None,
        name_option: str | None,
        organiser: str | None,
        guidelines: str,
        overlap: int,
        params: str | None,
        **options,
    ) -> None:
        kind = _one(kind, kind_option, "kind")
        name = _one(name, name_option, "name")
        creator = _creator(organiser)
        try:
            parsed = None if params is None else jsonsafe.loads(params)
        except jsonsafe.InputError as error:
            if error.syntax:
                raise CommandError(f"--params: not JSON ({error.message})") from None
            where = f"--params: {jsonsafe.located('params', error.path)}" if error.path else "--params"
            raise CommandError(f"{where}: {error.message}") from None
        try:
            campaign = create_campaign(
                creator=creator, kind=kind, name=name, guidelines=guidelines, overlap=overlap, params=parsed
            )
        except InvalidInput as error:
            raise CommandError(f"{error.field}: {error.message} (nothing created)") from None
        self.stderr.write(f"Created {campaign.kind} campaign {campaign.name!r} (#{campaign.pk}).")
        self.stdout.write(str(campaign.pk))


def _one(positional: str | None, option: str | None, field: str) -> str:
    """The kind or name, given once: as an argument or as --kind / --name."""
    if positional is not None and option is not None and positional != option:
        raise CommandError(f"--{field}: given twice ({positional!r} and --{field} {option!r})")
    value = option if option is not None else positional
    if value is None:
        raise CommandError(f"--{field}: required")
    return value


def _creator(organiser: str | None):
    users = get_user_model().objects
    if organiser is not None:
        creator = users.filter(username=organiser).first()
        if creator is None:
            raise CommandError(f"--organiser: no account {organiser!r}")
        return creator
    superusers = list(users.filter(is_superuser=True, is_active=True)[:2])
    if len(superusers) != 1:
        raise CommandError(
            f"--organiser: required (the instance has {'no' if not superusers else 'several'} superusers to default to)"
        )
    return superusers[0]
