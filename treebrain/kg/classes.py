"""A dataset's verb and noun class files (EPIC-KITCHENS' ``EPIC_100_verb_classes.csv`` and
``EPIC_100_noun_classes.csv``): every word the annotators grouped under one class.

Each row is ``id,key,instances,category`` with the instances written as a Python list literal
(``"['pan', 'pan:frying', 'saucepan']"``) and nouns in the dataset's "head:modifier" form
("pan:frying" is a frying pan). Verbs are written with hyphens ("pick-up"). Both are returned
in narration words, class key -> instances, for the vocabulary to fold into synonyms.
"""

from __future__ import annotations

import ast
import csv
import io
from pathlib import Path

from treebrain.errors import InputError, Location, Problem
from treebrain.kg.names import normalise_phrase
from treebrain.yaml_source import read_text

_COLUMNS = ("key", "instances")


def dataset_words(word: str) -> str:
    """A class file's word in narration words: "pan:frying" -> "frying pan", "pick-up" -> "pick up"."""
    head, *modifiers = word.split(":")
    return normalise_phrase(" ".join([*reversed(modifiers), head]).replace("-", " "))


def load_class_file(path: str | Path) -> dict[str, list[str]]:
    """Class key -> its instances, in narration words; every bad row is reported with its line."""
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    missing = [name for name in _COLUMNS if name not in (reader.fieldnames or [])]
    if missing:
        raise InputError.single(
            f"missing column(s) {', '.join(missing)}: expected a class file (id,key,instances,category)",
            path,
            1,
        )
    classes: dict[str, list[str]] = {}
    problems: list[Problem] = []
    for row in reader:
        line = reader.line_num
        try:
            instances = ast.literal_eval(row["instances"] or "[]")
        except (SyntaxError, ValueError):
            instances = None
        if not isinstance(instances, list) or not all(isinstance(item, str) for item in instances):
            message = (
                f"instances: expected a list of words such as ['pan', 'pan:frying'], got {row['instances']!r}"
            )
            problems.append(Problem(Location(str(path), line), message))
            continue
        key = dataset_words(row["key"] or "")
        if not key:
            problems.append(Problem(Location(str(path), line), "key: expected the class's word"))
            continue
        words = [dataset_words(item) for item in instances]
        classes.setdefault(key, []).extend(word for word in words if word and word != key)
    if problems:
        raise InputError(problems)
    return classes
