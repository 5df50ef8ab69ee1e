"""Re-derive the keys of ``stimuli/data/sense_tests.json`` chosen as "most frequent sense" and name any that differ.

Rule (what ``how`` says): among the lemma's WordNet 3.0 senses (within the lexicographer files named after
"among", when named), the sense with the highest SemCor count. A tie (often at a count of 0) is broken by
fit to the category: senses whose gloss holds one of the category's cue words (:data:`CUES`) first, then
WordNet's order. Without cues for a category, WordNet's order. Keys ``chosen by hand`` are kept as they are.

    python scripts/check_sense_tests.py            # list differences and every tie; exit 1 if any differ
    python scripts/check_sense_tests.py --write    # write the re-derived keys and glosses into the JSON
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from embias_widgets.stimuli.wordnet import Sense, WordNet, load_wordnet

DATA = Path(__file__).resolve().parents[1] / "embias_widgets" / "stimuli" / "data" / "sense_tests.json"
CUES: dict[str, tuple[str, ...]] = {
    "Flowers": ("flower", "bloom", "genus", "herb", "shrub"),
    "Insects": ("insect", "fly", "flies", "spider", "aphid", "midge", "mosquito", "roach"),
    "Pleasant": ("good", "pleasant", "pleasure", "happy", "joy", "fortune", "light", "love"),
    "Unpleasant": ("foul", "unpleasant", "ruin", "misfortune", "disgust", "offensive", "loss"),
    "Weapons": ("weapon", "fighting", "disables", "gas", "attack"),
}


def _count(wn: WordNet, key: str) -> int:
    return int(wn._reader.lemma_from_key(key).count())


def choose(wn: WordNet, lemma: str, category: str, lexnames: list[str] | None) -> tuple[Sense, list[Sense]]:
    """The chosen sense and the senses tied with it at the top SemCor count."""
    senses = [s for s in wn.senses(lemma) if lexnames is None or s.lexname in lexnames]
    counts = {s.key: _count(wn, s.key) for s in senses}
    top = max(counts.values())
    tied = [s for s in senses if counts[s.key] == top]
    cues = CUES.get(category, ())
    fitting = [s for s in tied if any(c in s.gloss.lower() for c in cues)]
    return (fitting or tied)[0], tied


def rederive(data: dict[str, Any], wn: WordNet) -> list[tuple[str, str, dict[str, Any], Sense, list[Sense]]]:
    """Every "most frequent sense" item with its re-derived sense and the senses tied with it."""
    out = []
    for name, entry in data["tests"].items():
        for key in ("targ1", "targ2", "attr1", "attr2"):
            category = entry[key]["category"]
            for item in entry[key]["items"]:
                if not (item["how"] or "").startswith("most frequent sense"):
                    continue
                lexnames = item["how"].split(" among ", 1)[1].split(", ") if " among " in item["how"] else None
                sense, tied = choose(wn, wn.sense(item["key"]).lemma, category, lexnames)
                out.append((name, category, item, sense, tied))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the re-derived keys into the JSON")
    args = parser.parse_args(argv)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    differ = 0
    for name, category, item, sense, tied in rederive(data, load_wordnet()):
        if len(tied) > 1:
            print(f"tie {name} {category} {item['word']}: {', '.join(s.key for s in tied)} -> {sense.key}")
        if sense.key != item["key"]:
            differ += 1
            print(f"  DIFFERS {item['key']} ({item['gloss']}) -> {sense.key} ({sense.gloss})")
            item["key"], item["gloss"] = sense.key, sense.gloss
    if args.write:
        DATA.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 1 if differ and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
