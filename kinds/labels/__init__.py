"""Labels (Gwet 2014; Krippendorff 2011; Fleiss 1971): any rating table, one label an item on a nominal, ordinal or numeric scale, and every agreement figure of it.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
