"""The section bar of a campaign's organiser pages (``templates/annotate/campaign_nav.html``).

The campaign page (dashboard/views.py) opens one of these sections
(``?section=``); the members, uploads, assignments and adjudication pages show
the same bar, so its names live here, below every page that draws it.
"""

#: The campaign page's sections (``?section=``), in the tab bar's order, with their names.
SECTIONS: dict[str, str] = {
    "summary": "Summary",
    "report": "Report",
    "progress": "Progress",
    "flags": "Flags",
    "analyses": "Analyses",
}
