"""Release history of a case's bug: releases installed side by side (releases), the
pure search (bisect), one probe judged by the bug (probe), windows read from a scan of
every release and written back to the case (window), and `prove` (prove)."""
