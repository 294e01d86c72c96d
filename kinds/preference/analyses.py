"""The preference kind's analyses: none. Every figure of the leaderboard (its intervals by three
bootstraps and the sandwich, the joint rank intervals, the settled pairs, the position bias, the
model judges beside the people) is in the live campaign report (kinds/preference/partials.py),
bounded by the number of systems rather than of votes."""

from kinds.spec import Analysis

ANALYSES: tuple[Analysis, ...] = ()
