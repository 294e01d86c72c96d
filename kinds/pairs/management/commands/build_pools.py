from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.imports import read
from annotate.models import Campaign
from concord import reading
from concord.errors import InvalidInput
from kinds.pairs.pools import build_pools
from kinds.registry import get_kind


class Command(BaseCommand):
    help = (
        "Build adjudication pools in a pairs campaign from systems' results (Arehart et al., section 2.2): "
        "the union of the systems' candidates per query, optionally cut to each system's top --depth, exact "
        "string matches left out, each candidate keeping the systems that returned it."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("campaign", type=int)
        parser.add_argument("--queries", type=Path, required=True, help='JSON {"<query id>": "<query text>"}')
        parser.add_argument("--runs", type=Path, required=True, help='JSON [{"name", "data": {"results": ...}}]')
        parser.add_argument("--depth", type=int)

    def handle(self, *args, campaign: int, queries: Path, runs: Path, depth: int | None, **options) -> None:
        target = Campaign.objects.filter(pk=campaign).first()
        if target is None:
            raise CommandError(f"campaign: no campaign #{campaign}")
        try:
            topics = build_pools(
                campaign=target,
                queries=read.read_json(reading.read_file(queries), "queries"),
                runs=read.read_runs(reading.read_file(runs), kind=get_kind("pairs"), filename=runs.name),
                depth=depth,
            )
        except InvalidInput as error:
            raise CommandError(f"{error.field}: {error.message} (nothing imported)") from None
        pairs = sum(len(t.data["candidates"]) for t in topics)
        self.stdout.write(f"Built {len(topics)} pools with {pairs} pairs to adjudicate.")
