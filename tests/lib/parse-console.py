#!/usr/bin/env python3
"""parse-console.py [--expect FILE] [--expect-kunit SUITE ...] [--no-tap STEP ...]
                    [--prefix P] [--dist FILE] [--allow-splat RE ...] LOG

Judge one guest run from its console log and print one TAP-style line
per result ("ok - ..." / "not ok - ..."):

  - every top-level KUnit suite (KTAP), and each --expect-kunit SUITE
    must be there;
  - every step of the guest's plan (GUEST-BEGIN/END) must end with rc=0,
    and every TAP result inside it ("ok N name", "ok - name", and the
    "not ok" forms) is reported (SKIPs as skipped);
  - the plan must have run at least one step, and every step must print
    at least one TAP result unless it is allowed not to ("STEP # NO-TAP"
    in the --expect list, or --no-tap STEP);
  - the guest must reach GUEST-DONE (no hang, no early death), every step
    it began must end, and it must print no "GUEST-ERROR" line;
  - no kernel splat: BUG (also a "kernel BUG at" whose Oops the console
    lost, and SLUB's "BUG <cache> (Not tainted)"), WARNING, Oops, KASAN,
    KFENCE, lockdep, RCU stall, hung task, soft lockup, panic, an OOM
    kill, an XFS shutdown, kmemleak's suspected leaks; --allow-splat RE
    lets through the reports RE matches (the OOM kills a memory cgroup
    test counts itself).

--expect FILE lists the results this boot must give, one a line:

    <step> <test name>          a TAP result of that plan step
    kunit <suite>               a top-level KUnit suite
    <step> # NO-TAP             a step that prints no TAP result
    ... # SKIP-OK               (after a result) it may SKIP
    ... # MUST-FAIL /RE/        (after a result) it must fail: a
                                negative control, a kernel built
                                without the patch the test is for; its
                                step must then exit non-zero too, and
                                the failure must say what RE (a Python
                                regular expression) matches, in its
                                result line or the lines its test
                                printed before it, so that a crash or
                                a failed setup is not taken for it

Lines starting with "#" are comments.  The run fails on a result listed
but missing, on a result not listed (extra), and on a SKIP not marked
SKIP-OK.  Measurements in test names are compared as "N" (names carry
them: "exec --size 64K: 96% ..." is "exec --size 64K: N% ..."), sizes
are not ("set 16K" is no "set 8K"), and a name listed twice must appear
twice.  tests/lib/expect-from-log.py writes such a list from a
good log.

The "# folio-dist" lines the tests print are copied to --dist FILE for
the folio size table.  Exit status: 0 if nothing failed.  The last line
is "N passed, N failed, N skipped".
"""
import argparse
import collections
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
# Kernel output that the console put after the guest's text on the same
# line ("GUEST-BEGIN memcg[    8.720758] TSC found unstable ..."): the
# guest's own newline comes after it.  Cut before the guest's lines are
# read (splats are looked for in the whole line).
KMSG_IN_LINE = re.compile(r'\[\s*\d+\.\d{6}\] .*$')
# Kernel reports.  Lockdep's start with "WARNING:" or "BUG:" (or "INFO:"
# below); a bare "lockdep" would match the debug kernel's boot banner
# ("RCU lockdep checking is enabled.").
SPLAT = re.compile(r'(BUG:|WARNING:|Oops|KASAN:|KFENCE:|UBSAN:|'
                   r'possible circular locking|INFO: lockdep is turned off|'
                   r'INFO: trying to register non-static key|'
                   r'turning off the locking correctness validator|'
                   r'detected stalls? on CPU|self-detected stall|'
                   r'blocked for more than \d+ seconds|'
                   r'Kernel panic|general protection fault|'
                   r'Unable to handle kernel|unreferenced object|'
                   # a console cut at the panic: no Oops line follows
                   r'kernel BUG at|'
                   # SLUB's debug checks: "BUG kmalloc-64 (Not tainted): ..."
                   r'BUG [^ ]+ \((?:Not tainted|Tainted: [^)]*)\)|'
                   # the OOM killer, global or in a memory cgroup
                   r'[Oo]ut of memory: Killed process|'
                   r'Shutting down filesystem|suspected memory leaks)')
# "ok 1 name", "ok 1 - name", "ok - name" (and "not ok"), with an
# optional "# SKIP why" directive.
TAP = re.compile(r'^(not ok|ok)(?: \d+(?: -)?| -) (.*?)'
                 r'(?:\s+#\s*(SKIP|skip|Skip)\b(.*))?$')
