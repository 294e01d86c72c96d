from django.core.management.base import BaseCommand

from annotate import changes, demo


class Command(BaseCommand):
    help = "Create the demo users (printing new passwords) and one demo campaign per kind."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--keep-passwords", action="store_true", help="Do not reset existing demo passwords.")

    def handle(self, *args, keep_passwords: bool, **options) -> None:
        logins, campaigns = demo.seed(reset_passwords=not keep_passwords)
        for campaign in campaigns:
            changes.rebuild_now(campaign.pk)
        self.stdout.write("Demo campaigns: " + ", ".join(f"{c.name} (#{c.pk})" for c in campaigns))
        self.stdout.write("Logins:")
        for login in logins:
            self.stdout.write(f"  {login.role:<10} {login.username:<10} password: {login.password}")
