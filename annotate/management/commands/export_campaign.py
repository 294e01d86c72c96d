import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.backup import dump_campaign
from annotate.models import Campaign


class Command(BaseCommand):
    help = "Back up a whole campaign (topics, runs, judgments with revisions, curations) to a JSON file."

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int)
        parser.add_argument("file", type=Path)

    def handle(self, *args, campaign: int, file: Path, **options) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        file.write_text(json.dumps(dump_campaign(target), indent=1))
        self.stdout.write(f"Wrote {target.name} (#{target.pk}) to {file}.")