DIRECTIVE = re.compile(r'^(.*?)\s+#\s*(SKIP-OK|NO-TAP|MUST-FAIL)(?:\s+/(.*)/)?\s*$')


# A number, and a size unit written onto it ("64K", "2M", "1G").
NUMBER = re.compile(r'\d+(?:\.\d+)?([KMG](?![A-Za-z]))?')


def name_key(name):
    """What two test names are compared by: measurements as N, spaces
    folded.  A size ("64K", "2M": a number with its unit written onto it)
    names what was tested and is kept; "10240 kB" or "96%" is a
    measurement."""
    key = NUMBER.sub(lambda m: m.group(0) if m.group(1) else 'N', name)
    return ' '.join(key.split())


class Console:
    """What a console log says: results, steps, errors, splats."""

    def __init__(self, path):
        with open(path, errors='replace') as f:
            lines = [TS.sub('', l.rstrip('\r\n')) for l in f]
        # results: (where, name, status, why), where "kunit" or the
        # step, status "ok", "not ok" or "skip".
        self.results = []
        # For each result, the lines its step printed since the result
        # before it, its own line last: what a failure said.
        self.context = []
        pending = []
        self.begun = []             # steps in GUEST-BEGIN order
        self.steps = []             # (step, rc) from GUEST-END
        self.tap_steps = set()      # steps with at least one TAP result
        self.done = False
        self.splats = []
        self.errors = []
        self.dists = []
        step = None
        for line in lines:
            if SPLAT.search(line):
                self.splats.append(line)
            # (also after kernel output that the console put on the
            # same line)
            at = line.find('GUEST-ERROR')
            if at >= 0:
                self.errors.append(line[at + len('GUEST-ERROR'):].strip() or line)
                continue
            line = KMSG_IN_LINE.sub('', line).rstrip() if '[' in line else line
            if line.startswith('GUEST-BEGIN '):
                step = line.split(' ', 1)[1].strip()
                self.begun.append(step)
                pending = []
                continue
            if line.startswith('GUEST-END '):
                m = re.match(r'GUEST-END (\S+) rc=(\d+)', line)
                self.steps.append((m.group(1), int(m.group(2))) if m else (line, 1))
                step = None
                continue
            if line == 'GUEST-DONE':
                self.done = True
                continue
            if line.startswith('# folio-dist '):
                self.dists.append(line[len('# folio-dist '):])
            m = TAP.match(line)
            if not m:
                pending.append(line)
                continue
            ok, name, skip, why = m.group(1) == 'ok', m.group(2), m.group(3), m.group(4)
            status = 'skip' if skip and ok else 'ok' if ok else 'not ok'
            self.results.append((step or 'kunit', name.strip(), status,
                                 (why or '').strip()))
            self.context.append('\n'.join(pending[-200:] + [line]))
            pending = []
            if step is not None:
                self.tap_steps.add(step)


