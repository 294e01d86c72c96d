"""The set-password page a link from the members page opens (annotate.services.accounts).

The link's code is in its fragment (``#...``), which never reaches the server
in a URL: static/annotate/set_password.js posts it (``action=open``), the
code is kept in the session and the page answers with a redirect to itself,
token-free, as Django's reset confirm view does. Choosing the password
(``action=set``) checks the link again, in full, before anything is written.
"""

from __future__ import annotations

from django.contrib.auth.forms import SetPasswordForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters

from annotate.services import accounts
from annotate.services.members import claim_account

#: Where the session keeps the opened link's code.
SESSION_KEY = "concord_set_password_link"


@never_cache
@sensitive_post_parameters("link", "new_password1", "new_password2")
def set_password(request: HttpRequest) -> HttpResponse:
    action = request.POST.get("action", "") if request.method == "POST" else ""
    if action == "open":
        request.session[SESSION_KEY] = request.POST.get("link", "")[: accounts.CODE_MAX_LENGTH + 1]
        return redirect("set-password")
    code = request.session.get(SESSION_KEY, "")
    holder = accounts.link_holder(code) if code else None
    if holder is None:
        # A void link reads the same whatever made it void. No code yet: the script opens it.
        status = 400 if request.method == "POST" else 200
        return render(request, "registration/set_password.html", {"opened": bool(code)}, status=status)
    form = SetPasswordForm(holder, request.POST if action == "set" else None)
    if action == "set" and form.is_valid():
        if claim_account(code=code, form=form) is not None:
            del request.session[SESSION_KEY]
            return redirect("password_reset_complete")
        return render(request, "registration/set_password.html", {"opened": True}, status=400)
    return render(
        request,
        "registration/set_password.html",
        {"opened": True, "form": form, "holder": holder},
        status=400 if action else 200,
    )
