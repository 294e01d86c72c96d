"""Importing files into a campaign: one pipeline, one module per stage.

- ``detect``: what a file is (CSV and its delimiter, JSON and which of Concord's
  files, a spreadsheet, a zip, TREC files), from its first bytes; parses nothing;
- ``read``: the readers of each format (topics, crowd tables, runs, judgment
  files), with ``xlsx`` (spreadsheets, streamed) and ``interchange`` (Label Studio
  and doccano files);
- ``check``: everything an import would write, checked and prepared as rows,
  reading only;
- ``write``: the checked rows written as one import, through ``rows`` (prepared
  rows, inserted in bulk) and ``fence`` (a large import a batch per transaction
  behind the campaign's fence, undone if it dies);
- ``wizard``: the upload page's preview and confirm (a file staged between them),
  ``views`` the upload pages, ``samples`` the sample files offered there;
- ``backup``: a whole campaign exported and restored.

Imports check and prepare everything first, reading only, and then write the
prepared rows (annotate/imports/rows.py) through annotate/imports/fence.py: a small import in
one short transaction, a large one a few thousand rows per transaction behind
a fence that keeps its campaign out of sight until the last one. Composite
imports (topics with runs, a crowd file's topics, judgments and gold run)
check each part, then write them all as one import (:func:`write_checked`),
so nothing is half-imported or half-visible. What may change between the
check and the write (a topic id or run name, a worker's account, a judgment
taken meanwhile) is checked again there or refused by a unique constraint,
and nothing is imported.
"""
