"""Train the neural value model: ``lexecutor-c train --events ... --out model.pt``.

Data: recorded events files -> deduplicated examples (``dataset``), split
95/5 at random (a hash of the example and the seed) or, with
``--heldout-projects``, by project.  Input: the tokenizer of
``lexecutor_c.model.neural`` (name, kind, 16 tokens before the site, ``<mask>``,
16 after; hashed word, sub-word and character-trigram features per
position).  Model: a bag-of-features embedding per position, learned
position embeddings, a small pre-norm transformer encoder, and two linear
heads over [name position ; mean of positions]: the fine classes
(``_core.FINE_CLASSES``) and the coarse ones (``_core.COARSE_CLASSES``);
the loss is the sum of both cross-entropies.

Reproducible: the same events, arguments, seed and thread count give the
same model.  The export is an AOTInductor package (``torch.export`` of the
model compiled ahead of time into a shared library, with the weights; the
tokenizer description and the training report travel in its metadata as
``tokenizer.txt`` and ``report.json``); ``lexecutor_c._torch_shim`` loads
it with ``AOTIModelPackageLoader``.  ``checkpoint`` keeps the weights
(``torch.save``) so that ``export_checkpoint`` can compile them again, e.g.
for another CPU.
"""
from __future__ import annotations

import glob
import json
import math
import os
import platform
import random
import statistics
import time
from typing import Dict, List, Optional, Sequence

from lexecutor_c import _core
from lexecutor_c.model.neural import KINDS, TokenizerConfig, Tokenizer
from lexecutor_c.engine.runtime import coarse_class
from lexecutor_c.model.training import dataset as ds

FINE = list(_core.FINE_CLASSES)
COARSE = list(_core.COARSE_CLASSES)
FINE_TO_COARSE = [COARSE.index(coarse_class(c)) for c in FINE]


def _torch():
    try:
        import torch
    except ImportError as e:
        raise RuntimeError("training needs PyTorch: pip install torch==2.13.0") from e
    return torch


