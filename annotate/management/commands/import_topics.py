from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.imports import read
from annotate.imports.write import import_topics
from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput


class Command(BaseCommand):
    help = 'Import topics from a JSON file (a list of topics, or {"topics": [...]}) into a campaign.'

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int, help="Campaign id.")
        parser.add_argument("file", type=Path)

    def handle(self, *args, campaign: int, file: Path, **options) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        try:
            created = import_topics(campaign=target, topics=read.read_topics(reading.read_file(file)))
        except InvalidInput as error:
            raise CommandError(f"{file}: {error.field}: {error.message} (nothing imported)") from None
        self.stdout.write(f"Imported {len(created)} topics into {target.name} (#{target.pk}).")
