#!/usr/bin/env python3
"""CPU test of scripts/peer-compare.py on fabricated process folders in the host's real results.json format: rows
copied from a committed run (results/2026-12-02-h200-s11, `host all --compare` with nvcc's twin), their compared
ratios and checks rewritten per process. Run: python3 scripts/peer_compare_test.py
"""
import copy
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUN = os.path.join(ROOT, "results", "2026-12-02-h200-s11", "results.json")

spec = importlib.util.spec_from_file_location("peer_compare", os.path.join(HERE, "peer-compare.py"))
pc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pc)


def committed():
    with open(RUN) as f:
        return json.load(f)


def row(doc, experiment, ilp, warps):
    """A committed row of the experiment's main line at (ilp, warps), deep-copied."""
    for r in doc[experiment]["rows"]:
        if r["ilp"] == ilp and r["warps_per_sm"] == warps and pc.EXPERIMENTS[experiment].match(r["entry"]):
            return copy.deepcopy(r)
    raise AssertionError(f"no committed {experiment} row at ILP {ilp}, {warps} warps/SM")


def write_run(out, name, doc, experiment, rows):
    """One process folder: the committed document's header and the experiment's section with `rows` alone."""
    run = {k: doc[k] for k in ("schema_version", "meta", "device")}
    section = copy.deepcopy(doc[experiment])
    section["rows"] = rows
    run[experiment] = section
    os.makedirs(os.path.join(out, name))
    with open(os.path.join(out, name, "results.json"), "w") as f:
        json.dump(run, f)


class PeerCompare(unittest.TestCase):
    def setUp(self):
        self.doc = committed()
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def fabricate(self, experiment, ratios, failed=()):
        """Process folders of `experiment`: ratios[(ilp, warps)] = (ours ratios, control ratios), one per process;
        `failed` names (side, process, ilp, warps) whose compared check fails."""
        n = max(len(v[s]) for v in ratios.values() for s in (0, 1))
        for side_index, side in enumerate(("ours", "control")):
            for i in range(n):
                rows = []
                for (ilp, warps), sides in ratios.items():
                    if i >= len(sides[side_index]):
                        continue
                    r = row(self.doc, experiment, ilp, warps)
                    r["compare"]["ratio"] = sides[side_index][i]
                    if (side, i, ilp, warps) in failed:
                        r["compare"]["check"]["passed"] = False
                    rows.append(r)
                write_run(self.out, f"{experiment}-{side}-{i + 1}", self.doc, experiment, rows)

    def judged(self, experiment):
        points, read, unreadable = pc.collect(self.out)
        self.assertEqual(unreadable, [])
        return {k[1:]: pc.judge(p, 0.99, 0.01) for k, p in points.items() if k[0] == experiment}, read

    def test_the_committed_rows_carry_what_the_parser_reads(self):
        r = row(self.doc, "mma", 1, 64)
        self.assertEqual(r["entry"], "mma_bf16_ilp1")
        self.assertAlmostEqual(r["compare"]["ratio"], r["tflops"] / r["compare"]["throughput"], places=9)
        self.assertTrue(r["check"]["passed"] and r["compare"]["check"]["passed"])
        r = row(self.doc, "ilp", 4, 8)
        self.assertAlmostEqual(r["compare"]["ratio"], r["gflops"] / r["compare"]["throughput"], places=9)

    def test_each_verdict(self):
        self.fabricate("mma", {
            (1, 64): ([0.995, 1.002, 0.999], [0.999, 1.001, 1.000]),  # meets, unimodal
            (1, 16): ([0.90, 0.91, 0.89], [1.0, 0.999, 1.001]),  # unimodal, misses
            (2, 5): ([0.95, 0.99, 0.93], [0.95, 1.0, 1.04]),  # the control shows modes: reported
            (4, 1): ([0.999, 1.0], [1.0, 1.0]),  # two processes: not judged
            (8, 16): ([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]),  # a failed check: not judged
        }, failed={("control", 1, 8, 16)})
        j, read = self.judged("mma")
        self.assertEqual(read[("mma", "ours")], [1, 2, 3])
        self.assertEqual(j[(1, 64)]["verdict"], "meets")
        self.assertEqual(j[(1, 64)]["median"], 0.999)
        self.assertFalse(j[(1, 64)]["multimodal"])
        self.assertEqual(j[(1, 16)]["verdict"], "MISSES")
        self.assertEqual((j[(1, 16)]["median"], j[(1, 16)]["meets"]), (0.90, False))
        self.assertEqual(j[(2, 5)]["verdict"], "reported")
        self.assertEqual((j[(2, 5)]["low"], j[(2, 5)]["high"], j[(2, 5)]["multimodal"]), (0.95, 1.04, True))
        self.assertEqual(j[(4, 1)]["verdict"], "incomplete")
        self.assertEqual(j[(8, 16)]["verdict"], "incomplete")

    def test_a_multimodal_point_that_meets_the_target_meets_it(self):
        self.fabricate("ilp", {(1, 5): ([0.995, 0.999, 1.01], [0.97, 1.0, 1.0])})
        j, _ = self.judged("ilp")
        self.assertEqual((j[(1, 5)]["verdict"], j[(1, 5)]["multimodal"]), ("meets", True))

    def test_the_report_names_each_point_and_the_summary_counts_them(self):
        self.fabricate("mma", {(1, 64): ([0.995, 1.002, 0.999], [0.999, 1.001, 1.0]),
                               (1, 16): ([0.90, 0.91, 0.89], [1.0, 0.999, 1.001])})
        self.fabricate("ilp", {(2, 6): ([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])})
        buf = io.StringIO()
        with redirect_stdout(buf):
            self.assertEqual(pc.main([self.out]), 0)
        text = buf.getvalue()
        self.assertIn("| 1 | 64 | 0.999 | 0.995 1.002 0.999 | 0.999 | 1.001 | unimodal | yes | meets |", text)
        self.assertIn("| 1 | 16 | 0.900 | 0.900 0.910 0.890 | 0.999 | 1.001 | unimodal | no | MISSES |", text)
        self.assertIn("mma: 2 points, 1 meet 0.99; 1 unimodal and below it (to fix): ILP 1 at 16", text)
        self.assertIn("ilp: 1 points, 1 meet 0.99", text)

    def test_an_empty_or_absent_folder_is_refused(self):
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            self.assertEqual(pc.main([self.out]), 2)
            self.assertEqual(pc.main([os.path.join(self.out, "absent")]), 2)

    def test_a_folder_without_results_is_named(self):
        self.fabricate("mma", {(1, 64): ([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])})
        os.makedirs(os.path.join(self.out, "mma-ours-4"))
        points, _, unreadable = pc.collect(self.out)
        self.assertEqual(len(unreadable), 1)
        self.assertIn("mma-ours-4", unreadable[0])
        self.assertEqual(len(points), 1)


