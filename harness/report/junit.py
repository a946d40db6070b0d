"""JUnit XML from results records: one file for a run merged from shards (pytest writes
each shard's own; CI systems want one)."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from ..outcomes import SKIP, XFAIL
from ..record import ItemRecord


def write_junit(items: list[ItemRecord], path: Path, name: str = "iree-regress") -> Path:
    suite = ET.Element("testsuite", name=name, tests=str(len(items)))
    failures = skipped = errors = 0
    for r in items:
        case = ET.SubElement(suite, "testcase", classname=r.case, name=r.item,
                             time=f"{r.seconds:.3f}")
        if r.cell_state == "error":
            errors += 1
            ET.SubElement(case, "error", message=r.outcome).text = r.message
        elif r.is_failure:
            failures += 1
            ET.SubElement(case, "failure", message=f"{r.verdict}: {r.outcome}").text = \
                f"{r.message}\n{r.reproducer}"
        elif r.verdict in (SKIP, XFAIL):
            skipped += 1
            ET.SubElement(case, "skipped", message=f"{r.verdict}: {r.message}"[:500])
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    path.parent.mkdir(parents=True, exist_ok=True)
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return path
