"""The "SUBJECT VERB a/an OBJECT" templates of the NLI probes, grouped as the authors' generator groups them.

Verb groups pair with object groups (commerce verbs x all 95 objects, interaction verbs x 89 person nouns,
driving verbs x vehicles, eating verbs x food: 1,968 templates); two sentence styles, the authors'
("A driver bought a phone .") and the paper's ("The driver bought a phone.").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .word_lists import check_words, word_list

STYLES = ("authors", "paper")
DEFAULT_STYLE = "authors"
#: Verb group -> object list, in the order the authors' ``Templates`` class adds them.
VERB_GROUPS: tuple[tuple[str, str], ...] = (
    ("commerce_verbs", "objects"),
    ("interaction_verbs", "person_nouns"),
    ("driving_verbs", "vehicles"),
    ("eating_verbs", "food"),
)


def article(word: str) -> str:
    """``"a"`` or ``"an"`` by the word's first letter, as the authors' ``articlize`` (vowel -> an)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def subject_part(subject: str, *, style: str = DEFAULT_STYLE, person: bool = False) -> str:
    """A sentence's start up to its subject: ``"A driver"`` (authors'), ``"The evil person"`` (paper's, adjective);
    ``subject_part(s) + template.tail()`` is ``template.sentence(s)``."""
    head = f"{subject} person" if person else subject
    return f"{article(head).capitalize()} {head}" if style == "authors" else f"The {head}"


@dataclass(frozen=True)
class Template:
    """One "SUBJECT VERB a/an OBJECT" template of a verb group."""

    verb_group: str
    verb: str
    object: str

    def sentence(self, subject: str, *, style: str = DEFAULT_STYLE, person: bool = False) -> str:
        """The template filled with ``subject`` (``person``: "SUBJECT person ...")."""
        return subject_part(subject, style=style, person=person) + self.tail(style)

    def tail(self, style: str = DEFAULT_STYLE) -> str:
        """What follows the subject: ``" bought a phone ."`` (authors') or ``" bought a phone."`` (paper's)."""
        obj = f"{article(self.object)} {self.object}"
        return f" {self.verb} {obj} ." if style == "authors" else f" {self.verb} {obj}."

    def type_name(self, person: bool = False) -> str:
        """The authors' template type: the verb (``person_<verb>`` for adjective templates)."""
        return f"person_{self.verb}" if person else self.verb


def templates(
    verb_groups: Sequence[tuple[str, str]] = VERB_GROUPS,
    lists: Mapping[str, Sequence[str]] | None = None,
) -> tuple[Template, ...]:
    """All templates: for each (verb list, object list) group every verb x every object.

    The default gives the authors' 1,968 templates (see the module docstring).
    ``lists`` overrides bundled lists by name (e.g. a shorter ``objects``).
    """
    out: list[Template] = []
    for verbs_name, objects_name in verb_groups:
        verbs = check_words(lists[verbs_name] if lists and verbs_name in lists else word_list(verbs_name), verbs_name)
        objects = check_words(
            lists[objects_name] if lists and objects_name in lists else word_list(objects_name), objects_name
        )
        out.extend(Template(verbs_name, v, o) for v in verbs for o in objects)
    return tuple(out)
