from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput
from kinds.relevance.importers import import_trec_runs


class Command(BaseCommand):
    help = (
        "Import TREC runs (six columns: qid Q0 docid rank score tag; several systems in one file, the tag names "
        "the system) into a graded relevance campaign: each topic's pool is the union of every run's top --depth "
        "documents, each keeping the systems that retrieved it; the runs are stored to be scored. Topics and "
        'document texts come from a JSON file {"topics": {qid: {"title", "description"?, "narrative"?}}, '
        '"documents": {docid: text}}. All or nothing; errors name the line.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int)
        parser.add_argument("runfile", type=Path, help="TREC run file: qid Q0 docid rank score tag")
        parser.add_argument("--topics", type=Path, required=True, help="JSON file of the topics and document texts")
        parser.add_argument("--depth", type=int, help="Pool depth per run (default: whole runs)")

    def handle(self, *args, campaign: int, runfile: Path, topics: Path, depth: int | None, **options) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        try:
            topics_file = reading.read_json(read(topics), topics.name)
            created, runs = import_trec_runs(
                campaign=target, run_text=read(runfile), topics_file=topics_file, depth=depth
            )
        except InvalidInput as error:
            raise CommandError(f"{error.field}: {error.message} (nothing imported)") from None
        pooled = sum(len(t.data["documents"]) for t in created)
        self.stdout.write(
            f"Imported {len(runs)} runs and {len(created)} topics with {pooled} pooled documents to grade."
        )


def read(path: Path) -> bytes:
    try:
        return reading.read_file(path, path.name)
    except OSError as error:
        raise CommandError(f"{path}: {error.strerror}") from None
