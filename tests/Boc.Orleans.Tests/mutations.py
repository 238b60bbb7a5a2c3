#!/usr/bin/env python3
# The mutation list of distributed Boc (docs/distributed.md, "How it is tested"): each entry undoes one fix of the
# protocol in src/Boc.Orleans, and names the tests that must then fail. The script applies one mutation at a time,
# builds the test project, runs the named tests, restores the source (always), and reports whether they failed.
#
#   python3 tests/Boc.Orleans.Tests/mutations.py            every mutation
#   python3 tests/Boc.Orleans.Tests/mutations.py NAME ...   the named ones
#
# Run it from the repository root on a clean work tree; it exits non-zero if any mutation survives (its tests passed).
import subprocess
import sys

SRC = "src/Boc.Orleans/"
UNIT = "tests/Boc.Orleans.Tests"
PROCESS = "tests/Boc.Orleans.FaultTests"

MUTATIONS = [
    dict(
        name="committed-before-durable",
        why="the coordinator answers Committed when its commit write starts, not when it lands",
        file="Grains/CownGrain.Durable.cs",
        find="            writeBack.Committing = true;\n",
        replace="            writeBack.Committing = true;\n            writeBack.Outcome.TrySetResult(Decision.Committed);\n",
        project=UNIT,
        tests=["CommitFaultTests.A_commit_write_that_stalls_and_fails_while_its_spawner_dies"],
    ),
    dict(
        name="vote-before-prepared",
        why="a participant votes yes before its prepare is in storage",
        file="Grains/CownGrain.Commit.cs",
        find="        _ = WriteQuietlyAsync();\n        return Task.CompletedTask;\n    }\n\n    public Task ReadDone",
        replace="        writeBack.Durable = true;\n        Advance();\n        _ = WriteQuietlyAsync();\n        return Task.CompletedTask;\n    }\n\n    public Task ReadDone",
        project=UNIT,
        tests=["CommitFaultTests.A_prepare_write_that_fails"],
    ),
    dict(
        name="vote-before-dependencies",
        why="a participant votes as soon as its prepare is in storage, whatever is undecided before it",
        file="Grains/CownGrain.Chain.cs",
        find="writeBack.Coordinator != coordinator || !writeBack.Durable)\n            {\n                return;\n            }",
        replace="!writeBack.Durable)\n            {\n                continue;\n            }",
        project=UNIT,
        tests=["DependencyFaultTests.A_behaviour_that_ran_on_a_write_back_whose_commit_failed"],
    ),
    dict(
        name="no-cascade",
        why="an aborted write-back is dropped alone: what ran on its state stays, and so do its grants",
        file="Grains/CownGrain.Chain.cs",
        find="            WriteBack<T> dropped = _chain[i];\n",
        replace="            WriteBack<T> dropped = _chain[i];\n            if (dropped != writeBack)\n            {\n                continue;\n            }\n\n",
        project=UNIT,
        tests=["DependencyFaultTests.A_behaviour_that_ran_on_a_write_back_whose_commit_failed"],
    ),
    dict(
        name="no-read-validation",
        why="a read is validated without waiting for the write-backs it depended on",
        file="Grains/CownGrain.Chain.cs",
        find="        if (Settled(readSeq))\n",
        replace="        if (Settled(readSeq) || readSeq >= 0)\n",
        project=UNIT,
        tests=["CommitFaultTests.A_commit_write_that_stalls_and_fails_while_its_spawner_dies", "DependencyFaultTests.A_body_that_throws"],
    ),
    dict(
        name="exception-unvalidated",
        why="a body's exception is reported without checking that the states it saw count",
        file="BocCluster.Run.cs",
        find="                if (!Array.TrueForAll(released, r => r == ReleaseReply.Released))",
        replace="                if (released.Length < 0)",
        project=UNIT,
        tests=["DependencyFaultTests.A_body_that_throws"],
    ),
    dict(
        name="applied-before-durable",
        why="a participant tells its coordinator it applied before its apply is in storage",
        file="Grains/CownGrain.Chain.cs",
        find="            await NextWriteAsync().ConfigureAwait(true);\n",
        replace="            GrainFactory.GetGrain<ICownPeer>(writeBack.Coordinator).Applied(writeBack.Behaviour, Self).Ignore();\n            await NextWriteAsync().ConfigureAwait(true);\n",
        project=UNIT,
        tests=["CommitFaultTests.An_apply_write_that_fails"],
    ),
    dict(
        name="no-activation-fence",
        why="a new activation does not write before it answers (fence 1)",
        file="Grains/CownGrain.cs",
        find="        _bumpEpoch = true;\n        await WriteAsync().ConfigureAwait(true);\n",
        replace="",
        project=UNIT,
        tests=["ActivationFenceTests"],
    ),
    dict(
        name="abort-while-committing",
        why="a coordinator's write-back past its deadline is aborted even while its commit write is in flight",
        file="Grains/CownGrain.Recovery.cs",
        find="_chain.Find(w => w.Own && !w.Committing && w.Waiting.Count > 0 && w.Deadline < now)",
        replace="_chain.Find(w => w.Own && w.Deadline < now)",
        project=UNIT,
        tests=["CommitFaultTests.A_commit_write_that_stalls_and_lands_while_its_spawner_is_dead"],
    ),
    dict(
        name="no-keep-alive",
        why="a cown holding requests or write-backs may be collected as idle",
        edits=[
            ("Grains/CownGrain.cs", "        // A held or queued request keeps the activation: its loss would cost the spawner an attempt.\n        DelayDeactivation(2 * _options.LeaseDuration);\n", ""),
            ("Grains/CownGrain.Commit.cs", "        Remove(request);\n        DelayDeactivation(2 * _options.LeaseDuration);\n", "        Remove(request);\n"),
            ("Grains/CownGrain.Commit.cs", "            Remove(request);\n            DelayDeactivation(2 * _options.LeaseDuration);\n", "            Remove(request);\n"),
        ],
        project=UNIT,
        tests=["ReadGrantTests"],
    ),
    dict(
        name="sequential-renewals",
        why="a spawner renews its leases one cown after the other, each waiting for its answer",
        file="LeaseRenewer.cs",
        find="            await Task.WhenAll(_entries.Take(Enqueued).Select(RenewAsync)).ConfigureAwait(true);",
        replace="            foreach (CownEntry entry in _entries.Take(Enqueued).ToList())\n            {\n                await entry.Renew(_behaviour).ConfigureAwait(true);\n            }",
        project=UNIT,
        tests=["LeaseRenewerTests"],
    ),
    dict(
        name="no-self-wait-check",
        why="a spawn that would wait for a body it runs inside is sent",
        file="SpawnPlan.cs",
        find="        HeldCowns.ThrowIfHeld(entries);\n",
        replace="",
        project=UNIT,
        tests=["SelfWaitTests"],
    ),
    dict(
        name="no-duplicate-check",
        why="a behaviour with a key that already committed at its coordinator runs again",
        file="Grains/CownGrain.Commit.cs",
        find="                return Decision.Duplicate;",
        replace="                idempotencyKey = null;",
        project=UNIT,
        tests=["IdempotencyTests.A_second_spawn_with_a_committed_key"],
    ),
    dict(
        name="no-key-hold",
        why="the coordinator forgets a live call's key between its attempts",
        file="Grains/CownGrain.Keys.cs",
        find="    private void HoldKey(string key) => _keyHolds[key] = Environment.TickCount64 + LeaseMilliseconds;",
        replace="    private void HoldKey(string key) => _keyHolds.Remove(key);",
        project=UNIT,
        tests=["IdempotencyTests.A_lookup_between_the_attempts"],
    ),
    dict(
        name="no-key-hold-nor-fence",
        why="neither fix of the lookup (the bug as reported), against the process scenario: a paused participant, a lookup in another process that reissues on NotCommitted",
        edits=[
            ("Grains/CownGrain.Keys.cs", "    private void HoldKey(string key) => _keyHolds[key] = Environment.TickCount64 + LeaseMilliseconds;", "    private void HoldKey(string key) => _keyHolds.Remove(key);"),
            ("Grains/CownGrain.Keys.cs", "    private bool IsFenced(string key) => _fencing.Contains(key) || Array.IndexOf(_durable.Fences, key) >= 0;", "    private bool IsFenced(string key) => _fencing.Count < 0 && key.Length > 0;"),
        ],
        project=PROCESS,
        tests=["ExactlyOnceTests.A_lookup_never_answers_NotCommitted"],
    ),
    dict(
        name="no-key-fence",
        why="a lookup that answers NotCommitted does not fence the key",
        file="Grains/CownGrain.Keys.cs",
        find="    private bool IsFenced(string key) => _fencing.Contains(key) || Array.IndexOf(_durable.Fences, key) >= 0;",
        replace="    private bool IsFenced(string key) => _fencing.Count < 0 && key.Length > 0;",
        project=UNIT,
        tests=["IdempotencyTests.A_NotCommitted_answer_fences_the_key"],
    ),
    dict(
        name="wall-clock-retention",
        why="a record's retention is judged by the wall clock against its stamped commit time",
        file="Grains/CownGrain.Durable.cs",
        find="now - _recordLearned.GetValueOrDefault(c.Behaviour, now) > retention));",
        replace="c.CommittedUtc < _clock.UtcNow - _options.CommitRecordRetention));",
        project=PROCESS,
        tests=["ExactlyOnceTests.A_keyed_deposit_stays_a_duplicate"],
    ),
]


