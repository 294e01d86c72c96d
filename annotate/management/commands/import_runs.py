from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.imports import read
from annotate.imports.write import import_runs
from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput
from kinds.registry import get_kind


class Command(BaseCommand):
    help = "Import system runs into a campaign: JSON [{name, data}] or, for orderings, CSV topic,run,order."

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int, help="Campaign id.")
        parser.add_argument("file", type=Path)

    def handle(self, *args, campaign: int, file: Path, **options) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        try:
            runs = import_runs(
                campaign=target,
                runs=read.read_runs(reading.read_file(file), kind=get_kind(target.kind), filename=file.name),
            )
        except InvalidInput as error:
            raise CommandError(f"{file}: {error.field}: {error.message} (nothing imported)") from None
        self.stdout.write(f"Imported {len(runs)} runs into {target.name} (#{target.pk}).")
