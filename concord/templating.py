"""Django's template backend, with pages that can always be answered.

A page is encoded as UTF-8 when the response is built; text that cannot be
(a lone surrogate, stored before the JSON parser refused them) would make
that a 500. Here each such character becomes U+FFFD (concord.jsonsafe.encodable).
"""

from __future__ import annotations

from django.template import TemplateDoesNotExist
from django.template.backends import django as backend

from concord.jsonsafe import encodable


class Template(backend.Template):
    def render(self, context=None, request=None) -> str:
        return encodable(super().render(context, request))


class DjangoTemplates(backend.DjangoTemplates):
    def from_string(self, template_code) -> Template:
        return Template(self.engine.from_string(template_code), self)

    def get_template(self, template_name) -> Template:
        try:
            return Template(self.engine.get_template(template_name), self)
        except TemplateDoesNotExist as exc:
            backend.reraise(exc, self)