def build_model(torch, buckets: int, max_len: int, dim: int, layers: int, heads: int,
                ff: int, dropout: float):
    nn = torch.nn
    F = torch.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)
            self.ln2 = nn.LayerNorm(dim)
            self.ff1 = nn.Linear(dim, ff)
            self.ff2 = nn.Linear(ff, dim)
            self.drop = nn.Dropout(dropout)

        def forward(self, x, bias):
            B, L, D = x.shape
            H = self.heads
            qkv = self.qkv(self.ln1(x)).view(B, L, 3, H, D // H).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(D // H)) + bias
            att = self.drop(torch.softmax(att, dim=-1))
            y = torch.matmul(att, v).transpose(1, 2).reshape(B, L, D)
            x = x + self.drop(self.proj(y))
            return x + self.drop(self.ff2(F.gelu(self.ff1(self.ln2(x)))))

    class ValueModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(buckets, dim, padding_idx=0)
            self.pos = nn.Parameter(torch.randn(max_len, dim) * 0.02)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.norm = nn.LayerNorm(dim)
            self.fine = nn.Linear(2 * dim, len(FINE))
            self.coarse = nn.Linear(2 * dim, len(COARSE))
            nn.init.normal_(self.emb.weight, std=0.05)
            with torch.no_grad():
                self.emb.weight[0].zero_()

        def forward(self, ids):
            # ids: [B, L, F] int64 feature ids, 0 = padding
            x = self.emb(ids).sum(2)
            used = ids[:, :, 0] != 0                                    # [B, L]
            x = x + self.pos[: x.shape[1]]
            bias = (~used).to(x.dtype)[:, None, None, :] * -1e9
            for blk in self.blocks:
                x = blk(x, bias)
            x = self.norm(x)
            w = used.to(x.dtype)[:, :, None]
            mean = (x * w).sum(1) / w.sum(1).clamp(min=1.0)
            h = torch.cat([x[:, 0], mean], dim=-1)
            return self.fine(h), self.coarse(h)

    return ValueModel()


def encode_all(tok: Tokenizer, examples: Sequence[ds.Example], torch):
    n, L, F = len(examples), tok.cfg.max_len, tok.cfg.max_feats
    # feature ids fit 16 bits with the usual bucket counts: half the memory
    dtype = torch.int16 if tok.cfg.buckets <= 32767 else torch.int32
    ids = torch.zeros((n, L, F), dtype=dtype)
    view = ids.numpy() if hasattr(ids, "numpy") else None
    for i, ex in enumerate(examples):
        rows = tok.encode(ex.name, ex.kind, ex.before, ex.after)
        for p, r in enumerate(rows):
            view[i, p, :len(r)] = r
    y_fine = torch.tensor([FINE.index(ex.cls) for ex in examples], dtype=torch.long)
    y_coarse = torch.tensor([FINE_TO_COARSE[FINE.index(ex.cls)] for ex in examples],
                            dtype=torch.long)
    return ids, y_fine, y_coarse


def topk_hits(logits, y, ks=(1, 3, 5)) -> Dict[int, List[bool]]:
    top = logits.topk(max(ks), dim=-1).indices
    return {k: (top[:, :k] == y[:, None]).any(-1).tolist() for k in ks}


def evaluate(model, torch, ids, y_fine, y_coarse, kinds: List[str], batch: int = 1024) -> dict:
    model.eval()
    hits = {"fine": {1: [], 3: [], 5: []}, "coarse": {1: [], 3: [], 5: []}}
    with torch.no_grad():
        for s in range(0, ids.shape[0], batch):
            lf, lc = model(ids[s:s + batch].long())
            for k, v in topk_hits(lf, y_fine[s:s + batch]).items():
                hits["fine"][k].extend(v)
            for k, v in topk_hits(lc, y_coarse[s:s + batch]).items():
                hits["coarse"][k].extend(v)
    def summary(mask):
        out = {"n": sum(mask)}
        for head in ("fine", "coarse"):
            out[head] = {f"top{k}": round(sum(h for h, m in zip(v, mask) if m) / max(1, sum(mask)),
                                          4) for k, v in hits[head].items()}
        return out
    res = summary([True] * len(kinds))
    res["per_kind"] = {kd: summary([x == kd for x in kinds]) for kd in KINDS}
    return res


#: what the exported package is compiled for on x86-64: the x86-64-v3 level
#: (AVX2 and FMA: Intel since Haswell, AMD since Excavator) with 256-bit
#: vectors, not the building machine's own CPU (AOTInductor's default,
#: -march=native); the shim refuses a package the CPU cannot run
EXPORT_MARCH = "x86-64-v3"
EXPORT_SIMDLEN = 256
#: bumped when the package's inputs, outputs or metadata change
EXPORT_FORMAT = "1"
CHECKPOINT_FORMAT = "lexecutor_c.checkpoint"


def frequency_baseline(train_ex: Sequence[ds.Example], test_ex: Sequence[ds.Example]) -> dict:
    """Top-1/3/5 of the frequency table built from ``train_ex`` on
    ``test_ex``, fine and coarse, overall and per kind (the report's
    baseline beside the model's ``test_metrics``)."""
    from lexecutor_c.model.training.collect import topk_frequency
    table = ds.class_counts(train_ex)
    out = {"fine": topk_frequency(table, test_ex),
           "coarse": topk_frequency(table, test_ex, coarse=True), "per_kind": {}}
    for kd in KINDS:
        sub = [ex for ex in test_ex if ex.kind == kd]
        out["per_kind"][kd] = {"n": len(sub), "fine": topk_frequency(table, sub),
                               "coarse": topk_frequency(table, sub, coarse=True)}
    return out


def export(model, torch, path: str, cfg: TokenizerConfig, report: dict) -> None:
    """Compile the model into an AOTInductor package at ``path`` (one
    LibTorch intra-op thread: the shim answers one query at a time)."""
    model.eval()
    example = torch.zeros((1, cfg.max_len, cfg.max_feats), dtype=torch.long)
    example[0, 0, 0] = 1
    configs = {
        "aot_inductor.metadata": {
            "lexecutor_c.format": EXPORT_FORMAT,
            "tokenizer.txt": cfg.to_text(FINE, COARSE),
            "report.json": json.dumps(report, indent=1, sort_keys=True),
        },
        "cpp.threads": 1,
    }
    if platform.machine().lower() in ("x86_64", "amd64"):
        configs["cpp.march"] = EXPORT_MARCH
        configs["cpp.simdlen"] = EXPORT_SIMDLEN
    tmp = path + ".part.pt2"          # AOTInductor wants the .pt2 suffix
    try:
        with torch.no_grad():
            ep = torch.export.export(model, (example,))
            torch._inductor.aoti_compile_and_package(ep, package_path=tmp,
                                                     inductor_configs=configs)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def save_checkpoint(model, torch, path: str, cfg: TokenizerConfig, model_config: dict,
                    report: dict) -> None:
    torch.save({"format": CHECKPOINT_FORMAT, "version": 1,
                "state_dict": model.state_dict(), "model_config": dict(model_config),
                "tokenizer": cfg.to_text(FINE, COARSE),
                "report": json.dumps(report, sort_keys=True)}, path)


def load_checkpoint(path: str):
    """(model, tokenizer config, report) of a checkpoint ``save_checkpoint`` wrote."""
    torch = _torch()
    try:
        ck = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as e:
        raise ValueError(f"{path}: not a checkpoint ({e})") from None
    if not isinstance(ck, dict) or ck.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path}: not a {CHECKPOINT_FORMAT} file")
    mc = ck["model_config"]
    cfg, fine, coarse = TokenizerConfig.from_text(ck["tokenizer"])
    if fine != FINE or coarse != COARSE:
        raise ValueError(f"{path}: trained for other value classes")
    model = build_model(torch, cfg.buckets, cfg.max_len, mc["dim"], mc["layers"], mc["heads"],
                        mc["ff"], mc["dropout"])
    model.load_state_dict(ck["state_dict"])
    return model, cfg, json.loads(ck["report"])


