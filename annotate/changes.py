"""How a write of annotate reaches what is built on it: one narrow hook.

annotate stores campaigns, topics, assignments, judgments and curations;
scoring, the layer above, builds reports and progress counts from them and
must hear of every change that moves a figure. annotate never imports scoring
(tests/test_layers.py): each write calls one of the functions below, and they
pass the change to the one :class:`Listener` registered when Django starts
(``scoring.apps.ScoringConfig.ready``). A call made inside a transaction is
part of it: the listener's own writes commit or roll back with the change.

=====================  ==========================================================
``topic_changed``      a judgment or curation of one topic changed what counts
                       (``revision_id``: the revision that changed it)
``campaign_changed``   a bulk write changed every topic (an import, a restore)
``progress_changed``   assignments, skips or assessors moved, no judgment did
                       (``topic``: of that topic only)
``draft_changed``      a judgment of one topic changed, what counts did not (a
                       draft begun, a reopening, active time): progress counts
                       only, at the next rebuild
``rebuild_wanted``     work that was held back may run now (an import's fence
                       came down)
``rebuild_now``        build the reports at once, in this process (the commands
                       that seed or restore whole campaigns)
=====================  ==========================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from annotate.models import Campaign, Topic


class Listener(Protocol):
    def topic_changed(self, topic: Topic, revision_id: int) -> None: ...

    def campaign_changed(self, campaign: Campaign) -> None: ...

    def progress_changed(self, campaign_id: int, topic: Topic | None = None) -> None: ...

    def draft_changed(self, topic: Topic) -> None: ...

    def rebuild_wanted(self, campaign_id: int) -> None: ...

    def rebuild_now(self, campaign_id: int) -> None: ...


_listener: Listener | None = None


def listen(listener: Listener) -> None:
    """Registers the one listener (scoring's, when its app is ready); a second is refused."""
    global _listener
    if _listener is not None and _listener is not listener:
        raise RuntimeError("annotate.changes already has a listener: there is one layer above annotate")
    _listener = listener


def _heard() -> Listener:
    if _listener is None:
        raise RuntimeError("nothing listens to annotate.changes: is the scoring app in INSTALLED_APPS?")
    return _listener


def topic_changed(topic: Topic, revision_id: int) -> None:
    """Call inside the transaction that changed a judgment or curation of ``topic``."""
    _heard().topic_changed(topic, revision_id)


def campaign_changed(campaign: Campaign) -> None:
    """Call in the last transaction of a write that changed every topic of ``campaign``."""
    _heard().campaign_changed(campaign)


def progress_changed(campaign_id: int, topic: Topic | None = None) -> None:
    """Call inside the transaction that changed assignments, skips or assessors of a campaign;
    ``topic``: the one topic whose assignments changed (None: many, or the assessors)."""
    _heard().progress_changed(campaign_id, topic)


def draft_changed(topic: Topic) -> None:
    """Call inside the transaction that changed a judgment of ``topic`` without changing what
    counts: a draft begun, a judgment reopened or saved as a draft again, active time added to
    a counting judgment."""
    _heard().draft_changed(topic)


def rebuild_wanted(campaign_id: int) -> None:
    """Work held back for the campaign (while an import's fence stood) may run now."""
    _heard().rebuild_wanted(campaign_id)


def rebuild_now(campaign_id: int) -> None:
    """Build every report of the campaign now, in this process."""
    _heard().rebuild_now(campaign_id)
