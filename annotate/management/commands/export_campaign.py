import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.imports.backup import dump_campaign
from annotate.models import Campaign


class Command(BaseCommand):
    help = "Back up a whole campaign (topics, runs, judgments with revisions, curations) to a JSON file."

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int)
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--delete",
            action="store_true",
            help="then delete the campaign, once the backup is written and reads back (the admin refuses to "
            "delete a campaign with judgments).",
        )

    def handle(self, *args, campaign: int, file: Path, delete: bool = False, **options) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        text = json.dumps(dump_campaign(target), indent=1)
        file.write_text(text)
        self.stdout.write(f"Wrote {target.name} (#{target.pk}) to {file}.")
        if delete:
            if file.read_text() != text:
                raise CommandError(f"{file} does not read back as the backup just written; nothing deleted")
            name, pk = target.name, target.pk
            target.delete()
            self.stdout.write(f"Deleted {name} (#{pk}); restore it with manage.py import_campaign {file}.")
