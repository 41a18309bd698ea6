"""The documents point at real tests and real files."""

import re
from pathlib import Path

from recipe import blocks, settings

ROOT = Path(__file__).resolve().parent.parent


def names_of_tests(pattern: str = "test_*.py") -> set[str]:
    """The names of the tests in the test files ``pattern`` matches."""
    names = set()
    for path in (ROOT / "tests").glob(pattern):
        names |= set(re.findall(r"^(?:async )?def (test_\w+)", path.read_text(), re.M))
    return names


def test_every_ruling_names_tests_that_exist():
    text = (ROOT / "docs" / "rulings.md").read_text()
    named = set(re.findall(r"\b(test_\w+)\b(?!\.py)", text))
    assert named, "docs/rulings.md names no tests"
    missing = sorted(named - names_of_tests())
    assert not missing, f"docs/rulings.md names tests that do not exist: {missing}"


def test_every_ruling_cites_a_clause():
    text = (ROOT / "docs" / "rulings.md").read_text()
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(sections) >= 5
    for section in sections:
        assert re.search(r"\[\d+(\.\d+)*\]", section), section.splitlines()[0]


def test_readme_quick_start_commands_exist_and_ci_runs_the_test_command():
    readme = (ROOT / "README").read_text()
    commands = re.findall(r"^    (scripts/\S+)", readme, re.M)
    assert commands[:2] == ["scripts/serve", "scripts/test"]
    for command in commands[:2]:
        assert (ROOT / command).stat().st_mode & 0o111
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^scripts/test$", ci, re.M)


def test_the_operators_recipe_uses_only_the_names_its_settings_set():
    """Every variable a block of docs/operations.md's recipe uses is one of
    its settings (or set by the recipe itself), so that the settings block
    is the one place an operator adapts; and every block is for a set-up."""
    found = blocks()
    known = set(settings(found))
    assigned = {name for block in found for name in re.findall(r"^([a-z_]+)=", block.code, re.M)}
    used = {name for block in found[1:] for name in re.findall(r"\$\{?([A-Za-z_]\w*)", block.code)}
    assert used and used <= known | assigned, sorted(used - known - assigned)
    assert {"lmtp", "imap"} <= set().union(*(block.tags for block in found))
    assert all(block.tags <= {"settings", "packages", "lmtp", "imap"} for block in found)


def _headings(path: Path, level: str = "#+") -> list[str]:
    """The headings of ``path`` at ``level``; at every level, the run-in
    titles of paragraphs (``**Calendar events.** Each mail...``) too."""
    text = path.read_text()
    runs = re.findall(r"^\*\*([^*]+?)\.\*\*", text, re.M) if level == "#+" else []
    return re.findall(rf"^{level} (.+?)\s*$", text, re.M) + runs


def test_each_documents_sections_are_unique_and_every_section_it_names_exists():
    """A reader sent to `see "Time and settings"` (or to docs/playing.md's
    "Absence") finds exactly one section of that name: two sections of one
    name, or a name no section has, leave the reader to guess."""
    documents = [ROOT / "README", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in documents:
        sections = _headings(path, "##")
        repeated = sorted({h for h in sections if sections.count(h) > 1})
        assert not repeated, f"{path.relative_to(ROOT)} has two sections of one name: {repeated}"
    for path in documents:
        text = " ".join(path.read_text().split())
        for target, name in re.findall(r"(?:(docs/[\w/]+\.md)(?:'s|,) |\bsee )\"([^\"]+)\"", text):
            named = ROOT / target if target else path
            found = [h for h in _headings(named) if h.startswith(name)]
            assert len(found) == 1, \
                f"{path.relative_to(ROOT)} names a section {name!r}: {named.relative_to(ROOT)} has {found or 'none'}"
