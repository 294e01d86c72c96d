from django.apps import AppConfig


class ConcordConfig(AppConfig):
    """The project's own wiring: a password change revokes the user's API tokens."""

    name = "concord"
    verbose_name = "Concord"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save, pre_save

        # Imported when Django is ready: the token model's module needs the app registry.
        from concord import tokens

        user_model = get_user_model()
        pre_save.connect(tokens.note_password_change, sender=user_model, dispatch_uid="concord.tokens.note")
        post_save.connect(tokens.revoke_after_password_change, sender=user_model, dispatch_uid="concord.tokens.revoke")