# A stand-in for the host binary: writes the argv it was given and, into --out, a results.json of one committed row of
# the experiment it was asked for, its ratio 1.0.
FAKE_HOST = """#!/usr/bin/env python3
import copy, json, os, sys
if sys.argv[1:] == ["--version"]:
    print("host fake"); sys.exit(0)
args = sys.argv[1:]
out = args[args.index("--out") + 1]
doc = json.load(open(%(run)r))
exp = args[0]
row = copy.deepcopy(next(r for r in doc[exp]["rows"] if r.get("compare") and r["entry"].startswith(("mma_", "fma_"))))
row["compare"]["ratio"] = 1.0
section = copy.deepcopy(doc[exp]); section["rows"] = [row]
os.makedirs(out)
json.dump({"schema_version": doc["schema_version"], "meta": doc["meta"], exp: section}, open(os.path.join(out, "results.json"), "w"))
open(os.path.join(out, "argv.txt"), "w").write(" ".join(args))
"""


class PeerCompareScript(unittest.TestCase):
    """scripts/peer-compare.sh with a stand-in host: the commands it runs, the folders it writes."""

    def test_it_runs_ours_and_the_control_n_times_each_with_the_flags_the_peer_needs(self):
        with tempfile.TemporaryDirectory() as tmp:
            host = os.path.join(tmp, "host")
            with open(host, "w") as f:
                f.write(FAKE_HOST % {"run": RUN})
            os.chmod(host, 0o755)
            peer = os.path.join(tmp, "peer")
            os.makedirs(peer)
            open(os.path.join(peer, "peer.cubin"), "w").close()
            out = os.path.join(tmp, "out")
            done = subprocess.run(["bash", os.path.join(HERE, "peer-compare.sh"), host, peer, out, "3", "--",
                                   "--warps-per-sm", "1,64"], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            cubin = os.path.join(peer, "peer.cubin")
            for exp, own in (("mma", "--no-wgmma"), ("ilp", "--controls none")):
                for i in (1, 2, 3):
                    for side, modules in (("ours", f"--compare {cubin} --compare-label peer"),
                                          ("control", f"--module {cubin} --compare {cubin} --compare-label peer")):
                        folder = os.path.join(out, f"{exp}-{side}-{i}")
                        with open(os.path.join(folder, "argv.txt")) as f:
                            argv = f.read()
                        self.assertEqual(argv, f"{exp} {own} {modules} --out {folder} "
                                               "--warps-per-sm 1,64")
                        with open(os.path.join(out, "logs", f"{exp}-{side}-{i}.log")) as f:
                            self.assertTrue(f.read().endswith("rc=0\n"))
            buf = io.StringIO()
            with redirect_stdout(buf):
                self.assertEqual(pc.main([out]), 0)
            self.assertIn("over 3 processes, peer/peer control over 3", buf.getvalue())

    def test_it_refuses_a_missing_peer(self):
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(["bash", os.path.join(HERE, "peer-compare.sh"), sys.executable, tmp,
                                   os.path.join(tmp, "out")], capture_output=True, text=True)
            self.assertEqual(done.returncode, 2)
            self.assertIn("no " + os.path.join(tmp, "peer.cubin"), done.stderr)


if __name__ == "__main__":
    unittest.main()
