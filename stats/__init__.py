"""Concord's statistics shared by every kind: plain functions over numpy arrays, never Django.

A library in the style of ``scipy.stats`` and ``sklearn.metrics`` (the rules of
the house, docs/architecture.md): each function validates its arguments at the
boundary and cites the section of the paper its equations come from.

Modules: ``agreement`` (chance-corrected agreement: Cohen, Fleiss, Krippendorff),
``gwet`` (AC1/AC2), ``ratingtables`` (every figure of a rating table: percent
agreement, Brennan-Prediger, Conger, per-category and per-pair agreement, ICCs),
``ratings`` (ratings held sparse), ``uncertainty`` (the
seeded bootstrap over units and the analytic standard errors behind every
interval), ``intervals`` (intervals as reports store them), ``stopping`` (the
"precise enough to stop" signal), ``truthinference`` (Dawid-Skene, MACE, GLAD,
Wawa), ``labelmodels`` (truth sets from those models, for the label kinds),
``systems`` (systems' precision, recall and F1 against a truth set),
``significance`` (paired tests between systems, evaluation statements),
``ireval`` (TREC measures through ir-measures), ``rank`` (rank correlations),
``crossing`` (where a stability curve crosses a level), ``dispute`` (how
disputed an item's votes are), ``alttest`` (the alternative annotator test: may
a model judge stand in for the human raters), ``quality`` (crowd quality control:
accuracy on control items with its interval, the pausing rule and its error
rates). A kind's own statistics are its
``kinds/<kind>/stats.py``, which may import this package and nothing else of
the project's but its own folder's Django-free modules.
"""
