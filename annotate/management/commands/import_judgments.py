from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotate.imports import write
from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput


class Command(BaseCommand):
    help = (
        "Import existing judgments into a campaign, all or nothing: crowd CSV files for pairs campaigns "
        "(CrowdTruth, e.g. data/snow2008/rte.csv; worker,topic,candidate,label; worker,item,label), "
        "the SQuALITY human evaluation (.jsonl) for ordering campaigns, Label Studio JSON (.labelstudio.json) "
        "and doccano's zip of <username>.jsonl files (.zip) for the kinds that map onto them, or JSON "
        "[{assessor, topic, payload}] for any kind; --format names the reader when the file's name does not. Workers become imported assessors (accounts that never log in); a worker name that is an "
        "existing account is refused unless --map-members; topics a crowd file introduces are created; a gold "
        "column is kept as the reference run 'gold'."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int, help="Campaign id.")
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--format",
            help="Read the file as this suffix says, whatever its name: .json, .csv or one of the kind's "
            "(e.g. .labelstudio.json for a Label Studio export named project-1-at-....json).",
        )
        parser.add_argument("--positive", help="CSV: the label value that means a match (for labels other than 1/0).")
        parser.add_argument("--rank", default="overall", help="SQuALITY: which rank (overall, correctness, selection).")
        parser.add_argument(
            "--map-members",
            action="store_true",
            help="Workers named like assessors of this campaign are those assessors (only they can be mapped).",
        )

    def handle(
        self,
        *args,
        campaign: int,
        file: Path,
        format: str | None,
        positive: str | None,
        rank: str,
        map_members: bool,
        **options,
    ) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        with tqdm(unit="judgment", desc=file.name, disable=None) as bar:
            try:
                summary = write.import_judgment_file(
                    target,
                    reading.read_file(file),
                    filename=file.name,
                    format=format,
                    positive=positive,
                    rank=rank,
                    map_members=map_members,
                    progress=bar.update,
                    on_total=lambda total: setattr(bar, "total", total),
                )
            except InvalidInput as error:
                raise CommandError(f"{file}: {error.field}: {error.message} (nothing imported)") from None
        self.stdout.write(
            f"Imported {summary.judgments} judgments of {summary.topics} topics "
            f"({summary.assessors_created} new assessors) into {target.name} (#{target.pk})."
        )
