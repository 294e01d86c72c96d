from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput
from kinds.clustering import importers as clustering_importers


class Command(BaseCommand):
    help = (
        "Import an AIPHES hierarchical-summarisation topic into a clustering campaign: the nuggets as sentences "
        "(placed in their source documents when --documents is given) and each annotator's tree cut at --depth "
        "as that annotator's clusters. Example: import_aiphes 4 data/aiphes-hiersum/Trees/Input/"
        "Topic_1002_cellphone_for_12_years_old_kid.txt --trees .../Annotator1/Topic_1002_*_Anno1.txt.xml ... "
        "--topic 1002 --depth 1"
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int)
        parser.add_argument("nuggets", type=Path, help="Trees/Input/Topic_<id>_*.txt")
        parser.add_argument("--trees", type=Path, nargs="+", required=True, help="one tree XML per annotator")
        parser.add_argument("--topic", required=True, help="the topic's external id")
        parser.add_argument("--title", default="")
        parser.add_argument("--documents", type=Path, help="SourceDocuments/HierarchicalSum_<id>.xml")
        parser.add_argument("--depth", type=int, default=1, help="cut each tree at this depth (top-level bubbles: 1)")

    def handle(
        self,
        *args,
        campaign: int,
        nuggets: Path,
        trees: list[Path],
        topic: str,
        title: str,
        documents: Path | None,
        depth: int,
        **options,
    ) -> None:
        target = Campaign.objects.filter(pk=campaign, kind="clustering").first()
        if target is None:
            raise CommandError(f"campaign: no clustering campaign #{campaign}")
        try:
            data, summary = clustering_importers.import_aiphes(
                campaign=target,
                nuggets=reading.read_file(nuggets),
                trees=[(_annotator(path), reading.read_file(path)) for path in trees],
                topic=topic,
                title=title,
                documents=reading.read_file(documents) if documents else None,
                depth=depth,
            )
        except InvalidInput as error:
            raise CommandError(f"{error.field}: {error.message} (nothing imported)") from None
        self.stdout.write(
            f"Imported topic {topic} with {len(data['data']['sentences'])} sentences and "
            f"{summary.judgments} annotators' clusterings (depth {depth})."
            + clustering_importers.placement(data, documents=documents is not None)
        )


def _annotator(path: Path) -> str:
    """Annotator1/...Anno1.txt.xml -> annotator1 (the folder names the annotator)."""
    return path.parent.name.lower().replace(" ", "-") or path.stem
