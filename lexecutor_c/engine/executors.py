"""Where many independent calls run: a local process pool, Dask or Ray,
behind one small interface that hands back ``concurrent.futures.Future``\\s.

    ex = open_executor("local", workers=4)        # or "dask", "dask://HOST:PORT",
    fut = ex.submit(fn, *args)                    #    "ray", "ray://HOST:PORT"
    ...
    ex.close()

``run_batches`` is the driver on top: it keeps a window of batches in
flight, resubmits a batch whose worker was lost (a killed process, a node
that went away) and counts how many it resubmitted.  The batch command
(apps/batch.py), the coverage benchmark and the training-data collector
all go through it.

This module knows nothing of lexecutor_c's engine: ``fn`` is any function
importable by name in the workers (a module-level function of a module on
their ``sys.path``).  Worker processes keep what they imported between
calls, so a function that caches its heavy state at module level (the
extension, the model, LibTorch) loads it once per worker.

Retries: the engines' own transparent retries are turned off where this
module starts the engine (Dask ``LocalCluster``: ``allowed-failures`` 0; Ray
tasks: ``max_retries=0``), so that every retry is ours and is counted.  On
a scheduler or cluster someone else started, Dask's scheduler may also
retry by itself (its ``distributed.scheduler.allowed-failures``, default
3): those retries are not counted.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
import socket
import sys
import time
from collections import deque
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Tuple

__all__ = ["ExecutorError", "WorkerLost", "Executor", "LocalExecutor", "DaskExecutor",
           "RayExecutor", "open_executor", "run_batches", "worker_id", "EXECUTORS"]

EXECUTORS = ("local", "dask", "dask://HOST:PORT", "ray", "ray://HOST:PORT")


class ExecutorError(Exception):
    """The executor cannot be used: unknown name, engine not installed,
    scheduler unreachable.  The message says what to do."""


class WorkerLost(Exception):
    """A batch gave up after its workers were lost ``max_retries + 1`` times."""


def worker_id() -> str:
    """``host:pid`` of the calling process (recorded in each result row)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _noop(x=None):
    return x


