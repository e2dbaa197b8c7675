"""N-queens by permutation filtering: generators, sets, builtins."""
from itertools import permutations


def n_queens(n):
    cols = range(n)
    for vec in permutations(cols):
        if n == len(set(vec[i] + i for i in cols)) == len(set(vec[i] - i for i in cols)):
            yield vec


def bench(n=7):
    return len(list(n_queens(n)))
