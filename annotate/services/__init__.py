"""annotate's writes, one module per subject (the way zulip's ``zerver/actions/`` keeps them).

``campaigns`` (creating one, its params), ``members`` (adding, removing, claiming
an invitation), ``accounts`` (set-password links, what an organiser may know of
an account), ``assignments`` (who judges which topic), ``judgments`` (a
judgment's states: save, submit, reopen, withdraw), ``curations`` (a topic's
gold and a kind's own curations), ``flags`` (skips and flags), ``study`` (study links
for crowd platforms and the workers who come through them). Imports of files
are annotate.imports'. Reads are in annotate.selectors (and annotate.flags for
the flags inbox). Every function validates everything first and writes inside
one transaction, so bad input changes nothing; each write that moves a figure
says so through annotate.changes.
"""
