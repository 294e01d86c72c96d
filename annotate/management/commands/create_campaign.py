"""Create a campaign from the command line; prints its id (for scripts)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotate import services
from concord import jsonsafe
from concord.errors import InvalidInput
from kinds.registry import KINDS


class Command(BaseCommand):
    help = (
        "Create a campaign and print its id on standard output, e.g. "
        "id=$(manage.py create_campaign pairs 'RTE (Snow et al. 2008)' --organiser organiser)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("kind", choices=sorted(KINDS), help="Judgment kind.")
        parser.add_argument("name", help="Campaign name.")
        parser.add_argument("--organiser", required=True, help="Existing account that creates and organises it.")
        parser.add_argument("--guidelines", default="", help="Guidelines shown to assessors.")
        parser.add_argument("--overlap", type=int, default=2, help="Assessors per topic (default 2).")
        parser.add_argument("--params", default=None, help="Campaign params as a JSON object.")

    def handle(
        self, *args, kind: str, name: str, organiser: str, guidelines: str, overlap: int, params: str | None, **options
    ) -> None:
        creator = get_user_model().objects.filter(username=organiser).first()
        if creator is None:
            raise CommandError(f"--organiser: no account {organiser!r}")
        try:
            parsed = None if params is None else jsonsafe.loads(params)
        except jsonsafe.InputError as error:
            if error.syntax:
                raise CommandError(f"--params: not JSON ({error.message})") from None
            where = f"--params: {jsonsafe.located('params', error.path)}" if error.path else "--params"
            raise CommandError(f"{where}: {error.message}") from None
        try:
            campaign = services.create_campaign(
                creator=creator, kind=kind, name=name, guidelines=guidelines, overlap=overlap, params=parsed
            )
        except InvalidInput as error:
            raise CommandError(f"{error.field}: {error.message} (nothing created)") from None
        self.stderr.write(f"Created {campaign.kind} campaign {campaign.name!r} (#{campaign.pk}).")
        self.stdout.write(str(campaign.pk))
