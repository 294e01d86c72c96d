"""/help/: the guides and reference documents of docs/, rendered by concord.help.

Open to anyone, signed in or not: the pages are the public repository's own
documents, rendered once per process and the same for everyone (nothing of a
user or a campaign is in them), and the person who most needs "how do I sign
in" or "my set-password link does not work" is the one who cannot sign in.
"""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from concord import help as docs

#: Images and pages change only with a new release; a day is short enough.
IMAGE_MAX_AGE = 86400


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    guides = [docs.page(name) for name in docs.GUIDES]
    references = [docs.page(name) for name in docs.REFERENCES]
    return render(request, "help/index.html", {"guides": guides, "references": references})


@require_safe
def page(request: HttpRequest, name: str) -> HttpResponse:
    found = docs.page(name)
    if found is None:
        raise Http404(f"No help page {name!r}.")
    contents = [h for h in found.headings if h.level in (2, 3)]
    return render(request, "help/page.html", {"page": found, "contents": contents})


@require_safe
def image(request: HttpRequest, folder: str, name: str) -> FileResponse:
    path = docs.IMAGES.get(f"{folder}/{name}")
    if path is None:
        raise Http404(f"No help image {folder}/{name}.")
    response = FileResponse(path.open("rb"), content_type="image/png")
    response["Cache-Control"] = f"public, max-age={IMAGE_MAX_AGE}"
    return response