def read_expect(path):
    """The --expect list: ([(where, name, directive, pattern)], {no-TAP steps}, [errors])."""
    expected, no_tap, bad = [], set(), []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            directive = pattern = None
            m = DIRECTIVE.match(line)
            if m:
                line, directive = m.group(1).strip(), m.group(2)
                if m.group(3) is not None:
                    try:
                        pattern = re.compile(m.group(3))
                    except re.error as e:
                        bad.append(f'line {n}: bad pattern /{m.group(3)}/: {e}')
                        continue
            if directive == 'MUST-FAIL' and pattern is None:
                bad.append(f'line {n}: "# MUST-FAIL" needs /PATTERN/, what the failure must say')
                continue
            parts = line.split(None, 1)
            if directive == 'NO-TAP':
                if len(parts) != 1:
                    bad.append(f'line {n}: "STEP # NO-TAP" takes a step name only')
                else:
                    no_tap.add(parts[0])
            elif len(parts) != 2:
                bad.append(f'line {n}: want "<step> <test name>" or "kunit <suite>"')
            else:
                expected.append((parts[0], parts[1], directive, pattern))
    return expected, no_tap, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--expect', help='the list of expected results')
    ap.add_argument('--expect-kunit', action='append', default=[])
    ap.add_argument('--no-tap', action='append', default=[],
                    help='a plan step allowed to print no TAP result')
    ap.add_argument('--prefix', default='')
    ap.add_argument('--dist')
    ap.add_argument('--allow-splat', action='append', default=[], metavar='RE',
                    help='kernel reports this boot may print (an OOM kill where '
                    'the test counts them)')
    args = ap.parse_args()

    counts = {'passed': 0, 'failed': 0, 'skipped': 0}
    pre = args.prefix + ': ' if args.prefix else ''

    def report(ok, what, skip=None):
        if skip is not None:
            counts['skipped'] += 1
            print(f'ok - {pre}{what} # SKIP {skip}'.rstrip())
        elif ok:
            counts['passed'] += 1
            print(f'ok - {pre}{what}')
        else:
            counts['failed'] += 1
            print(f'not ok - {pre}{what}')

    con = Console(args.log)
    no_tap = set(args.no_tap)
    expected = None
    if args.expect:
        try:
            expected, more_no_tap, bad = read_expect(args.expect)
        except OSError as e:
            report(False, f'expected-results list {args.expect}: {e.strerror}')
            expected, more_no_tap, bad = [], set(), []
        no_tap |= more_no_tap
        for b in bad:
            report(False, f'expected-results list {args.expect}: {b}')
    skip_ok, must_fail = {}, {}
    if expected is not None:
        for where, name, directive, pattern in expected:
            k = (where, name_key(name))
            skip_ok[k] = skip_ok.get(k, False) or directive == 'SKIP-OK'
            if directive == 'MUST-FAIL':
                must_fail[k] = pattern
    fail_steps = {w for w, _ in must_fail}

    for (where, name, status, why), said in zip(con.results, con.context):
        what = f'{where} {name}'
        if (where, name_key(name)) in must_fail:
            pattern = must_fail[(where, name_key(name))]
            if status != 'not ok':
                report(False, f'{what} must fail here, but gave "{status}"')
            elif not pattern.search(said):
                report(False, f'{what} failed, but not as it must: nothing matches '
                       f'/{pattern.pattern}/')
                for s in said.splitlines()[-5:]:
                    print(f'#   {s}')
            else:
                report(True, f'{what} fails, as it must here '
                       f'(/{pattern.pattern}/)')
        elif status == 'skip' and expected is not None and \
                not skip_ok.get((where, name_key(name))):
            report(False, f'{what} skipped ({why or "no reason given"}), '
                   'not allowed to (no SKIP-OK in the expected list)')
        else:
            report(status != 'not ok', what, why if status == 'skip' else None)

    kunit = {name for where, name, _, _ in con.results if where == 'kunit'}
    for suite in args.expect_kunit:
        if suite not in kunit:
            report(False, f'kunit {suite} did not run')

    if expected is not None:
        want = collections.Counter((w, name_key(n)) for w, n, _, _ in expected)
        got = collections.Counter((w, name_key(n)) for w, n, _, _ in con.results)
        names = {}
        for w, n, _, _ in expected:
            names.setdefault((w, name_key(n)), n)
        ran = {s for s, _ in con.steps} | set(con.begun)
        bad = 0
        for k, c in want.items():
            if got[k] < c:
                bad += 1
                more = f' ({c - got[k]} of {c})' if c > 1 else ''
                report(False, f'expected {k[0]} {names[k]} is missing{more}')
        extra = want.copy()
        for w, n, _, _ in con.results:
            k = (w, name_key(n))
            if extra[k] > 0:
                extra[k] -= 1
            else:
                bad += 1
                report(False, f'{w} {n} is not in the expected list (extra)')
        for s in sorted(more_no_tap - ran):
            bad += 1
            report(False, f'expected step {s} (NO-TAP) did not run')
        if not bad:
            report(True, f'results as expected ({sum(want.values())} listed, '
                   f'{len(more_no_tap)} steps without TAP)')

    for msg in con.errors:
        report(False, f'guest error: {msg}')
    if not con.begun:
        report(False, 'guest plan ran at least one step')
    ended = {s for s, _ in con.steps}
    for s in con.begun:
        if s not in ended:
            report(False, f'step {s} did not finish')
    for name, rc in con.steps:
        if name in fail_steps:
            report(rc != 0, f'step {name} exited {rc} (it has results that must fail)')
        else:
            report(rc == 0, f'step {name} exited {rc}')
        if name not in con.tap_steps and name not in no_tap:
            report(False, f'step {name} printed no TAP result (allow it with '
                   f'"{name} # NO-TAP" in the expected list)')
    report(con.done, 'guest ran its whole plan and powered off')
    allowed = [re.compile(a) for a in args.allow_splat]
    con.splats = [s for s in con.splats if not any(a.search(s) for a in allowed)]
    report(not con.splats, 'no kernel warnings or oopses')
    for s in con.splats[:20]:
        print(f'#   {s}')
    if args.dist:
        with open(args.dist, 'a') as f:
            f.writelines(f'{args.prefix or "guest"} {d}\n' for d in con.dists)
    print(f"{counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped")
    return 1 if counts['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
