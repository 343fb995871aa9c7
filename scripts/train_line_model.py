"""Train the publication-list line labeller (src/kg/importers/labeller/lines.crfsuite).

    python scripts/train_line_model.py [--pages 1500] [--seed 7] [--out PATH]

Training data: synthetic publication lists (scripts/line_synth.py) and the labelled lines of the
real-world development pages (tests/data/import_realworld/dev/, their lines labelled from their facts.yaml
by scripts/line_align.py). Held-out pages are never read. Deterministic for a given seed and data;
takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

import pycrfsuite  # noqa: E402
from line_align import labelled_sections  # noqa: E402
from line_synth import Labelled, pages  # noqa: E402

from kg.importers.labeller import MODEL  # noqa: E402
from kg.importers.labeller.features import sequence_features  # noqa: E402
from kg.importers.records import Line  # noqa: E402
from kg.importers.venues import Reference  # noqa: E402

DEV = ROOT / "tests" / "data" / "import_realworld" / "dev"


def as_lines(rows: Labelled) -> tuple[list[Line], list[str]]:
    """Lines of a labelled page and the labels of its non-blank lines."""
    lines = [Line(i, i + 1, text.strip(), heading=label == "heading" and not text[:1].isdigit())
             for i, (text, label) in enumerate(rows)]
    return lines, [label for text, label in rows if text.strip()]


def dev_pages(leave_out: frozenset[str] = frozenset()) -> list[Labelled]:
    """Labelled publication sections of the development pages (text and HTML renderings), but those whose stem
    is in `leave_out`."""
    return [rows for path in sorted(DEV.glob("*.txt")) + sorted(DEV.glob("*.html")) if path.stem not in leave_out
            for rows in labelled_sections(path)]


def train(count: int, seed: int, out: Path, dev_weight: int, leave_out: frozenset[str] = frozenset(),
          quiet: bool = False) -> None:
    """Train on synthetic and development pages (but those in `leave_out`) and write the model file."""
    ref = Reference.load(ROOT / "data")
    facts = [p for p in sorted(DEV.glob("*.facts.yaml")) if p.name.removesuffix(".facts.yaml") not in leave_out]
    data = pages(ROOT, count, seed, facts) + dev_pages(leave_out) * dev_weight
    trainer = pycrfsuite.Trainer(verbose=False)
    started = time.monotonic()
    for rows in data:
        lines, labels = as_lines(rows)
        _, features = sequence_features(lines, ref, set())
        trainer.append(features, labels)
    trainer.set_params({"c1": 0.05, "c2": 0.01, "max_iterations": 200, "feature.possible_transitions": True})
    trainer.train(str(out))
    if not quiet:
        print(f"trained on {len(data)} pages in {time.monotonic() - started:.0f} s -> {out}")


def main() -> int:
    """Parse arguments and train."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=800)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dev-weight", type=int, default=8)
    parser.add_argument("--out", type=Path, default=MODEL)
    args = parser.parse_args()
    train(args.pages, args.seed, args.out, args.dev_weight)
    return 0


if __name__ == "__main__":
    sys.exit(main())