def run(args, timeout=None):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def main(names):
    chosen = [m for m in MUTATIONS if not names or m["name"] in names]
    survived = []
    for m in chosen:
        edits = m.get("edits") or [(m["file"], m["find"], m["replace"])]
        originals = {SRC + f: open(SRC + f).read() for f, _, _ in edits}
        mutated = dict(originals)
        missing = [find for f, find, _ in edits if mutated[SRC + f].count(find) != 1]
        if missing:
            print(f"{m['name']}: a text to mutate is not found exactly once: {missing[0]!r}")
            survived.append(m["name"])
            continue

        for f, find, replace in edits:
            mutated[SRC + f] = mutated[SRC + f].replace(find, replace)

        try:
            for path, text in mutated.items():
                open(path, "w").write(text)
            build = run(["dotnet", "build", m["project"], "-c", "Release"])
            if build.returncode != 0:
                print(f"{m['name']}: the mutant does not build\n{build.stdout[-2000:]}")
                survived.append(m["name"])
                continue

            filter = "|".join(f"FullyQualifiedName~{t}" for t in m["tests"])
            # The tests bound their own waits; this bound only keeps a hung mutant from stopping the run.
            try:
                killed = run(["dotnet", "test", m["project"], "-c", "Release", "--no-build", "--filter", filter], timeout=1800).returncode != 0
            except subprocess.TimeoutExpired:
                killed = True
            print(f"{m['name']}: {'killed' if killed else 'SURVIVED'} ({m['why']})")
            if not killed:
                survived.append(m["name"])
        finally:
            for path, text in originals.items():
                open(path, "w").write(text)

    # Leave the build matching the restored source.
    for project in sorted({m["project"] for m in chosen}):
        run(["dotnet", "build", project, "-c", "Release"])
    print(f"{len(chosen) - len(survived)} of {len(chosen)} mutations killed" + (f"; survived: {', '.join(survived)}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
