from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotate import importers, services
from annotate.kinds import InvalidInput
from annotate.models import Campaign


class Command(BaseCommand):
    help = (
        "Import existing judgments from a crowd CSV file: CrowdTruth (e.g. ../shared/data/snow2008/rte.csv), "
        "worker,topic,candidate,label or worker,item,label. Workers become assessors; topics the file "
        "introduces are created; a gold column is kept as the reference run 'gold'. All or nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int, help="Campaign id (a pairs campaign).")
        parser.add_argument("file", type=Path)
        parser.add_argument("--positive", help="The label value that means a match (for labels other than 1/0).")

    def handle(self, *args, campaign: int, file: Path, positive: str | None, **options) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        try:
            crowd = importers.read_crowd_csv(file.read_bytes(), positive=positive)
            judgments = len({(label.worker, label.topic) for label in crowd.labels})
            with tqdm(total=judgments, unit="judgment", desc=file.name, disable=None) as bar:
                summary = services.import_crowd_file(
                    campaign=target, topics=crowd.topics, labels=crowd.labels, reference=crowd.reference, progress=bar.update
                )
        except InvalidInput as error:
            raise CommandError(f"{file}: {error.field}: {error.message} (nothing imported)") from None
        self.stdout.write(
            f"Imported {summary.judgments} judgments of {summary.topics} topics "
            f"({summary.assessors_created} new assessors) into {target.name} (#{target.pk})."
        )
