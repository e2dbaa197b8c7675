"""Training data and models for the value predictors (docs/MODEL.md).

* ``collect``: ``python -m lexecutor_c.model.training.collect`` downloads test
  suites, records them, builds the dataset and the frequency table.
* ``dataset``: events -> deduplicated examples, splits.
"""
