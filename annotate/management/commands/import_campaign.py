from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotate import changes
from annotate.imports import read
from annotate.imports.backup import load_campaign
from concord.errors import InvalidInput


class Command(BaseCommand):
    help = "Restore a campaign backed up by export_campaign into this instance; its reports are recomputed."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options) -> None:
        try:
            with transaction.atomic():
                campaign = load_campaign(read.read_json(file.read_bytes(), bounded=False))
        except (InvalidInput, KeyError, TypeError) as error:
            field = getattr(error, "field", "file")
            raise CommandError(f"{file}: {field}: {getattr(error, 'message', error)} (nothing imported)") from None
        changes.rebuild_now(campaign.pk)
        self.stdout.write(f"Restored {campaign.name} as #{campaign.pk}.")
