"""Treefix (ICSE'25): prefixes that make incomplete code run, refined with
error and coverage feedback; see docs/TREEFIX.md."""
from .core import (TreefixError, TreefixResult, TreeNode, annotate_uncovered, greedy_cover,
                   postprocess, treefix)
from .offline import OfflineGenerator, Plan, Proposal, name_heuristic

__all__ = ["OfflineGenerator", "Plan", "Proposal", "TreeNode", "TreefixError", "TreefixResult",
           "annotate_uncovered", "greedy_cover", "name_heuristic", "postprocess", "treefix"]
