"""The pages that read both what annotate stores and what scoring computes.

Layers (docs/architecture.md): ``scoring`` builds on ``annotate``, and this app
on both. Its pages list and sum topics by the figures scoring keeps (a topic's
disagreement, the headline figure, a big campaign's stored progress counts):
the home page, the organiser's campaign page and its sections, the topic table
(Assignments), the adjudication queue and page. Reads only, in selectors.py
(the summary and the home page's counts), topics.py (the topic table) and
queue.py (the adjudication queue); what the pages change goes through annotate's
and scoring's services.
"""
