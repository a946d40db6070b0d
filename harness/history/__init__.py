"""Release history of a case's bug: releases installed side by side (releases), the
pure search (bisect), one probe judged by the bug (probe), windows read from a scan of
every release (window) with the bug's measured message (message), the scan written back
into the case (writeback), and `prove` (prove)."""
