from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput
from kinds.nuggets import importers as nuggets_importers


class Command(BaseCommand):
    help = (
        "Import into a nuggets campaign, all or nothing: questions (topic TAB target) with their answer key "
        "(topic TAB nugget TAB vital|okay|- TAB text), and/or runs (run TAB topic TAB response text) with their "
        "nugget matches (run TAB topic TAB nugget). See docs/formats.md, 'Import formats'."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int)
        parser.add_argument("--questions", type=Path)
        parser.add_argument("--key", type=Path, help="the answer key (with --questions)")
        parser.add_argument("--runs", type=Path, help="responses, one line per run, topic and passage")
        parser.add_argument("--matches", type=Path, help="nugget matches of the runs (with --runs)")

    def handle(
        self,
        *args,
        campaign: int,
        questions: Path | None,
        key: Path | None,
        runs: Path | None,
        matches: Path | None,
        **options,
    ) -> None:
        target = Campaign.objects.filter(pk=campaign, kind="nuggets").first()
        if target is None:
            raise CommandError(f"campaign: no nuggets campaign #{campaign}")
        if bool(questions) != bool(key):
            raise CommandError("--questions and --key go together")
        if matches and not runs:
            raise CommandError("--matches needs --runs")
        try:
            topics, created = nuggets_importers.import_nugget_files(
                campaign=target,
                questions=reading.read_file(questions) if questions else None,
                key=reading.read_file(key) if key else None,
                responses=reading.read_file(runs) if runs else None,
                matches=reading.read_file(matches) if matches else None,
            )
        except InvalidInput as error:
            raise CommandError(f"{error.field}: {error.message} (nothing imported)") from None
        if questions:
            self.stdout.write(f"Imported {len(topics)} questions.")
        if runs:
            self.stdout.write(f"Imported {len(created)} runs.")
