"""Pure numeric metrics (numpy/scipy only; never imports Django).

One module per family: ``agreement`` (chance-corrected agreement between
raters), and one per judgment kind.
"""
