"""The command line's wings: each module registers its commands' parsers and handlers
(cli.py gathers them). They parse and print; the work is the wings' (history/, triage/,
sweep/). They sit above every wing because a command takes any item: a case's or a
sweep variant's (refs.py)."""
