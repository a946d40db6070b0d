"""The report: a run's results as Markdown and HTML, what changed since the previous
run (and the gate), JUnit, measurements over nights, quarantine."""
