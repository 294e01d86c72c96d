"""Pure numeric metrics (numpy/scipy only; never imports Django).

One module per family: ``agreement`` (chance-corrected agreement between
raters), ``truthinference`` (models of the assessors: Dawid-Skene, MACE,
GLAD, Wawa), ``gwet`` (Gwet's AC1/AC2), ``uncertainty`` (the seeded bootstrap
over units and analytic standard errors behind every interval), and one per
judgment kind.
"""
