"""The bundles' commands: `repro` (reproducer bundles) and `run-bundle` (run them where
the device is). cli.py registers them."""

from __future__ import annotations

from pathlib import Path

from ..item import ItemId, run_item, settings_with
from ..refs import parse_ref
from .history import release_source_options, source_of

def add_parsers(sub) -> dict:
    rb = sub.add_parser("repro", help="write reproducer bundles (input, module, run.sh, ISSUE.md)")
    rb.add_argument("items", nargs="+", help="CASE::ITEM, or CASE for all its matrix items")
    rb.add_argument("--out", required=True, help="bundle folder (one subfolder per item if several)")
    rb.add_argument("--target", default=None, help="only these targets, e.g. cuda,vulkan")
    rb.add_argument("--iree-tools-dir", default=None)
    rb.add_argument("--release", default=None, help="use this IREE release (installed, cached)")
    rb.add_argument("--force", action="store_true",
                    help="replace --out even when it holds files a bundle does not write")
    release_source_options(rb)
    rr = sub.add_parser("run-bundle", help="run bundles' modules here and compare (runtime only)")
    rr.add_argument("bundles", nargs="+")
    rr.add_argument("--device", default=None, help="e.g. cuda://0 (default: the first listed)")
    rr.add_argument("--trust", action="store_true",
                    help="run the modules without the sandbox, with your rights, network and environment "
                         "(bundles you made yourself, or where no sandbox can be made)")
    rr.add_argument("--results", type=Path, default=None,
                    help="also write results.jsonl lines (verdicts by the cases' expectations), "
                         "to merge with the compile-only results of the run that made the bundles")
    return {"repro": cmd_repro, "run-bundle": cmd_run_bundle}


def cmd_repro(args) -> int:
    """One bundle per item: CASE::ITEM, or every matrix item of CASE."""
    from ..bundle.write import write_bundle
    from ..toolchain import resolve

    if args.release:
        from ..history.releases import ensure

        settings = settings_with(ensure(args.release, source_of(args)))
    else:
        settings = settings_with(resolve(args.iree_tools_dir))
    # A whole case means its matrix items (ir checks have no bundle; named alone, one says so).
    wanted = [(case, i) for case, item in map(parse_ref, args.items)
              for i in ([item] if item else [i for i in ItemId.of(case) if i.is_matrix])
              if not args.target or i.target in args.target.split(",")]
    written = 0
    for case, name in wanted:
        result = run_item(case, name, settings)
        # one item: --out is the bundle; several: one subfolder each
        out = Path(args.out) / f"{case.slug}--{name}" if len(wanted) > 1 else Path(args.out)
        try:
            write_bundle(case, result, settings, out, force=args.force)
        except ValueError as e:
            print(f"skip: {e}")
            continue
        written += 1
        print(f"{case.slug}::{name}: {result.outcome} -> {out} (run.sh, ISSUE.md)")
    return 0 if written else 1


def cmd_run_bundle(args) -> int:
    """A bundle's module is native code from wherever the bundle came from: the modules
    run in one sandbox (sandbox.SandboxShell: a read-only root, the GPU's device nodes
    bound in, no network, only a scratch folder writable), or here with --trust."""
    import contextlib
    import sys

    from ..bundle.run import BundleError, read_meta, run_bundle
    from ..sandbox import SandboxShell, probe, tool_env

    bundles = [Path(d) for d in args.bundles]
    try:
        for bundle in bundles:  # every bundle well-formed before any runs
            read_meta(bundle)
    except BundleError as e:
        print(f"run-bundle: {e}", file=sys.stderr)
        return 2
    sandbox = probe()
    if not (sandbox.bwrap or args.trust):
        print(f"run-bundle: modules run in a sandbox, and none can be made here ({sandbox.why}); a module "
              "would run with your rights, network and environment: pass --trust for bundles you trust",
              file=sys.stderr)
        return 2
    try:
        shell = None if args.trust else SandboxShell(sandbox, [b.resolve() for b in bundles], devices=True,
                                                     env=tool_env())
    except OSError as e:
        print(f"run-bundle: {e}; pass --trust for bundles you trust", file=sys.stderr)
        return 2
    with shell or contextlib.nullcontext() as runner:
        if args.results:
            from ..bundle.results import write_bundle_results

            return write_bundle_results(bundles, args.results, args.device, runner)
        status = 0
        for bundle in bundles:
            status = max(status, run_bundle(bundle, args.device, runner))
        return status
