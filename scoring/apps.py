from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        # annotate's writes reach scoring through this one hook (annotate/changes.py).
        from annotate import changes
        from scoring.services import ChangeListener

        changes.listen(ChangeListener())