def export_checkpoint(checkpoint: str, out: str) -> dict:
    """Compile a checkpoint into a package again (another CPU, a new torch)."""
    model, cfg, report = load_checkpoint(checkpoint)
    export(model, _torch(), out, cfg, report)
    report["model_bytes"] = os.path.getsize(out)
    return report


DATASET_FORMAT = ("lexecutor_c.dataset", 1)


def read_dataset(path: str):
    """(info, train, test) of a dataset directory written by
    ``collect`` (``dataset.json`` and ``train``/``test.jsonl.gz``)."""
    try:
        with open(os.path.join(path, "dataset.json")) as f:
            info = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no dataset.json (not a dataset directory)") from None
    if (info.get("format"), info.get("version")) != DATASET_FORMAT:
        raise ValueError(f"{path}: not a {DATASET_FORMAT[0]} version {DATASET_FORMAT[1]} "
                         "dataset")
    return (info, ds.read_examples(os.path.join(path, "train.jsonl.gz")),
            ds.read_examples(os.path.join(path, "test.jsonl.gz")))


def train(events: Sequence[str], out: str, *, seed: int = 0, epochs: float = 4.0,
          batch_size: int = 256, lr: float = 2e-3, dim: int = 96, layers: int = 2,
          heads: int = 4, ff: int = 192, dropout: float = 0.1, buckets: int = 16384,
          max_len: int = 36, max_feats: int = 12, test_fraction: float = 0.05,
          heldout_projects: Sequence[str] = (), cap: Optional[int] = 300,
          threads: int = 2, max_steps: Optional[int] = None,
          max_minutes: Optional[float] = None, checkpoint: Optional[str] = None,
          do_export: bool = True, dataset: Optional[str] = None, log=print) -> dict:
    """Train and export (unless ``do_export`` is false); write the weights to
    ``checkpoint`` when given.  Returns the report (also in the export).
    ``dataset``: a dataset directory (docs/MODEL.md, format
    ``lexecutor_c.dataset`` 1: its project-disjoint train/test split) instead
    of ``events``."""
    torch = _torch()
    if dataset is not None:
        events = []
    paths = []
    for e in events:
        found = sorted(glob.glob(e)) if any(c in e for c in "*?[") else [e]
        if not found:
            raise FileNotFoundError(f"no events file matches {e!r}")
        paths.extend(found)
    for p in paths:
        if not os.path.isfile(p):
            raise FileNotFoundError(f"events file {p!r} does not exist")
    for target in ([out] if do_export else []) + ([checkpoint] if checkpoint else []):
        out_dir = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(out_dir):
            raise FileNotFoundError(f"the directory of {target} ({out_dir}) does not exist")
    torch.manual_seed(seed)
    random.seed(seed)
    torch.set_num_threads(threads)
    stats: dict = {}
    if dataset is not None:
        info, train_ex, test_ex = read_dataset(dataset)
        examples = train_ex + test_ex
        stats["events"] = info.get("events")
        split = {"kind": "project", "heldout": list(info.get("heldout_projects", [])),
                 "dataset": os.path.abspath(dataset)}
    else:
        examples = ds.examples_from_events(paths, cap=cap, stats=stats)
    if dataset is not None:
        pass                                 # the dataset's own split
    elif heldout_projects:
        train_ex, test_ex = ds.project_split(examples, heldout_projects)
        split = {"kind": "project", "heldout": list(heldout_projects)}
    else:
        train_ex, test_ex = ds.random_split(examples, test_fraction, seed)
        split = {"kind": "random", "test_fraction": test_fraction}
    if not train_ex:
        raise ValueError("no training examples in the events files")
    log(f"train: {len(train_ex)} examples, test: {len(test_ex)} "
        f"({stats.get('events', 0)} events read)")
    cfg = TokenizerConfig(buckets=buckets, max_len=max_len, max_feats=max_feats)
    tok = Tokenizer(cfg)
    t0 = time.monotonic()
    X, Yf, Yc = encode_all(tok, train_ex, torch)
    if test_ex:
        Xt, Ytf, Ytc = encode_all(tok, test_ex, torch)
    log(f"tokenized in {time.monotonic() - t0:.1f}s")
    model = build_model(torch, buckets, max_len, dim, layers, heads, ff, dropout)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    n = X.shape[0]
    steps_per_epoch = max(1, math.ceil(n / batch_size))
    total = max(1, int(steps_per_epoch * epochs))
    if max_steps is not None:
        total = min(total, max_steps)
    warm = max(1, total // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.02, 0.5 * (1 + math.cos(math.pi * s / total))))
    gen = torch.Generator().manual_seed(seed)
    ce = torch.nn.functional.cross_entropy
    step = 0
    t0 = time.monotonic()
    model.train()
    stopped_early = False
    while step < total:
        perm = torch.randperm(n, generator=gen)
        for s in range(0, n, batch_size):
            if step >= total:
                break
            if max_minutes is not None and time.monotonic() - t0 > max_minutes * 60:
                stopped_early = True
                break
            idx = perm[s:s + batch_size]
            lf, lc = model(X[idx].long())
            loss = ce(lf, Yf[idx]) + ce(lc, Yc[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            if step % 200 == 0 or step == total:
                log(f"step {step}/{total} loss {loss.item():.4f} "
                    f"({time.monotonic() - t0:.0f}s)")
        if stopped_early:
            break
    train_seconds = time.monotonic() - t0
    report = {
        "seed": seed, "steps": step, "epochs": round(step / steps_per_epoch, 2),
        "train_seconds": round(train_seconds, 1), "threads": threads,
        "stopped_early": stopped_early,
        "examples": len(examples), "train": len(train_ex), "test": len(test_ex),
        "events": stats.get("events"), "split": split, "cap": cap,
        "projects": sorted({ex.project for ex in examples}),
        "names": len({ex.name for ex in examples}),
        "config": {"dim": dim, "layers": layers, "heads": heads, "ff": ff, "dropout": dropout,
                   "buckets": buckets, "max_len": max_len, "max_feats": max_feats,
                   "batch_size": batch_size, "lr": lr},
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    if test_ex:
        report["test_metrics"] = evaluate(model, torch, Xt, Ytf, Ytc, [e.kind for e in test_ex])
        # the frequency baseline on the same split, for comparison
        report["frequency_baseline"] = frequency_baseline(train_ex, test_ex)
    model_config = {"dim": dim, "layers": layers, "heads": heads, "ff": ff,
                    "dropout": dropout}
    if checkpoint:
        save_checkpoint(model, torch, checkpoint, cfg, model_config, report)
    if do_export:
        t0 = time.monotonic()
        export(model, torch, out, cfg, report)
        report["export_seconds"] = round(time.monotonic() - t0, 1)
        report["model_bytes"] = os.path.getsize(out)
    return report


def latency(model_path: str, examples: Sequence[ds.Example], n: int = 500) -> dict:
    """Milliseconds per query through the shim, in-process, one LibTorch
    thread: median and p99 of the wall time and of this thread's CPU time
    (the CPU time is what a busy machine changes least)."""
    from lexecutor_c.model.neural import NeuralModel
    m = NeuralModel(model_path)
    wall, cpu = [], []
    for ex in list(examples)[:n]:
        t, c = time.perf_counter(), time.thread_time()
        m.predict(ex.name, ex.kind, ex.before, ex.after, 5)
        cpu.append((time.thread_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)

    def p99(v):
        return round(sorted(v)[min(len(v) - 1, int(len(v) * 0.99))], 4)
    return {"queries": len(wall), "median_ms": round(statistics.median(wall), 4),
            "p99_ms": p99(wall), "cpu_median_ms": round(statistics.median(cpu), 4),
            "cpu_p99_ms": p99(cpu)}