class Executor:
    """A pool of worker processes.  ``submit`` returns a
    ``concurrent.futures.Future``; ``lost(exc)`` says whether an exception
    of such a future means that its worker went away (then the call may be
    resubmitted); ``recover()`` is called before resubmitting."""

    kind = "?"
    workers = 0

    def submit(self, fn: Callable, *args: Any) -> cf.Future:
        raise NotImplementedError

    def lost(self, exc: BaseException) -> bool:
        return False

    def recover(self) -> None:
        pass

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"{self.kind} ({self.workers} workers)"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _local_init(initializer, initargs):
    """A pool worker ignores SIGINT: Ctrl-C reaches the whole foreground process group,
    and the driver, not each worker, decides what an interruption does."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


class LocalExecutor(Executor):
    """``concurrent.futures.ProcessPoolExecutor`` (fork start method where
    there is one).  When a worker dies the pool breaks and every call in
    flight fails with ``BrokenProcessPool``: ``recover`` starts a new pool,
    and the driver resubmits all of them."""

    kind = "local"

    def __init__(self, workers: Optional[int] = None, start_method: Optional[str] = None,
                 initializer: Optional[Callable] = None, initargs: tuple = ()):
        import multiprocessing
        self.workers = workers or os.cpu_count() or 1
        methods = multiprocessing.get_all_start_methods()
        self._ctx = multiprocessing.get_context(start_method or
                                                ("fork" if "fork" in methods else None))
        self._init = (initializer, initargs)
        self._pool: Optional[cf.ProcessPoolExecutor] = None
        self._start()

    def _start(self) -> None:
        self._pool = cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=self._ctx,
                                            initializer=_local_init, initargs=self._init)
        # start every worker now, before the caller starts threads of its own
        list(self._pool.map(_noop, range(self.workers)))

    def submit(self, fn, *args):
        assert self._pool is not None, "executor closed"
        return self._pool.submit(fn, *args)

    def lost(self, exc):
        from concurrent.futures.process import BrokenProcessPool
        return isinstance(exc, BrokenProcessPool)

    def recover(self):
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._start()

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskExecutor(Executor):
    """A ``dask.distributed`` client: on a ``LocalCluster`` of ``workers``
    single-threaded processes started here (``address=None``), or on the
    scheduler at ``address`` (``tcp://HOST:PORT``; its workers must be able
    to import ``fn``'s module).  ``sys_path``: folders the workers put on
    their ``sys.path`` (a local cluster gets them through PYTHONPATH, so a
    restarted worker has them too)."""

    kind = "dask"

    def __init__(self, workers: Optional[int] = None, address: Optional[str] = None,
                 sys_path: Sequence[str] = (), dashboard: Optional[str] = None,
                 initializer: Optional[Callable] = None, initargs: tuple = ()):
        try:
            import dask
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError("the dask executor needs dask.distributed: "
                                "pip install 'dask[distributed]'") from None
        self._cluster = None
        if address:
            try:
                self._client = Client(address, timeout=30)
            except OSError as e:
                raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {e}") from None
            if sys_path:
                # a builtin: nothing of ours has to be unpickled in the workers for this
                self._client.run(exec, "import sys\nfor p in reversed(%r):\n"
                                 "    p in sys.path or sys.path.insert(0, p)" % list(sys_path),
                                 {})
            self.workers = sum(w.get("nthreads", 1) for w in
                               self._client.scheduler_info()["workers"].values())
            self.kind = f"dask {address}"
        else:
            self.workers = workers or os.cpu_count() or 1
            env = {}
            if sys_path:
                env["PYTHONPATH"] = os.pathsep.join(
                    list(sys_path) + [p for p in os.environ.get("PYTHONPATH", "").split(
                        os.pathsep) if p])
            # every retry is ours (counted): a task whose worker dies fails at once
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                             processes=True, dashboard_address=dashboard,
                                             memory_limit=0, env=env)
                self._client = Client(self._cluster)
        if initializer is not None:
            try:
                self._client.run(initializer, *initargs)
            except Exception as e:
                self.close()
                raise ExecutorError(
                    f"the Dask workers cannot run {initializer.__module__}: "
                    f"{type(e).__name__}: {e}; every worker needs the same lexecutor_c "
                    "installed (docs/RUNNING.md)") from None
        self._executor = self._client.get_executor(pure=False)

    def submit(self, fn, *args):
        return self._executor.submit(fn, *args)

    def lost(self, exc):
        from distributed.scheduler import KilledWorker
        try:
            from distributed.comm.core import CommClosedError
        except ImportError:         # pragma: no cover - older distributed
            CommClosedError = OSError
        return isinstance(exc, (KilledWorker, CommClosedError))

    def close(self):
        try:
            self._client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()


class RayExecutor(Executor):
    """Ray tasks: a local Ray instance with ``workers`` CPUs started here
    (``address=None``), or the cluster at ``address`` (``ray://HOST:PORT``,
    Ray Client; ``auto`` for the cluster this node belongs to).  Each task
    asks for one CPU and is not retried by Ray (``max_retries=0``): a task
    whose worker died fails with a Ray error and the driver resubmits it."""

    kind = "ray"

    def __init__(self, workers: Optional[int] = None, address: Optional[str] = None,
                 sys_path: Sequence[str] = (), initializer: Optional[Callable] = None,
                 initargs: tuple = ()):
        try:
            import ray
        except ImportError:
            py = "%d.%d" % sys.version_info[:2]
            raise ExecutorError(
                f"the ray executor needs ray, which is not installed for Python {py}: "
                "pip install 'ray[client]==2.60.0' (wheels for CPython 3.11-3.13 on "
                "x86-64/aarch64 Linux and macOS; elsewhere use the local or dask "
                "executor)") from None
        self._ray = ray
        env = {}
        if sys_path:
            env["PYTHONPATH"] = os.pathsep.join(
                list(sys_path) + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                  if p])
        runtime_env = {"env_vars": env} if env else None
        self._own = not ray.is_initialized()
        try:
            if address:
                ray.init(address=address, runtime_env=runtime_env, log_to_driver=False,
                         ignore_reinit_error=True)
                self.kind = f"ray {address}"
            else:
                self.workers = workers or os.cpu_count() or 1
                ray.init(num_cpus=self.workers, runtime_env=runtime_env,
                         include_dashboard=False, log_to_driver=False,
                         ignore_reinit_error=True)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ExecutorError(f"cannot start or reach Ray{' at ' + address if address else ''}:"
                                f" {e}") from None
        if address:
            self.workers = int(ray.cluster_resources().get("CPU", 1))
        self._remote: dict = {}
        if initializer is not None:
            # one call per CPU: a best effort (Ray picks the processes)
            try:
                ray.get([self._task(initializer).remote(*initargs)
                         for _ in range(self.workers)])
            except Exception as e:
                self.close()
                raise ExecutorError(
                    f"the Ray workers cannot run {initializer.__module__}: "
                    f"{type(e).__name__}: {e}; every node needs the same lexecutor_c "
                    "installed (docs/RUNNING.md)") from None

    def _task(self, fn):
        t = self._remote.get(fn)
        if t is None:
            t = self._remote[fn] = self._ray.remote(num_cpus=1, max_retries=0)(fn)
        return t

    def submit(self, fn, *args):
        return self._task(fn).remote(*args).future()

    def lost(self, exc):
        ex = self._ray.exceptions
        kinds = tuple(getattr(ex, n) for n in ("WorkerCrashedError", "NodeDiedError",
                                                "LocalRayletDiedError", "ObjectLostError",
                                                "RaySystemError") if hasattr(ex, n))
        return isinstance(exc, kinds)

    def close(self):
        if self._own and self._ray.is_initialized():
            self._ray.shutdown()


def open_executor(spec: str = "local", workers: Optional[int] = None,
                  sys_path: Sequence[str] = (), initializer: Optional[Callable] = None,
                  initargs: tuple = ()) -> Executor:
    """The executor named by ``spec``: ``local``, ``dask``, ``dask://HOST:PORT``
    (or ``tcp://HOST:PORT``), ``ray``, ``ray://HOST:PORT`` (or ``ray:auto``).
    ``initializer(*initargs)`` runs in the workers first (to load heavy state
    once)."""
    spec = (spec or "local").strip()
    if workers is not None and workers < 1:
        raise ExecutorError("workers must be at least 1")
    if spec == "local":
        return LocalExecutor(workers, initializer=initializer, initargs=initargs)
    if spec == "dask":
        return DaskExecutor(workers, sys_path=sys_path, initializer=initializer,
                            initargs=initargs)
    if spec.startswith(("dask://", "tcp://", "tls://")):
        addr = "tcp://" + spec[len("dask://"):] if spec.startswith("dask://") else spec
        return DaskExecutor(address=addr, sys_path=sys_path, initializer=initializer,
                            initargs=initargs)
    if spec == "ray":
        return RayExecutor(workers, sys_path=sys_path, initializer=initializer,
                           initargs=initargs)
    if spec.startswith("ray://") or spec == "ray:auto":
        addr = "auto" if spec == "ray:auto" else spec
        return RayExecutor(address=addr, sys_path=sys_path, initializer=initializer,
                           initargs=initargs)
    raise ExecutorError(f"unknown executor {spec!r}; choose from {', '.join(EXECUTORS)}")


def run_batches(executor: Executor, fn: Callable, batches: Iterable[Any], *,
                window: Optional[int] = None, max_retries: int = 3,
                on_retry: Optional[Callable[[Any, BaseException], None]] = None
                ) -> Iterator[Tuple[Any, Any]]:
    """Call ``fn(batch)`` for every batch on ``executor``; yields
    ``(batch, result)`` in completion order, reading ``batches`` lazily
    (at most ``window`` calls in flight, default 4 per worker).  A call whose
    worker was lost is resubmitted (``on_retry(batch, exc)`` is told) up to
    ``max_retries`` times, then yields ``(batch, WorkerLost(...))``; any
    other exception of ``fn`` is yielded as the result, not raised."""
    window = window or max(2, 4 * max(1, executor.workers))
    source = iter(batches)
    inflight: dict[cf.Future, Tuple[Any, int]] = {}
    waiting: deque = deque()          # (batch, attempt) to resubmit
    exhausted = False

    def fill():
        nonlocal exhausted
        while len(inflight) < window:
            if waiting:
                batch, attempt = waiting.popleft()
            elif not exhausted:
                try:
                    batch = next(source)
                except StopIteration:
                    exhausted = True
                    continue
                attempt = 0
            else:
                return
            inflight[executor.submit(fn, batch)] = (batch, attempt)

    try:
        fill()
        while inflight:
            done, _ = cf.wait(list(inflight), return_when=cf.FIRST_COMPLETED)
            recovered = False
            for fut in done:
                if fut not in inflight:     # already moved to waiting by a pool recovery
                    continue
                batch, attempt = inflight.pop(fut)
                exc = fut.exception() if not fut.cancelled() else cf.CancelledError()
                if exc is None:
                    yield batch, fut.result()
                    continue
                if executor.lost(exc) or isinstance(exc, cf.CancelledError):
                    if attempt >= max_retries:
                        yield batch, WorkerLost(f"worker lost {attempt + 1} times: "
                                                f"{type(exc).__name__}: {exc}")
                        continue
                    if not recovered and isinstance(executor, LocalExecutor):
                        # the whole pool is broken: every call in flight fails with it
                        for f2, (b2, a2) in list(inflight.items()):
                            if f2.done() and not f2.cancelled() and f2.exception() is None:
                                continue        # finished before the pool broke: keep it
                            inflight.pop(f2)
                            waiting.append((b2, a2 + 1))
                            if on_retry:
                                on_retry(b2, exc)
                        executor.recover()
                        recovered = True
                    waiting.append((batch, attempt + 1))
                    if on_retry:
                        on_retry(batch, exc)
                    continue
                yield batch, exc
            fill()
    finally:
        for fut in inflight:
            fut.cancel()


def wait_for_workers(executor: Executor, n: int, timeout: float = 60.0) -> None:
    """Block until ``n`` calls can run (warms a freshly started pool)."""
    deadline = time.monotonic() + timeout
    futs = [executor.submit(_noop, i) for i in range(n)]
    cf.wait(futs, timeout=max(0.0, deadline - time.monotonic()))
