"""Training data and models for the value predictors (docs/MODEL.md).

* ``collect``: ``python -m lexecutor_c.model.training.collect`` downloads test
  suites, records them (resumably, on a Dask LocalCluster), builds the
  dataset and the frequency table.
* ``projects``: the pinned PyPI projects, and the refused ones.
* ``dataset``: events -> deduplicated examples, the project-disjoint split,
  the dataset directory's format.
"""
