"""The Grid Fighters rulings name real tests and cite the text they interpret."""

import re
from pathlib import Path

from test_docs import names_of_tests

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "docs" / "gridfighters" / "rulings.md"


def test_every_ruling_names_tests_that_exist_and_cites_the_rules():
    text = RULINGS.read_text()
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(sections) >= 15
    names = names_of_tests("test_gridfighters_*.py")
    for section in sections:
        title = section.splitlines()[0]
        assert re.search(r"\[(summary|setup|game play|clarification|update|procedure[^\]]*)\]", section), title
        named = set(re.findall(r"\b(test_\w+)\b(?!\.py)", section))
        goldens = re.findall(r"golden `([\w-]+)\.rec`", section)
        assert named or goldens, f"ruling {title} names no test"
        assert named <= names, f"ruling {title}: no such tests {sorted(named - names)}"
        for golden in goldens:
            assert (ROOT / "tests" / "records" / "gridfighters" / f"{golden}.rec").exists(), golden
