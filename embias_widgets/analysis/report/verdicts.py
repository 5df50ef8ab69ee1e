"""The association sections' verdicts and one-sentence stories, settled once the report's Holm-Bonferroni is known.

A section runs before the report corrects its p-values across every section, so its ``stability`` cells (and
the rule in its notes) were judged by the section's own rows. Once ``significance`` holds the report's decision,
:func:`settle` judges each row again as :mod:`embias_widgets.analysis.association.story` does everywhere else:
**stable** when the row survives Holm and its interval of d excludes 0 on d's side, else **fragile**, and a row
whose Holm decision and interval disagree gets the one sentence that says so in the section's notes. No number
changes: the verdict and the sentences are read from the table's own d, interval and Holm decision.
"""

from __future__ import annotations

from typing import Any

from ..association.story import story_sentence, verdict_reason

ASSOCIATION = {"weat": ("word choice", "these words"), "seat": ("sentence choice", "these sentences"),
               "sense-weat": ("item choice", "these items")}
"""Sections whose rows are association tests with an interval of d: what the interval varies, what p holds."""
STORY_NOTE = "p and interval disagree"
RULE_NOTE = "stability: "


def row_story(section: dict[str, Any], label: str, value: float | None, interval: dict[str, Any] | None,
              significant: bool | None) -> str | None:
    """The sentence for one row of an association section (None for other sections, or when p and interval
    agree). The tests are one-sided (greater), as the section's p-value note says."""
    if section.get("method") not in ASSOCIATION or significant is None:
        return None
    choice, these = ASSOCIATION[section["method"]]
    return story_sentence(bool(significant), interval, value, choice=choice, these=these, alternative="greater")


def apart_sentence(section: dict[str, Any], labels: list[str]) -> str:
    """One sentence for the rows that do not survive Holm although their interval of d excludes 0."""
    choice, these = ASSOCIATION[section["method"]]
    return f"not significant for {these}; the interval over {choice} excludes 0 for {', '.join(labels)}"


def settle(sections: list[dict[str, Any]], alpha: float, n_tests: int) -> None:
    """Judge every association row's verdict by the report's Holm decision and its interval, and note the rows
    whose decision and interval disagree (in place; idempotent)."""
    for section in sections:
        if section.get("status", "done") != "done" or section.get("method") not in ASSOCIATION:
            continue
        chart, columns = section.get("chart") or {}, section["table"]["columns"]
        if chart.get("interval") not in columns or chart.get("x") not in columns:
            continue
        x, iv = columns.index(chart["x"]), columns.index(chart["interval"])
        stab = columns.index("stability") if "stability" in columns else None
        decided = {t["label"]: t["significant"] for t in section.get("significance") or []}
        choice, these = ASSOCIATION[section["method"]]
        stories = []
        for row in section["table"]["rows"]:
            significant = decided.get(str(row[0]))
            if significant is None:
                continue
            if stab is not None:
                row[stab] = verdict_reason(significant, row[iv], row[x], choice=choice, these=these,
                                           alternative="greater")[0]
            sentence = row_story(section, str(row[0]), row[x], row[iv], significant)
            if sentence:
                stories.append(f"{row[0]}: {sentence}")
        notes = [n for n in section.get("notes", []) if not n.startswith((STORY_NOTE, RULE_NOTE))
                 and not n.startswith("stability over ")]
        if stab is not None:
            notes.append(f"{RULE_NOTE}stable when the test survives Holm-Bonferroni over the report's {n_tests} "
                         f"p-values at alpha {alpha:g} (with these words) and its interval of d over {choice} "
                         "excludes 0 (with other words of the same kinds); otherwise fragile. 'same sign %': the "
                         "share of random subsets keeping 80% of each set's words that give d the full test's sign")
        if stories:
            notes.append(f"{STORY_NOTE} (the p-value holds for {these}, the interval for other {these.split()[1]} "
                         f"of the same kinds): " + "; ".join(stories))
        section["notes"] = notes
