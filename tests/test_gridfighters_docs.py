"""The Grid Fighters rulings name real tests and cite the text they interpret."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "docs" / "gridfighters" / "rulings.md"


def _test_names() -> set[str]:
    names = set()
    for path in (ROOT / "tests").glob("test_gridfighters_*.py"):
        names |= set(re.findall(r"^def (test_\w+)", path.read_text(), re.M))
    return names


def test_every_ruling_names_tests_that_exist_and_cites_the_rules():
    text = RULINGS.read_text()
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(sections) >= 15
    names = _test_names()
    for section in sections:
        title = section.splitlines()[0]
        assert re.search(r"\[(summary|setup|game play|clarification|update|procedure[^\]]*)\]", section), title
        named = set(re.findall(r"\b(test_\w+)\b(?!\.py)", section))
        goldens = re.findall(r"golden `([\w-]+)\.rec`", section)
        assert named or goldens, f"ruling {title} names no test"
        assert named <= names, f"ruling {title}: no such tests {sorted(named - names)}"
        for golden in goldens:
            assert (ROOT / "tests" / "records" / "gridfighters" / f"{golden}.rec").exists(), golden
