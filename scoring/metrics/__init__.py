"""Pure numeric metrics (numpy/scipy only; never imports Django).

One module per family: ``agreement`` (chance-corrected agreement between
raters), ``truthinference`` (models of the assessors: Dawid-Skene, MACE,
GLAD, Wawa), and one per judgment kind.
"""
